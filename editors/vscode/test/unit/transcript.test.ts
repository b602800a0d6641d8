// Unit tests of the chat's transcript: streamed answers, tool calls with
// their output and exit codes, asks, notices, storage bounds.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { AskEntry, NoticeEntry, TextEntry, ToolEntry } from '../../src/chat/entries';
import { exitCode, maxStoredOutput, Transcript, usageText } from '../../src/chat/transcript';

const turn = { session_id: 's1', turn_id: 's1-t1' };

test('Transcript: text_delta streams into one answer that the step\'s text completes', () => {
  const t = new Transcript();
  t.addUser('Hi', 'a.txt:1');
  const [a] = t.onEvent({ ...turn, type: 'text_delta', text: 'Hel' }) as TextEntry[];
  assert.equal(a.kind, 'assistant');
  assert.equal(a.streaming, true);
  const [b] = t.onEvent({ ...turn, type: 'text_delta', text: 'lo' }) as TextEntry[];
  assert.equal(b.id, a.id);
  assert.equal(b.text, 'Hello');
  const [c] = t.onEvent({ ...turn, type: 'text', text: 'Hello.\n\n- one\n- two' }) as TextEntry[];
  assert.equal(c.id, a.id);
  assert.equal(c.streaming, false);
  assert.equal(c.text, 'Hello.\n\n- one\n- two');
  // The next step's text is a new entry.
  t.onEvent({ ...turn, type: 'tool_call', id: 'call_1', name: 'view', title: 'view a.txt' });
  const [d] = t.onEvent({ ...turn, type: 'text_delta', text: 'Next' }) as TextEntry[];
  assert.notEqual(d.id, a.id);
  assert.deepEqual(t.entries.map((e) => e.kind), ['user', 'assistant', 'tool', 'assistant']);
});

test('Transcript: a text without deltas is one entry; blank text none', () => {
  const t = new Transcript();
  assert.equal(t.onEvent({ ...turn, type: 'text', text: '  ' }).length, 0);
  assert.equal(t.onEvent({ ...turn, type: 'text', text: 'Done.' }).length, 1);
});

test('Transcript: tool calls keep their whole output, diff and exit code; failures are marked', () => {
  const t = new Transcript();
  t.onEvent({ ...turn, type: 'tool_call', id: 'call_1', name: 'bash', title: 'bash nosuch', input: { command: 'nosuch' } });
  t.onEvent({ ...turn, type: 'permission', id: 'call_1', tool: 'bash', decision: 'allow', source: 'user' });
  const out = '<stderr>\nnosuch: command not found\n</stderr>\nExit code: 127';
  const [bash] = t.onEvent({ ...turn, type: 'tool_result', id: 'call_1', name: 'bash', is_error: false, content: out }) as ToolEntry[];
  assert.equal(bash.status, 'failed', 'exit 127 is a failure even when is_error is false');
  assert.equal(bash.exitCode, 127);
  assert.equal(bash.output, out);
  assert.equal(bash.permission, 'allowed (user)');
  assert.match(bash.input ?? '', /"command": "nosuch"/);

  t.onEvent({ ...turn, type: 'tool_call', id: 'call_2', name: 'edit', title: 'edit a.txt' });
  const [edit] = t.onEvent({ ...turn, type: 'tool_result', id: 'call_2', name: 'edit', is_error: false, content: 'edited', diff: '-a\n+b\n' }) as ToolEntry[];
  assert.equal(edit.status, 'ok');
  assert.equal(edit.diff, '-a\n+b\n');
  assert.equal(edit.exitCode, undefined);

  t.onEvent({ ...turn, type: 'tool_call', id: 'call_3', name: 'edit', title: 'edit b.txt' });
  t.onEvent({ ...turn, type: 'tool_call', id: 'call_4', name: 'edit', title: 'edit c.txt' });
  // The permission event names its call by id: the first of two running edits.
  const [denied] = t.onEvent({ ...turn, type: 'permission', id: 'call_3', tool: 'edit', decision: 'deny', source: 'user' }) as ToolEntry[];
  assert.equal(denied.callId, 'call_3');
  assert.equal(denied.status, 'denied');
  t.onEvent({ ...turn, type: 'tool_result', id: 'call_3', name: 'edit', is_error: true, content: 'permission denied' });
  assert.equal((t.get(denied.id) as ToolEntry).status, 'denied');
});

test('Transcript: the turn end stops what still runs and says why', () => {
  const t = new Transcript();
  t.onEvent({ ...turn, type: 'text_delta', text: 'Work' });
  t.onEvent({ ...turn, type: 'tool_call', id: 'call_1', name: 'bash', title: 'bash sleep 9' });
  const changed = t.onEvent({ ...turn, type: 'turn_end', reason: 'cancelled', turn_usage: { input_tokens: 1234, output_tokens: 56 } });
  const kinds = changed.map((e) => e.kind);
  assert.deepEqual(kinds, ['tool', 'turn']);
  assert.equal((changed[0] as ToolEntry).status, 'stopped');
  assert.deepEqual(changed[1], { kind: 'turn', id: changed[1].id, turnId: 's1-t1', reason: 'cancelled', usage: '1,234 tokens in, 56 out' });
  assert.equal((t.entries[0] as TextEntry).streaming, false);
});

test('Transcript: a failed turn\'s error offers Retry with its prompt; a subagent\'s does not', () => {
  const t = new Transcript();
  assert.equal((t.onEvent({ ...turn, type: 'error', message: 'no prompt yet' })[0] as NoticeEntry).retry, undefined);
  t.addUser('fix the build', 'main.go');
  t.addUser('now the tests');
  const [n] = t.onEvent({ ...turn, type: 'error', message: 'openai: 503 Service Unavailable' }) as NoticeEntry[];
  assert.equal(n.level, 'error');
  assert.equal(n.retry, 'now the tests');
  const sub = t.onEvent({ ...turn, parent_id: 'call_1', type: 'error', message: 'subagent failed' }) as NoticeEntry[];
  assert.ok(sub.every((x) => x.retry === undefined), "a subagent's error offers no Retry of the person's prompt");
});

test('usageText: counts when the model answered; nothing for a turn cancelled before it did', () => {
  assert.equal(usageText({ input_tokens: 1234, output_tokens: 56 }), '1,234 tokens in, 56 out');
  assert.equal(usageText({ input_tokens: 900, output_tokens: 0 }), '900 tokens in, 0 out');
  assert.equal(usageText({ input_tokens: 0, output_tokens: 0 }), undefined);
  assert.equal(usageText(undefined), undefined);
  const t = new Transcript();
  const changed = t.onEvent({ ...turn, type: 'turn_end', reason: 'cancelled', turn_usage: { input_tokens: 0, output_tokens: 0 } });
  assert.equal((changed[0] as { usage?: string }).usage, undefined);
});

test('Transcript: a subagent\'s calls are nested under it; its text is not the answer', () => {
  const t = new Transcript();
  t.onEvent({ ...turn, type: 'tool_call', id: 'call_1', name: 'agent', title: 'agent find Foo' });
  const [sub] = t.onEvent({ ...turn, parent_id: 'call_1', type: 'tool_call', id: 'call_1', name: 'grep', title: 'grep Foo' }) as ToolEntry[];
  assert.equal(sub.parentId, 'call_1');
  assert.equal(t.onEvent({ ...turn, parent_id: 'call_1', type: 'text', text: 'found it' }).length, 0);
  const [res] = t.onEvent({ ...turn, parent_id: 'call_1', type: 'tool_result', id: 'call_1', name: 'grep', content: 'a.go:1' }) as ToolEntry[];
  assert.equal(res.id, sub.id);
  const [parent] = t.onEvent({ ...turn, type: 'tool_result', id: 'call_1', name: 'agent', content: 'Foo is in a.go' }) as ToolEntry[];
  assert.equal(parent.name, 'agent');
  assert.equal(parent.status, 'ok');
});

test('Transcript: errors name the VS Code setting that fixes them', () => {
  const t = new Transcript();
  const [n] = t.onEvent({ ...turn, type: 'error', message: 'no model configured: set "agentls.model" in your user settings' });
  assert.equal(n.kind, 'notice');
  assert.equal((n as { setting?: string }).setting, 'agentls.model');
  assert.equal((t.addNotice('info', 'nothing to set') as { setting?: string }).setting, undefined);
});

test('Transcript: asks open, close once, and are stored closed', () => {
  const t = new Transcript();
  t.addAsk({ id: 'ask-1', askKind: 'permission', message: 'agentls wants to edit a.txt', choices: [{ answer: 'allow', title: 'Allow' }] });
  assert.equal(t.closeAsk('ask-1', 'answered', 'Allow')?.outcome, 'Allow');
  assert.equal(t.closeAsk('ask-1', 'closed', 'again'), undefined);
  t.addAsk({ id: 'ask-2', askKind: 'permission', message: 'm', choices: [] });
  const stored = t.stored().find((e) => e.id === 'ask-2') as AskEntry;
  assert.equal(stored.state, 'closed');
  assert.equal((t.get('ask-2') as AskEntry).state, 'open', 'storing does not close the live one');
});

test('Transcript: stored output is bounded; ids go on after a restore', () => {
  const t = new Transcript();
  t.onEvent({ ...turn, type: 'tool_call', id: 'call_1', name: 'view', title: 'view big' });
  t.onEvent({ ...turn, type: 'tool_result', id: 'call_1', name: 'view', content: 'x'.repeat(maxStoredOutput + 10) });
  const [stored] = t.stored() as ToolEntry[];
  assert.ok(stored.output!.length < maxStoredOutput + 100);
  assert.match(stored.output!, /cut when stored/);
  const again = new Transcript(t.stored());
  const user = again.addUser('next');
  assert.ok(!t.entries.some((e) => e.id === user.id), 'a restored transcript does not reuse ids');
});

test('exitCode reads "Exit code: N" lines only', () => {
  assert.equal(exitCode('ok\nExit code: 0'), 0);
  assert.equal(exitCode('Exit code: 2\n\nThe full output is saved in /x'), 2);
  assert.equal(exitCode('print("Exit code: 3") in a file'), undefined);
});

test('Transcript: an open question stays last; what comes meanwhile goes above it', () => {
  const t = new Transcript();
  t.addAsk({ id: 'q1', askKind: 'question', message: 'Which?', choices: [] });
  assert.equal(t.takeMoved(), false);
  t.onEvent({ ...turn, type: 'text', text: 'I need to know.' });
  t.onEvent({ ...turn, type: 'tool_call', id: 'call_1', name: 'question', title: 'question' });
  assert.equal(t.takeMoved(), true);
  assert.equal(t.takeMoved(), false);
  assert.deepEqual(t.entries.map((e) => e.kind), ['assistant', 'tool', 'ask']);
  t.closeAsk('q1', 'answered', 'A');
  t.onEvent({ ...turn, type: 'text', text: 'Thanks.' });
  assert.deepEqual(t.entries.map((e) => e.kind), ['assistant', 'tool', 'ask', 'assistant']);
  assert.equal(t.takeMoved(), false);
});

test('Transcript: an instructions event says which AGENTS.md files the model reads', () => {
  const t = new Transcript();
  const [n] = t.onEvent({ ...turn, type: 'instructions', files: ['AGENTS.md', 'src/AGENTS.md (cut)'] }) as NoticeEntry[];
  assert.equal(n.kind, 'notice');
  assert.equal(n.text, 'Project instructions: AGENTS.md, src/AGENTS.md (cut)');
  const [none] = t.onEvent({ ...turn, type: 'instructions' }) as NoticeEntry[];
  assert.match(none.text, /none any more/);
});

test('Transcript: a model switch is a notice of its own between the turns; the turns go on around it', () => {
  const t = new Transcript();
  t.onEvent({ ...turn, type: 'turn_start', model: 'replay:a.json' });
  t.onEvent({ ...turn, type: 'text', text: 'First.' });
  t.onEvent({ ...turn, type: 'turn_end', reason: 'completed' });
  const [n] = t.onEvent({ session_id: 's1', type: 'model', model: 'local:qwen3', message: 'model: local:qwen3 (was replay:a.json); the conversation goes on' }) as NoticeEntry[];
  assert.equal(n.kind, 'notice');
  assert.equal(n.level, 'info');
  assert.equal(n.text, 'model: local:qwen3 (was replay:a.json); the conversation goes on');
  const [m] = t.onEvent({ session_id: 's1', type: 'model', model: 'openai:gpt-4.1' }) as NoticeEntry[];
  assert.equal(m.text, 'model: openai:gpt-4.1');
  t.onEvent({ session_id: 's1', turn_id: 's1-t2', type: 'text', text: 'Second.' });
  assert.deepEqual(t.entries.map((e) => e.kind), ['assistant', 'turn', 'notice', 'notice', 'assistant']);
});

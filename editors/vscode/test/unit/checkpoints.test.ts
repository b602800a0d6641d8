// Unit tests of checkpoints in the chat: each step marked with the
// checkpoint taken before it ("Restore to here"), the timeline's items,
// the choices of what to restore, and what a restore says.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { diffable, hasRestore, restoreText, timeline, turnsText, whatChoices } from '../../src/checkpoints';
import type { TodosEntry, ToolEntry } from '../../src/chat/entries';
import { todoProgress, Transcript } from '../../src/chat/transcript';
import type { Checkpoint, RestoreReply } from '../../src/protocol';

const t1 = { session_id: 's1', turn_id: 's1-t1' };
const t2 = { session_id: 's1', turn_id: 's1-t2' };

test('markCheckpoints: a step gets the checkpoint taken before it, by turn and call id; a subagent\'s call none', () => {
  const t = new Transcript();
  t.onEvent({ ...t1, type: 'tool_call', id: 'call_1', name: 'view', title: 'view a.txt' });
  t.onEvent({ ...t1, type: 'tool_call', id: 'call_2', name: 'edit', title: 'edit a.txt' });
  // The same call id in another turn (a scripted model repeats them).
  t.onEvent({ ...t2, type: 'tool_call', id: 'call_2', name: 'bash', title: 'bash make' });
  t.onEvent({ ...t2, type: 'tool_call', id: 'sub_1', name: 'write', title: 'write b.txt', parent_id: 'call_9' });
  const list = [
    { id: 7, turnId: 's1-t1', callId: 'call_2' },
    { id: 9, turnId: 's1-t2', callId: 'call_2' },
    { id: 10, turnId: 's1-t2', callId: 'sub_1' },
    { id: 11, turnId: 's1-t3' }, // a restore's: no call
  ];
  const changed = t.markCheckpoints(list);
  const tools = t.entries.filter((e): e is ToolEntry => e.kind === 'tool');
  assert.deepEqual(tools.map((e) => [e.title, e.checkpoint]), [
    ['view a.txt', undefined],
    ['edit a.txt', 7],
    ['bash make', 9],
    ['write b.txt', undefined],
  ]);
  assert.deepEqual(changed.map((e) => e.title), ['edit a.txt', 'bash make']);
  assert.equal(t.markCheckpoints(list).length, 0, 'marking again changes nothing');
  // Pruned: the oldest checkpoint is gone, its step loses its button.
  const pruned = t.markCheckpoints(list.slice(1));
  assert.deepEqual(pruned.map((e) => [e.title, e.checkpoint]), [['edit a.txt', undefined]]);
  assert.equal('checkpoint' in pruned[0], false, 'the field is removed, so the stored entry has none');
});

test('whatChoices: files always; the conversation only when the checkpoint knows where it stood', () => {
  assert.deepEqual(whatChoices({ convSeq: 4 }).map((w) => w.what), ['files', 'conversation', 'both']);
  assert.deepEqual(whatChoices({ convSeq: 0 }).map((w) => w.what), ['files', 'conversation', 'both']);
  assert.deepEqual(whatChoices({ convSeq: -1 }).map((w) => w.what), ['files']);
  assert.deepEqual(whatChoices({}).map((w) => w.what), ['files']);
});

test('timeline: newest first, numbered from the oldest, with time, files changed and notes', () => {
  const list: Checkpoint[] = [
    { id: 3, kind: 'step', tool: 'edit', title: 'edit a.txt', time: '2026-12-07T03:00:01Z', changed: 1 },
    { id: 4, kind: 'step', tool: 'bash', title: 'bash make', time: '2026-12-07T03:00:02Z', changed: 3, notes: ['big.bin: over 4 MiB'] },
    { id: 5, kind: 'restore', tool: 'restore', title: 'restore to checkpoint 3', time: '2026-12-07T03:00:03Z', changed: 0 },
  ];
  const items = timeline(list, (iso) => iso.slice(11, 19));
  assert.deepEqual(items.map((i) => [i.label, i.description, i.detail, i.checkpoint.id]), [
    ['$(discard) 3. restore to checkpoint 3', '03:00:03 · 0 files changed', undefined, 5],
    ['$(debug-step-over) 2. bash make', '03:00:02 · 3 files changed', 'not kept: big.bin: over 4 MiB', 4],
    ['$(debug-step-over) 1. edit a.txt', '03:00:01 · 1 file changed', undefined, 3],
  ]);
  assert.equal(hasRestore(list), true);
  assert.equal(hasRestore(list.slice(0, 2)), false);
});

test('restoreText: what went back, the conflicts kept, what was left alone, the conversation', () => {
  const rel = (p: string) => p.replace('/ws/', '');
  const ok: RestoreReply = { to: 3, undo: 5, restored: ['/ws/a.txt', '/ws/b/c.go'], conflicts: null, skipped: null };
  assert.deepEqual(restoreText(ok, rel, false), { level: 'info', text: 'Restored to checkpoint 3: put back a.txt, b/c.go.' });
  const mixed: RestoreReply = {
    to: 3,
    restored: [],
    conflicts: [{ path: '/ws/a.txt', reason: "changed after the agent's step", yours: { exists: true, kind: 'file' }, checkpoint: { exists: true, kind: 'file' } }],
    skipped: [{ path: '/ws/big.bin', reason: 'its content was not kept' }],
    conversation: { records: 4, messages: 1 },
  };
  assert.deepEqual(restoreText(mixed, rel, false), {
    level: 'warning',
    text:
      "Restored to checkpoint 3: no file changed; kept your version of a.txt (changed after the agent's step); " +
      'left alone big.bin (its content was not kept); the conversation is back to 1 message.',
  });
  assert.equal(restoreText({ to: 5, restored: ['/ws/a.txt'], conflicts: [], skipped: [] }, rel, true).text, 'Undid the last restore (checkpoint 5): put back a.txt.');
});

test('diffable: a conflict opens as a diff when a file is on one side at least', () => {
  assert.equal(diffable({ yours: { kind: 'file' }, checkpoint: { kind: '' } }), true);
  assert.equal(diffable({ yours: {}, checkpoint: { kind: 'file' } }), true);
  assert.equal(diffable({ yours: { kind: 'link' }, checkpoint: { kind: 'dir' } }), false);
});

// Three turns: the first prompt's turn named by agentls.ask's reply, the
// second by its events only (a chat stored before prompts had turn ids),
// the third with a subagent's call and an error; a prompt that failed to
// start, and the extension's own notices in between.
function threeTurns(): Transcript {
  const t = new Transcript();
  const u1 = t.addUser('one').id;
  t.setTurn(u1, 's1-t1');
  t.onEvent({ ...t1, type: 'text', text: 'a1' });
  t.onEvent({ ...t1, type: 'turn_end', reason: 'completed' });
  t.addUser('two');
  t.onEvent({ ...t2, type: 'tool_call', id: 'call_1', name: 'bash', title: 'bash make' });
  t.onEvent({ ...t2, type: 'tool_result', id: 'call_1', name: 'bash', content: 'ok' });
  t.onEvent({ ...t2, type: 'turn_end', reason: 'completed' });
  t.addNotice('info', 'Restored to checkpoint 7: no file changed.');
  t.addUser('never started');
  t.addNotice('error', 'no model configured');
  const u3 = t.addUser('three').id;
  t.setTurn(u3, 's1-t3');
  t.onEvent({ session_id: 's1', turn_id: 's1-t3-sub', parent_id: 'call_9', type: 'tool_call', id: 'call_s', name: 'view', title: 'view a' });
  t.onEvent({ session_id: 's1', turn_id: 's1-t3', type: 'error', message: 'the model is down' });
  return t;
}

const visible = (t: Transcript) => t.entries.filter((e) => !e.dropped).map((e) => (e.kind === 'user' || e.kind === 'notice' || e.kind === 'assistant' ? `${e.kind}:${e.text}` : e.kind));

test('showTurns: the chat shows the turns the conversation holds; a restore\'s report, a prompt that never started stay', () => {
  const t = threeTurns();
  const all = visible(t);
  const r = t.showTurns(['s1-t1']);
  assert.equal(r.dropped, 2);
  assert.equal(r.back, 0);
  assert.equal(r.prompt, 'two', 'the first prompt the agent forgot, to type again');
  assert.deepEqual(visible(t), [
    'user:one', 'assistant:a1', 'turn',
    'notice:Restored to checkpoint 7: no file changed.',
    'user:never started', 'notice:no model configured',
  ]);
  assert.ok(r.changed.every((e) => e.dropped), 'only the entries hidden changed');
  assert.equal(r.changed.length, 6, 'two: its prompt, call (with its result), turn end; three: its prompt, subagent call, error');
  // Nothing more to hide: nothing changes.
  assert.deepEqual(t.showTurns(['s1-t1']), { changed: [], dropped: 0, back: 0 });
  // The restore undone: everything is back.
  const u = t.showTurns(['s1-t1', 's1-t2', 's1-t3']);
  assert.equal(u.back, 2);
  assert.equal(u.dropped, 0);
  assert.equal(u.prompt, undefined);
  assert.deepEqual(visible(t), all);
  // Back to before the first prompt: the whole conversation goes.
  const z = t.showTurns([]);
  assert.equal(z.dropped, 3);
  assert.equal(z.prompt, 'one');
  assert.deepEqual(visible(t), ['notice:Restored to checkpoint 7: no file changed.', 'user:never started', 'notice:no model configured']);
});

test('showTurns: the hidden entries are stored as hidden (a reload keeps the chat as the model has it)', () => {
  const t = threeTurns();
  t.showTurns(['s1-t1', 's1-t3']);
  const again = new Transcript(JSON.parse(JSON.stringify(t.stored())));
  assert.deepEqual(visible(again), visible(t));
  assert.ok(!visible(again).includes('user:two'));
});

test('turnsText: the turns hidden and the prompt back in the box; the turns shown again', () => {
  assert.equal(turnsText({ dropped: 0, back: 0 }), '');
  assert.match(turnsText({ dropped: 2, back: 0, prompt: 'two' }), /no longer shows the 2 turns the agent forgot; the prompt is back in the box.*Undo the last restore brings them back/);
  assert.match(turnsText({ dropped: 1, back: 0 }), /the 1 turn the agent forgot\. Undo/);
  assert.match(turnsText({ dropped: 0, back: 1 }), /shows again the 1 turn the agent remembers again/);
});

test('showTodos: after a restore the chat shows the todo list the conversation holds; a list of no turn stays when turns are hidden', () => {
  const a = [{ content: 'a', status: 'in_progress', active_form: 'doing a' }];
  const b = [{ content: 'a', status: 'completed' }, { content: 'b', status: 'pending' }];
  const t = new Transcript();
  t.setTurn(t.addUser('one').id, 's1-t1');
  t.onEvent({ ...t1, type: 'todos', todos: a, message: '0/1: doing a' });
  t.setTurn(t.addUser('two').id, 's1-t2');
  t.onEvent({ ...t2, type: 'todos', todos: b, message: '1/2' });
  const lists = () => t.entries.filter((e): e is TodosEntry => e.kind === 'todos' && !e.dropped).map((e) => [e.message, e.todos.map((x) => `${x.content}:${x.status}`).join(',')]);
  // Restored to before the second turn: its list goes with it, and the
  // first turn's is what the conversation holds: nothing to add.
  t.showTurns(['s1-t1']);
  assert.deepEqual(t.showTodos(a), []);
  assert.deepEqual(lists(), [['0/1: doing a', 'a:in_progress']]);
  // A list the chat does not show (a chat that did not see it set): shown.
  const c = [{ content: 'c', status: 'in_progress', active_form: 'Doing c' }, { content: 'd', status: 'completed' }];
  const [added] = t.showTodos(c) as TodosEntry[];
  assert.equal(added.kind, 'todos');
  assert.equal(added.turnId, undefined);
  assert.equal(added.message, '1/2: Doing c');
  assert.deepEqual(lists().at(-1), ['1/2: Doing c', 'c:in_progress,d:completed']);
  // It belongs to no turn: hiding every turn leaves it.
  t.showTurns([]);
  assert.deepEqual(lists(), [['1/2: Doing c', 'c:in_progress,d:completed']]);
  // The conversation has no list any more: an empty one says so, once.
  const [none] = t.showTodos([]) as TodosEntry[];
  assert.deepEqual(none.todos, []);
  assert.equal(none.message, undefined);
  assert.deepEqual(t.showTodos([]), []);
  // A chat that shows no list and a conversation with none: nothing.
  assert.deepEqual(new Transcript().showTodos([]), []);
});

test('restoreText and RestoreReply: a reply carries the conversation\'s todos', () => {
  const reply: RestoreReply = { to: 3, undo: 4, restored: [], conflicts: [], skipped: [],
    conversation: { records: 2, messages: 2, turns: ['s1-t1'], todos: [{ content: 'a', status: 'pending' }] } };
  assert.equal(reply.conversation?.todos?.[0].content, 'a');
  assert.equal(todoProgress(reply.conversation?.todos ?? []), '0/1');
  assert.equal(todoProgress([]), undefined);
});

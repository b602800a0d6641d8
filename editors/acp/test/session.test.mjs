// `agentls acp` sessions: cancelling (a running command, a pending
// question), switching modes, and loading an earlier session in a new
// process — driven by the official ACP client library.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import * as acp from '@agentclientprotocol/sdk';

import { Editor, makeWorld, writeConfig, writeScript } from './harness.mjs';

test('session/cancel stops a running command: stopReason cancelled', async (t) => {
  const world = makeWorld({ 'a.txt': 'a\n' });
  const script = writeScript(world, 'script.json', [
    { text: 'Waiting.', tool_calls: [{ name: 'bash', input: { command: 'sleep 30' } }] },
    { text: 'never reached' },
  ]);
  const ed = new Editor(world);
  t.after(() => ed.stop());
  await ed.start(script);
  const { sessionId } = await ed.newSession();
  await ed.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'auto' });
  const started = Date.now();
  const pending = ed.prompt(sessionId, 'wait a bit');
  const call = await ed.until('the bash call to run', () =>
    ed.of(sessionId, 'tool_call_update').find((u) => u.status === 'in_progress'));
  await ed.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  const res = await pending;
  assert.equal(res.stopReason, 'cancelled');
  assert.ok(Date.now() - started < 15_000, `cancelling took ${Date.now() - started} ms`);
  assert.equal(ed.permissions.length, 0, 'auto mode asked');
  const calls = ed.of(sessionId, 'tool_call');
  assert.deepEqual(calls.map((c) => [c.kind, c.toolCallId]), [['execute', call.toolCallId]]);
  assert.doesNotMatch(ed.message(sessionId), /never reached/);

  // The session takes the next prompt.
  const next = await ed.prompt(sessionId, 'again');
  assert.equal(next.stopReason, 'end_turn');
  assert.match(ed.message(sessionId), /never reached$/);
});

test('session/cancel withdraws a pending permission request: nothing is written', async (t) => {
  const world = makeWorld({ 'greeting.txt': 'Hello, world!\n' });
  const file = path.join(world.workspace, 'greeting.txt');
  const script = writeScript(world, 'script.json', [
    { text: '', tool_calls: [{ name: 'view', input: { file_path: 'greeting.txt' } }] },
    { text: '', tool_calls: [{ name: 'edit', input: { file_path: 'greeting.txt', old_string: 'world', new_string: 'agentls' } }] },
    { text: 'never reached' },
  ]);
  let sessionId;
  const ed = new Editor(world, {
    // As ACP asks of a client: on cancel, answer the open question "cancelled".
    onPermission: async () => {
      await ed.agent.notify(acp.methods.agent.session.cancel, { sessionId });
      return { outcome: { outcome: 'cancelled' } };
    },
  });
  t.after(() => ed.stop());
  await ed.start(script);
  ({ sessionId } = await ed.newSession());
  const res = await ed.prompt(sessionId, 'greet agentls');
  assert.equal(res.stopReason, 'cancelled');
  assert.equal(ed.permissions.length, 1);
  assert.deepEqual(ed.writes, []);
  assert.ok(ed.reads.includes(file));
  assert.doesNotMatch(ed.message(sessionId), /never reached/);
});

test('modes: session/set_mode and /mode switch the gate; chat runs nothing, approve asks for reads', async (t) => {
  const world = makeWorld({ 'a.txt': 'alpha\n' });
  const file = path.join(world.workspace, 'a.txt');
  const view = { name: 'view', input: { file_path: 'a.txt' } };
  const script = writeScript(world, 'script.json', [
    { text: 'In chat.', tool_calls: [view] },
    { text: 'Answered from memory.' },
    { text: 'In approve.', tool_calls: [view] },
    { text: 'never reached' },
  ]);
  const ed = new Editor(world, { onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'reject' } }) });
  t.after(() => ed.stop());
  await ed.start(script);
  const { sessionId } = await ed.newSession();

  await ed.settled(ed.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'chat' }));
  assert.deepEqual(ed.of(sessionId, 'current_mode_update').map((u) => u.currentModeId), ['chat']);
  let res = await ed.prompt(sessionId, 'what is in a.txt?');
  assert.equal(res.stopReason, 'end_turn');
  const skipped = ed.of(sessionId, 'tool_call_update').find((u) => u.status === 'completed');
  assert.match(skipped.content.at(-1).content.text, /^Skipped: agentls is in chat mode/);
  assert.deepEqual(ed.reads, [], 'chat mode read a file');

  await assert.rejects(ed.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'yolo' }),
    (err) => err.code === -32602 && /chat, approve, smart or auto/.test(err.message));

  res = await ed.prompt(sessionId, '/mode');
  assert.equal(res.stopReason, 'end_turn');
  assert.match(ed.message(sessionId), /the permission mode is chat\. Modes:\n- chat: [^\n]+\n- approve: [^\n]+\n- smart: [^\n]+\n- auto: /);
  res = await ed.prompt(sessionId, '/mode approve');
  assert.deepEqual(ed.of(sessionId, 'current_mode_update').map((u) => u.currentModeId), ['chat', 'approve']);
  assert.match(ed.message(sessionId), /the permission mode is now approve\.$/);

  // approve asks even for a read inside the workspace; rejecting ends the turn.
  res = await ed.prompt(sessionId, 'now read it');
  assert.equal(res.stopReason, 'end_turn');
  assert.equal(ed.permissions.length, 1);
  assert.equal(ed.permissions[0].toolCall.title, 'Read a.txt');
  assert.equal(ed.permissions[0].toolCall.kind, 'read');
  assert.deepEqual(ed.permissions[0].toolCall.rawInput, { file_path: 'a.txt' });
  assert.deepEqual(ed.permissions[0].toolCall.locations, [{ path: file }]);
  assert.deepEqual(ed.permissions[0].options.map((o) => o.kind), ['allow_once', 'reject_once'],
    'approve mode offers no grant');
  assert.deepEqual(ed.reads, []);
});

test('session/load replays a stored session in a new process, which then goes on', async (t) => {
  const world = makeWorld({ 'greeting.txt': 'Hello, world!\n' });
  const first = writeScript(world, 'first.json', [
    { text: 'Let me look.', tool_calls: [{ name: 'view', input: { file_path: 'greeting.txt' } }] },
    { text: 'It says hello.' },
  ]);
  const ed1 = new Editor(world);
  await ed1.start(first);
  const { sessionId } = await ed1.newSession();
  assert.equal((await ed1.prompt(sessionId, 'What does greeting.txt say?')).stopReason, 'end_turn');
  const firstCall = ed1.of(sessionId, 'tool_call')[0];
  assert.equal(await ed1.stop(), 0);

  const second = writeScript(world, 'second.json', [
    { text: 'Again.', tool_calls: [{ name: 'view', input: { file_path: 'greeting.txt' } }] },
    { text: 'Still hello.' },
  ]);
  const ed2 = new Editor(world);
  t.after(() => ed2.stop());
  const init = await ed2.start(second);
  assert.ok(init.agentCapabilities.sessionCapabilities.list, 'session/list not offered');
  const list = await ed2.agent.request(acp.methods.agent.session.list, { cwd: world.workspace });
  assert.deepEqual(list.sessions.map((s) => [s.sessionId, s.title, s.cwd]), [[sessionId, 'What does greeting.txt say?', world.workspace]]);

  const loaded = await ed2.settled(ed2.agent.request(acp.methods.agent.session.load, { sessionId, cwd: world.workspace, mcpServers: [] }));
  assert.equal(loaded.modes.currentModeId, 'smart');
  const replay = ed2.updates.filter((u) => u.sessionId === sessionId).map((u) => u.update);
  const shown = replay.filter((u) => u.sessionUpdate !== 'available_commands_update').map((u) => {
    switch (u.sessionUpdate) {
      case 'user_message_chunk':
      case 'agent_message_chunk':
        return [u.sessionUpdate, u.content.text];
      case 'tool_call':
        return [u.sessionUpdate, u.toolCallId, u.kind, u.title];
      default:
        return [u.sessionUpdate, u.toolCallId, u.status];
    }
  });
  assert.deepEqual(shown, [
    ['user_message_chunk', 'What does greeting.txt say?'],
    ['agent_message_chunk', 'Let me look.'],
    ['tool_call', firstCall.toolCallId, 'read', 'view greeting.txt'],
    ['tool_call_update', firstCall.toolCallId, 'completed'],
    ['agent_message_chunk', 'It says hello.'],
  ]);
  const result = replay.find((u) => u.sessionUpdate === 'tool_call_update');
  assert.match(result.content[0].content.text, /Hello, world!/);

  // The loaded session goes on: the next turn is turn 2, its call ids are new.
  assert.equal((await ed2.prompt(sessionId, 'And now?')).stopReason, 'end_turn');
  const calls = ed2.of(sessionId, 'tool_call');
  assert.equal(calls.length, 2);
  assert.notEqual(calls[1].toolCallId, firstCall.toolCallId);
  assert.match(calls[1].toolCallId, new RegExp(`^${sessionId}-t2/`));
  assert.match(ed2.message(sessionId), /Again\.Still hello\.$/);

  // Loading a session that is not stored says so.
  await assert.rejects(ed2.agent.request(acp.methods.agent.session.load, { sessionId: 'nope', cwd: world.workspace, mcpServers: [] }),
    (err) => err.code === -32002 && /no such session/.test(err.message));
});

test('the todos become plan updates, and each model step a usage_update with the context window', async (t) => {
  const world = makeWorld({ 'a.txt': 'alpha\n' });
  const todos = [
    { content: 'Read a.txt', status: 'completed' },
    { content: 'Write the summary', status: 'in_progress', active_form: 'Writing the summary' },
    { content: 'Check it', status: 'pending' },
  ];
  const script = writeScript(world, 'script.json', [
    { text: 'Planning.', tool_calls: [{ name: 'todos', input: { todos } }], usage: { input_tokens: 1200, output_tokens: 80 } },
    { text: 'Planned.', usage: { input_tokens: 1400, output_tokens: 20 } },
  ]);
  const ed = new Editor(world);
  t.after(() => ed.stop());
  await ed.start(script);
  const { sessionId } = await ed.newSession();
  const res = await ed.prompt(sessionId, 'plan it');
  assert.equal(res.stopReason, 'end_turn');
  const plans = ed.of(sessionId, 'plan');
  assert.equal(plans.length, 1);
  assert.deepEqual(plans[0].entries.map((e) => [e.content, e.status]),
    [['Read a.txt', 'completed'], ['Write the summary', 'in_progress'], ['Check it', 'pending']]);
  const usage = ed.of(sessionId, 'usage_update');
  assert.deepEqual(usage.map((u) => u.used), [1280, 1420]);
  assert.ok(usage.every((u) => u.size > 0), `no context window size: ${JSON.stringify(usage)}`);
  // The replay model has no price: tokens only, never a cost of 0.
  assert.ok(usage.every((u) => !('cost' in u)), `an unpriced model has a cost: ${JSON.stringify(usage)}`);
});

test('with a price for the model, each usage_update carries the session\'s cost so far, in USD', async (t) => {
  const world = makeWorld({ 'a.txt': 'alpha\n' });
  // $3 a million prompt tokens ($0.30 cached), $15 a million answer tokens.
  writeConfig(world, { providers: { replay: { price: { input: 3, cached_input: 0.3, output: 15 } } } });
  const script = writeScript(world, 'script.json', [
    { text: 'Reading.', tool_calls: [{ name: 'view', input: { file_path: 'a.txt' } }],
      usage: { input_tokens: 1000, cache_read_tokens: 800, output_tokens: 100 } },
    { text: 'It says alpha.', usage: { input_tokens: 1200, output_tokens: 50 } },
  ]);
  const ed = new Editor(world, { fs: {} });
  t.after(() => ed.stop());
  await ed.start(script);
  const { sessionId } = await ed.newSession();
  assert.equal((await ed.prompt(sessionId, 'what does a.txt say?')).stopReason, 'end_turn');
  const usage = ed.of(sessionId, 'usage_update');
  assert.deepEqual(usage.map((u) => u.used), [1100, 1250]);
  assert.deepEqual(usage.map((u) => u.cost?.currency), ['USD', 'USD']);
  // (200×3 + 800×0.30 + 100×15) / 1e6, then (1200×3 + 50×15) / 1e6 more.
  const want = [0.00234, 0.00669];
  usage.forEach((u, i) => assert.ok(Math.abs(u.cost.amount - want[i]) < 1e-12, `usage_update ${i}: cost ${JSON.stringify(u.cost)}, want ${want[i]}`));
});

test('/revert undoes this session\'s own last turn, never another session\'s on the same workspace', async (t) => {
  const world = makeWorld({});
  // Each session plays the script from its start: one new file each.
  const script = writeScript(world, 'script.json', [
    { text: '', tool_calls: [{ name: 'write', input: { file_path: 'made.txt', content: 'made\n' } }] },
    { text: 'Made it.' },
  ]);
  const ed = new Editor(world, { fs: {}, onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'allow' } }) });
  t.after(() => ed.stop());
  await ed.start(script);
  const other = (await ed.newSession()).sessionId;
  assert.equal((await ed.prompt(other, 'make it')).stopReason, 'end_turn');
  const made = path.join(world.workspace, 'made.txt');
  assert.equal(fs.readFileSync(made, 'utf8'), 'made\n');

  const mine = (await ed.newSession()).sessionId;
  await ed.prompt(mine, '/revert');
  assert.match(ed.message(mine), /nothing was reverted: no turn of this session has changes left to revert/);
  assert.ok(fs.existsSync(made), '/revert in one session undid another session\'s turn');

  await ed.prompt(other, '/revert');
  assert.match(ed.message(other), /reverted turn \S+: 1 file\(s\) restored\n- made\.txt/);
  assert.equal(fs.existsSync(made), false);
});

// `agentls acp` reads the editor's unsaved buffer, asks before an edit,
// and lands the edit through the editor — driven by the official ACP
// client library with a replay model.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { Editor, makeWorld, writeScript } from './harness.mjs';

const disk = 'Hello, world!\nBye.\n';
const unsaved = 'Hello, unsaved world!\nBye.\n';

/** A turn that views greeting.txt, edits the unsaved line, then answers. */
function editTurns() {
  return [
    { text: 'Let me look.', tool_calls: [{ name: 'view', input: { file_path: 'greeting.txt' } }] },
    { text: 'Changing it.', tool_calls: [{ name: 'edit', input: { file_path: 'greeting.txt', old_string: 'Hello, unsaved world!', new_string: 'Hello, agentls!' } }] },
    { text: 'Done: it greets agentls now.' },
  ];
}

test('allow_once: the unsaved buffer is read through fs/read_text_file and the edit lands through fs/write_text_file', async (t) => {
  const world = makeWorld({ 'greeting.txt': disk });
  const file = path.join(world.workspace, 'greeting.txt');
  const script = writeScript(world, 'script.json', [...editTurns(), { text: 'unused' }]);
  const ed = new Editor(world, {
    buffers: { [file]: unsaved },
    onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'allow' } }),
  });
  t.after(() => ed.stop());
  const init = await ed.start(script);
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentCapabilities.loadSession, true);
  assert.equal(init.agentCapabilities.promptCapabilities.embeddedContext, true);
  assert.deepEqual(init.agentCapabilities.mcpCapabilities, { http: true });
  assert.equal(init.agentInfo.name, 'agentls');

  const { sessionId, modes } = await ed.newSession();
  assert.equal(modes.currentModeId, 'smart');
  assert.deepEqual(modes.availableModes.map((m) => m.id), ['chat', 'approve', 'smart', 'auto']);
  const commands = await ed.until('available_commands_update', () => ed.of(sessionId, 'available_commands_update')[0]);
  assert.deepEqual(commands.availableCommands.map((c) => c.name), ['compact', 'revert', 'mode', 'model', 'checkpoints', 'restore']);

  const res = await ed.prompt(sessionId, 'Make it greet agentls');
  assert.equal(res.stopReason, 'end_turn');

  // The model saw the editor's text, not the disk's.
  assert.ok(ed.reads.includes(file), `fs/read_text_file was never asked for ${file}: ${ed.reads}`);
  const calls = ed.of(sessionId, 'tool_call');
  assert.deepEqual(calls.map((c) => [c.kind, c.title]), [['read', 'view greeting.txt'], ['edit', 'edit greeting.txt']]);
  assert.deepEqual(calls[0].locations, [{ path: file }]);
  const results = ed.of(sessionId, 'tool_call_update').filter((u) => u.status === 'completed' || u.status === 'failed');
  assert.equal(results.length, 2);
  assert.equal(results[0].toolCallId, calls[0].toolCallId);
  assert.match(results[0].content.at(-1).content.text, /Hello, unsaved world!/);

  // One question, with the gate's choices as ACP options.
  assert.equal(ed.permissions.length, 1);
  const ask = ed.permissions[0];
  assert.equal(ask.toolCall.toolCallId, calls[1].toolCallId);
  // A short title, the kind and the raw input: clients sort requests by kind.
  assert.equal(ask.toolCall.title, 'Edit greeting.txt');
  assert.equal(ask.toolCall.kind, 'edit');
  assert.deepEqual(ask.toolCall.rawInput, calls[1].rawInput);
  assert.equal(ask.toolCall.rawInput.file_path, 'greeting.txt');
  assert.deepEqual(ask.options.map((o) => [o.optionId, o.kind]),
    [['allow', 'allow_once'], ['allow_session', 'allow_always'], ['allow_always', 'allow_always'], ['reject', 'reject_once']]);
  assert.equal(ask.options[1].name, 'Allow edits in the workspace root this session');
  assert.equal(ask.options[2].name, 'Always allow edits in the workspace root');
  assert.deepEqual([ask.options[0].name, ask.options[3].name], ['Allow', 'Deny']);
  const askDiff = ask.toolCall.content.find((c) => c.type === 'diff');
  assert.equal(askDiff.path, file);
  assert.match(askDiff.oldText, /Hello, unsaved world!/);
  assert.match(askDiff.newText, /Hello, agentls!/);

  // The edit reached the editor, computed on its buffer; the disk is the editor's to save.
  assert.deepEqual(ed.writes, [{ path: file, content: 'Hello, agentls!\nBye.\n' }]);
  assert.equal(fs.readFileSync(file, 'utf8'), disk);
  const diff = results[1].content.find((c) => c.type === 'diff');
  assert.deepEqual({ path: diff.path, oldText: diff.oldText, newText: diff.newText },
    { path: file, oldText: 'Hello, unsaved world!\nBye.\n', newText: 'Hello, agentls!\nBye.\n' });
  assert.equal(results[1].status, 'completed');
  assert.deepEqual(results[1].locations, [{ path: file, line: 1 }]);

  // The answer streamed as message chunks, in order.
  assert.equal(ed.message(sessionId), 'Let me look.Changing it.Done: it greets agentls now.');

  // /revert puts the editor's text back, through the editor.
  const rev = await ed.prompt(sessionId, '/revert');
  assert.equal(rev.stopReason, 'end_turn');
  assert.deepEqual(ed.writes.at(-1), { path: file, content: unsaved });
  assert.match(ed.message(sessionId), /reverted turn \S+-t1: 1 file\(s\) restored\n- greeting\.txt/);
});

test('reject_once: nothing is written and the turn is over', async (t) => {
  const world = makeWorld({ 'greeting.txt': disk });
  const file = path.join(world.workspace, 'greeting.txt');
  const script = writeScript(world, 'script.json', [...editTurns(), { text: 'second prompt' }]);
  const ed = new Editor(world, {
    buffers: { [file]: unsaved },
    onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'reject' } }),
  });
  t.after(() => ed.stop());
  await ed.start(script);
  const { sessionId } = await ed.newSession();
  const res = await ed.prompt(sessionId, 'Make it greet agentls');
  assert.equal(res.stopReason, 'end_turn');
  assert.equal(ed.permissions.length, 1);
  assert.deepEqual(ed.writes, []);
  assert.equal(fs.readFileSync(file, 'utf8'), disk);
  const failed = ed.of(sessionId, 'tool_call_update').filter((u) => u.status === 'failed');
  assert.equal(failed.length, 1);
  assert.match(failed[0].content.at(-1).content.text, /denied/);
  // The turn ended at the rejection: the model was not called again.
  assert.equal(ed.message(sessionId), 'Let me look.Changing it.');
  const next = await ed.prompt(sessionId, 'ok, something else');
  assert.equal(next.stopReason, 'end_turn');
  assert.match(ed.message(sessionId), /Done: it greets agentls now\.$/);
});

test('without fs capabilities the disk is read and written, as headless', async (t) => {
  const world = makeWorld({ 'greeting.txt': 'Hello, unsaved world!\n' });
  const file = path.join(world.workspace, 'greeting.txt');
  const script = writeScript(world, 'script.json', editTurns());
  const ed = new Editor(world, {
    fs: { readTextFile: false, writeTextFile: false },
    buffers: { [file]: 'never read' },
    onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'allow' } }),
  });
  t.after(() => ed.stop());
  await ed.start(script);
  const { sessionId } = await ed.newSession();
  const res = await ed.prompt(sessionId, 'Make it greet agentls');
  assert.equal(res.stopReason, 'end_turn');
  assert.deepEqual(ed.reads, []);
  assert.deepEqual(ed.writes, []);
  assert.equal(fs.readFileSync(file, 'utf8'), 'Hello, agentls!\n');
});

// What a client learns at initialize and what it is asked: the
// authentication methods (the providers' keys), the question tool as an
// elicitation form for a client that declares forms (and no question
// tool for one that does not), and the harness's own check that every
// permission request carries a tool kind and its raw input — driven by
// the official ACP client library.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Editor, makeWorld, permissionProblem, writeScript } from './harness.mjs';

test('initialize: authMethods name the providers\' key variables', async (t) => {
  const world = makeWorld({});
  const script = writeScript(world, 'script.json', [{ text: 'hi' }]);
  const ed = new Editor(world);
  t.after(() => ed.stop());
  const init = await ed.start(script);
  assert.deepEqual(init.authMethods.map((m) => [m.type, m.id, m.vars.map((v) => v.name)]), [
    ['env_var', 'openai', ['OPENAI_API_KEY']],
    ['env_var', 'anthropic', ['ANTHROPIC_API_KEY']],
    ['env_var', 'openrouter', ['OPENROUTER_API_KEY']],
  ]);
});

const askDatabase = [
  { text: '', tool_calls: [{ name: 'question', input: { question: 'Which database?', options: ['sqlite', 'postgres'] } }] },
  { text: 'ok' },
];

/** The text of the last content of the session's tool call updates. */
function lastResult(ed, sessionId) {
  const withContent = ed.of(sessionId, 'tool_call_update').filter((u) => u.content?.length > 0);
  return withContent.at(-1)?.content.at(-1)?.content?.text ?? '';
}

test('the question tool: a client with elicitation forms gets one, with the options as a choice; the answer is the tool\'s result', async (t) => {
  const world = makeWorld({});
  const script = writeScript(world, 'script.json', askDatabase);
  const ed = new Editor(world, { onElicit: () => ({ action: 'accept', content: { answer: 'postgres' } }) });
  t.after(() => ed.stop());
  await ed.start(script);
  const { sessionId } = await ed.newSession();
  const res = await ed.prompt(sessionId, 'set it up');
  assert.equal(res.stopReason, 'end_turn');
  assert.equal(ed.elicitations.length, 1, 'no form; the tool said: ' + lastResult(ed, sessionId));
  const form = ed.elicitations[0];
  assert.equal(form.sessionId, sessionId, 'the form is not scoped to its session');
  assert.equal(form.mode, 'form');
  assert.equal(form.message, 'Which database?');
  assert.deepEqual(form.requestedSchema.properties.answer.enum, ['sqlite', 'postgres']);
  assert.deepEqual(form.requestedSchema.required, ['answer']);
  assert.equal(lastResult(ed, sessionId), 'The person chose: postgres');
  assert.equal(ed.permissions.length, 0, 'a question was asked as a permission request');
});

test('the question tool: a client without elicitation forms is not offered it', async (t) => {
  const world = makeWorld({});
  const script = writeScript(world, 'script.json', askDatabase);
  const ed = new Editor(world);
  t.after(() => ed.stop());
  await ed.start(script);
  const { sessionId } = await ed.newSession();
  await ed.prompt(sessionId, 'set it up');
  assert.equal(ed.elicitations.length, 0);
  assert.match(lastResult(ed, sessionId), /unknown tool "question"/);
  assert.equal(ed.permissions.length, 0);
});

test('the harness fails a permission request without a tool kind or raw input', () => {
  const good = { sessionId: 's', toolCall: { toolCallId: 'c', kind: 'read', rawInput: { file_path: 'a.txt' } }, options: [] };
  assert.equal(permissionProblem(good), '');
  assert.equal(permissionProblem({ ...good, toolCall: { ...good.toolCall, kind: 'switch_mode' } }), '');
  assert.match(permissionProblem({ sessionId: 's', options: [] }), /no toolCall/);
  assert.match(permissionProblem({ ...good, toolCall: { ...good.toolCall, kind: undefined } }), /kind undefined is not one of ACP's tool kinds/);
  assert.match(permissionProblem({ ...good, toolCall: { ...good.toolCall, kind: '' } }), /kind "" is not/);
  assert.match(permissionProblem({ ...good, toolCall: { ...good.toolCall, kind: 'write' } }), /kind "write" is not/);
  assert.match(permissionProblem({ ...good, toolCall: { ...good.toolCall, rawInput: undefined } }), /rawInput undefined is not an object/);
  assert.match(permissionProblem({ ...good, toolCall: { ...good.toolCall, rawInput: 'a.txt' } }), /rawInput "a.txt" is not an object/);
  assert.match(permissionProblem({ ...good, toolCall: { ...good.toolCall, rawInput: null } }), /rawInput null is not an object/);
});

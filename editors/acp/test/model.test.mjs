// `agentls acp` sessions switch models: the model is a session config
// option, session/set_config_option (or /model) switches it between
// prompts, the new model is sent the whole conversation, and a stored
// session goes on with the model chosen last — driven by the official
// ACP client library.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'node:test';

import * as acp from '@agentclientprotocol/sdk';

import { Editor, makeWorld, writeScript } from './harness.mjs';

/**
 * A loopback OpenAI-compatible chat server: every request is kept and
 * answered "<model> saw <n> messages", streamed as chat completions are.
 * Other routes answer 404, as real servers do.
 */
async function chatServer() {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      const r = JSON.parse(body);
      requests.push(r);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta, finish = null) => res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: r.model,
        choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      chunk({ role: 'assistant', content: '' });
      chunk({ content: `${r.model} saw ${r.messages.length} messages` });
      chunk({}, 'stop');
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, requests, close: () => server.close() };
}

/** Writes the world's config file: a provider "local" at url. */
function configure(world, url) {
  const dir = path.join(world.home, 'config', 'agentls');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ providers: { local: { base_url: url, models: { echo: {} } } } }));
}

const option = (opts, id) => opts.find((o) => o.id === id);

test('model: a config option; switching keeps the conversation, and a loaded session goes on with the model chosen last', async (t) => {
  const world = makeWorld({ 'a.txt': 'alpha\n' });
  const chat = await chatServer();
  t.after(() => chat.close());
  configure(world, chat.url);
  const script = writeScript(world, 'first.json', [
    { text: 'Let me look.', tool_calls: [{ name: 'view', input: { file_path: 'a.txt' } }] },
    { text: 'a.txt holds alpha.' },
  ]);
  const first = 'replay:' + script;
  const ed = new Editor(world);
  t.after(() => ed.stop());
  await ed.start(script);
  const created = await ed.newSession();
  const { sessionId } = created;
  const model = option(created.configOptions, 'model');
  assert.equal(model.type, 'select');
  assert.equal(model.category, 'model');
  assert.equal(model.currentValue, first);
  assert.deepEqual(model.options.map((o) => o.value), [first, 'local:echo']);
  const mode = option(created.configOptions, 'mode');
  assert.equal(mode.category, 'mode');
  assert.equal(mode.currentValue, created.modes.currentModeId);

  assert.equal((await ed.prompt(sessionId, 'what is in a.txt?')).stopReason, 'end_turn');
  const set = await ed.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'model', value: 'local:echo' });
  assert.equal(option(set.configOptions, 'model').currentValue, 'local:echo');
  assert.equal((await ed.prompt(sessionId, 'and now?')).stopReason, 'end_turn');
  assert.match(ed.message(sessionId), /echo saw 6 messages$/);
  assert.equal(chat.requests.length, 1);
  const msgs = chat.requests[0].messages;
  assert.deepEqual(msgs.map((m) => m.role), ['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
  const said = JSON.stringify(msgs);
  for (const want of ['what is in a.txt?', 'alpha', 'a.txt holds alpha.', 'and now?']) {
    assert.ok(said.includes(want), `the new model's first request lacks ${want}`);
  }

  await assert.rejects(ed.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'model', value: 'nope:x' }),
    (err) => err.code === -32600 && /stays on local:echo/.test(err.message) && /nope/.test(err.message));
  assert.equal((await ed.prompt(sessionId, '/model')).stopReason, 'end_turn');
  assert.match(ed.message(sessionId), /the model is local:echo\. Offered:\n- local:echo \(this session's model\)\n- replay:/);

  // Another process loads the stored session: on local:echo, though it
  // was started with --model replay:…, and the model gets it all.
  const ed2 = new Editor(world);
  t.after(() => ed2.stop());
  await ed2.start(script);
  const loaded = await ed2.settled(ed2.agent.request(acp.methods.agent.session.load, { sessionId, cwd: world.workspace, mcpServers: [] }));
  assert.equal(option(loaded.configOptions, 'model').currentValue, 'local:echo');
  assert.equal((await ed2.prompt(sessionId, 'still there?')).stopReason, 'end_turn');
  assert.match(ed2.message(sessionId), /echo saw 8 messages$/);

  // /model switches back; the client is told through config_option_update.
  assert.equal((await ed2.prompt(sessionId, '/model ' + first)).stopReason, 'end_turn');
  assert.deepEqual(ed2.of(sessionId, 'config_option_update').map((u) => option(u.configOptions, 'model').currentValue), [first]);
});

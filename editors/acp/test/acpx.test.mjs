// `agentls acp` driven by acpx (npm, pinned in package.json), a headless
// ACP client agentls was not written against: its permission policies
// sort requests by their kind, and it shows nothing of the agent's stderr
// — so a wrapper keeps agentls's stderr in a file, which must stay empty.
// acpx's `--format json` prints the JSON-RPC traffic both ways.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { bin, makeWorld, stepTimeout, worldEnv, writeScript } from './harness.mjs';

const acpx = path.join(path.dirname(fileURLToPath(import.meta.url)), 'node_modules', '.bin', 'acpx');

/**
 * Runs acpx with the given arguments against `agentls acp` (the replay
 * script as its model, extra agentls flags after it) in the world's
 * workspace, and returns acpx's exit code, its JSON lines and agentls's
 * stderr.
 */
async function runAcpx(world, script, agentFlags, args, ttl = '1') {
  const run = startAcpx(world, script, agentFlags, args, ttl);
  return run.done;
}

/**
 * Starts acpx as runAcpx does; out() is its output so far, done resolves
 * as runAcpx's result when it exits.
 */
function startAcpx(world, script, agentFlags, args, ttl = '1') {
  const stderrFile = path.join(world.top, 'agentls-stderr.txt');
  const wrapper = path.join(world.top, 'agentls-acp.sh');
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec "${bin}" acp --model "replay:${script}" ${agentFlags} 2>>"${stderrFile}"\n`, { mode: 0o755 });
  const env = worldEnv(world);
  const child = spawn(acpx, ['--agent', wrapper, '--ttl', ttl, '--format', 'json', ...args], { cwd: world.workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  const done = (async () => {
    let timer;
    const code = await Promise.race([
      new Promise((resolve) => child.on('exit', resolve)),
      new Promise((resolve) => { timer = setTimeout(() => { child.kill('SIGKILL'); resolve('timeout'); }, 3 * stepTimeout); }),
    ]);
    clearTimeout(timer);
    assert.notEqual(code, 'timeout', `acpx ${args.join(' ')} did not finish:\n${out}\n${err}`);
    const lines = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    const stderr = fs.existsSync(stderrFile) ? fs.readFileSync(stderrFile, 'utf8') : '';
    return { code, lines, stderr, text: `${out}\n${err}` };
  })();
  return { out: () => out, done };
}

/** The agent's session/request_permission requests, each with the client's answer. */
function permissions(lines) {
  const out = [];
  lines.forEach((req, i) => {
    if (req.method !== 'session/request_permission') {
      return;
    }
    // Ids of the two directions overlap: the reply is the next one after it.
    const reply = lines.slice(i + 1).find((l) => l.id === req.id && !l.method && l.result?.outcome);
    out.push({ params: req.params, outcome: reply?.result?.outcome });
  });
  return out;
}

function updates(lines, kind) {
  return lines.filter((l) => l.method === 'session/update' && l.params.update.sessionUpdate === kind).map((l) => l.params.update);
}

/** Waits until no agentls started by this world's wrapper runs. */
async function agentGone(world) {
  const wrapper = path.join(world.top, 'agentls-acp.sh');
  const deadline = Date.now() + 3 * stepTimeout;
  for (;;) {
    const running = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).some((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(`replay:${world.top}`);
      } catch {
        return false;
      }
    });
    if (!running) {
      return;
    }
    assert.ok(Date.now() < deadline, `agentls of ${wrapper} still runs`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const viewThenEdit = [
  { text: 'Reading.', tool_calls: [{ name: 'view', input: { file_path: 'a.txt' } }] },
  { text: 'Editing.', tool_calls: [{ name: 'edit', input: { file_path: 'a.txt', old_string: 'alpha', new_string: 'beta' } }] },
  { text: 'Done.' },
];

test('acpx --approve-reads in approve mode: the read passes by its kind, the edit is asked with its diff and denied, stderr stays empty', async () => {
  const world = makeWorld({ 'a.txt': 'alpha\n' });
  const script = writeScript(world, 'script.json', viewThenEdit);
  const r = await runAcpx(world, script, '--mode approve', ['--approve-reads', '--non-interactive-permissions', 'deny', 'exec', 'change alpha']);
  assert.equal(r.code, 0, r.text);
  const asks = permissions(r.lines);
  assert.equal(asks.length, 2, r.text);
  const [read, edit] = asks;
  assert.equal(read.params.toolCall.kind, 'read');
  assert.equal(read.params.toolCall.title, 'Read a.txt');
  assert.deepEqual(read.params.toolCall.rawInput, { file_path: 'a.txt' });
  assert.deepEqual(read.outcome, { outcome: 'selected', optionId: 'allow' }, 'acpx did not let the read through');
  assert.equal(edit.params.toolCall.kind, 'edit');
  assert.equal(edit.params.toolCall.title, 'Edit a.txt');
  const diff = edit.params.toolCall.content.find((c) => c.type === 'diff');
  assert.deepEqual([diff.oldText, diff.newText], ['alpha\n', 'beta\n']);
  assert.equal(edit.outcome.optionId, 'reject');
  const failed = updates(r.lines, 'tool_call_update').filter((u) => u.status === 'failed');
  assert.match(failed.at(-1).content.at(-1).content.text, /The user denied this call/);
  assert.equal(fs.readFileSync(path.join(world.workspace, 'a.txt'), 'utf8'), 'alpha\n');
  assert.equal(r.stderr, '', 'agentls acp wrote to stderr');
});

test('acpx --approve-all: the edit lands through the client (fs/write_text_file)', async () => {
  const world = makeWorld({ 'a.txt': 'alpha\n' });
  const script = writeScript(world, 'script.json', viewThenEdit);
  const r = await runAcpx(world, script, '--mode approve', ['--approve-all', 'exec', 'change alpha']);
  assert.equal(r.code, 0, r.text);
  assert.ok(r.lines.some((l) => l.method === 'fs/write_text_file' && l.params.content === 'beta\n'), r.text);
  assert.equal(fs.readFileSync(path.join(world.workspace, 'a.txt'), 'utf8'), 'beta\n');
  const done = updates(r.lines, 'tool_call_update').filter((u) => u.status === 'completed');
  assert.ok(done.some((u) => u.content?.some((c) => c.type === 'diff' && c.newText === 'beta\n')), 'no diff on the edit\'s result');
  assert.equal(r.stderr, '');
});

test('acpx --deny-all: a command is asked as "Run `…`" of kind execute, denied, and never runs', async () => {
  const world = makeWorld({});
  const script = writeScript(world, 'script.json', [
    { text: 'Running.', tool_calls: [{ name: 'bash', input: { command: 'touch ran.txt' } }] },
    { text: 'never reached' },
  ]);
  const r = await runAcpx(world, script, '--mode smart', ['--deny-all', 'exec', 'make ran.txt']);
  assert.equal(r.code, 5, `acpx's exit code for a denied permission: ${r.text}`);
  const [ask] = permissions(r.lines);
  assert.equal(ask.params.toolCall.kind, 'execute');
  assert.equal(ask.params.toolCall.title, 'Run `touch ran.txt`');
  assert.equal(ask.outcome.optionId, 'reject');
  assert.equal(fs.existsSync(path.join(world.workspace, 'ran.txt')), false, 'the denied command ran');
  assert.ok(!r.lines.some((l) => l.result?.stopReason && l.result.stopReason !== 'end_turn'), r.text);
  assert.equal(r.stderr, '');
});

test('acpx sessions: a second acpx run resumes the stored session in a new agentls process', async () => {
  const world = makeWorld({});
  const script = writeScript(world, 'script.json', [{ text: 'An answer.' }, { text: 'unused' }]);
  const created = await runAcpx(world, script, '', ['sessions', 'new']);
  assert.equal(created.code, 0, created.text);
  // acpx keeps the agent for --ttl seconds of idleness; then it is gone.
  const first = await runAcpx(world, script, '', ['prompt', 'first question']);
  assert.equal(first.code, 0, first.text);
  await agentGone(world);
  const second = await runAcpx(world, script, '', ['prompt', 'second question']);
  assert.equal(second.code, 0, second.text);
  // Each run starts agentls afresh and picks the session up again.
  const resumed = second.lines.filter((l) => l.method === 'session/resume' || l.method === 'session/load');
  assert.equal(resumed.length, 1, second.text);
  const id = resumed[0].params.sessionId;
  assert.ok(second.lines.some((l) => l.id === resumed[0].id && l.result && !l.method), `no reply to the resume: ${second.text}`);
  // The stored session holds both prompts.
  const show = spawn(bin, ['sessions', 'show', id], { cwd: world.workspace,
    env: worldEnv(world) });
  let shown = '';
  show.stdout.on('data', (d) => { shown += d; });
  show.stderr.on('data', (d) => { shown += d; });
  await new Promise((resolve) => show.on('exit', resolve));
  assert.match(shown, /first question[\s\S]*second question/);
  assert.equal(second.stderr, '');
});

test('acpx cancel: a running command (in acpx\'s terminal) is stopped and the prompt ends cancelled', async () => {
  const world = makeWorld({});
  const script = writeScript(world, 'script.json', [
    { text: 'Waiting.', tool_calls: [{ name: 'bash', input: { command: 'sleep 61.5' } }] },
    { text: 'never reached' },
  ]);
  const created = await runAcpx(world, script, '--mode auto', ['sessions', 'new']);
  assert.equal(created.code, 0, created.text);
  // --approve-all: acpx lets agentls open its terminal (by default it refuses: next test).
  const running = startAcpx(world, script, '--mode auto', ['--approve-all', 'prompt', 'wait a minute']);
  const deadline = Date.now() + stepTimeout;
  while (!running.out().includes('"status":"in_progress"')) {
    assert.ok(Date.now() < deadline, `the command never started: ${running.out()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const t0 = Date.now();
  const cancel = await runAcpx(world, script, '--mode auto', ['cancel']);
  assert.equal(cancel.code, 0, cancel.text);
  const r = await running.done;
  assert.ok(Date.now() - t0 < stepTimeout, 'the prompt ran on after the cancel');
  assert.ok(r.lines.some((l) => l.result?.stopReason === 'cancelled'), `no cancelled stop: ${r.text}`);
  // acpx offers terminals: the command ran in one of them, shown in its call, and is gone.
  assert.match(r.text, /"type":"terminal","terminalId"|"terminalId":"[^"]+","type":"terminal"/, 'the command did not run in acpx\'s terminal');
  assert.equal(running61(), 0, 'sleep 61.5 still runs after the cancel');
  assert.equal(r.stderr, '');
  await agentGone(world);
});

test('acpx refuses its terminal (its default policy): the command does not run, and the turn ends', async () => {
  const world = makeWorld({});
  const script = writeScript(world, 'script.json', [
    { text: '', tool_calls: [{ name: 'bash', input: { command: 'touch ran.txt' } }] },
    { text: 'never reached' },
  ]);
  const r = await runAcpx(world, script, '--mode auto', ['exec', 'make ran.txt']);
  assert.match(r.text, /"method":"terminal\/create"/, 'agentls did not ask for a terminal');
  assert.match(r.text, /the editor refused to run the command in its terminal: [^"]*Permission denied for terminal\/create/);
  assert.ok(!fs.existsSync(path.join(world.workspace, 'ran.txt')), 'the command ran although acpx refused its terminal');
  assert.doesNotMatch(r.text, /never reached/);
  assert.equal(r.stderr, '');
  await agentGone(world);
});

/** How many `sleep 61.5` processes run. */
function running61() {
  let n = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') === 'sleep\u000061.5\u0000') n++;
    } catch {
      // gone meanwhile
    }
  }
  return n;
}

// `agentls acp` with a client that offers terminals (terminal/*): the bash
// tool's commands run in the client's terminal, shown in their call,
// while staying judged and confined as in agentls — driven by the official
// ACP client library, whose terminals here are real processes.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import * as acp from '@agentclientprotocol/sdk';

import { Editor, bin, makeWorld, writeScript } from './harness.mjs';

test('commands run in the client\'s terminal: created, shown in the call, read back, released; the sandbox still holds', async (t) => {
  const world = makeWorld({
    'notes.txt': 'the meeting is on Tuesday\n',
    'w.sh': 'echo inside > inside.txt\necho outside > "$1" || echo "the write outside failed"\nexit 3\n',
  });
  const outside = path.join(world.top, 'outside.txt');
  const script = writeScript(world, 'script.json', [
    { text: '', tool_calls: [{ name: 'bash', input: { command: 'cat notes.txt' } }] },
    { text: '', tool_calls: [{ name: 'bash', input: { command: `sh w.sh ${outside}` } }] },
    { text: 'Done.' },
  ]);
  const ed = new Editor(world, {
    terminal: true,
    onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'allow' } }),
  });
  t.after(() => ed.stop());
  await ed.start(script);
  const { sessionId } = await ed.newSession();
  const res = await ed.prompt(sessionId, 'read the notes, then run w.sh');
  assert.equal(res.stopReason, 'end_turn');

  const terms = [...ed.terminals.entries()];
  assert.deepEqual(terms.map(([, t]) => [t.params.command, t.params.args, t.params.cwd, t.params.sessionId]), [
    [bin, ['exec', '--', 'cat notes.txt'], world.workspace, sessionId],
    [bin, ['exec', '--', `sh w.sh ${outside}`], world.workspace, sessionId],
  ]);
  assert.ok(terms.every(([, t]) => t.released), 'every terminal is released');
  // Each call shows its terminal while it runs and keeps it in its final update.
  const updates = ed.of(sessionId, 'tool_call_update');
  for (const [id] of terms) {
    const shown = updates.filter((u) => (u.content ?? []).some((c) => c.type === 'terminal' && c.terminalId === id));
    assert.deepEqual(shown.map((u) => u.status), ['in_progress', 'completed'], `terminal ${id} in its call`);
  }
  const results = updates.filter((u) => u.status === 'completed' || u.status === 'failed')
    .map((u) => (u.content ?? []).filter((c) => c.type === 'content').map((c) => c.content.text).join(''));
  assert.match(results[0], /the meeting is on Tuesday[\s\S]*Exit code: 0/);
  assert.match(results[1], /the write outside failed[\s\S]*Exit code: 3/);
  assert.equal(fs.readFileSync(path.join(world.workspace, 'inside.txt'), 'utf8'), 'inside\n');
  assert.ok(!fs.existsSync(outside), 'a command in the client\'s terminal wrote outside the workspace');
  // cat is read-only: only the script was asked about, as a command.
  assert.deepEqual(ed.permissions.map((p) => [p.toolCall.kind, p.toolCall.title]), [['execute', `Run \`sh w.sh ${outside}\``]]);
});

test('session/cancel kills the client\'s terminal and the command\'s programs', async (t) => {
  const world = makeWorld({ 'a.txt': 'a\n' });
  const script = writeScript(world, 'script.json', [
    { text: '', tool_calls: [{ name: 'bash', input: { command: 'sleep 32.5' } }] },
    { text: 'never reached' },
  ]);
  const ed = new Editor(world, { terminal: true });
  t.after(() => ed.stop());
  await ed.start(script);
  const { sessionId } = await ed.newSession();
  const pending = ed.prompt(sessionId, 'wait');
  await ed.until('sleep to run in a terminal', () => sleeping() > 0);
  const started = Date.now();
  await ed.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  assert.equal((await pending).stopReason, 'cancelled');
  await ed.until('sleep to be gone', () => sleeping() === 0, 5_000);
  assert.ok(Date.now() - started < 5_000);
  const [term] = [...ed.terminals.values()];
  await ed.until('the terminal to be released', () => term.released, 5_000);
  assert.equal(term.exit.signal, 'SIGKILL', 'agentls killed the terminal');
  assert.doesNotMatch(ed.message(sessionId), /never reached/);
});

/** How many `sleep 32.5` processes run. */
function sleeping() {
  let n = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') === 'sleep\u000032.5\u0000') n++;
    } catch {
      // gone meanwhile
    }
  }
  return n;
}

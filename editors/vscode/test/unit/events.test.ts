// Unit tests of the transcript lines and the status, without VS Code.
// Run: npm run test:unit
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { formatEvent, SessionState } from '../../src/events';

const at = { now: new Date(2026, 0, 2, 3, 4, 5) };

test('formatEvent: one readable line per event', () => {
  const e = { session_id: 's1', turn_id: 's1-t1' };
  assert.equal(formatEvent({ ...e, type: 'turn_start' }, at), '[03:04:05] ── turn s1-t1 started');
  assert.equal(formatEvent({ ...e, type: 'text', text: 'Let me look.' }, at), '[03:04:05] agent: Let me look.');
  assert.equal(formatEvent({ ...e, type: 'text', text: '  ' }, at), undefined);
  assert.equal(
    formatEvent({ ...e, type: 'tool_call', id: 'call_1', name: 'view', input: { file_path: 'a.txt' }, title: 'view a.txt' }, at),
    '[03:04:05] → view a.txt',
  );
  assert.equal(formatEvent({ ...e, type: 'tool_call', name: 'bash', input: { command: 'ls -l' } }, at), '[03:04:05] → bash ls -l');
  assert.equal(
    formatEvent({ ...e, type: 'permission', tool: 'edit', capability: 'write', scope: 'a.txt', decision: 'allow', source: 'user' }, at),
    '[03:04:05] permission: edit a.txt allowed (user)',
  );
  assert.equal(
    formatEvent({ ...e, type: 'permission', tool: 'bash', decision: 'deny', source: 'rule', reason: 'network client' }, at),
    '[03:04:05] permission: bash denied (rule: network client)',
  );
  assert.equal(
    formatEvent({ ...e, type: 'tool_result', id: 'call_1', name: 'view', is_error: false, content: 'line 1\nline 2\nline 3\n' }, at),
    '[03:04:05] ← view ok: line 1 (+2 more lines)',
  );
  assert.equal(
    formatEvent({ ...e, type: 'tool_result', name: 'edit', is_error: true, content: 'old_string not found' }, at),
    '[03:04:05] ← edit failed: old_string not found',
  );
  assert.equal(
    formatEvent({ ...e, type: 'tool_result', name: 'view', is_error: false, content: '<file>\n     1|Hello\n</file>\n' }, at),
    '[03:04:05] ← view ok: 1|Hello (+2 more lines)',
  );
  assert.equal(
    formatEvent(
      { ...e, type: 'permission', tool: 'view', scope: '/w/src/a.go', decision: 'allow', source: 'default' },
      { ...at, rel: (p) => p.replace('/w/', '') },
    ),
    '[03:04:05] permission: view src/a.go allowed (default)',
  );
  assert.equal(formatEvent({ ...e, type: 'error', message: 'no model' }, at), '[03:04:05] error: no model');
  assert.equal(formatEvent({ ...e, type: 'turn_end', reason: 'completed' }, at), '[03:04:05] ── turn s1-t1 ended: completed');
});

test('formatEvent: multi-line text and diffs are indented below the line', () => {
  assert.equal(formatEvent({ type: 'text', text: 'One.\nTwo.' }, at), '[03:04:05] agent: One.\n    Two.');
  const diff = '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-Hello\n+Bye\n';
  assert.equal(
    formatEvent({ type: 'tool_result', name: 'edit', is_error: false, content: 'edited a.txt', diff }, at),
    '[03:04:05] ← edit ok\n    --- a/a.txt\n    +++ b/a.txt\n    @@ -1 +1 @@\n    -Hello\n    +Bye',
  );
});

test('SessionState: idle, working, waiting for you, idle', () => {
  const s = new SessionState();
  assert.equal(s.status(), 'idle');
  s.onAsked('s1-t1');
  assert.equal(s.status(), 'working');
  s.onEvent({ type: 'turn_start', turn_id: 's1-t1' });
  assert.equal(s.status(), 'working');
  assert.equal(s.turnId, 's1-t1');
  const ask = s.askOpened();
  assert.equal(s.status(), 'waiting');
  s.askClosed(ask);
  assert.equal(s.status(), 'working');
  s.onEvent({ type: 'turn_end', turn_id: 's1-t1', reason: 'completed' });
  assert.equal(s.status(), 'idle');
  assert.equal(s.turnId, undefined);
  assert.equal(s.lastTurnId, 's1-t1');
});

test('SessionState: events that beat the ask reply leave it idle', () => {
  const s = new SessionState();
  s.onEvent({ type: 'turn_start', turn_id: 's1-t2' });
  s.onEvent({ type: 'turn_end', turn_id: 's1-t2', reason: 'completed' });
  s.onAsked('s1-t2');
  assert.equal(s.status(), 'idle');
  s.askOpened();
  s.reset();
  assert.equal(s.status(), 'idle');
  assert.equal(s.busy, false);
});

test('SessionState: a question left open when its turn ends no longer waits', () => {
  const s = new SessionState();
  s.onEvent({ type: 'turn_start', turn_id: 't1' });
  const stale = s.askOpened();
  assert.equal(s.status(), 'waiting');
  s.onEvent({ type: 'turn_end', turn_id: 't1', reason: 'cancelled' });
  assert.equal(s.status(), 'idle');
  s.onEvent({ type: 'turn_start', turn_id: 't2' });
  const ask = s.askOpened();
  s.askClosed(stale); // answered late: the new question still waits
  assert.equal(s.status(), 'waiting');
  s.askClosed(ask);
  assert.equal(s.status(), 'working');
});

// Unit tests of the session's status, step and revertable turn, without VS Code.
// Run: npm run test:unit
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { costText, SessionState, usageBadge, usageLine } from '../../src/events';

test('SessionState: idle, working on a step, waiting for you, idle', () => {
  const s = new SessionState();
  assert.equal(s.status(), 'idle');
  s.onAsked('s1-t1', 's1');
  assert.equal(s.status(), 'working');
  assert.equal(s.sessionId, 's1');
  s.onEvent({ type: 'turn_start', turn_id: 's1-t1' });
  s.onEvent({ type: 'tool_call', turn_id: 's1-t1', name: 'view', title: 'view a.txt' });
  assert.equal(s.step, 'view a.txt');
  s.onEvent({ type: 'todos', turn_id: 's1-t1', message: '2/5: writing the fix' });
  assert.equal(s.step, '2/5: writing the fix');
  s.askOpened('ask-1');
  assert.equal(s.status(), 'waiting');
  s.askClosed('ask-1');
  assert.equal(s.status(), 'working');
  s.onEvent({ type: 'text_delta', turn_id: 's1-t1', text: 'Do' });
  assert.equal(s.step, 'writing the answer');
  s.onEvent({ type: 'turn_end', turn_id: 's1-t1', reason: 'completed' });
  assert.equal(s.status(), 'idle');
  assert.equal(s.step, undefined);
  assert.equal(s.turnId, undefined);
  assert.equal(s.lastTurnId, 's1-t1');
});

test('SessionState: the last turn that changed a file is the one to revert', () => {
  const s = new SessionState();
  s.onEvent({ type: 'turn_start', turn_id: 't1' });
  s.onEvent({ type: 'tool_result', turn_id: 't1', name: 'view', is_error: false });
  assert.equal(s.changedTurnId, undefined);
  s.onEvent({ type: 'tool_result', turn_id: 't1', name: 'edit', is_error: true });
  assert.equal(s.changedTurnId, undefined, 'a failed edit changed nothing');
  s.onEvent({ type: 'tool_result', turn_id: 't1', name: 'edit', is_error: false });
  assert.equal(s.changedTurnId, undefined, 'an edit that changed nothing carries no hunks');
  s.onEvent({ type: 'tool_result', turn_id: 't1', name: 'mcp_fs_write', is_error: false, hunks: [{ path: 'a.txt', old_start: 1, new_start: 1, old: 'a\n', new: 'b\n' }] });
  s.onEvent({ type: 'turn_end', turn_id: 't1', reason: 'completed' });
  assert.equal(s.changedTurnId, 't1');
  s.onEvent({ type: 'turn_start', turn_id: 't2' });
  s.onEvent({ type: 'turn_end', turn_id: 't2', reason: 'completed' });
  assert.equal(s.changedTurnId, 't1', 'a turn without changes leaves it');
  s.onReverted();
  assert.equal(s.changedTurnId, undefined);
});

test('SessionState: a subagent event names the step but does not end the turn', () => {
  const s = new SessionState();
  s.onEvent({ type: 'turn_start', turn_id: 't1' });
  s.onEvent({ type: 'tool_call', turn_id: 't1', parent_id: 'call_1', name: 'grep', title: 'grep Foo' });
  assert.equal(s.step, 'subagent: grep Foo');
  s.onEvent({ type: 'turn_end', turn_id: 't1', parent_id: 'call_1', reason: 'completed' });
  assert.equal(s.status(), 'working');
});

test('SessionState: events that beat the ask reply leave it idle', () => {
  const s = new SessionState();
  s.onEvent({ type: 'turn_start', turn_id: 's1-t2' });
  s.onEvent({ type: 'turn_end', turn_id: 's1-t2', reason: 'completed' });
  s.onAsked('s1-t2');
  assert.equal(s.status(), 'idle');
  s.askOpened('a');
  s.reset();
  assert.equal(s.status(), 'idle');
  assert.equal(s.busy, false);
});

test('SessionState: a question left open when its turn ends no longer waits', () => {
  const s = new SessionState();
  s.onEvent({ type: 'turn_start', turn_id: 't1' });
  s.askOpened('stale');
  assert.equal(s.status(), 'waiting');
  s.onEvent({ type: 'turn_end', turn_id: 't1', reason: 'cancelled' });
  assert.equal(s.status(), 'idle');
  s.onEvent({ type: 'turn_start', turn_id: 't2' });
  s.askOpened('ask');
  s.askClosed('stale'); // answered late: the new question still waits
  assert.equal(s.status(), 'waiting');
  s.askClosed('ask');
  assert.equal(s.status(), 'working');
});

test('usage: the session total follows session_usage, is forgotten with the session, and reads as cost or tokens', () => {
  const s = new SessionState();
  s.onEvent({ type: 'usage', session_id: 's1', usage: { input_tokens: 10, output_tokens: 2 }, session_usage: { input_tokens: 10, output_tokens: 2, cost_usd: 0.0012 } });
  assert.deepEqual(s.sessionUsage, { input_tokens: 10, output_tokens: 2, cost_usd: 0.0012 });
  s.onEvent({ type: 'turn_end', session_id: 's1', reason: 'completed', session_usage: { input_tokens: 30, output_tokens: 5, cache_read_tokens: 20, cost_usd: 1.5 } });
  assert.equal(usageBadge(s.sessionUsage), '$1.50');
  assert.equal(usageLine(s.sessionUsage), '30 tokens in (20 cached), 5 out · $1.50');
  s.onEvent({ type: 'turn_start', session_id: 's2' });
  assert.equal(s.sessionUsage, undefined, 'another session does not inherit the total');
  // A model without a price: tokens only; nothing at all before any.
  assert.equal(usageBadge({ input_tokens: 12_400, output_tokens: 300 }), '13k tokens');
  assert.equal(usageLine({ input_tokens: 12, output_tokens: 5 }), '12 tokens in, 5 out');
  assert.equal(usageBadge({ input_tokens: 0, output_tokens: 0 }), undefined);
  assert.equal(costText(0.000022), '$0.0000');
  assert.equal(costText(0.022), '$0.0220');
});

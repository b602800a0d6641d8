// Unit tests of the chat's storage across reloads (a Memento in memory) and of @-mentions.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ChatStore, maxHistory, Memento } from '../../src/chat/store';
import { mentionAt } from '../../webview/mention';

function memento(): Memento {
  const m = new Map<string, unknown>();
  return {
    get: <T>(k: string) => structuredClone(m.get(k)) as T | undefined,
    update: async (k, v) => void m.set(k, structuredClone(v)),
  };
}

test('ChatStore: the current chat comes back; switching keeps the other', async () => {
  const s = new ChatStore(memento());
  assert.deepEqual(s.current(), { entries: [] });
  await s.save({ sessionId: 's1', entries: [{ kind: 'user', id: 'e1', text: 'one' }] });
  assert.equal(s.current().sessionId, 's1');
  const two = await s.switchTo('s2', 'second');
  assert.deepEqual(two, { sessionId: 's2', title: 'second', entries: [] });
  await s.save({ sessionId: 's2', title: 'second', entries: [{ kind: 'user', id: 'e1', text: 'two' }] });
  const back = await s.switchTo('s1');
  assert.equal(back.entries.length, 1);
  assert.equal(back.entries[0].kind === 'user' && back.entries[0].text, 'one');
  const fresh = await s.switchTo(undefined);
  assert.deepEqual(fresh.entries, []);
  assert.equal((await s.switchTo('s2')).entries.length, 1);
});

test('ChatStore: history without repeats, bounded; the draft', async () => {
  const s = new ChatStore(memento());
  await s.addHistory('a');
  await s.addHistory('b');
  await s.addHistory('a');
  assert.deepEqual(s.history(), ['b', 'a']);
  for (let i = 0; i < maxHistory + 5; i++) {
    await s.addHistory(`p${i}`);
  }
  assert.equal(s.history().length, maxHistory);
  await s.setDraft('half a prompt', 0);
  assert.equal(s.draft(), 'half a prompt');
});

test('ChatStore: the turn Revert undoes survives a reload; a revert forgets it; junk reads as none', async () => {
  const m = memento();
  assert.equal(new ChatStore(m).revert(), undefined);
  await new ChatStore(m).setRevert({ turnId: 's1-t3', files: ['/w/a.ts', '/w/b.ts'] });
  assert.deepEqual(new ChatStore(m).revert(), { turnId: 's1-t3', files: ['/w/a.ts', '/w/b.ts'] });
  await new ChatStore(m).setRevert(undefined);
  assert.equal(new ChatStore(m).revert(), undefined);
  await m.update('agentls.chat.revert', { turnId: 7, files: 'x' });
  assert.equal(new ChatStore(m).revert(), undefined);
  await m.update('agentls.chat.revert', { turnId: 's2-t1', files: ['/w/a.ts', 3] });
  assert.deepEqual(new ChatStore(m).revert(), { turnId: 's2-t1', files: ['/w/a.ts'] });
});

test('ChatStore: a sent prompt never comes back as the draft', async () => {
  const s = new ChatStore(memento());
  await s.setDraft('fix the bug', 0);
  await s.sent(0); // sent as typed
  assert.equal(s.draft(), '');
  // The webview's last draft of that prompt arrives after the send.
  await s.setDraft('fix the bug', 0);
  assert.equal(s.draft(), '', 'a draft from before the send came back');
  assert.equal(s.draftGen(), 1);
  // What is typed after the send is kept, even if the send's answer is late.
  await s.setDraft('and the tests', 1);
  await s.sent(0);
  assert.equal(s.draft(), 'and the tests');
  // A store reloaded from an older version's string draft still reads.
  const m = memento();
  await m.update('agentls.chat.draft', 'old text');
  assert.equal(new ChatStore(m).draft(), 'old text');
});

test('mentionAt: the @word before the cursor', () => {
  assert.deepEqual(mentionAt('look at @src/ma', 15), { start: 8, query: 'src/ma' });
  assert.deepEqual(mentionAt('@', 1), { start: 0, query: '' });
  assert.equal(mentionAt('mail me@example.com', 19), undefined);
  assert.equal(mentionAt('@done now', 9), undefined);
});

// Unit tests of per-hunk review decisions and their result (docs/protocol.md, "Review before apply").
import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { ReviewParams } from '../../src/protocol';
import { hunkSize, lensLine, ReviewDecisions } from '../../src/review/decisions';

const params: ReviewParams = {
  id: 'ask-4',
  message: 'agentls wants to edit a.txt',
  uri: 'file:///w/a.txt',
  path: 'a.txt',
  exists: true,
  original: 'a\nb\nc\n',
  proposed: 'A\nb\n',
  hunks: [
    { id: 1, oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, diff: '@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n' },
    { id: 2, oldStart: 3, oldLines: 1, newStart: 3, newLines: 0, diff: '@@ -1,3 +1,2 @@\n a\n b\n-c\n' },
  ],
  choices: [{ answer: 'allow_session', title: 'Allow edits in ./ this session' }],
};

test('ReviewDecisions: the answer goes once every hunk is decided', () => {
  const d = new ReviewDecisions(params);
  assert.equal(d.decide(1, 'accepted'), undefined);
  assert.equal(d.pending, 1);
  assert.deepEqual(d.decide(2, 'rejected'), { accept: [1] });
});

test('ReviewDecisions: undo takes a decision back; the last word counts', () => {
  const d = new ReviewDecisions(params);
  d.decide(1, 'rejected');
  d.undo(1);
  assert.equal(d.decision(1), undefined);
  assert.equal(d.decide(2, 'accepted'), undefined);
  assert.deepEqual(d.decide(1, 'accepted'), { accept: [1, 2] });
  assert.equal(d.decide(99, 'accepted')?.hasOwnProperty('accept'), true, 'an unknown hunk changes nothing');
});

test('ReviewDecisions: accept all (with a grant), reject all, and the words for the chat', () => {
  const d = new ReviewDecisions(params);
  assert.deepEqual(d.acceptAll(), { accept: [1, 2] });
  assert.deepEqual(d.acceptAll('allow_session'), { accept: [1, 2], answer: 'allow_session' });
  assert.equal(ReviewDecisions.describe({ accept: [] }, 2), 'rejected');
  assert.equal(ReviewDecisions.describe(null, 2), 'rejected');
  assert.equal(ReviewDecisions.describe({ accept: [1] }, 2), 'accepted hunk 1 of 2');
  assert.equal(ReviewDecisions.describe({ accept: [1, 2] }, 2), 'accepted');
  assert.equal(ReviewDecisions.describe({ accept: [1, 2], answer: 'allow_session' }, 2), 'accepted (allow session)');
  assert.equal(ReviewDecisions.describe({ text: 'x' }, 2), 'applied with your edits');
});

test('lensLine: a hunk\'s first new line; a deletion\'s following line, the last at the end', () => {
  assert.equal(lensLine(params.hunks[0], 3), 0);
  assert.equal(lensLine(params.hunks[1], 3), 2);
  assert.equal(lensLine(params.hunks[1], 2), 1, 'deleted at the end of the file');
  assert.equal(lensLine({ ...params.hunks[0], newStart: 0 }, 0), 0);
  assert.equal(hunkSize(params.hunks[0]), '+1 −1');
  assert.equal(hunkSize(params.hunks[1]), '−1');
});

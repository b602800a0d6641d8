import assert from 'node:assert/strict';
import { test } from 'node:test';

import { RangeLike, shownAtCursor } from '../../src/inline';

type Item = { insertText: string; range?: RangeLike };

const at = { line: 3, character: 10 };
const range = (sl: number, sc: number, el: number, ec: number) => ({ start: { line: sl, character: sc }, end: { line: el, character: ec } });

test('ghost text at the cursor is kept; a next edit elsewhere is left to the code action', () => {
  const cursor: Item = { insertText: 'return a + b', range: range(3, 10, 3, 10) };
  const typedOver: Item = { insertText: 'x, b', range: range(3, 9, 3, 13) };
  const noRange: Item = { insertText: 'y' };
  const otherLine: Item = { insertText: 'x', range: range(4, 8, 4, 9) }; // the parameter's other use
  const sameLineAway: Item = { insertText: 'z', range: range(3, 20, 3, 21) };
  const multiLine: Item = { insertText: 'a\nb', range: range(3, 0, 4, 0) };
  assert.deepEqual(shownAtCursor([cursor, otherLine, typedOver, noRange, sameLineAway, multiLine], at), [cursor, typedOver, noRange]);
  assert.deepEqual(shownAtCursor([otherLine], at), []);
});

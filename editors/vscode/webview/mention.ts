// Finding the @-mention being typed in the prompt. No DOM here, so the
// unit tests run it in plain node.

/** The @word being typed just before the cursor, if any: where its @ is and what follows it. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | undefined {
  const m = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  return m ? { start: caret - m[2].length - 1, query: m[2] } : undefined;
}

// Inline completion in VS Code: the language client's own mapping of LSP
// 3.18's textDocument/inlineCompletion (vscode-languageclient 9's proposed
// InlineCompletionItemFeature: it declares the client capability, registers
// VS Code's inline completion provider only when the server declared
// inlineCompletionProvider, and passes the provider's cancellation token
// to the request, which sends $/cancelRequest). This file is what the
// extension adds: VS Code shows an inline suggestion only where the cursor
// is, on one line, so agentls's next-edit items elsewhere in the file are
// left to its code action (docs/protocol.md#next-edit-suggestions).

/** A position as LSP and VS Code both spell it. */
export interface Pos {
  line: number;
  character: number;
}

/** A range as LSP and VS Code both spell it. */
export interface RangeLike {
  start: Pos;
  end: Pos;
}

function before(a: Pos, b: Pos): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

/**
 * The items VS Code can show at the cursor: those without a range (an
 * insertion at the cursor) and those whose range lies on the cursor's
 * line and contains it.
 */
export function shownAtCursor<T extends { range?: RangeLike }>(items: readonly T[], at: Pos): T[] {
  return items.filter((item) => {
    const r = item.range;
    return !r || (r.start.line === at.line && r.end.line === at.line && before(r.start, at) && before(at, r.end));
  });
}

// The editor context that goes with a prompt: the file the person was
// in and the lines selected there. Focus moves to the chat when they
// type, so the last file editor is remembered rather than read at send.

import * as vscode from 'vscode';

export interface PromptContext {
  uri: vscode.Uri;
  range?: vscode.Range;
  /** "main.go" or "main.go:10-14". */
  label: string;
}

export class EditorContext implements vscode.Disposable {
  private last: vscode.TextEditor | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[];

  constructor() {
    this.take(vscode.window.activeTextEditor);
    this.disposables = [
      vscode.window.onDidChangeActiveTextEditor((e) => this.take(e)),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.textEditor === this.last) {
          this.changed.fire();
        }
      }),
      vscode.window.onDidChangeVisibleTextEditors(() => {
        if (this.last && !vscode.window.visibleTextEditors.includes(this.last)) {
          this.last = undefined;
          this.changed.fire();
        }
      }),
      this.changed,
    ];
  }

  /** The context now: the last file editor still on screen. */
  current(): PromptContext | undefined {
    const e = this.last;
    if (!e) {
      return undefined;
    }
    const label = vscode.workspace.asRelativePath(e.document.uri, false);
    const sel = e.selection;
    if (sel.isEmpty) {
      return { uri: e.document.uri, label };
    }
    // A selection ending at the start of a line does not include that line.
    const end = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line - 1 : sel.end.line;
    const lines = sel.start.line === end ? `${sel.start.line + 1}` : `${sel.start.line + 1}-${end + 1}`;
    return { uri: e.document.uri, range: sel, label: `${label}:${lines}` };
  }

  /** The context of a file and range given by the server (a code action). */
  static of(uri: vscode.Uri, range: vscode.Range | undefined): PromptContext {
    const label = vscode.workspace.asRelativePath(uri, false);
    if (!range) {
      return { uri, label };
    }
    const lines = range.start.line === range.end.line ? `${range.start.line + 1}` : `${range.start.line + 1}-${range.end.line + 1}`;
    return { uri, range, label: `${label}:${lines}` };
  }

  private take(e: vscode.TextEditor | undefined): void {
    if (e && e.document.uri.scheme === 'file') {
      this.last = e;
      this.changed.fire();
    }
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

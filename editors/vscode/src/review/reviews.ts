// Reviews shows an agentls/review in VS Code's diff editor: the current
// text on the left, the agent's proposal on the right, both virtual
// documents (scheme agentls-review, nothing written to disk), with
// Accept/Reject code lenses per hunk and Accept all / Reject all at the
// top. The review is answered when every hunk is decided (or all at once),
// and its diff editor closes then.

import * as path from 'path';
import * as vscode from 'vscode';

import type { ReviewParams, ReviewResult } from '../protocol';
import { Decision, hunkSize, lensLine, ReviewDecisions } from './decisions';

export const reviewScheme = 'agentls-review';

/** The extension's review commands (arguments: review id, hunk id). */
export const reviewCommand = {
  accept: 'agentls.vscode.review.acceptHunk',
  reject: 'agentls.vscode.review.rejectHunk',
  undo: 'agentls.vscode.review.undoHunk',
  acceptAll: 'agentls.vscode.review.acceptAll',
  rejectAll: 'agentls.vscode.review.rejectAll',
} as const;

interface Open {
  decisions: ReviewDecisions;
  left: vscode.Uri;
  right: vscode.Uri;
  done: (r: ReviewResult) => void;
}

/** The sides' URIs: agentls-review:/<id>/<side>/<path>, the path keeping its name for the language. */
function sideUri(id: string, side: 'original' | 'proposed', file: string): vscode.Uri {
  const rel = file.replace(/\\/g, '/').replace(/^\/+/, '');
  return vscode.Uri.from({ scheme: reviewScheme, path: `/${encodeURIComponent(id)}/${side}/${rel}` });
}

function parseUri(uri: vscode.Uri): { id: string; side: string } | undefined {
  const m = /^\/([^/]+)\/(original|proposed)\//.exec(uri.path);
  return m ? { id: decodeURIComponent(m[1]), side: m[2] } : undefined;
}

export class Reviews implements vscode.TextDocumentContentProvider, vscode.CodeLensProvider, vscode.Disposable {
  private readonly open = new Map<string, Open>();
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private readonly disposables: vscode.Disposable[] = [];

  /** onFinished: a review was answered, with what the person chose in words. */
  constructor(private readonly onFinished: (id: string, result: ReviewResult, words: string) => void) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(reviewScheme, this),
      vscode.languages.registerCodeLensProvider({ scheme: reviewScheme }, this),
      vscode.commands.registerCommand(reviewCommand.accept, (id: string, hunk: number) => this.decide(id, hunk, 'accepted')),
      vscode.commands.registerCommand(reviewCommand.reject, (id: string, hunk: number) => this.decide(id, hunk, 'rejected')),
      vscode.commands.registerCommand(reviewCommand.undo, (id: string, hunk: number) => this.undo(id, hunk)),
      vscode.commands.registerCommand(reviewCommand.acceptAll, (id?: unknown, grant?: string) => this.acceptAll(this.idOf(id), grant)),
      vscode.commands.registerCommand(reviewCommand.rejectAll, (id?: unknown) => this.rejectAll(this.idOf(id))),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateContext()),
      this.lensesChanged,
    );
  }

  /** Shows the review and resolves with the person's answer; a cancelled request closes it (null). */
  show(p: ReviewParams, token: vscode.CancellationToken): Promise<ReviewResult> {
    return new Promise<ReviewResult>((resolve) => {
      const decisions = new ReviewDecisions(p);
      const item: Open = {
        decisions,
        left: sideUri(p.id, 'original', p.path),
        right: sideUri(p.id, 'proposed', p.path),
        done: resolve,
      };
      this.open.set(p.id, item);
      token.onCancellationRequested(() => this.finish(p.id, null, 'closed: the turn no longer waits'));
      void this.reveal(p.id);
    });
  }

  has(id: string): boolean {
    return this.open.has(id);
  }

  /** Opens (again) the diff editor of a pending review. */
  async reveal(id: string): Promise<void> {
    const r = this.open.get(id);
    if (!r) {
      return;
    }
    const p = r.decisions.params;
    const n = p.hunks.length;
    const title = `${path.basename(p.path)}: agentls's change (${n} hunk${n === 1 ? '' : 's'}) — review`;
    await vscode.commands.executeCommand('vscode.diff', r.left, r.right, title, { preview: false });
    this.updateContext();
  }

  decide(id: string, hunk: number, d: Decision): void {
    const r = this.open.get(id);
    if (!r) {
      return;
    }
    const result = r.decisions.decide(hunk, d);
    this.lensesChanged.fire();
    if (result) {
      this.finish(id, result);
    }
  }

  undo(id: string, hunk: number): void {
    this.open.get(id)?.decisions.undo(hunk);
    this.lensesChanged.fire();
  }

  acceptAll(id: string | undefined, grant?: string): void {
    const r = id ? this.open.get(id) : undefined;
    if (r) {
      this.finish(id!, r.decisions.acceptAll(grant));
    }
  }

  rejectAll(id: string | undefined): void {
    if (id && this.open.has(id)) {
      this.finish(id, { accept: [] });
    }
  }

  /** Ends a review that was answered or closed elsewhere; its request is answered null (no longer read). */
  close(id: string, words: string): void {
    this.finish(id, null, words);
  }

  /** The one review left pending, when there is exactly one. */
  only(): string | undefined {
    return this.open.size === 1 ? [...this.open.keys()][0] : undefined;
  }

  private finish(id: string, result: ReviewResult, words?: string): void {
    const r = this.open.get(id);
    if (!r) {
      return;
    }
    this.open.delete(id);
    r.done(result);
    this.lensesChanged.fire();
    this.onFinished(id, result, words ?? ReviewDecisions.describe(result, r.decisions.hunks.length));
    void this.closeTabs(r);
    this.updateContext();
  }

  private async closeTabs(r: Open): Promise<void> {
    const mine = (u: vscode.Uri | undefined) => u?.toString() === r.right.toString() || u?.toString() === r.left.toString();
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => {
      const input = t.input;
      if (input instanceof vscode.TabInputTextDiff) {
        return mine(input.modified) || mine(input.original);
      }
      return input instanceof vscode.TabInputText && mine(input.uri);
    });
    if (tabs.length) {
      await vscode.window.tabGroups.close(tabs, true);
    }
  }

  /** Which review the active editor shows: it or an id given by a command. */
  private idOf(arg: unknown): string | undefined {
    if (typeof arg === 'string') {
      return arg;
    }
    const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    const parsed = uri?.scheme === reviewScheme ? parseUri(uri) : undefined;
    return parsed?.id ?? this.only();
  }

  /** agentls.reviewActive: the editor title shows Accept all / Reject all. */
  private updateContext(): void {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const parsed = uri?.scheme === reviewScheme ? parseUri(uri) : undefined;
    void vscode.commands.executeCommand('setContext', 'agentls.reviewActive', parsed !== undefined && this.open.has(parsed.id));
  }

  // --- TextDocumentContentProvider ---

  provideTextDocumentContent(uri: vscode.Uri): string {
    const parsed = parseUri(uri);
    const r = parsed && this.open.get(parsed.id);
    if (!r) {
      return '';
    }
    return parsed!.side === 'original' ? r.decisions.params.original : r.decisions.params.proposed;
  }

  // --- CodeLensProvider ---

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const parsed = parseUri(doc.uri);
    const r = parsed && parsed.side === 'proposed' ? this.open.get(parsed.id) : undefined;
    if (!r) {
      return [];
    }
    const id = parsed!.id;
    const d = r.decisions;
    const total = d.hunks.length;
    const top = new vscode.Range(0, 0, 0, 0);
    const lenses = [
      new vscode.CodeLens(top, { title: `Accept all ${total}`, command: reviewCommand.acceptAll, arguments: [id] }),
      new vscode.CodeLens(top, { title: 'Reject all', command: reviewCommand.rejectAll, arguments: [id] }),
    ];
    // Grants in short (lenses share one line); the tooltip and the chat have the full words.
    for (const c of d.params.choices ?? []) {
      const short = c.answer === 'allow_session' ? 'Accept all + this session' : c.answer === 'allow_always' ? 'Accept all + always' : `Accept all + ${lowerFirst(c.title)}`;
      lenses.push(new vscode.CodeLens(top, { title: short, tooltip: `Accept all and ${lowerFirst(c.title)}`, command: reviewCommand.acceptAll, arguments: [id, c.answer] }));
    }
    for (const h of d.hunks) {
      const line = lensLine(h, doc.lineCount);
      const at = new vscode.Range(line, 0, line, 0);
      const label = `hunk ${h.id} of ${total} (${hunkSize(h)})`;
      const decided = d.decision(h.id);
      if (decided) {
        lenses.push(
          new vscode.CodeLens(at, { title: `${decided === 'accepted' ? '✓ Accepted' : '✗ Rejected'} ${label}`, command: '' }),
          new vscode.CodeLens(at, { title: 'Undo', command: reviewCommand.undo, arguments: [id, h.id] }),
        );
      } else {
        lenses.push(
          new vscode.CodeLens(at, { title: `Accept ${label}`, command: reviewCommand.accept, arguments: [id, h.id] }),
          new vscode.CodeLens(at, { title: 'Reject', command: reviewCommand.reject, arguments: [id, h.id] }),
        );
      }
    }
    return lenses;
  }

  dispose(): void {
    for (const id of [...this.open.keys()]) {
      this.finish(id, null, 'closed with the window');
    }
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

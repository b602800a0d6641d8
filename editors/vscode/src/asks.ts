// Asks shows every question the server puts to the person inline in the
// chat, never as a toast that hides itself: permission asks (agentls/ask,
// answered with agentls.approve; agentls/askDone closes them), the plain
// window/showMessageRequest of older servers and trust questions, the
// question tool (agentls/question) and reviews (agentls/review, whose
// diff editor is review/reviews.ts). "agentls: Answer the Agent's
// Question" offers the same choices in a QuickPick.

import * as vscode from 'vscode';
import type { CancellationToken, MessageActionItem, ShowMessageRequestParams } from 'vscode-languageclient/node';

import type { Chat } from './chat/chat';
import type { AskEntry } from './chat/entries';
import type { SessionState } from './events';
import { AskDoneParams, AskParams, Choice, QuestionParams, QuestionResult, ReviewParams, ReviewResult, serverCommand } from './protocol';
import { Reviews } from './review/reviews';

/** How a pending question is answered. */
type Answerer =
  | { kind: 'approve' }
  | { kind: 'resolve'; resolve: (answer: string | undefined, extra: { text?: string; chosen?: string[] }) => void }
  | { kind: 'review' };

/** What the person's answer words are in the chat. */
const answerWords: Record<string, string> = { allow: 'allowed', allow_session: 'allowed for this session', allow_always: 'always allowed', deny: 'denied' };

export class Asks implements vscode.Disposable {
  private readonly pending = new Map<string, Answerer>();
  private nextLocal = 1;
  readonly reviews: Reviews;

  constructor(
    private readonly chat: Chat,
    private readonly state: SessionState,
    private readonly approve: (id: string, answer: string) => Promise<unknown>,
    private readonly changed: () => void,
  ) {
    this.reviews = new Reviews((id, result, words) => this.closed(id, result === null ? 'closed' : 'answered', words));
  }

  // --- from the server ---

  /** agentls/ask: shown until answered or agentls/askDone. */
  onAsk(p: AskParams): void {
    this.opened(p.id, { kind: 'approve' }, { id: p.id, askKind: 'permission', message: p.message, warnings: p.warnings, diff: p.diff, choices: p.choices });
  }

  /** agentls/askDone: answered here or elsewhere (another client, a code action), or closed (cancelled, timed out). */
  onAskDone(p: AskDoneParams): void {
    const title = p.answer ? this.chat.openAsk(p.id)?.choices.find((c) => c.answer === p.answer)?.title : undefined;
    const words = p.answer ? title ?? answerWords[p.answer] ?? p.answer : 'closed: the turn was cancelled or the question timed out';
    // A review answered elsewhere closes its diff editor too.
    this.reviews.close(p.id, words);
    this.closed(p.id, p.answer ? 'answered' : 'closed', words);
  }

  /** window/showMessageRequest: the choices are its actions; no actions is a plain message. */
  showMessageRequest(p: ShowMessageRequestParams, token: CancellationToken): Promise<MessageActionItem | null> {
    const actions = p.actions ?? [];
    if (actions.length === 0) {
      this.chat.addNotice(p.type === 1 ? 'error' : p.type === 2 ? 'warning' : 'info', p.message);
      return Promise.resolve(null);
    }
    const id = `m${this.nextLocal++}`;
    return new Promise((resolve) => {
      const resolveWith = (answer: string | undefined) => {
        const item = actions.find((a) => a.title === answer);
        this.closed(id, item ? 'answered' : 'closed', item?.title);
        resolve(item ?? null);
      };
      token.onCancellationRequested(() => {
        this.closed(id, 'closed', 'closed: the server no longer waits');
        resolve(null);
      });
      const choices = actions.map((a) => ({ answer: a.title, title: a.title }));
      this.opened(id, { kind: 'resolve', resolve: resolveWith }, { id, askKind: 'permission', message: p.message, choices });
    });
  }

  /** agentls/question: the question tool's options, and free text. */
  question(p: QuestionParams, token: CancellationToken): Promise<QuestionResult> {
    const id = `q${this.nextLocal++}`;
    const options = p.options ?? [];
    return new Promise((resolve) => {
      token.onCancellationRequested(() => {
        this.closed(id, 'closed', 'closed: the turn no longer waits');
        resolve({ answer: null });
      });
      const resolveWith = (answer: string | undefined, extra: { text?: string; chosen?: string[] }) => {
        if (extra.chosen) {
          this.closed(id, 'answered', extra.chosen.join(', ') || '(nothing chosen)');
          resolve({ chosen: extra.chosen });
        } else if (extra.text !== undefined) {
          this.closed(id, 'answered', extra.text);
          resolve({ answer: extra.text });
        } else if (answer !== undefined) {
          this.closed(id, 'answered', answer);
          resolve({ chosen: [answer] });
        } else {
          this.closed(id, 'closed', 'dismissed');
          resolve({ answer: null });
        }
      };
      const choices = options.map((o) => ({ answer: o, title: o }));
      this.opened(id, { kind: 'resolve', resolve: resolveWith }, { id, askKind: 'question', message: p.question, choices, freeText: true, multi: p.multi && options.length > 0 });
    });
  }

  /** agentls/review: the diff editor, and a card in the chat. */
  async review(p: ReviewParams, token: CancellationToken): Promise<ReviewResult> {
    const n = p.hunks.length;
    const choices: Choice[] = [
      { answer: 'accept_all', title: n > 1 ? `Accept all ${n} hunks` : 'Accept' },
      { answer: 'reject_all', title: n > 1 ? 'Reject all' : 'Reject' },
      ...(p.choices ?? []).map((c) => ({ answer: c.answer, title: `Accept all and ${c.title.charAt(0).toLowerCase()}${c.title.slice(1)}` })),
    ];
    this.opened(p.id, { kind: 'review' }, { id: p.id, askKind: 'review', message: p.message, warnings: p.warnings, diff: p.diff, choices, path: p.path, hunks: n });
    return this.reviews.show(p, token);
  }

  // --- from the person ---

  /** An answer from the chat or the QuickPick. */
  answer(id: string, answer: string, extra: { text?: string; chosen?: string[] } = {}): void {
    const a = this.pending.get(id);
    if (!a) {
      return;
    }
    switch (a.kind) {
      case 'approve': {
        const title = this.chat.openAsk(id)?.choices.find((c) => c.answer === answer)?.title;
        this.closed(id, 'answered', title ?? answer);
        this.approve(id, answer).catch((err) => this.chat.addNotice('error', `Answering the question failed: ${err instanceof Error ? err.message : String(err)}`));
        return;
      }
      case 'resolve':
        a.resolve(answer || undefined, extra);
        return;
      case 'review':
        if (answer === 'reject_all') {
          this.reviews.rejectAll(id);
        } else if (answer === 'open') {
          void this.reviews.reveal(id);
        } else {
          this.reviews.acceptAll(id, answer === 'accept_all' ? undefined : answer);
        }
        return;
    }
  }

  /** The QuickPick fallback: the pending question's choices, with full labels. */
  async pick(): Promise<void> {
    const open = [...this.pending.keys()].map((id) => this.chat.openAsk(id)).filter((e): e is AskEntry => e !== undefined);
    if (open.length === 0) {
      void vscode.window.showInformationMessage('agentls: the agent is not waiting for you.');
      return;
    }
    let ask = open[0];
    if (open.length > 1) {
      const which = await vscode.window.showQuickPick(
        open.map((e) => ({ label: e.message, ask: e })),
        { title: 'agentls: which question?' },
      );
      if (!which) {
        return;
      }
      ask = which.ask;
    }
    type Item = vscode.QuickPickItem & { answer: string };
    const items: Item[] = ask.choices.map((c) => ({ label: c.title, answer: c.answer }));
    if (ask.askKind === 'review') {
      items.unshift({ label: 'Open the review', description: 'decide hunk by hunk in the diff editor', answer: 'open' });
    }
    const free = ask.askKind === 'question';
    const qp = vscode.window.createQuickPick<Item>();
    qp.title = `agentls: ${ask.message}`;
    qp.placeholder = free ? 'Choose, or type your answer and press Enter' : 'Choose an answer';
    qp.items = items;
    qp.ignoreFocusOut = true;
    const chosen = await new Promise<{ answer: string; text?: string } | undefined>((resolve) => {
      qp.onDidAccept(() => {
        const sel = qp.selectedItems[0];
        resolve(sel ? { answer: sel.answer } : free && qp.value ? { answer: '', text: qp.value } : undefined);
        qp.hide();
      });
      qp.onDidHide(() => resolve(undefined));
      qp.show();
    });
    qp.dispose();
    if (chosen) {
      this.answer(ask.id, chosen.answer, chosen.text !== undefined ? { text: chosen.text } : {});
    }
  }

  /** The server went away: nothing waits any more. */
  reset(): void {
    for (const [id, a] of this.pending) {
      if (a.kind === 'resolve') {
        a.resolve(undefined, {});
      }
      this.closed(id, 'closed', 'closed: the server stopped');
    }
  }

  get count(): number {
    return this.pending.size;
  }

  private opened(id: string, a: Answerer, entry: Omit<AskEntry, 'kind' | 'state'>): void {
    this.pending.set(id, a);
    this.chat.addAsk(entry);
    this.state.askOpened(id);
    this.changed();
    // The chat shows the question; bring it into view without taking the
    // keyboard from whatever the person types in.
    void this.chat.view.reveal(true);
  }

  private closed(id: string, state: 'answered' | 'closed', outcome?: string): void {
    this.pending.delete(id);
    this.chat.closeAsk(id, state, outcome);
    this.state.askClosed(id);
    this.changed();
  }

  dispose(): void {
    this.reviews.dispose();
  }
}

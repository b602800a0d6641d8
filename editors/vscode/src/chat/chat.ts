// Chat keeps the conversation the chat view shows: the transcript built
// from events and prompts, stored across reloads, sent to the webview as
// it changes; the webview's requests go to the extension's actions.

import * as vscode from 'vscode';

import type { AgentEvent } from '../events';
import type { AskEntry, Entry, NoticeEntry, Todo } from './entries';
import type { ChatStatus, FromView } from './messages';
import { ChatStore } from './store';
import { Transcript, type TurnsShown } from './transcript';
import { ChatView } from './view';

/** What the chat asks the extension to do. */
export interface ChatActions {
  /** Sends a prompt; resolves true when the server took it. */
  ask(prompt: string, withContext: boolean): Promise<boolean>;
  answer(id: string, answer: string, extra: { text?: string; chosen?: string[] }): void;
  cancel(): void;
  revert(): void;
  /** Offers the models and switches the conversation to the one picked. */
  pickModel(): void;
  openSettings(setting: string): void;
  openReview(id: string): void;
  /** "Restore to here": asks what to restore to before checkpoint id, and restores it. */
  restoreTo(checkpoint: number): void;
  mentions(query: string): Promise<string[]>;
}

/** How long changes wait before they are stored (ms). */
const saveDelay = 400;

export class Chat implements vscode.Disposable {
  readonly view: ChatView;
  private transcript: Transcript;
  private sessionIdValue: string | undefined;
  private title: string | undefined;
  private statusValue: ChatStatus = { status: 'starting' };
  private saveTimer: NodeJS.Timeout | undefined;
  private draftTimer: NodeJS.Timeout | undefined;
  private actions: ChatActions | undefined;
  private pendingFocus: { text?: string; placeholder?: string } | undefined;

  constructor(
    extensionUri: vscode.Uri,
    private readonly store: ChatStore,
  ) {
    const cur = store.current();
    this.transcript = new Transcript(cur.entries);
    this.sessionIdValue = cur.sessionId;
    this.title = cur.title;
    this.view = new ChatView(extensionUri, (m) => void this.onMessage(m));
  }

  /** Connects the chat to what it asks for (the extension, once built). */
  connect(actions: ChatActions): void {
    this.actions = actions;
  }

  get hasEntries(): boolean {
    return this.transcript.entries.length > 0;
  }

  /** The session this chat shows (its next prompt continues it). */
  get sessionId(): string | undefined {
    return this.sessionIdValue;
  }

  setSession(id: string | undefined): void {
    if (id && id !== this.sessionIdValue) {
      this.sessionIdValue = id;
      this.saveSoon();
    }
  }

  onEvent(e: AgentEvent): void {
    if (e.session_id) {
      this.setSession(e.session_id);
    }
    this.changed(this.transcript.onEvent(e));
  }

  /** Adds a prompt; returns its entry's id (setTurn names its turn once the server started it). */
  addUser(text: string, context?: string): string {
    const e = this.transcript.addUser(text, context);
    this.changed([e]);
    return e.id;
  }

  setTurn(userId: string, turnId: string): void {
    this.transcript.setTurn(userId, turnId);
    this.saveSoon();
  }

  /** Shows the turns the conversation holds after a restore and hides the rest (Transcript.showTurns). */
  showTurns(turns: readonly string[]): Omit<TurnsShown, 'changed'> {
    const { changed, ...shown } = this.transcript.showTurns(turns);
    this.changed(changed);
    return shown;
  }

  /** Shows the todo list the conversation holds after a restore (Transcript.showTodos). */
  showTodos(todos: readonly Todo[]): void {
    this.changed(this.transcript.showTodos(todos));
  }

  addNotice(level: NoticeEntry['level'], text: string): void {
    this.changed([this.transcript.addNotice(level, text)]);
  }

  /** Marks the steps with the checkpoints taken before them (agentls.checkpoints' list). */
  markCheckpoints(list: ReadonlyArray<{ id: number; turnId?: string; callId?: string }>): void {
    this.changed(this.transcript.markCheckpoints(list));
  }

  addAsk(ask: Omit<AskEntry, 'kind' | 'state'>): void {
    this.changed([this.transcript.addAsk(ask)]);
  }

  closeAsk(id: string, state: 'answered' | 'closed', outcome?: string): void {
    const e = this.transcript.closeAsk(id, state, outcome);
    if (e) {
      this.changed([e]);
    }
  }

  /** The open question with this id, if any. */
  openAsk(id: string): AskEntry | undefined {
    const e = this.transcript.get(id);
    return e?.kind === 'ask' && e.state === 'open' ? e : undefined;
  }

  /** Closes every open question (the server went away). */
  closeAllAsks(outcome: string): void {
    const closed = this.transcript.entries
      .filter((e): e is AskEntry => e.kind === 'ask' && e.state === 'open')
      .map((e) => this.transcript.closeAsk(e.id, 'closed', outcome))
      .filter((e): e is AskEntry => e !== undefined);
    this.changed(closed);
  }

  setStatus(s: ChatStatus): void {
    this.statusValue = { ...s, session: this.title };
    this.view.post({ type: 'status', status: this.statusValue });
  }

  /** Shows another session's chat (stored, or empty), or a new chat when id is undefined. */
  async switchTo(sessionId: string | undefined, title?: string): Promise<void> {
    await this.flush();
    const next = await this.store.switchTo(sessionId, title);
    this.transcript = new Transcript(next.entries);
    this.sessionIdValue = next.sessionId;
    this.title = next.title;
    this.reset();
  }

  /** Focuses the prompt, optionally with text to start from or a hint of what to ask. */
  async focusPrompt(text?: string, placeholder?: string): Promise<void> {
    // A view not drawn yet gets the focus once its page is ready.
    this.pendingFocus = { text, placeholder };
    await this.view.reveal(false);
    if (this.view.live) {
      this.view.post({ type: 'focus', text, placeholder });
      this.pendingFocus = undefined;
    }
  }

  async flush(): Promise<void> {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
    }
    await this.store.save({ sessionId: this.sessionIdValue, title: this.title, entries: this.transcript.stored() });
  }

  private changed(entries: Entry[]): void {
    if (entries.length === 0) {
      return;
    }
    const order = this.transcript.takeMoved() ? this.transcript.entries.map((e) => e.id) : undefined;
    this.view.post({ type: 'entries', entries, order });
    this.saveSoon();
  }

  private reset(): void {
    this.view.post({
      type: 'reset',
      entries: [...this.transcript.entries],
      status: { ...this.statusValue, session: this.title },
      draft: this.store.draft(),
      draftGen: this.store.draftGen(),
      history: this.store.history(),
    });
  }

  private saveSoon(): void {
    if (!this.saveTimer) {
      this.saveTimer = setTimeout(() => void this.flush(), saveDelay);
    }
  }

  private async onMessage(m: FromView): Promise<void> {
    const a = this.actions;
    switch (m.type) {
      case 'ready':
        this.reset();
        if (this.pendingFocus) {
          this.view.post({ type: 'focus', ...this.pendingFocus });
          this.pendingFocus = undefined;
        }
        return;
      case 'draft':
        clearTimeout(this.draftTimer);
        this.draftTimer = setTimeout(() => void this.store.setDraft(m.text, m.gen), saveDelay);
        return;
      case 'ask': {
        const ok = (await a?.ask(m.prompt, m.withContext)) ?? false;
        // The box empties at once; the stores follow (a late draft of
        // this generation is dropped by store.sent either way).
        this.view.post({ type: 'asked', prompt: m.prompt, ok });
        if (ok) {
          clearTimeout(this.draftTimer);
          await this.store.sent(m.gen);
          await this.store.addHistory(m.prompt);
        }
        return;
      }
      case 'mentions':
        this.view.post({ type: 'mentions', query: m.query, files: (await a?.mentions(m.query)) ?? [] });
        return;
      case 'answer':
        a?.answer(m.id, m.answer, { text: m.text, chosen: m.chosen });
        return;
      case 'cancel':
        a?.cancel();
        return;
      case 'revert':
        a?.revert();
        return;
      case 'pickModel':
        a?.pickModel();
        return;
      case 'openSettings':
        a?.openSettings(m.setting);
        return;
      case 'openReview':
        a?.openReview(m.id);
        return;
      case 'restore':
        a?.restoreTo(m.checkpoint);
        return;
      case 'copyCode':
        await vscode.env.clipboard.writeText(m.text);
        return;
      case 'insertCode':
        await this.insertCode(m.text);
        return;
    }
  }

  /** insertCode puts a code block of the answer at the cursor of the last text editor (one undo step). */
  private async insertCode(text: string): Promise<void> {
    const ed = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
    if (!ed) {
      this.addNotice('info', 'Open a file to insert the code into: Insert puts it at the cursor of the editor.');
      return;
    }
    const ok = await ed.edit((b) => {
      for (const sel of ed.selections) {
        b.replace(sel, text);
      }
    });
    if (!ok) {
      this.addNotice('error', `The code could not be inserted into ${vscode.workspace.asRelativePath(ed.document.uri, false)}.`);
    }
  }

  dispose(): void {
    void this.flush();
    clearTimeout(this.draftTimer);
    this.view.dispose();
  }
}

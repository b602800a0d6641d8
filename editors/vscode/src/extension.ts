// The agentls VS Code extension: runs `agentls serve --stdio` as a
// language server (client.ts) and puts the agent in a chat view
// (chat/), with its questions inline (asks.ts), reviews in the diff
// editor (review/), its step and a Revert in the status bar (status.ts),
// and restores of its checkpoints (restore.ts).
// This file wires them together and holds the commands. See
// docs/editors/vscode.md.

import * as vscode from 'vscode';

import { Asks } from './asks';
import { Chat, ChatActions } from './chat/chat';
import { ChatStore } from './chat/store';
import { ChatView } from './chat/view';
import { AgentClient, CodeActionAsk, message } from './client';
import { EditorContext, PromptContext } from './context';
import { AgentEvent, SessionState, Status, usageBadge, usageLine } from './events';
import { mentionFiles } from './mentions';
import { AskArgs, AskReply, ModelStatus, RevertReply, serverCommand, SessionInfo } from './protocol';
import { Restore } from './restore';
import { ignoredWorkspaceSettings, openSettings, readSettings, restrictedSettings } from './settings';
import type { SandboxStatus } from './sandbox';
import { StatusBar } from './status';

/** The extension's own command ids (the server's are agentls.*, registered by the language client). */
export const command = {
  ask: 'agentls.vscode.ask',
  askSelection: 'agentls.vscode.askSelection',
  cancel: 'agentls.vscode.cancel',
  revertLastTurn: 'agentls.vscode.revertLastTurn',
  sessions: 'agentls.vscode.sessions',
  newChat: 'agentls.vscode.newChat',
  answer: 'agentls.vscode.answer',
  showChat: 'agentls.vscode.showChat',
  showLog: 'agentls.vscode.showLog',
  restart: 'agentls.vscode.restartServer',
  openSettings: 'agentls.vscode.openSettings',
  pickModel: 'agentls.vscode.pickModel',
  checkpoints: 'agentls.vscode.checkpoints',
  undoRestore: 'agentls.vscode.undoRestore',
} as const;

/** How long after a turn's end a server message is taken for its end message (ms). */
const turnEndMessageWindow = 2000;

class Agentls implements vscode.Disposable, ChatActions {
  private readonly state = new SessionState();
  private readonly chat: Chat;
  private readonly store: ChatStore;
  private readonly asks: Asks;
  private readonly client: AgentClient;
  private readonly statusBar: StatusBar;
  private readonly restore: Restore;
  /** What the running server's sandbox enforces (agentls.sandbox). */
  private sandbox: SandboxStatus | undefined;
  /** agentls.model answered no model: the status says so before a prompt fails. */
  private noModel = false;
  /** The model the next prompt goes to (agentls.model, then the turns' and switches' events). */
  private model: string | undefined;
  /** The running server has a conversation (an ask went through since it started). */
  private conversing = false;
  private readonly editorContext = new EditorContext();
  private restartAfterTurn = false;
  /** The agentls settings (readSettings) as last started with or changed to, as JSON. */
  private settingsSeen = '';
  /** The context a code action gave the next prompt (instead of the editor's). */
  private pinned: PromptContext | undefined;
  /** When the last turn ended: the server's message about it follows. */
  private turnEndedAt = 0;
  /** Restores in flight: the server's message about each is left out (the chat's notice says it). */
  private restoring = 0;
  /** The next ask names the chat's session: the server restarted, or another session was picked. */
  private resume = true;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(context: vscode.ExtensionContext) {
    this.store = new ChatStore(context.workspaceState);
    this.chat = new Chat(context.extensionUri, this.store);
    // Revert survives a window reload: the server reverts the turn from
    // its history, whichever process ran it.
    const kept = this.store.revert();
    if (kept) {
      this.state.changedTurnId = kept.turnId;
      this.state.changedFiles = kept.files;
    }
    this.asks = new Asks(this.chat, this.state, (id, answer) => this.client.execute(serverCommand.approve, [{ id, answer }]), () => this.updateStatus());
    this.client = new AgentClient(context.extensionPath, {
      event: (e) => this.onEvent(e),
      ask: (p) => this.asks.onAsk(p),
      askDone: (p) => this.asks.onAskDone(p),
      review: (p, token) => this.asks.review(p, token),
      question: (p, token) => this.asks.question(p, token),
      showMessageRequest: (p, token) => this.asks.showMessageRequest(p, token),
      showMessage: (p) => this.showMessage(p.type, p.message),
      codeActionAsk: (a) => this.codeActionAsk(a),
    });
    this.statusBar = new StatusBar({ showChat: command.showChat, answer: command.answer, restart: command.restart, revert: command.revertLastTurn, settings: command.openSettings });
    this.restore = new Restore({
      execute: async (name, args) => {
        this.restoring++;
        try {
          return await this.client.execute(name, args);
        } finally {
          this.restoring--;
        }
      },
      sessionId: () => this.chat.sessionId,
      notice: (level, text) => this.chat.addNotice(level, text),
      mark: (list) => this.chat.markCheckpoints(list),
      showTurns: (turns) => this.chat.showTurns(turns),
      showTodos: (todos) => this.chat.showTodos(todos),
      retype: (prompt) => void this.chat.focusPrompt(prompt),
    });
    this.chat.connect(this);
    this.disposables.push(this.client, this.chat, this.asks, this.statusBar, this.editorContext, this.restore);
  }

  register(): void {
    const reg = (id: string, fn: (...args: never[]) => unknown) => this.disposables.push(vscode.commands.registerCommand(id, fn));
    reg(command.ask, () => this.chat.focusPrompt());
    reg(command.askSelection, () => {
      const ctx = this.editorContext.current();
      return this.chat.focusPrompt(undefined, ctx ? `Ask about ${ctx.label}…` : undefined);
    });
    reg(command.cancel, () => this.cancel());
    reg(command.revertLastTurn, () => this.revert());
    reg(command.sessions, () => this.sessions());
    reg(command.newChat, () => this.newChat());
    reg(command.answer, () => this.asks.pick());
    reg(command.showChat, () => this.chat.view.reveal(false));
    reg(command.showLog, () => this.client.output.show(true));
    reg(command.restart, () => this.restart());
    reg(command.openSettings, (key: string) => openSettings(typeof key === 'string' ? key : 'agentls.model'));
    reg(command.pickModel, () => this.pickModel());
    reg(command.checkpoints, () => this.whenIdle(() => this.restore.pick()));
    reg(command.undoRestore, () => this.whenIdle(() => this.restore.undo()));
    this.disposables.push(
      vscode.window.registerWebviewViewProvider(ChatView.viewId, this.chat.view, { webviewOptions: { retainContextWhenHidden: true } }),
      // The activity bar's Get Started view: no items, only its welcome
      // (package.json viewsWelcome: open the chat, set a model, trust).
      vscode.window.registerTreeDataProvider<never>('agentls.start', { getChildren: () => [], getTreeItem: (x) => x }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (restrictedSettings.some((s) => e.affectsConfiguration(s))) {
          void this.settingsChanged();
        }
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.trustGranted()),
      this.client.onDidChangeState((s) => {
        if (s !== 'running') {
          this.state.reset();
          this.asks.reset();
        }
        if (s === 'starting') {
          this.resume = true;
          this.conversing = false;
        }
        this.sandbox = undefined;
        if (s === 'running') {
          void this.readSandbox();
          void this.readModel();
          void this.restore.refresh();
        }
        this.updateStatus();
      }),
      this.editorContext.onDidChange(() => this.updateStatus()),
    );
    this.warnIgnoredSettings();
    this.updateStatus();
  }

  async start(): Promise<void> {
    this.settingsSeen = JSON.stringify(readSettings());
    await this.client.start();
  }

  async stop(): Promise<void> {
    await this.chat.flush();
    await this.client.stop();
  }

  // --- ChatActions: what the chat view asks for ---

  async ask(prompt: string, withContext: boolean): Promise<boolean> {
    const ctx = withContext ? this.pinned ?? this.editorContext.current() : undefined;
    const userId = this.chat.addUser(prompt, ctx?.label);
    const arg: AskArgs = { prompt };
    const sessionId = this.resume ? this.chat.sessionId : undefined;
    try {
      const reply = await this.sendAsk(arg, ctx, sessionId);
      this.resume = false;
      this.conversing = true;
      this.pinned = undefined;
      this.chat.setSession(reply.sessionId);
      if (reply.turnId) {
        this.chat.setTurn(userId, reply.turnId);
        this.state.onAsked(reply.turnId, reply.sessionId);
      }
      this.updateStatus();
      return true;
    } catch (err) {
      this.chat.addNotice('error', explain(message(err)));
      return false;
    }
  }

  /** agentls.ask; a stored session that cannot be continued gives way to a new one. */
  private async sendAsk(arg: AskArgs, ctx: ReturnType<EditorContext['current']>, sessionId: string | undefined): Promise<AskReply> {
    await this.client.running();
    const conv = this.client.converter();
    if (ctx && conv) {
      arg.uri = conv.asUri(ctx.uri);
      if (ctx.range) {
        arg.range = conv.asRange(ctx.range);
      }
    }
    if (!sessionId) {
      return this.client.execute<AskReply>(serverCommand.ask, [arg]);
    }
    try {
      return await this.client.execute<AskReply>(serverCommand.ask, [{ ...arg, sessionId }]);
    } catch (err) {
      const m = message(err);
      if (/already running|no model|not running/i.test(m)) {
        throw err;
      }
      this.chat.addNotice('warning', `The earlier session could not be continued (${m}); this prompt starts a new one.`);
      return this.client.execute<AskReply>(serverCommand.ask, [arg]);
    }
  }

  /**
   * A code action's ask: "Fix with agent" goes as it is, shown in the
   * chat; "Ask agent about …" (editPrompt) puts its place in the prompt's
   * context and waits for the person's question, the canned one as hint.
   */
  private async codeActionAsk(a: CodeActionAsk): Promise<unknown> {
    const conv = this.client.fromProtocol();
    const uri = a.uri && conv ? conv.asUri(a.uri) : this.editorContext.current()?.uri;
    const ctx = uri ? EditorContext.of(uri, a.range && conv ? conv.asRange(a.range) : undefined) : undefined;
    this.pinned = ctx;
    this.updateStatus();
    if (a.editPrompt) {
      await this.chat.focusPrompt(undefined, a.prompt);
      return { prompted: true };
    }
    await this.chat.view.reveal(true);
    return this.ask(a.prompt, true);
  }

  answer(id: string, answer: string, extra: { text?: string; chosen?: string[] }): void {
    this.asks.answer(id, answer, extra);
  }

  async cancel(): Promise<void> {
    try {
      const res = await this.client.execute<{ cancelled?: boolean }>(serverCommand.cancel, this.state.turnId ? [{ turnId: this.state.turnId }] : []);
      if (!res?.cancelled) {
        this.chat.addNotice('info', 'No turn is running.');
      }
    } catch (err) {
      this.chat.addNotice('error', `Cancel failed: ${message(err)}`);
    }
  }

  async revert(force = false): Promise<void> {
    const turnId = this.state.changedTurnId;
    if (!force && !(await this.confirmRevert())) {
      return;
    }
    try {
      const args: Record<string, unknown> = {};
      if (turnId) {
        args.turnId = turnId;
      }
      if (force) {
        args.force = true;
      }
      const res = await this.client.execute<RevertReply>(serverCommand.revertTurn, Object.keys(args).length ? [args] : []);
      const restored = res?.restored ?? [];
      const skipped = res?.skipped ?? [];
      this.state.onReverted();
      void this.store.setRevert(undefined);
      this.updateStatus();
      const rel = (p: string) => vscode.workspace.asRelativePath(p, false);
      this.chat.addNotice(
        skipped.length ? 'warning' : 'info',
        `Reverted the last turn's changes: ${restored.length ? `restored ${restored.map(rel).join(', ')}` : 'nothing to restore'}` +
          (skipped.length ? `; left alone (changed since): ${skipped.map((s) => `${rel(s.path ?? s.Path ?? '?')} (${s.reason ?? s.Reason})`).join(', ')}` : '.'),
      );
      if (skipped.length && !force) {
        const choice = await vscode.window.showWarningMessage(`agentls: ${skipped.length} file(s) changed after the turn were not reverted.`, 'Revert Anyway');
        if (choice === 'Revert Anyway') {
          this.state.changedTurnId = res?.turnId ?? turnId;
          await this.revert(true);
        }
      }
    } catch (err) {
      this.chat.addNotice('error', `Revert failed: ${message(err)}`);
    }
  }

  /** confirmRevert asks before the last turn's changes are undone, naming the files. */
  private async confirmRevert(): Promise<boolean> {
    const files = this.state.changedFiles.map((p) => vscode.workspace.asRelativePath(p, false));
    const detail = files.length
      ? `The agent's changes to ${revertList(files)} are undone; a file changed since the turn is left alone.`
      : 'The files the agent changed in its last turn get back what they had before it; a file changed since is left alone.';
    const choice = await vscode.window.showWarningMessage("Revert the last turn's changes?", { modal: true, detail }, 'Revert');
    return choice === 'Revert';
  }

  async sessions(): Promise<void> {
    let list: SessionInfo[];
    try {
      list = (await this.client.execute<SessionInfo[]>(serverCommand.sessions)) ?? [];
    } catch (err) {
      this.chat.addNotice('error', `Listing the sessions failed: ${message(err)}`);
      return;
    }
    type Item = vscode.QuickPickItem & { id?: string; title?: string };
    const items: Item[] = [{ label: '$(add) New chat', description: 'start a new conversation' }];
    for (const s of list) {
      const current = s.id === this.chat.sessionId;
      items.push({
        label: `${current ? '$(comment-discussion) ' : ''}${s.title || s.id}`,
        description: [s.updated ? new Date(s.updated).toLocaleString() : '', s.model ?? ''].filter((x) => x).join(' · '),
        detail: `${s.id}${s.records !== undefined ? ` · ${s.records} records` : ''}${current ? ' · shown now' : ''}`,
        id: s.id,
        title: s.title,
      });
    }
    const pick = await vscode.window.showQuickPick(items, { title: 'agentls: resume a session', matchOnDescription: true, matchOnDetail: true });
    if (!pick) {
      return;
    }
    if (!pick.id) {
      await this.newChat();
      return;
    }
    if (pick.id === this.chat.sessionId) {
      await this.chat.view.reveal(false);
      return;
    }
    if (this.state.busy) {
      this.chat.addNotice('warning', 'A turn is running: cancel it before switching sessions.');
      return;
    }
    await this.chat.switchTo(pick.id, pick.title);
    this.resume = true;
    void this.restore.refresh();
    void this.readModel(); // the header names the model the resumed session goes on with
    if (!this.chat.hasEntries) {
      this.chat.addNotice('info', `Resumed session “${pick.title || pick.id}”. Its earlier turns are not shown here; the agent remembers them, and your next prompt continues it.`);
    } else {
      this.chat.addNotice('info', 'Resumed this session; your next prompt continues it.');
    }
    await this.chat.view.reveal(false);
  }

  async newChat(): Promise<void> {
    if (this.state.busy) {
      this.chat.addNotice('warning', 'A turn is running: cancel it before starting a new chat.');
      return;
    }
    await this.chat.switchTo(undefined);
    // One session per connection: a new chat is a new connection.
    await this.client.restart();
    this.resume = false;
  }

  openSettings(setting: string): void {
    void openSettings(setting);
  }

  /**
   * The chat's model button: the models agentls knows (agentls.model) in
   * a QuickPick, the one running marked, and Other… to type one; the
   * conversation goes on with the model picked (agentls.setModel).
   */
  async pickModel(): Promise<void> {
    let st: ModelStatus;
    try {
      await this.client.running();
      st = await this.client.execute<ModelStatus>(serverCommand.model, this.modelArgs());
    } catch (err) {
      this.chat.addNotice('error', `Listing the models failed: ${message(err)}`);
      return;
    }
    type Item = vscode.QuickPickItem & { model?: string };
    const items: Item[] = (st.models ?? []).map((c) => ({
      label: `${c.model === st.model ? '$(check) ' : ''}${c.model}`,
      description: c.from,
      model: c.model,
    }));
    items.push({ label: '$(edit) Other model…', description: 'provider:model, e.g. anthropic:claude-sonnet-4-5' });
    const pick = await vscode.window.showQuickPick(items, {
      title: 'agentls: switch the conversation to another model',
      placeHolder: st.model ? `Now ${st.model}: the conversation goes on with the model you pick` : st.problem,
      matchOnDescription: true,
    });
    if (!pick) {
      return;
    }
    const spec =
      pick.model ??
      (await vscode.window.showInputBox({
        title: 'agentls: switch the conversation to another model',
        prompt: 'provider:model — a server of agentls.providers or of the config file, or a known provider (openai, anthropic, openrouter, ollama, …)',
        value: st.model,
        validateInput: (v) => (badModel(v.trim()) ? 'provider:model, e.g. openai:gpt-4.1 or local:qwen3' : undefined),
      }))?.trim();
    if (!spec || spec === st.model) {
      return;
    }
    await this.setModel(spec);
  }

  /** Switches the conversation to spec; the server's model event says so in the chat (before the first prompt, the chat does). */
  private async setModel(spec: string): Promise<void> {
    try {
      const st = await this.client.execute<ModelStatus>(serverCommand.setModel, [{ model: spec }]);
      this.model = st.model || spec;
      if (!this.conversing) {
        // No conversation on the server yet: no model event comes.
        this.chat.addNotice('info', `The next prompt goes to ${this.model}.`);
      }
    } catch (err) {
      this.chat.addNotice('error', message(err));
    }
    this.updateStatus();
  }

  openReview(id: string): void {
    this.asks.answer(id, 'open');
  }

  restoreTo(checkpoint: number): void {
    void this.whenIdle(() => this.restore.restoreTo(checkpoint));
  }

  /** Runs a restore unless a turn runs (the server refuses it then: say so before asking what). */
  private async whenIdle(fn: () => Promise<void>): Promise<void> {
    if (this.state.busy) {
      this.chat.addNotice('warning', 'A turn is running: cancel it (or wait for its end) before restoring a checkpoint.');
      return;
    }
    await fn();
  }

  mentions(query: string): Promise<string[]> {
    return mentionFiles(query);
  }

  // --- the server ---

  private onEvent(e: AgentEvent): void {
    if (e.type === 'turn_end' && !e.parent_id) {
      this.turnEndedAt = Date.now();
    }
    if ((e.type === 'turn_start' || e.type === 'model') && e.model && !e.parent_id) {
      this.model = e.model;
    }
    const changed = [this.state.changedTurnId, this.state.changedFiles.length];
    this.state.onEvent(e);
    if (changed[0] !== this.state.changedTurnId || changed[1] !== this.state.changedFiles.length) {
      void this.store.setRevert(this.state.changedTurnId ? { turnId: this.state.changedTurnId, files: [...this.state.changedFiles] } : undefined);
    }
    this.chat.onEvent(e);
    this.updateStatus();
    if (e.type === 'turn_end' && !e.parent_id) {
      // The turn's steps get their "Restore to here".
      void this.restore.refresh();
    }
    if (e.type === 'turn_end' && !e.parent_id && this.restartAfterTurn && !this.state.busy) {
      void this.restart();
    }
  }

  /**
   * window/showMessage: in the chat when it is on screen (the message the
   * server sends as a turn ends repeats what the chat shows, so it is
   * left out, as is a restore's), else a notification.
   */
  private showMessage(type: number, text: string): void {
    if (this.restoring > 0 && /^agentls: restored to checkpoint/.test(text)) {
      return;
    }
    if (!this.chat.view.visible) {
      const show = type === 1 ? vscode.window.showErrorMessage : type === 2 ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
      void show(text);
      return;
    }
    if (Date.now() - this.turnEndedAt < turnEndMessageWindow) {
      return;
    }
    this.chat.addNotice(type === 1 ? 'error' : type === 2 ? 'warning' : 'info', text);
  }

  async restart(): Promise<void> {
    this.restartAfterTurn = false;
    await this.client.restart();
  }

  /**
   * The model and mode apply at the next prompt (the server reads them
   * again); a new binary needs a restart, after the running turn. The
   * chat's conversation goes on either way.
   */
  /** The folder was trusted in VS Code: agentls restarts so its settings and language servers apply in full. */
  private async trustGranted(): Promise<void> {
    if (this.state.busy) {
      this.restartAfterTurn = true;
      this.chat.addNotice('info', 'Workspace trusted: agentls restarts when the running turn ends, so the workspace settings and its language servers apply.');
      return;
    }
    this.chat.addNotice('info', 'Workspace trusted: restarting agentls, so the workspace settings and its language servers apply.');
    await this.restart();
  }

  private async settingsChanged(): Promise<void> {
    this.warnIgnoredSettings();
    const s = readSettings();
    // VS Code says a setting changed when only a value agentls ignores did
    // (a workspace's, which applies once the folder is trusted): nothing
    // to restart or announce.
    const seen = JSON.stringify(s);
    if (seen === this.settingsSeen) {
      return;
    }
    this.settingsSeen = seen;
    const what = [s.model ? `the model ${s.model}` : '', s.mode ? `${s.mode} mode` : ''].filter((x) => x).join(' and ');
    const bad = (s.model ? badModel(s.model) : undefined) ?? (s.mode ? badMode(s.mode) : undefined);
    if (await this.client.settingsChanged()) {
      // Not announced as applied when it cannot be: agentls refuses
      // prompts until it is fixed. What only agentls knows (the model's key
      // is not set, its provider unknown) is its agentls.model answer.
      const problem = await this.readModel();
      if (bad) {
        this.chat.addNotice('error', bad);
        return;
      }
      if (problem && s.model) {
        this.chat.addNotice('error', `The agentls.model setting "${s.model}" cannot run: ${problem}. agentls refuses prompts until it is fixed.`);
        return;
      }
      this.chat.addNotice('info', `Settings changed: the next prompt uses ${what || "agentls's own configuration"}.`);
      return;
    }
    if (this.state.busy) {
      this.restartAfterTurn = true;
      this.chat.addNotice(bad ? 'error' : 'info', bad ?? 'Settings changed: agentls restarts with them when the running turn ends.');
      return;
    }
    this.chat.addNotice(bad ? 'error' : 'info', bad ?? `Settings changed: restarting agentls${what ? ` with ${what}` : ''}.`);
    await this.restart();
  }

  private warnIgnoredSettings(): void {
    const ignored = ignoredWorkspaceSettings();
    if (ignored.length) {
      const text = `This workspace's settings set ${ignored.join(', ')}; agentls ignores them: only your user (or remote) settings choose the binary, the model and the permission mode.`;
      this.client.output.appendLine(`[agentls] ${text}`);
    }
  }

  // --- status ---

  private status(): Status {
    const l = this.client.lifecycle;
    return l === 'running' ? this.state.status() : l;
  }

  /** agentls.model's argument: the stored session the next prompt continues, whose model is the one chosen in it. */
  private modelArgs(): Array<{ sessionId: string }> {
    const id = this.resume ? this.chat.sessionId : undefined;
    return id ? [{ sessionId: id }] : [];
  }

  /** Asks agentls which model the next prompt goes to (agentls.model): the status and the Get Started view say when there is none. */
  private async readModel(): Promise<string | undefined> {
    let problem: string | undefined;
    try {
      const m = await this.client.execute<ModelStatus>(serverCommand.model, this.modelArgs());
      this.noModel = !m?.model;
      this.model = m?.model || undefined;
      problem = m?.problem || undefined;
      void vscode.commands.executeCommand('setContext', 'agentls.noModel', this.noModel);
    } catch (e) {
      // An older agentls: the first prompt says it instead.
      this.noModel = false;
      this.client.output.appendLine(`[agentls] agentls.model: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.updateStatus();
    return problem;
  }

  /** Asks the server what its sandbox enforces, for the status bar. */
  private async readSandbox(): Promise<void> {
    try {
      this.sandbox = await this.client.execute<SandboxStatus>('agentls.sandbox');
    } catch (e) {
      this.client.output.appendLine(`[agentls] agentls.sandbox: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.updateStatus();
  }

  private updateStatus(): void {
    const status = this.status();
    const view = { status, step: this.state.step, revertTurnId: this.state.changedTurnId, startError: this.client.startError, sandbox: this.sandbox, noModel: this.noModel, usage: this.state.sessionUsage };
    this.statusBar.update(view);
    this.chat.setStatus({ status, step: view.step, revertTurnId: view.revertTurnId, context: (this.pinned ?? this.editorContext.current())?.label,
      usage: usageBadge(view.usage), usageTitle: usageLine(view.usage), model: this.model });
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

/**
 * badModel says what is wrong with an agentls.model value that cannot name
 * a model (not provider:model), or undefined. Whether the provider exists
 * is agentls's to say (its config file may define it).
 */
export function badModel(model: string): string | undefined {
  if (/^[A-Za-z0-9_.-]+:\S/.test(model)) {
    return undefined;
  }
  return `The agentls.model setting "${model}" is not of the form provider:model (openai:gpt-4.1, anthropic:claude-sonnet-4-5, ollama:qwen3, or a server of agentls.providers, e.g. local:qwen3): agentls refuses prompts until it is fixed.`;
}

/** The permission modes agentls knows (package.json's enum of agentls.permissions.mode). */
const modes = ['chat', 'approve', 'smart', 'auto'];

/**
 * badMode says what is wrong with an agentls.permissions.mode value that
 * is none of the modes (typed into settings.json by hand), or undefined.
 */
export function badMode(mode: string): string | undefined {
  if (modes.includes(mode)) {
    return undefined;
  }
  return `The agentls.permissions.mode setting "${mode}" is none of the modes (${modes.join(', ')}): agentls refuses prompts until it is fixed.`;
}

/** The server's error, with the VS Code setting that fixes it when it names none. */
export function explain(m: string): string {
  if (/no model configured/i.test(m) && !m.includes('agentls.model')) {
    return `${m}. In VS Code, set "agentls.model" in your user settings (your prompt is kept).`;
  }
  return m;
}

let agentls: Agentls | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  agentls = new Agentls(context);
  agentls.register();
  context.subscriptions.push(agentls);
  await agentls.start();
}

export async function deactivate(): Promise<void> {
  await agentls?.stop();
  agentls = undefined;
}

/** revertList names up to three files, then how many more. */
function revertList(files: string[]): string {
  if (files.length <= 3) {
    return files.join(', ');
  }
  return `${files.slice(0, 3).join(', ')} and ${files.length - 3} more`;
}

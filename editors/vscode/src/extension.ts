// The agentls VS Code extension: starts `agentls serve --stdio` as a
// language server, asks it things (agentls.ask), shows the transcript and a
// status bar item from its agentls/event notifications, and saves documents
// when the server asks (agentls/saveDocument). See docs/editors/vscode.md.

import * as vscode from 'vscode';
import {
  ClientCapabilities,
  ExecuteCommandRequest,
  FeatureState,
  LanguageClient,
  LanguageClientOptions,
  MessageActionItem,
  MessageType,
  RevealOutputChannelOn,
  ServerOptions,
  ShowMessageRequest,
  ShowMessageRequestParams,
  State,
  StaticFeature,
  TransportKind,
} from 'vscode-languageclient/node';

import { Binary, chooseBinary } from './binary';
import { AgentEvent, formatEvent, SessionState, Status } from './events';

/** Server commands (docs/protocol.md). */
const serverCommand = {
  ask: 'agentls.ask',
  cancel: 'agentls.cancel',
  revertTurn: 'agentls.revertTurn',
} as const;

/**
 * The extension's own command ids. They differ from the server's command
 * ids, which vscode-languageclient registers itself.
 */
const command = {
  ask: 'agentls.vscode.ask',
  cancel: 'agentls.vscode.cancel',
  revertLastTurn: 'agentls.vscode.revertLastTurn',
  showTranscript: 'agentls.vscode.showTranscript',
  restart: 'agentls.vscode.restartServer',
} as const;

/** Settings that only a person's user (or machine) settings may set. */
export const restrictedSettings = ['agentls.path', 'agentls.model', 'agentls.permissions.mode'];

interface Settings {
  /** agentls.path; undefined: not set (see binary.ts for what runs then). */
  path: string | undefined;
  model: string | undefined;
  mode: string | undefined;
}

/**
 * readSettings reads the security-relevant settings from the user's own
 * settings only. Their scopes already keep a workspace's .vscode/settings.json
 * out; reading globalValue makes sure of it.
 */
function readSettings(): Settings {
  const cfg = vscode.workspace.getConfiguration('agentls');
  const user = <T>(key: string): T | undefined => {
    const v = cfg.inspect<T>(key);
    return v?.globalValue;
  };
  const bin = (user<string>('path') ?? '').trim() || undefined;
  const model = (user<string>('model') ?? '').trim() || undefined;
  let mode = user<string>('permissions.mode');
  // In Restricted Mode the agent never runs in auto mode.
  if (mode === 'auto' && !vscode.workspace.isTrusted) {
    mode = 'smart';
  }
  return { path: bin, model, mode };
}

/** The settings the server gets: initializationOptions and workspace/configuration. */
function serverSettings(s: Settings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.model) {
    out.model = s.model;
  }
  if (s.mode) {
    out.permissions = { mode: s.mode };
  }
  return out;
}

/** Announces the agentls/saveDocument request (capabilities.experimental.agentls). */
class SaveDocumentFeature implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ??= {}) as Record<string, unknown>;
    const agentls = (experimental.agentls ??= {}) as Record<string, unknown>;
    agentls.saveDocument = true;
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: 'static' };
  }
  clear(): void {}
}

interface AskResult {
  sessionId: string;
  turnId: string;
}

interface RevertResult {
  turnId?: string;
  restored?: string[];
  skipped?: Array<{ path?: string; Path?: string; reason?: string; Reason?: string }>;
}

class Agentls implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly transcript: vscode.OutputChannel;
  private readonly statusItem: vscode.StatusBarItem;
  private readonly state = new SessionState();
  private lifecycle: 'starting' | 'running' | 'stopped' = 'stopped';
  private startError: string | undefined;
  private restartAfterTurn = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly extensionPath: string) {
    this.transcript = vscode.window.createOutputChannel('agentls Transcript');
    this.statusItem = vscode.window.createStatusBarItem('agentls.status', vscode.StatusBarAlignment.Left, 0);
    this.statusItem.name = 'agentls';
    this.updateStatus();
    this.statusItem.show();
    this.disposables.push(this.transcript, this.statusItem);
  }

  register(): void {
    const reg = (id: string, fn: () => unknown) =>
      this.disposables.push(vscode.commands.registerCommand(id, fn));
    reg(command.ask, () => this.ask());
    reg(command.cancel, () => this.cancel());
    reg(command.revertLastTurn, () => this.revertLastTurn());
    reg(command.showTranscript, () => this.transcript.show(true));
    reg(command.restart, () => this.restart());
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (restrictedSettings.some((s) => e.affectsConfiguration(s))) {
          this.settingsChanged();
        }
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.settingsChanged()),
    );
  }

  // --- the language client ---

  async start(): Promise<void> {
    const settings = readSettings();
    const bin = chooseBinary({ setting: settings.path, extensionPath: this.extensionPath });
    const serverOptions: ServerOptions = {
      command: bin.command,
      args: ['serve', '--stdio'],
      transport: TransportKind.stdio,
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      initializationOptions: () => serverSettings(readSettings()),
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      middleware: {
        workspace: {
          // workspace/configuration for section agentls answers the same
          // user-only settings as the initializationOptions.
          configuration: async (params, token, next) => {
            const fallback = await next(params, token);
            const results = Array.isArray(fallback) ? [...fallback] : params.items.map(() => null);
            params.items.forEach((item, i) => {
              if (item.section === 'agentls') {
                results[i] = serverSettings(readSettings());
              } else if (item.section?.startsWith('agentls.')) {
                const key = item.section.slice('agentls.'.length);
                const s = readSettings();
                results[i] = key === 'model' ? s.model ?? null : key === 'permissions' ? (s.mode ? { mode: s.mode } : null) : key === 'permissions.mode' ? s.mode ?? null : results[i];
              }
            });
            return results;
          },
        },
      },
    };
    const client = new LanguageClient('agentls', 'agentls', serverOptions, clientOptions);
    client.registerFeature(new SaveDocumentFeature());

    // Permission asks: the standard toast with the server's action titles,
    // and the status bar says the agent waits for you meanwhile.
    client.onRequest(ShowMessageRequest.type, (params, token) => this.showMessageRequest(params, token));
    client.onRequest('agentls/saveDocument', (params: { textDocument?: { uri?: string } }) => this.saveDocument(client, params));
    client.onNotification('agentls/event', (e: AgentEvent) => this.onEvent(e));
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        this.lifecycle = 'running';
        this.startError = undefined;
      } else if (e.newState === State.Starting) {
        this.lifecycle = 'starting';
      } else {
        this.lifecycle = 'stopped';
        this.state.reset();
      }
      this.updateStatus();
    });

    this.client = client;
    this.lifecycle = 'starting';
    this.updateStatus();
    try {
      if (!bin.found) {
        throw new Error(bin.problem);
      }
      client.outputChannel.appendLine(`[agentls] running ${bin.command} serve --stdio (${binarySource(bin)})`);
      await client.start();
    } catch (err) {
      this.client = undefined;
      this.lifecycle = 'stopped';
      this.startError = `could not start "${bin.command} serve --stdio": ${message(err)}`;
      this.updateStatus();
      void client.dispose().catch(() => undefined);
      // Not awaited: activation must not wait for the person to answer.
      void vscode.window
        .showErrorMessage(`agentls: ${this.startError}. ${bin.source === 'setting' ? 'Set' : 'Put agentls on PATH or set'} "agentls.path" in your user settings to the agentls binary.`, 'Open Settings')
        .then((choice) => {
          if (choice === 'Open Settings') {
            void vscode.commands.executeCommand('workbench.action.openSettings', 'agentls.path');
          }
        });
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop();
      } catch {
        // a server that never started cannot be stopped
      }
      await client.dispose().catch(() => undefined);
    }
    this.lifecycle = 'stopped';
    this.state.reset();
    this.updateStatus();
  }

  async restart(): Promise<void> {
    this.restartAfterTurn = false;
    await this.stop();
    await this.start();
  }

  /** The model, mode and binary are read when the server starts. */
  private settingsChanged(): void {
    if (this.state.busy) {
      this.restartAfterTurn = true;
      void vscode.window.showInformationMessage('agentls: the new settings apply when the running turn ends.');
      return;
    }
    void this.restart();
  }

  /** The running client, starting it if need be; undefined (and told) if it cannot run. */
  private async running(): Promise<LanguageClient | undefined> {
    if (!this.client) {
      await this.start();
      if (!this.client) {
        return undefined; // start() told the person why
      }
    }
    const client = this.client;
    if (client.state === State.Starting) {
      await client.start().catch(() => undefined);
    }
    if (client.state !== State.Running) {
      void vscode.window.showErrorMessage(
        `agentls: the server is not running${this.startError ? ` (${this.startError})` : ''}. Check "agentls.path", then run "agentls: Restart Server".`,
      );
      return undefined;
    }
    return client;
  }

  private async execute<T>(client: LanguageClient, name: string, args: unknown[]): Promise<T> {
    return (await client.sendRequest(ExecuteCommandRequest.type, { command: name, arguments: args })) as T;
  }

  // --- requests from the server ---

  private async showMessageRequest(params: ShowMessageRequestParams, token: vscode.CancellationToken): Promise<MessageActionItem | null> {
    const show =
      params.type === MessageType.Error
        ? vscode.window.showErrorMessage
        : params.type === MessageType.Warning
          ? vscode.window.showWarningMessage
          : vscode.window.showInformationMessage;
    const ask = this.state.askOpened();
    this.updateStatus();
    const cancelled = new Promise<undefined>((resolve) => token.onCancellationRequested(() => resolve(undefined)));
    try {
      const picked = await Promise.race([show(params.message, ...(params.actions ?? [])), cancelled]);
      return picked ?? null;
    } finally {
      this.state.askClosed(ask);
      this.updateStatus();
    }
  }

  private async saveDocument(client: LanguageClient, params: { textDocument?: { uri?: string } }): Promise<{ saved: boolean }> {
    const raw = params?.textDocument?.uri;
    if (!raw) {
      return { saved: false };
    }
    const uri = client.protocol2CodeConverter.asUri(raw);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (!doc) {
      // Not open: the server writes files that are not open to disk itself.
      return { saved: false };
    }
    try {
      return { saved: await doc.save() };
    } catch (err) {
      this.transcript.appendLine(`saving ${vscode.workspace.asRelativePath(uri)} failed: ${message(err)}`);
      return { saved: false };
    }
  }

  private onEvent(e: AgentEvent): void {
    const line = formatEvent(e, { rel: (p) => vscode.workspace.asRelativePath(p, false) });
    if (line !== undefined) {
      this.transcript.appendLine(line);
    }
    this.state.onEvent(e);
    this.updateStatus();
    if (e.type === 'turn_end' && this.restartAfterTurn && !this.state.busy) {
      void this.restart();
    }
  }

  // --- commands ---

  private async ask(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    const prompt = await vscode.window.showInputBox({
      title: 'agentls: Ask',
      prompt: editor?.document.uri.scheme === 'file'
        ? `Ask the agent (with ${vscode.workspace.asRelativePath(editor.document.uri)}${editor.selection.isEmpty ? '' : ' and your selection'} as context)`
        : 'Ask the agent',
      placeHolder: 'What should the agent do?',
      ignoreFocusOut: true,
    });
    if (!prompt || prompt.trim() === '') {
      return;
    }
    const client = await this.running();
    if (!client) {
      return;
    }
    const arg: { prompt: string; uri?: string; range?: unknown } = { prompt };
    if (editor && editor.document.uri.scheme === 'file') {
      arg.uri = client.code2ProtocolConverter.asUri(editor.document.uri);
      if (!editor.selection.isEmpty) {
        arg.range = client.code2ProtocolConverter.asRange(editor.selection);
      }
    }
    this.transcript.appendLine(`you: ${prompt}${arg.uri ? `  [${vscode.workspace.asRelativePath(editor!.document.uri)}${arg.range ? `, lines ${editor!.selection.start.line + 1}-${editor!.selection.end.line + 1}` : ''}]` : ''}`);
    this.transcript.show(true);
    try {
      const res = await this.execute<AskResult>(client, serverCommand.ask, [arg]);
      if (res?.turnId) {
        this.state.onAsked(res.turnId);
        this.updateStatus();
      }
    } catch (err) {
      this.transcript.appendLine(`ask failed: ${message(err)}`);
      const busy = /already running/i.test(message(err));
      const choice = await vscode.window.showErrorMessage(`agentls: ${message(err)}`, ...(busy ? ['Cancel Turn'] : []));
      if (choice === 'Cancel Turn') {
        await this.cancel();
      }
    }
  }

  private async cancel(): Promise<void> {
    const client = await this.running();
    if (!client) {
      return;
    }
    try {
      const res = await this.execute<{ cancelled?: boolean }>(client, serverCommand.cancel, this.state.turnId ? [{ turnId: this.state.turnId }] : []);
      if (!res?.cancelled) {
        void vscode.window.showInformationMessage('agentls: no turn is running.');
      }
    } catch (err) {
      void vscode.window.showErrorMessage(`agentls: cancel failed: ${message(err)}`);
    }
  }

  private async revertLastTurn(force = false): Promise<void> {
    const client = await this.running();
    if (!client) {
      return;
    }
    try {
      const res = await this.execute<RevertResult>(client, serverCommand.revertTurn, force ? [{ force: true }] : []);
      const restored = res?.restored ?? [];
      const skipped = res?.skipped ?? [];
      this.transcript.appendLine(
        `reverted turn ${res?.turnId ?? '?'}: ${restored.length} file(s) restored` +
          (skipped.length ? `, ${skipped.length} left alone: ${skipped.map((s) => `${s.path ?? s.Path} (${s.reason ?? s.Reason})`).join(', ')}` : ''),
      );
      // The server tells the person itself (window/showMessage); offer to
      // force what it left alone.
      if (skipped.length && !force) {
        const choice = await vscode.window.showWarningMessage(
          `agentls: ${skipped.length} file(s) changed after the turn were not reverted.`,
          'Revert Anyway',
        );
        if (choice === 'Revert Anyway') {
          await this.revertLastTurn(true);
        }
      }
    } catch (err) {
      this.transcript.appendLine(`revert failed: ${message(err)}`);
      void vscode.window.showErrorMessage(`agentls: Revert Last Turn: ${message(err)}`);
    }
  }

  // --- status bar ---

  private status(): Status {
    if (this.lifecycle === 'starting') {
      return 'starting';
    }
    if (this.lifecycle === 'stopped') {
      return 'stopped';
    }
    return this.state.status();
  }

  private updateStatus(): void {
    const s = this.status();
    const item = this.statusItem;
    const look: Record<Status, { text: string; label: string; tooltip: string; command: string }> = {
      starting: { text: '$(loading~spin) agentls', label: 'agentls: starting', tooltip: 'agentls: starting the server', command: command.showTranscript },
      idle: { text: '$(hubot) agentls', label: 'agentls: idle', tooltip: 'agentls: idle. Click to show the transcript.', command: command.showTranscript },
      working: { text: '$(loading~spin) agentls: working', label: 'agentls: working', tooltip: 'agentls: the agent is working. Click to show the transcript.', command: command.showTranscript },
      waiting: { text: '$(bell-dot) agentls: waiting for you', label: 'agentls: waiting for you', tooltip: 'agentls: the agent asks for your permission. Click to see the question.', command: 'notifications.showList' },
      stopped: { text: '$(error) agentls: stopped', label: 'agentls: stopped', tooltip: `agentls: the server is not running${this.startError ? ` (${this.startError})` : ''}. Click to restart it.`, command: command.restart },
    };
    const l = look[s];
    item.text = l.text;
    item.tooltip = l.tooltip;
    item.command = l.command;
    item.accessibilityInformation = { label: l.label };
    item.backgroundColor = s === 'waiting' ? new vscode.ThemeColor('statusBarItem.warningBackground') : s === 'stopped' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

/** binarySource says where the binary came from, for the log. */
function binarySource(bin: Binary): string {
  switch (bin.source) {
    case 'setting':
      return 'the agentls.path setting';
    case 'bundled':
      return 'the binary bundled with the extension';
    case 'PATH':
      return 'found on PATH';
  }
}

function message(err: unknown): string {
  if (err instanceof Error) {
    return err.message;
  }
  return String(err);
}

let agentls: Agentls | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  agentls = new Agentls(context.extensionPath);
  agentls.register();
  context.subscriptions.push(agentls);
  await agentls.start();
}

export async function deactivate(): Promise<void> {
  await agentls?.stop();
  agentls = undefined;
}

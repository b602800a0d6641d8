// AgentClient runs `agentls serve --stdio` as a language server: start,
// stop, restart (one output channel across restarts), the capabilities the
// extension declares, the settings it answers, and the server's requests
// and notifications handed to the parts that show them.

import * as vscode from 'vscode';
import {
  CancellationToken,
  ClientCapabilities,
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  FeatureState,
  LanguageClient,
  LanguageClientOptions,
  MessageActionItem,
  RevealOutputChannelOn,
  ServerOptions,
  ShowMessageNotification,
  ShowMessageParams,
  ShowMessageRequest,
  ShowMessageRequestParams,
  State,
  StaticFeature,
  TransportKind,
} from 'vscode-languageclient/node';
// The language client's mapping of LSP 3.18's inline completion, a
// proposed feature in vscode-languageclient 9 (src/inline.ts).
import { InlineCompletionItemFeature } from 'vscode-languageclient/lib/common/inlineCompletion';

import { Binary, chooseBinary } from './binary';
import { AgentEvent } from './events';
import { shownAtCursor } from './inline';
import { AskDoneParams, AskParams, method, serverCommand, QuestionParams, QuestionResult, ReviewParams, ReviewResult } from './protocol';
import { configurationSection, readSettings, serverSettings, Settings } from './settings';

/** What the server sends that the extension shows; each part handles its own. */
export interface ServerHandlers {
  event(e: AgentEvent): void;
  ask(p: AskParams): void;
  askDone(p: AskDoneParams): void;
  review(p: ReviewParams, token: CancellationToken): Promise<ReviewResult>;
  question(p: QuestionParams, token: CancellationToken): Promise<QuestionResult>;
  showMessageRequest(p: ShowMessageRequestParams, token: CancellationToken): Promise<MessageActionItem | null>;
  showMessage(p: ShowMessageParams): void;
  /** agentls.ask from a code action (Fix with agent, Ask agent about selection…). */
  codeActionAsk(arg: CodeActionAsk): Promise<unknown>;
}

/** agentls.ask's argument in a code action's command. */
export interface CodeActionAsk {
  prompt: string;
  uri?: string;
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
  editPrompt?: boolean;
}

export type Lifecycle = 'starting' | 'running' | 'stopped';

/** Declares what the extension handles (capabilities.experimental.agentls, docs/protocol.md). */
class AgentlsFeature implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ??= {}) as Record<string, unknown>;
    const agentls = (experimental.agentls ??= {}) as Record<string, unknown>;
    Object.assign(agentls, { saveDocument: true, asyncAsk: true, review: true, question: true });
    // VS Code's Workspace Trust is the one trust question: agentls does not
    // ask again before the workspace's language servers run, and asks
    // nothing in Restricted Mode (a grant restarts the server: extension.ts).
    agentls.workspaceTrust = vscode.workspace.isTrusted ? 'trusted' : 'restricted';
    // The status bar item shows the agent's step, and the chat has Cancel:
    // the server's work-done progress would show it a second time.
    if (capabilities.window) {
      capabilities.window.workDoneProgress = false;
    }
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: 'static' };
  }
  clear(): void {}
}

export class AgentClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private state: Lifecycle = 'stopped';
  /** The settings the running server started with. */
  private startedWith: Settings | undefined;
  /** The restart under way, and whether another was asked for meanwhile. */
  private restarting: Promise<void> | undefined;
  private restartAgain = false;
  /** Why the server is not running, when it could not start. */
  startError: string | undefined;
  /** The agentls output channel: one for the window, whatever the restarts. */
  readonly output: vscode.OutputChannel;
  private readonly changed = new vscode.EventEmitter<Lifecycle>();
  /** Fires when the server starts, runs or stops. */
  readonly onDidChangeState = this.changed.event;

  constructor(
    private readonly extensionPath: string,
    private readonly handlers: ServerHandlers,
  ) {
    this.output = vscode.window.createOutputChannel('agentls');
  }

  get lifecycle(): Lifecycle {
    return this.state;
  }

  async start(): Promise<void> {
    const settings = readSettings();
    this.startedWith = settings;
    const bin = chooseBinary({ setting: settings.path, extensionPath: this.extensionPath });
    const serverOptions: ServerOptions = { command: bin.command, args: ['serve', '--stdio'], transport: TransportKind.stdio };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      initializationOptions: () => serverSettings(readSettings()),
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      middleware: {
        // A code action's agentls.ask goes through the chat, which shows
        // it (and asks for the question when editPrompt says so).
        executeCommand: async (command, args, next) => {
          if (command === serverCommand.ask && args.length === 1 && args[0] && typeof args[0] === 'object') {
            return this.handlers.codeActionAsk(args[0] as CodeActionAsk);
          }
          return next(command, args);
        },
        // Inline completion: VS Code shows only the items at the cursor;
        // a next edit elsewhere is offered by its code action.
        provideInlineCompletionItems: async (document, position, context, token, next) => {
          const result = await next(document, position, context, token);
          if (!result || token.isCancellationRequested) {
            return null;
          }
          const items = shownAtCursor(Array.isArray(result) ? result : result.items, position);
          return Array.isArray(result) ? items : new vscode.InlineCompletionList(items);
        },
        workspace: {
          // Every agentls section is answered from the user's settings
          // only, as the initializationOptions are.
          configuration: async (params, token, next) => {
            const fallback = await next(params, token);
            const results = Array.isArray(fallback) ? [...fallback] : params.items.map(() => null);
            params.items.forEach((item, i) => {
              if (item.section === 'agentls' || item.section?.startsWith('agentls.')) {
                results[i] = configurationSection(item.section);
              }
            });
            return results;
          },
        },
      },
    };
    const client = new LanguageClient('agentls', 'agentls', serverOptions, clientOptions);
    client.registerFeature(new AgentlsFeature());
    client.registerFeature(new InlineCompletionItemFeature(client));
    const h = this.handlers;
    client.onRequest(ShowMessageRequest.type, (p, token) => h.showMessageRequest(p, token));
    client.onNotification(ShowMessageNotification.type, (p) => h.showMessage(p));
    client.onRequest(method.saveDocument, (p: { textDocument?: { uri?: string } }) => this.saveDocument(client, p));
    client.onRequest(method.review, (p: ReviewParams, token: CancellationToken) => h.review(p, token));
    client.onRequest(method.question, (p: QuestionParams, token: CancellationToken) => h.question(p, token));
    client.onNotification(method.event, (e: AgentEvent) => h.event(e));
    client.onNotification(method.ask, (p: AskParams) => h.ask(p));
    client.onNotification(method.askDone, (p: AskDoneParams) => h.askDone(p));
    client.onDidChangeState((e) => {
      if (this.client !== client) {
        return; // a client being replaced
      }
      this.setState(e.newState === State.Running ? 'running' : e.newState === State.Starting ? 'starting' : 'stopped');
    });

    this.client = client;
    this.setState('starting');
    try {
      if (!bin.found) {
        throw new Error(bin.problem);
      }
      this.output.appendLine(`[agentls] running ${bin.command} serve --stdio (${binarySource(bin)})`);
      await client.start();
      this.startError = undefined;
      this.setState('running');
    } catch (err) {
      this.client = undefined;
      this.startError = `could not start "${bin.command} serve --stdio": ${message(err)}`;
      this.setState('stopped');
      void client.dispose().catch(() => undefined);
      // Not awaited: activation must not wait for the person to answer.
      const fix = bin.source === 'setting' ? 'Set' : 'Put agentls on PATH or set';
      void vscode.window
        .showErrorMessage(`agentls: ${this.startError}. ${fix} "agentls.path" in your user settings to the agentls binary.`, 'Open Settings')
        .then((choice) => {
          if (choice === 'Open Settings') {
            void vscode.commands.executeCommand('agentls.vscode.openSettings', 'agentls.path');
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
    this.setState('stopped');
  }

  /**
   * Restarts the server. Restarts never overlap: two at once (a folder
   * trusted in VS Code both grants trust and changes the settings that
   * now apply) started two clients, the second failing on the first's
   * commands ("command 'agentls.ask' already exists") and leaving agentls
   * stopped. One asked for while another runs is made once that one is
   * done, so the last settings apply.
   */
  async restart(): Promise<void> {
    if (this.restarting) {
      this.restartAgain = true;
      return this.restarting;
    }
    this.restarting = (async () => {
      try {
        do {
          this.restartAgain = false;
          await this.stop();
          await this.start();
        } while (this.restartAgain);
      } finally {
        this.restarting = undefined;
      }
    })();
    return this.restarting;
  }

  /** The running client, starting it if need be; undefined if it cannot run (the person was told). */
  async running(): Promise<LanguageClient | undefined> {
    if (!this.client) {
      await this.start();
      if (!this.client) {
        return undefined;
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

  /** Runs a server command (workspace/executeCommand); throws the server's error. */
  async execute<T>(name: string, args: unknown[] = []): Promise<T> {
    const client = await this.running();
    if (!client) {
      throw new Error(`the agentls server is not running${this.startError ? ` (${this.startError})` : ''}`);
    }
    return (await client.sendRequest(ExecuteCommandRequest.type, { command: name, arguments: args })) as T;
  }

  /** The protocol form of a URI and range, for agentls.ask. */
  converter(): LanguageClient['code2ProtocolConverter'] | undefined {
    return this.client?.code2ProtocolConverter;
  }

  /** The VS Code form of the server's URIs and ranges. */
  fromProtocol(): LanguageClient['protocol2CodeConverter'] | undefined {
    return this.client?.protocol2CodeConverter;
  }

  /**
   * The model or mode changed: the server reads them again at the next
   * ask (workspace/didChangeConfiguration; the conversation goes on). A
   * new binary, a setting cleared that the server got at initialize
   * (it would keep the old one), or another completion model (agentls
   * declares inline completion at initialize, only with one) needs a
   * restart: returns false then.
   */
  async settingsChanged(): Promise<boolean> {
    const now = readSettings();
    const was = this.startedWith;
    const client = this.client;
    if (!client || client.state !== State.Running || !was || now.path !== was.path || (was.model && !now.model) || (was.providers && !now.providers) || (was.mode && !now.mode) ||
      now.completionModel !== was.completionModel) {
      return false;
    }
    await client.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
    return true;
  }

  private setState(s: Lifecycle): void {
    if (s !== this.state) {
      this.state = s;
      this.changed.fire(s);
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
      this.output.appendLine(`[agentls] saving ${vscode.workspace.asRelativePath(uri)} failed: ${message(err)}`);
      return { saved: false };
    }
  }

  dispose(): void {
    void this.stop();
    this.changed.dispose();
    this.output.dispose();
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

export function message(err: unknown): string {
  if (err instanceof Error) {
    return err.message;
  }
  return String(err);
}

// What the chat view shows: one entry per prompt, answer, tool call, ask
// or notice. The extension builds them (transcript.ts) and the webview
// draws them (webview/render.ts); they are plain JSON, stored across
// reloads. No vscode import: shared by the extension, the webview and the
// unit tests.

import type { Choice } from '../protocol';

/** What every entry has. */
interface Base {
  id: string;
  /**
   * Its turn is not in the conversation any more (a checkpoint's restore
   * took it out): the view hides it, and an undone restore shows it again.
   */
  dropped?: boolean;
}

export interface UserEntry extends Base {
  kind: 'user';
  /** The turn the prompt started (agentls.ask's reply). */
  turnId?: string;
  text: string;
  /** The file (and lines) that went with the prompt, for the label. */
  context?: string;
}

export interface TextEntry extends Base {
  /** assistant: the answer (markdown); thinking: the model's reasoning. */
  kind: 'assistant' | 'thinking';
  turnId?: string;
  text: string;
  /** More text is coming (text_delta) until the step's whole text arrives. */
  streaming: boolean;
}

export type ToolStatus = 'running' | 'ok' | 'failed' | 'denied' | 'stopped';

export interface ToolEntry extends Base {
  kind: 'tool';
  turnId?: string;
  callId?: string;
  name: string;
  title: string;
  /** The call's input, pretty JSON. */
  input?: string;
  status: ToolStatus;
  /** The tool's whole result as the model saw it. */
  output?: string;
  diff?: string;
  /** A command's exit code (bash results end with "Exit code: N"). */
  exitCode?: number;
  /** What the gate decided ("allowed (user)"). */
  permission?: string;
  /** Set for a subagent's call: the agent tool call that started it. */
  parentId?: string;
  /** The checkpoint taken before this call (agentls.checkpoints): the view offers "Restore to here". */
  checkpoint?: number;
}

/** A question waiting for the person, shown inline with its choices. */
export interface AskEntry extends Base {
  kind: 'ask';
  /** permission: agentls/ask or a server message; review: agentls/review; question: the question tool. */
  askKind: 'permission' | 'review' | 'question';
  message: string;
  warnings?: string[];
  diff?: string;
  choices: Choice[];
  /** question: free text is accepted. */
  freeText?: boolean;
  multi?: boolean;
  /** review: the file and the number of hunks. */
  path?: string;
  hunks?: number;
  state: 'open' | 'answered' | 'closed';
  /** What it ended with, for the person ("Allow", "timed out"). */
  outcome?: string;
}

export interface NoticeEntry extends Base {
  kind: 'notice';
  level: 'info' | 'warning' | 'error';
  text: string;
  /** A VS Code setting the notice names: the view offers Open Settings. */
  setting?: string;
  /** The prompt of the turn that failed: the view offers Retry, which sends it again. */
  retry?: string;
  /** The turn whose event it tells (none: the extension's own, a restore's report, which stays in view). */
  turnId?: string;
}

export interface TurnEntry extends Base {
  kind: 'turn';
  turnId?: string;
  reason: string;
  /** "1,234 tokens in, 56 out". */
  usage?: string;
}

export interface Todo {
  content: string;
  status: 'pending' | 'in_progress' | 'completed' | string;
  active_form?: string;
}

export interface TodosEntry extends Base {
  kind: 'todos';
  turnId?: string;
  todos: Todo[];
  message?: string;
}

export type Entry = UserEntry | TextEntry | ToolEntry | AskEntry | NoticeEntry | TurnEntry | TodosEntry;

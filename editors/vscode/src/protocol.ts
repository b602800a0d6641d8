// The agentls-specific messages the extension exchanges with the server
// (docs/protocol.md). Types only, so both the extension and its unit tests
// use them without VS Code.

/** Server commands (workspace/executeCommand). */
export const serverCommand = {
  ask: 'agentls.ask',
  cancel: 'agentls.cancel',
  revertTurn: 'agentls.revertTurn',
  approve: 'agentls.approve',
  sessions: 'agentls.sessions',
  model: 'agentls.model',
  setModel: 'agentls.setModel',
} as const;

/** Notifications and requests beyond the LSP. */
export const method = {
  event: 'agentls/event',
  ask: 'agentls/ask',
  askDone: 'agentls/askDone',
  review: 'agentls/review',
  question: 'agentls/question',
  saveDocument: 'agentls/saveDocument',
} as const;

/** One answer on offer: agentls.approve's answer and the button's title. */
export interface Choice {
  answer: string;
  title: string;
}

/** agentls/ask: a permission question answered with agentls.approve. */
export interface AskParams {
  id: string;
  sessionId?: string;
  turnId?: string;
  message: string;
  tool?: string;
  capability?: string;
  warnings?: string[];
  diff?: string;
  choices: Choice[];
}

/** agentls/askDone: the question is over, however it ended. */
export interface AskDoneParams {
  id: string;
  answer?: string;
  reason?: string;
}

/** One hunk of a review: 1-based lines; for an insertion oldLines is 0. */
export interface ReviewHunk {
  id: number;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  diff: string;
}

/** agentls/review: a change to one file, reviewed hunk by hunk. */
export interface ReviewParams extends AskParams {
  uri: string;
  path: string;
  exists: boolean;
  original: string;
  proposed: string;
  hunks: ReviewHunk[];
}

/** agentls/review's result; null denies. */
export type ReviewResult = { accept: number[]; answer?: string } | { text: string } | null;

/** agentls/question (the question tool). */
export interface QuestionParams {
  question: string;
  options?: string[] | null;
  multi?: boolean;
}

/** agentls/question's result. */
export type QuestionResult = { answer: string | null } | { chosen: string[] };

/** agentls.ask's argument and reply. */
export interface AskArgs {
  prompt: string;
  uri?: string;
  range?: unknown;
  sessionId?: string;
}

export interface AskReply {
  sessionId: string;
  turnId: string;
}

/** One stored session (agentls.sessions). */
export interface SessionInfo {
  id: string;
  title?: string;
  model?: string;
  created?: string;
  updated?: string;
  records?: number;
  current?: boolean;
}

/** One model a picker offers (agentls.model), with where agentls found it. */
export interface ModelChoice {
  model: string;
  from: string;
}

/** agentls.model's and agentls.setModel's reply: the model the next prompt goes to, or none and why. */
export interface ModelStatus {
  model: string;
  problem?: string;
  models?: ModelChoice[];
}

/** agentls.revertTurn's reply. */
export interface RevertReply {
  turnId?: string;
  restored?: string[];
  skipped?: Array<{ path?: string; Path?: string; reason?: string; Reason?: string }>;
}

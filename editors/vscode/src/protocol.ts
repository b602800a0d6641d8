// The agentls-specific messages the extension exchanges with the server
// (docs/protocol.md). Types only, so both the extension and its unit tests
// use them without VS Code.

import type { Todo } from './chat/entries';

/** Server commands (workspace/executeCommand). */
export const serverCommand = {
  ask: 'agentls.ask',
  cancel: 'agentls.cancel',
  revertTurn: 'agentls.revertTurn',
  approve: 'agentls.approve',
  sessions: 'agentls.sessions',
  model: 'agentls.model',
  setModel: 'agentls.setModel',
  checkpoints: 'agentls.checkpoints',
  restoreCheckpoint: 'agentls.restoreCheckpoint',
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

/** One checkpoint (agentls.checkpoints): taken before a step that may change files, or a restore's. */
export interface Checkpoint {
  id: number;
  sessionId?: string;
  turnId?: string;
  /** The tool call it was taken before: its "Restore to here" in the chat. */
  callId?: string;
  tool?: string;
  /** The step as a person reads it ("bash sed -i …"). */
  title?: string;
  /** "step", or "restore" for a restore's own checkpoint. */
  kind?: string;
  /** How many records the conversation had before it; -1: unknown (files only). */
  convSeq?: number;
  time?: string;
  /** What it could not keep. */
  notes?: string[] | null;
  /** How many paths the step changed. */
  changed?: number;
}

/** agentls.checkpoints's reply, oldest first. */
export interface CheckpointList {
  sessionId: string;
  checkpoints: Checkpoint[] | null;
}

/** What agentls.restoreCheckpoint puts back. */
export type RestoreWhat = 'files' | 'conversation' | 'both';

/** agentls.restoreCheckpoint's argument: a checkpoint to restore to, or undo the last restore. */
export interface RestoreArgs {
  sessionId?: string;
  checkpoint?: number;
  what?: RestoreWhat;
  undo?: boolean;
}

/** One version of a path in a conflict. */
export interface CheckpointVersion {
  exists: boolean;
  kind?: string;
  mode?: string;
  target?: string;
  /** The content of a small text file. */
  text?: string;
  /** A file holding this version, outside the workspace. */
  copy?: string;
  notKept?: string;
}

/** A path a restore did not overwrite: someone changed it after the agent's step. */
export interface CheckpointConflict {
  path: string;
  reason: string;
  /** The version now (kept). */
  yours: CheckpointVersion;
  /** The checkpoint's version (not written). */
  checkpoint: CheckpointVersion;
}

/** agentls.restoreCheckpoint's reply. */
export interface RestoreReply {
  /** The checkpoint restored to. */
  to: number;
  /** The restore's own checkpoint: restoring to it undoes this restore. */
  undo?: number;
  restored: string[] | null;
  conflicts: CheckpointConflict[] | null;
  skipped: Array<{ path: string; reason: string }> | null;
  /**
   * Set when the conversation was restored: the records it stands on, the
   * messages the model sees, the turns it holds (ids, oldest first) and
   * its todo list now (the restore put it back; no todos event says so).
   */
  conversation?: { records: number; messages: number; turns?: string[]; todos?: Todo[] };
}

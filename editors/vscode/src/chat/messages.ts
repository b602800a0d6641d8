// The messages between the extension and the chat webview (postMessage).
// Shared by both sides; types only.

import type { Entry } from './entries';

/** What the chat shows about the session besides its entries. */
export interface ChatStatus {
  /** idle, working, waiting (for you), starting, stopped. */
  status: string;
  /** The agent's running step ("view main.go"). */
  step?: string;
  /** The turn "Revert" undoes, when the last turn changed files. */
  revertTurnId?: string;
  /** The file (and lines) that goes with the next prompt. */
  context?: string;
  /** The session's title, when resumed. */
  session?: string;
  /** The session's cost (or tokens) so far, short, and in full for its title. */
  usage?: string;
  usageTitle?: string;
  /** The model the next prompt goes to ("provider:model"). */
  model?: string;
}

/** Extension → webview. */
export type ToView =
  | { type: 'reset'; entries: Entry[]; status: ChatStatus; draft: string; draftGen: number; history: string[] }
  /** order: every entry's id in order, when one went in above the end. */
  | { type: 'entries'; entries: Entry[]; order?: string[] }
  | { type: 'status'; status: ChatStatus }
  /** The ask was sent: clear the prompt (else it stays, with the error shown). */
  | { type: 'asked'; prompt: string; ok: boolean }
  | { type: 'mentions'; query: string; files: string[] }
  /** Put the cursor in the prompt, optionally with text. */
  | { type: 'focus'; text?: string; placeholder?: string };

/** Webview → extension. */
export type FromView =
  | { type: 'ready' }
  | { type: 'ask'; prompt: string; withContext: boolean; gen: number }
  | { type: 'answer'; id: string; answer: string; text?: string; chosen?: string[] }
  | { type: 'cancel' }
  | { type: 'revert' }
  /** The header's model button: pick another model for the conversation. */
  | { type: 'pickModel' }
  | { type: 'openSettings'; setting: string }
  | { type: 'openReview'; id: string }
  /** A step's "Restore to here": the checkpoint taken before it. */
  | { type: 'restore'; checkpoint: number }
  | { type: 'copyCode'; text: string }
  | { type: 'insertCode'; text: string }
  | { type: 'mentions'; query: string }
  | { type: 'draft'; text: string; gen: number };

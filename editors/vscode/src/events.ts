// The agentls/event notifications (docs/protocol.md, "Transcript") and the
// status of the session they make: idle, working on a step, waiting for
// you. No vscode import here, so the unit tests run in plain node.

import type { Todo } from './chat/entries';

/**
 * One `agentls/event`: exactly one line of `agentls run --json`. The
 * fields are those of docs/events.schema.json, the one description of the
 * events (test/unit/schema.test.ts fails when they drift apart).
 */
export interface AgentEvent {
  type: string;
  session_id?: string;
  turn_id?: string;
  parent_id?: string;
  text?: string;
  /** The tool call's id, on tool_call, permission and tool_result. */
  id?: string;
  name?: string;
  title?: string;
  input?: unknown;
  is_error?: boolean;
  content?: string;
  diff?: string;
  /** The change of a tool_result as data. */
  hunks?: Hunk[];
  /** What a tool call does: read, edit, delete, move, search, execute, fetch, think, other. */
  kind?: string;
  reason?: string;
  message?: string;
  tool?: string;
  capability?: string;
  scope?: string;
  decision?: string;
  source?: string;
  rule?: string;
  channel?: string;
  event?: string;
  command?: string;
  exit_code?: number;
  duration_ms?: number;
  usage?: Usage;
  turn_usage?: Usage;
  session_usage?: Usage;
  todos?: Todo[];
  /** instructions: the project instruction files the model gets (AGENTS.md …). */
  files?: string[];
  /** turn_start: the model the turn runs; model: the one the session switched to. */
  model?: string;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  /** US dollars, estimated; absent when the model's price is unknown. */
  cost_usd?: number;
}

/** One hunk of a change: the old and new text of the lines it covers. */
export interface Hunk {
  path: string;
  old_start: number;
  new_start: number;
  old: string;
  new: string;
  created?: boolean;
}

/** What the status bar item shows. */
export type Status = 'starting' | 'idle' | 'working' | 'waiting' | 'stopped';

/**
 * SessionState follows the turns (from events) and the questions pending
 * in the editor: which status to show, the step the agent is on, and the
 * last turn that changed files (what "Revert" undoes).
 */
export class SessionState {
  /** The running turn, from turn_start to turn_end. */
  turnId: string | undefined;
  /** The last turn seen, running or ended. */
  lastTurnId: string | undefined;
  /** The session the turns belong to. */
  sessionId: string | undefined;
  /** What the agent does now ("view main.go", "2/5: writing the fix"). */
  step: string | undefined;
  /** The last turn that changed a file, until it is reverted. */
  changedTurnId: string | undefined;
  /** The files changedTurnId changed, in the order it first changed them. */
  changedFiles: string[] = [];
  /** The session's tokens and cost so far (usage and turn_end events). */
  sessionUsage: Usage | undefined;
  /**
   * Questions of the running turn not yet answered. A turn's end forgets
   * them: a question left on screen after its turn was cancelled no
   * longer waits for anyone.
   */
  private readonly asks = new Set<string>();
  private running = false;
  /** The last turn that ended, in case its events beat the ask's reply. */
  private endedTurnId: string | undefined;

  onEvent(e: AgentEvent): void {
    if (e.session_id) {
      if (e.session_id !== this.sessionId) {
        this.sessionUsage = undefined; // another session's total
      }
      this.sessionId = e.session_id;
    }
    if (e.session_usage) {
      this.sessionUsage = e.session_usage;
    }
    if (e.parent_id) {
      // A subagent's step still says what the turn does.
      if (e.type === 'tool_call' && e.title) {
        this.step = `subagent: ${e.title}`;
      }
      return;
    }
    switch (e.type) {
      case 'turn_start':
        this.running = true;
        this.turnId = e.turn_id;
        this.lastTurnId = e.turn_id;
        this.step = undefined;
        break;
      case 'tool_call':
        this.step = e.title || e.name;
        break;
      case 'text_delta':
        this.step = 'writing the answer';
        break;
      case 'thinking_delta':
        this.step = 'thinking';
        break;
      case 'todos':
        if (e.message) {
          this.step = e.message;
        }
        break;
      case 'tool_result':
        // A result that changed a file carries its hunks.
        if (!e.is_error && (e.hunks?.length ?? 0) > 0 && e.turn_id) {
          if (this.changedTurnId !== e.turn_id) {
            this.changedFiles = [];
          }
          this.changedTurnId = e.turn_id;
          for (const h of e.hunks ?? []) {
            if (!this.changedFiles.includes(h.path)) {
              this.changedFiles.push(h.path);
            }
          }
        }
        break;
      case 'turn_end':
        this.endedTurnId = e.turn_id;
        this.asks.clear();
        if (this.turnId === undefined || e.turn_id === undefined || e.turn_id === this.turnId) {
          this.running = false;
          this.turnId = undefined;
          this.step = undefined;
        }
        break;
    }
  }

  /** A turn was started by our ask (the reply may come before turn_start). */
  onAsked(turnId: string, sessionId?: string): void {
    this.lastTurnId = turnId;
    this.sessionId = sessionId ?? this.sessionId;
    if (turnId === this.endedTurnId) {
      return;
    }
    this.running = true;
    this.turnId = turnId;
  }

  /** The changes of changedTurnId were undone. */
  onReverted(): void {
    this.changedTurnId = undefined;
    this.changedFiles = [];
  }

  /** A question is on screen, under its id. */
  askOpened(id: string): void {
    this.asks.add(id);
  }

  askClosed(id: string): void {
    this.asks.delete(id);
  }

  /** The server went away: nothing runs or waits any more. */
  reset(): void {
    this.running = false;
    this.turnId = undefined;
    this.step = undefined;
    this.asks.clear();
  }

  get busy(): boolean {
    return this.running || this.asks.size > 0;
  }

  get waiting(): boolean {
    return this.asks.size > 0;
  }

  status(): Status {
    if (this.asks.size > 0) {
      return 'waiting';
    }
    return this.running ? 'working' : 'idle';
  }
}

/** costText is an estimated cost in dollars: four decimals under $1. */
export function costText(usd: number): string {
  return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

/**
 * usageLine is a session's or a turn's tokens and, when the model's price
 * is known, their estimated cost: "12,345 tokens in (10,000 cached), 678
 * out · $0.0123". Undefined when there is nothing to show.
 */
export function usageLine(u: Usage | undefined): string | undefined {
  if (!u || (!u.input_tokens && !u.output_tokens)) {
    return undefined;
  }
  const n = (x: number | undefined) => (x ?? 0).toLocaleString('en-US');
  const cached = u.cache_read_tokens ? ` (${n(u.cache_read_tokens)} cached)` : '';
  const cost = u.cost_usd !== undefined ? ` · ${costText(u.cost_usd)}` : '';
  return `${n(u.input_tokens)} tokens in${cached}, ${n(u.output_tokens)} out${cost}`;
}

/**
 * usageBadge is the short form for the status bar and the chat header:
 * the cost when known ("$0.0123"), else the tokens ("13k tokens").
 */
export function usageBadge(u: Usage | undefined): string | undefined {
  if (!u || (!u.input_tokens && !u.output_tokens)) {
    return undefined;
  }
  if (u.cost_usd !== undefined) {
    return costText(u.cost_usd);
  }
  const t = u.input_tokens + u.output_tokens;
  return t >= 1000 ? `${Math.round(t / 1000).toLocaleString('en-US')}k tokens` : `${t} tokens`;
}

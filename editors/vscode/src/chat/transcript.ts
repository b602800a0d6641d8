// Transcript turns the agent's events and the person's prompts into the
// chat view's entries, updating them in place as text streams and tool
// calls finish. Every change returns the entries it touched, so the view
// redraws only those. No vscode import (unit-tested in plain node).

import { type AgentEvent, type Usage, usageLine } from '../events';
import type { AskEntry, Entry, NoticeEntry, TextEntry, Todo, TodosEntry, ToolEntry, UserEntry } from './entries';

/** Most entries kept (and stored); older ones are dropped first. */
export const maxEntries = 500;
/** Longest tool output kept in storage (the live view has all of it). */
export const maxStoredOutput = 64 * 1024;

/** What showTurns changed: the entries, and in turns, what the chat hides and shows again. */
export interface TurnsShown {
  changed: Entry[];
  /** Turns hidden now (the conversation does not hold them any more). */
  dropped: number;
  /** Turns shown again (an undone restore brought them back). */
  back: number;
  /** The prompt of the first turn hidden now, to type again. */
  prompt?: string;
}

/** The VS Code settings an error may name; the view offers to open them. */
const settingNames = ['agentls.model', 'agentls.path', 'agentls.permissions.mode'];

export class Transcript {
  private list: Entry[];
  private nextId = 1;
  /** An entry went in above the end since takeMoved. */
  private moved = false;

  constructor(entries: Entry[] = []) {
    this.list = [...entries];
    for (const e of entries) {
      const n = Number(/^e(\d+)$/.exec(e.id)?.[1] ?? 0);
      this.nextId = Math.max(this.nextId, n + 1);
    }
  }

  get entries(): readonly Entry[] {
    return this.list;
  }

  /** Forgets everything (a new chat). */
  clear(): void {
    this.list = [];
  }

  /** The entries to store: bounded in number and in tool output size. */
  stored(): Entry[] {
    return this.list.slice(-maxEntries).map((e) => {
      if (e.kind === 'tool' && e.output && e.output.length > maxStoredOutput) {
        return { ...e, output: e.output.slice(0, maxStoredOutput) + '\n… (cut when stored)' };
      }
      if (e.kind === 'ask' && e.state === 'open') {
        // An ask does not outlive the window that showed it.
        return { ...e, state: 'closed', outcome: 'closed when the window closed' };
      }
      return e;
    });
  }

  /** Whether an entry went in above the end (the view must follow the order) since the last call. */
  takeMoved(): boolean {
    const m = this.moved;
    this.moved = false;
    return m;
  }

  get(id: string): Entry | undefined {
    return this.list.find((e) => e.id === id);
  }

  /** The text of the last prompt sent, if any. */
  private lastPrompt(): string | undefined {
    for (let i = this.list.length - 1; i >= 0; i--) {
      const e = this.list[i];
      if (e.kind === 'user') {
        return e.text;
      }
    }
    return undefined;
  }

  addUser(text: string, context?: string): UserEntry {
    return this.push({ kind: 'user', id: this.id(), text, context });
  }

  addNotice(level: NoticeEntry['level'], text: string, turnId?: string): NoticeEntry {
    const setting = settingNames.find((s) => text.includes(s));
    return this.push({ kind: 'notice', id: this.id(), level, text, ...(setting ? { setting } : {}), ...(turnId ? { turnId } : {}) });
  }

  /** Names the turn a prompt started (agentls.ask's reply), so a restore can find it. */
  setTurn(userId: string, turnId: string): void {
    const e = this.get(userId);
    if (e?.kind === 'user') {
      e.turnId = turnId;
    }
  }

  /**
   * Shows the turns the conversation holds (a restore's conversation.turns,
   * oldest first) and hides the others, so the chat shows what the model
   * sees. A turn is its prompt and what came after it up to the next
   * prompt, except the extension's own notices (a restore's report stays
   * in view); a prompt whose turn is unknown (it failed to start) is left
   * as it is.
   */
  showTurns(turns: readonly string[]): TurnsShown {
    const held = new Set(turns);
    const out: TurnsShown = { changed: [], dropped: 0, back: 0 };
    for (const g of groups(this.list)) {
      if (!g.turn) {
        continue;
      }
      const drop = !held.has(g.turn);
      let changed = false;
      for (const e of g.entries) {
        // The extension's own notices, and the todo lists a restore
        // showed, belong to no turn.
        if ((e.kind === 'notice' || e.kind === 'todos') && !e.turnId) {
          continue;
        }
        if (!!e.dropped !== drop) {
          if (drop) {
            e.dropped = true;
          } else {
            delete e.dropped;
          }
          out.changed.push(e);
          changed = true;
        }
      }
      if (changed && drop) {
        out.dropped++;
        if (out.prompt === undefined && g.entries[0]?.kind === 'user') {
          out.prompt = g.entries[0].text;
        }
      } else if (changed) {
        out.back++;
      }
    }
    return out;
  }

  /**
   * Shows the todo list the conversation holds after a restore (its
   * reply's conversation.todos; no todos event says so): when the last
   * list the chat shows is another (or none while the conversation has
   * one), a new list of no turn says what it is now — an empty one says
   * there is none. Returns the entries that changed.
   */
  showTodos(todos: readonly Todo[]): Entry[] {
    const shown = [...this.list].reverse().find((x): x is TodosEntry => x.kind === 'todos' && !x.dropped);
    const same = (a: readonly Todo[], b: readonly Todo[]) =>
      a.length === b.length && a.every((t, i) => t.content === b[i].content && t.status === b[i].status && (t.active_form ?? '') === (b[i].active_form ?? ''));
    if (shown ? same(shown.todos, todos) : todos.length === 0) {
      return [];
    }
    return [this.push({ kind: 'todos', id: this.id(), todos: [...todos], message: todoProgress(todos) })];
  }

  /** Shows a question; its id is the ask's own (agentls/ask's id). */
  addAsk(ask: Omit<AskEntry, 'kind' | 'state'>): AskEntry {
    const existing = this.get(ask.id);
    if (existing?.kind === 'ask') {
      Object.assign(existing, ask, { state: 'open', outcome: undefined });
      return existing;
    }
    return this.push({ kind: 'ask', state: 'open', ...ask });
  }

  /** Closes a question; returns it, or undefined if it is not open. */
  closeAsk(id: string, state: 'answered' | 'closed', outcome?: string): AskEntry | undefined {
    const e = this.get(id);
    if (e?.kind !== 'ask' || e.state !== 'open') {
      return undefined;
    }
    e.state = state;
    e.outcome = outcome;
    return e;
  }

  /** Applies one agentls/event; returns the entries it changed. */
  onEvent(e: AgentEvent): Entry[] {
    if (e.parent_id) {
      return this.onSubagentEvent(e);
    }
    switch (e.type) {
      case 'text_delta':
      case 'thinking_delta':
        return [this.stream(e.type === 'text_delta' ? 'assistant' : 'thinking', e.turn_id, e.text ?? '', true)];
      case 'text':
      case 'thinking': {
        const kind = e.type === 'text' ? 'assistant' : 'thinking';
        const open = this.streaming(kind, e.turn_id);
        if (open) {
          open.text = e.text ?? open.text;
          open.streaming = false;
          return [open];
        }
        if ((e.text ?? '').trim() === '') {
          return [];
        }
        return [this.push({ kind, id: this.id(), turnId: e.turn_id, text: e.text ?? '', streaming: false })];
      }
      case 'tool_call':
        return [...this.endStreams(e.turn_id), this.push(toolEntry(this.id(), e))];
      case 'permission':
        return this.onPermission(e);
      case 'tool_result':
        return this.onToolResult(e);
      case 'todos':
        return [this.onTodos(e)];
      case 'error': {
        // A failed turn (the model's server down, a bad key) keeps its
        // prompt: the notice offers Retry. A subagent's error is its own.
        const n = this.addNotice('error', e.message ?? 'error', e.turn_id);
        const prompt = e.parent_id ? undefined : this.lastPrompt();
        if (prompt !== undefined) {
          n.retry = prompt;
        }
        return [n];
      }
      case 'warning':
        return [this.addNotice('warning', e.message ?? '', e.turn_id)];
      case 'compaction':
        return [this.addNotice('info', `Conversation compacted: ${e.message ?? ''}`.trim(), e.turn_id)];
      case 'instructions':
        return [this.addNotice('info', instructionsNotice(e.files ?? []), e.turn_id)];
      case 'model':
        return [this.addNotice('info', e.message || `model: ${e.model ?? '?'}`, e.turn_id)];
      case 'turn_end':
        return this.onTurnEnd(e);
      default:
        return [];
    }
  }

  /**
   * Gives each tool call the checkpoint taken before it (agentls.checkpoints'
   * list names the call by turnId and callId), for its "Restore to here"; a
   * call whose checkpoint is gone (pruned, another session's) loses it.
   * Returns the entries that changed.
   */
  markCheckpoints(list: ReadonlyArray<{ id: number; turnId?: string; callId?: string }>): ToolEntry[] {
    const key = (turnId: string | undefined, callId: string) => `${turnId ?? ''}\u0000${callId}`;
    const byCall = new Map<string, number>();
    for (const c of list) {
      if (c.callId) {
        byCall.set(key(c.turnId, c.callId), c.id);
      }
    }
    const changed: ToolEntry[] = [];
    for (const e of this.list) {
      if (e.kind !== 'tool' || e.parentId) {
        continue;
      }
      const id = e.callId ? byCall.get(key(e.turnId, e.callId)) : undefined;
      if (e.checkpoint !== id) {
        if (id === undefined) {
          delete e.checkpoint;
        } else {
          e.checkpoint = id;
        }
        changed.push(e);
      }
    }
    return changed;
  }

  private onSubagentEvent(e: AgentEvent): Entry[] {
    if (e.type === 'tool_call') {
      return [this.push({ ...toolEntry(this.id(), e), parentId: e.parent_id })];
    }
    if (e.type === 'tool_result') {
      return this.onToolResult(e);
    }
    return [];
  }

  private onPermission(e: AgentEvent): Entry[] {
    // The permission event names its call by id.
    const tool = this.lastTool(e.turn_id, (t) => t.callId === e.id && t.parentId === e.parent_id && !t.permission);
    if (!tool) {
      return [];
    }
    const decision = e.decision === 'allow' ? 'allowed' : e.decision === 'deny' ? 'denied' : e.decision ?? '?';
    tool.permission = `${decision}${e.source ? ` (${e.source}${e.reason ? `: ${e.reason}` : ''})` : ''}`;
    if (e.decision === 'deny') {
      tool.status = 'denied';
    }
    return [tool];
  }

  private onToolResult(e: AgentEvent): Entry[] {
    const tool = this.lastTool(e.turn_id, (t) => t.callId === e.id && t.parentId === e.parent_id);
    if (!tool) {
      return [];
    }
    tool.output = e.content ?? '';
    if (e.diff) {
      tool.diff = e.diff;
    }
    tool.exitCode = exitCode(tool.output);
    if (tool.status !== 'denied') {
      tool.status = e.is_error || (tool.exitCode !== undefined && tool.exitCode !== 0) ? 'failed' : 'ok';
    }
    return [tool];
  }

  private onTodos(e: AgentEvent): TodosEntry {
    const found = [...this.list].reverse().find((x): x is TodosEntry => x.kind === 'todos' && x.turnId === e.turn_id);
    if (found) {
      found.todos = e.todos ?? [];
      found.message = e.message;
      return found;
    }
    return this.push({ kind: 'todos', id: this.id(), turnId: e.turn_id, todos: e.todos ?? [], message: e.message });
  }

  private onTurnEnd(e: AgentEvent): Entry[] {
    const changed: Entry[] = this.endStreams(e.turn_id);
    for (const t of this.list) {
      if (t.kind === 'tool' && t.turnId === e.turn_id && t.status === 'running') {
        t.status = 'stopped';
        changed.push(t);
      }
    }
    changed.push(this.push({ kind: 'turn', id: this.id(), turnId: e.turn_id, reason: e.reason ?? '?', usage: usageText(e.turn_usage) }));
    return changed;
  }

  /** Appends streamed text to the open entry of its kind, or starts one. */
  private stream(kind: TextEntry['kind'], turnId: string | undefined, text: string, streaming: boolean): TextEntry {
    const open = this.streaming(kind, turnId);
    if (open) {
      open.text += text;
      return open;
    }
    return this.push({ kind, id: this.id(), turnId, text, streaming });
  }

  private streaming(kind: TextEntry['kind'], turnId: string | undefined): TextEntry | undefined {
    const last = [...this.list].reverse().find((x) => x.kind === 'assistant' || x.kind === 'thinking' || x.kind === 'tool' || x.kind === 'user');
    if (last && last.kind === kind && last.streaming && last.turnId === turnId) {
      return last;
    }
    return undefined;
  }

  /** Streams left open (a cancelled step) end where the turn goes on. */
  private endStreams(turnId: string | undefined): Entry[] {
    const out: Entry[] = [];
    for (const x of this.list) {
      if ((x.kind === 'assistant' || x.kind === 'thinking') && x.streaming && x.turnId === turnId) {
        x.streaming = false;
        out.push(x);
      }
    }
    return out;
  }

  private lastTool(turnId: string | undefined, ok: (t: ToolEntry) => boolean): ToolEntry | undefined {
    for (let i = this.list.length - 1; i >= 0; i--) {
      const x = this.list[i];
      if (x.kind === 'tool' && x.turnId === turnId && ok(x)) {
        return x;
      }
    }
    return undefined;
  }

  /**
   * Adds an entry at the end, but above the questions still open: they
   * stay last, where the person answers them (a question can reach the
   * editor before the events of the step that asks it).
   */
  private push<T extends Entry>(e: T): T {
    let at = this.list.length;
    if (!(e.kind === 'ask' && e.state === 'open')) {
      while (at > 0 && isOpenAsk(this.list[at - 1])) {
        at--;
      }
    }
    if (at < this.list.length) {
      this.list.splice(at, 0, e);
      this.moved = true;
      return e;
    }
    this.list.push(e);
    if (this.list.length > maxEntries * 2) {
      this.list = this.list.slice(-maxEntries);
    }
    return e;
  }

  private id(): string {
    return `e${this.nextId++}`;
  }
}

/**
 * groups splits a transcript into turns: each prompt with what follows it
 * up to the next one (what precedes the first prompt is a group of its
 * own). A group's turn is its prompt's, else that of its first entry of
 * the agent's own (a subagent's entries name the subagent).
 */
function groups(list: readonly Entry[]): Array<{ turn?: string; entries: Entry[] }> {
  const out: Array<{ turn?: string; entries: Entry[] }> = [];
  let g: { turn?: string; entries: Entry[] } | undefined;
  for (const e of list) {
    if (e.kind === 'user' || !g) {
      g = { turn: e.kind === 'user' ? e.turnId : undefined, entries: [] };
      out.push(g);
    }
    g.entries.push(e);
    if (!g.turn && e.kind !== 'user' && 'turnId' in e && e.turnId && !(e.kind === 'tool' && e.parentId)) {
      g.turn = e.turnId;
    }
  }
  return out;
}

/** A todo list's progress as the server words it: done/all, and the one in progress; none for an empty list. */
export function todoProgress(todos: readonly Todo[]): string | undefined {
  if (todos.length === 0) {
    return undefined;
  }
  const done = todos.filter((t) => t.status === 'completed').length;
  const current = todos.find((t) => t.status === 'in_progress');
  const now = current ? current.active_form || current.content : '';
  return `${done}/${todos.length}${now ? `: ${now}` : ''}`;
}

function isOpenAsk(e: Entry): boolean {
  return e.kind === 'ask' && e.state === 'open';
}

function toolEntry(id: string, e: AgentEvent): ToolEntry {
  const input = e.input === undefined || e.input === null ? undefined : JSON.stringify(e.input, null, 2);
  return {
    kind: 'tool',
    id,
    turnId: e.turn_id,
    callId: e.id,
    name: e.name ?? 'tool',
    title: e.title || e.name || 'tool',
    input,
    status: 'running',
  };
}

/** exitCode reads a command's exit code from its result ("Exit code: N"). */
export function exitCode(output: string): number | undefined {
  const m = /(?:^|\n)Exit code: (-?\d+)\s*(?:\n|$)/.exec(output);
  return m ? Number(m[1]) : undefined;
}

/** usageText is a turn's token count and cost, or nothing when there is
 * none to show: a provider that reports none, or a turn cancelled before
 * the model answered ("0 tokens in, 0 out" said nothing). */
export function usageText(u: Usage | undefined): string | undefined {
  return usageLine(u);
}

/**
 * instructionsNotice says which project instruction files the model reads
 * from this turn on (an instructions event comes when they change).
 */
export function instructionsNotice(files: string[]): string {
  if (files.length === 0) {
    return 'Project instructions: none any more (no AGENTS.md or CLAUDE.md is read).';
  }
  return `Project instructions: ${files.join(', ')}`;
}

// The agentls/event notifications (docs/protocol.md, "Transcript") and what
// the extension makes of them: transcript lines and the status of the
// session. No vscode import here, so the unit tests run in plain node.

/** One `agentls/event`: exactly one line of `agentls run --json`. */
export interface AgentEvent {
  type: 'turn_start' | 'text' | 'tool_call' | 'permission' | 'tool_result' | 'turn_end' | 'error' | string;
  session_id?: string;
  turn_id?: string;
  text?: string;
  id?: string;
  name?: string;
  title?: string;
  input?: unknown;
  is_error?: boolean;
  content?: string;
  diff?: string;
  reason?: string;
  message?: string;
  tool?: string;
  capability?: string;
  scope?: string;
  decision?: string;
  source?: string;
  channel?: string;
}

/** Longest line of tool output the transcript shows before cutting. */
const maxResultLine = 160;

function firstLine(s: string, max: number): string {
  // Skip lines that only open or close a tag (<file>, </output>): tool
  // results wrap their content for the model.
  const lines = s.trim().split('\n');
  let line = lines.find((l) => l.trim() !== '' && !/^\s*<\/?[\w-]+>\s*$/.test(l)) ?? lines[0];
  line = line.trim();
  if (line.length > max) {
    line = line.slice(0, max - 1) + '…';
  }
  return line;
}

function lineCount(s: string): number {
  if (s === '') {
    return 0;
  }
  const n = s.split('\n').length;
  return s.endsWith('\n') ? n - 1 : n;
}

function indent(s: string, prefix: string): string {
  return s
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => prefix + l)
    .join('\n');
}

function toolInputSummary(input: unknown): string {
  if (input === undefined || input === null) {
    return '';
  }
  const o = input as Record<string, unknown>;
  for (const key of ['file_path', 'path', 'pattern', 'command', 'id']) {
    if (typeof o[key] === 'string') {
      return firstLine(o[key] as string, 120);
    }
  }
  return firstLine(JSON.stringify(input), 120);
}

function clock(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Options of formatEvent. */
export interface FormatOptions {
  /** The time shown at the start of the line. */
  now?: Date;
  /** Shortens an absolute path (to workspace-relative). */
  rel?: (path: string) => string;
}

/**
 * formatEvent renders one event as transcript text: one readable line, then
 * for a model's multi-line text or a tool result's diff, the further lines
 * indented below it. It returns undefined for nothing to show.
 */
export function formatEvent(e: AgentEvent, opts: FormatOptions = {}): string | undefined {
  const now = opts.now ?? new Date();
  const rel = opts.rel ?? ((p: string) => p);
  const t = `[${clock(now)}] `;
  switch (e.type) {
    case 'turn_start':
      return `${t}── turn ${e.turn_id ?? '?'} started`;
    case 'text': {
      const text = (e.text ?? '').trim();
      if (text === '') {
        return undefined;
      }
      const lines = text.split('\n');
      const head = `${t}agent: ${lines[0]}`;
      return lines.length === 1 ? head : head + '\n' + indent(lines.slice(1).join('\n'), '    ');
    }
    case 'tool_call': {
      const title = e.title || `${e.name ?? 'tool'} ${toolInputSummary(e.input)}`.trim();
      return `${t}→ ${title}`;
    }
    case 'permission': {
      const scope = e.scope && /^(\/|[A-Za-z]:[\\/])/.test(e.scope) ? rel(e.scope) : e.scope;
      const what = [e.tool, scope].filter((s) => s).join(' ');
      const decision = e.decision === 'allow' ? 'allowed' : e.decision === 'deny' ? 'denied' : e.decision ?? '?';
      const why = [e.source, e.reason].filter((s) => s).join(': ');
      return `${t}permission: ${what || e.capability || '?'} ${decision}${why ? ` (${why})` : ''}`;
    }
    case 'tool_result': {
      const content = e.content ?? '';
      const status = e.is_error ? 'failed' : 'ok';
      let line = `${t}← ${e.name ?? 'tool'} ${status}`;
      if (e.is_error || !e.diff) {
        const first = firstLine(content, maxResultLine);
        if (first !== '') {
          const n = lineCount(content.trim());
          line += `: ${first}${n > 1 ? ` (+${n - 1} more lines)` : ''}`;
        }
      }
      if (e.diff) {
        line += '\n' + indent(e.diff, '    ');
      }
      return line;
    }
    case 'error':
      return `${t}error: ${e.message ?? ''}`;
    case 'turn_end':
      return `${t}── turn ${e.turn_id ?? '?'} ended: ${e.reason ?? '?'}`;
    default:
      return `${t}${e.type}: ${JSON.stringify(e)}`;
  }
}

/** What the status bar item shows. */
export type Status = 'starting' | 'idle' | 'working' | 'waiting' | 'stopped';

/**
 * SessionState follows the turns (from events) and the permission asks
 * pending in the editor, and says which status to show.
 */
export class SessionState {
  /** The running turn, from turn_start to turn_end. */
  turnId: string | undefined;
  /** The last turn seen, running or ended. */
  lastTurnId: string | undefined;
  /**
   * Permission asks (window/showMessageRequest) of the running turn not yet
   * answered. A turn's end forgets them: a question left on screen after
   * its turn was cancelled no longer waits for anyone.
   */
  private readonly asks = new Set<number>();
  private nextAsk = 1;
  private running = false;
  /** The last turn that ended, in case its events beat the ask's reply. */
  private endedTurnId: string | undefined;

  onEvent(e: AgentEvent): void {
    if (e.type === 'turn_start') {
      this.running = true;
      this.turnId = e.turn_id;
      this.lastTurnId = e.turn_id;
    } else if (e.type === 'turn_end') {
      this.endedTurnId = e.turn_id;
      this.asks.clear();
      if (this.turnId === undefined || e.turn_id === undefined || e.turn_id === this.turnId) {
        this.running = false;
        this.turnId = undefined;
      }
    }
  }

  /** A turn was started by our ask (the reply may come before turn_start). */
  onAsked(turnId: string): void {
    this.lastTurnId = turnId;
    if (turnId === this.endedTurnId) {
      return;
    }
    this.running = true;
    this.turnId = turnId;
  }

  /** A question is on screen; returns its handle for askClosed. */
  askOpened(): number {
    const id = this.nextAsk++;
    this.asks.add(id);
    return id;
  }

  askClosed(id: number): void {
    this.asks.delete(id);
  }

  /** The server went away: nothing runs or waits any more. */
  reset(): void {
    this.running = false;
    this.turnId = undefined;
    this.asks.clear();
  }

  get busy(): boolean {
    return this.running || this.asks.size > 0;
  }

  status(): Status {
    if (this.asks.size > 0) {
      return 'waiting';
    }
    return this.running ? 'working' : 'idle';
  }
}

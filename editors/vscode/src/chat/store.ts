// ChatStore keeps the chat across window reloads, in the workspace's
// state (VS Code's Memento, not a file): the current chat's entries and
// session, the transcripts of earlier sessions (to show them on resume),
// the prompt history and the unsent draft. No vscode import.

import type { Entry } from './entries';

/** The part of vscode.Memento the store needs. */
export interface Memento {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

interface StoredChat {
  sessionId?: string;
  title?: string;
  entries: Entry[];
}

interface Stored {
  current: StoredChat;
  /** Earlier sessions' chats by session id, most recent last. */
  sessions: Record<string, StoredChat & { updated: number }>;
}

const chatKey = 'agentls.chat.v1';
const historyKey = 'agentls.chat.history';
const draftKey = 'agentls.chat.draft';
const revertKey = 'agentls.chat.revert';

/** The last turn that changed files, for Revert after a reload. */
export interface StoredRevert {
  turnId: string;
  files: string[];
}
/** Earlier sessions kept; prompts kept in the history. */
export const maxSessions = 20;
export const maxHistory = 100;

export class ChatStore {
  constructor(private readonly memento: Memento) {}

  current(): StoredChat {
    return this.read().current;
  }

  /** Saves the current chat. */
  async save(chat: StoredChat): Promise<void> {
    const s = this.read();
    s.current = chat;
    await this.memento.update(chatKey, s);
  }

  /**
   * Switches to another session: the current chat is kept under its
   * session id, and the other's stored chat (if any) becomes current.
   */
  async switchTo(sessionId: string | undefined, title?: string): Promise<StoredChat> {
    const s = this.read();
    const cur = s.current;
    if (cur.sessionId && cur.entries.length) {
      s.sessions[cur.sessionId] = { ...cur, updated: Date.now() };
    }
    const next: StoredChat = (sessionId && s.sessions[sessionId]) || { sessionId, title, entries: [] };
    if (sessionId) {
      delete s.sessions[sessionId];
    }
    s.current = { sessionId, title: title ?? next.title, entries: next.entries };
    const ids = Object.keys(s.sessions).sort((a, b) => s.sessions[a].updated - s.sessions[b].updated);
    for (const id of ids.slice(0, Math.max(0, ids.length - maxSessions))) {
      delete s.sessions[id];
    }
    await this.memento.update(chatKey, s);
    return s.current;
  }

  /** The turn Revert undoes, kept across reloads (the server reverts it from its history). */
  revert(): StoredRevert | undefined {
    const r = this.memento.get<StoredRevert>(revertKey);
    if (!r || typeof r.turnId !== 'string' || !r.turnId) {
      return undefined;
    }
    return { turnId: r.turnId, files: Array.isArray(r.files) ? r.files.filter((f) => typeof f === 'string') : [] };
  }

  async setRevert(r: StoredRevert | undefined): Promise<void> {
    await this.memento.update(revertKey, r);
  }

  history(): string[] {
    return this.memento.get<string[]>(historyKey) ?? [];
  }

  async addHistory(prompt: string): Promise<void> {
    const h = this.history().filter((p) => p !== prompt);
    h.push(prompt);
    await this.memento.update(historyKey, h.slice(-maxHistory));
  }

  /** The unsent text of the prompt box. */
  draft(): string {
    return this.readDraft().text;
  }

  /** The generation a new draft starts at (see Prompt.gen). */
  draftGen(): number {
    return this.readDraft().floor;
  }

  /**
   * Keeps the box's text of generation gen; a draft of a generation a send
   * ended (a timer or a message late behind the send) is dropped, so a sent
   * prompt never comes back into the box.
   */
  async setDraft(text: string, gen: number): Promise<void> {
    const d = this.readDraft();
    if (gen < d.floor) {
      return;
    }
    await this.memento.update(draftKey, { text, gen, floor: d.floor });
  }

  /** A prompt of generation gen was sent: that draft and older ones are over. */
  async sent(gen: number): Promise<void> {
    const d = this.readDraft();
    const floor = Math.max(d.floor, gen + 1);
    await this.memento.update(draftKey, d.gen >= floor ? { ...d, floor } : { text: '', gen: floor, floor });
  }

  private readDraft(): { text: string; gen: number; floor: number } {
    const d = this.memento.get<unknown>(draftKey);
    if (typeof d === 'string') {
      return { text: d, gen: 0, floor: 0 }; // an older version's draft
    }
    const o = (d ?? {}) as { text?: unknown; gen?: unknown; floor?: unknown };
    const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
    return { text: typeof o.text === 'string' ? o.text : '', gen: num(o.gen), floor: num(o.floor) };
  }

  private read(): Stored {
    const s = this.memento.get<Stored>(chatKey);
    return {
      current: s?.current ?? { entries: [] },
      sessions: { ...(s?.sessions ?? {}) },
    };
  }
}

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

  history(): string[] {
    return this.memento.get<string[]>(historyKey) ?? [];
  }

  async addHistory(prompt: string): Promise<void> {
    const h = this.history().filter((p) => p !== prompt);
    h.push(prompt);
    await this.memento.update(historyKey, h.slice(-maxHistory));
  }

  draft(): string {
    return this.memento.get<string>(draftKey) ?? '';
  }

  async setDraft(text: string): Promise<void> {
    await this.memento.update(draftKey, text);
  }

  private read(): Stored {
    const s = this.memento.get<Stored>(chatKey);
    return {
      current: s?.current ?? { entries: [] },
      sessions: { ...(s?.sessions ?? {}) },
    };
  }
}

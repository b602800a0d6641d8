// The chat's prompt: a multi-line box (Enter sends, Shift+Enter breaks the
// line), the history of earlier prompts on Up/Down, and @-mentions of
// workspace files picked from a list the extension fills.

import { mentionAt } from './mention';

export interface PromptHooks {
  send(text: string): void;
  /** The box's text to keep across reloads; gen: see Prompt.gen. */
  draft(text: string, gen: number): void;
  mentions(query: string): void;
}

export class Prompt {
  readonly box: HTMLTextAreaElement;
  readonly list: HTMLElement;
  private history: string[] = [];
  /** Where Up/Down is in the history; history.length: the prompt being typed. */
  private at = 0;
  private typed = '';
  private files: string[] = [];
  private chosen = 0;
  private mention: { start: number; query: string } | undefined;
  private draftTimer: number | undefined;
  private mentionTimer: number | undefined;
  /**
   * The draft's generation: a send ends one. A draft is saved with its
   * generation, so one typed before a send (a timer still pending, a
   * message still on its way) can never replace what comes after it.
   */
  gen = 0;

  constructor(
    box: HTMLTextAreaElement,
    list: HTMLElement,
    private readonly hooks: PromptHooks,
  ) {
    this.box = box;
    this.list = list;
    box.addEventListener('keydown', (ev) => this.onKey(ev));
    box.addEventListener('input', () => this.onInput());
    box.addEventListener('blur', () => setTimeout(() => this.closeList(), 150));
  }

  setHistory(h: string[]): void {
    this.history = [...h];
    this.at = this.history.length;
  }

  /** Replaces the text (a restored draft, a focus with text). */
  set(text: string): void {
    this.box.value = text;
    this.grow();
  }

  /**
   * A send starts: the text typed so far is the sent prompt's (its
   * generation, returned); what is typed from now on is a new draft.
   */
  sending(): number {
    clearTimeout(this.draftTimer);
    return this.gen++;
  }

  /** After a send went through: clear, and remember it. */
  sent(text: string): void {
    if (this.history[this.history.length - 1] !== text) {
      this.history.push(text);
    }
    this.at = this.history.length;
    if (this.box.value === text) {
      this.set('');
    }
  }

  /** The extension's answer to a mentions query. */
  showFiles(query: string, files: string[]): void {
    if (!this.mention || this.mention.query !== query) {
      return;
    }
    this.files = files;
    this.chosen = 0;
    this.drawList();
  }

  private onKey(ev: KeyboardEvent): void {
    if (this.files.length && this.mention) {
      if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
        this.chosen = (this.chosen + (ev.key === 'ArrowDown' ? 1 : this.files.length - 1)) % this.files.length;
        this.drawList();
        ev.preventDefault();
        return;
      }
      if (ev.key === 'Enter' || ev.key === 'Tab') {
        this.pick(this.files[this.chosen]);
        ev.preventDefault();
        return;
      }
      if (ev.key === 'Escape') {
        this.closeList();
        ev.preventDefault();
        return;
      }
    }
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      const text = this.box.value;
      if (text.trim() !== '') {
        this.hooks.send(text);
      }
      return;
    }
    const caret = this.box.selectionStart;
    const noSelection = caret === this.box.selectionEnd;
    if (ev.key === 'ArrowUp' && noSelection && !this.box.value.slice(0, caret).includes('\n') && this.at > 0) {
      if (this.at === this.history.length) {
        this.typed = this.box.value;
      }
      this.at--;
      this.set(this.history[this.at]);
      ev.preventDefault();
    } else if (ev.key === 'ArrowDown' && noSelection && !this.box.value.slice(caret).includes('\n') && this.at < this.history.length) {
      this.at++;
      this.set(this.at === this.history.length ? this.typed : this.history[this.at]);
      ev.preventDefault();
    }
  }

  private onInput(): void {
    this.grow();
    clearTimeout(this.draftTimer);
    this.draftTimer = window.setTimeout(() => this.hooks.draft(this.box.value, this.gen), 300);
    this.mention = mentionAt(this.box.value, this.box.selectionStart);
    if (!this.mention) {
      this.closeList();
      return;
    }
    const query = this.mention.query;
    clearTimeout(this.mentionTimer);
    this.mentionTimer = window.setTimeout(() => this.hooks.mentions(query), 80);
  }

  private pick(file: string): void {
    const m = this.mention;
    if (!m) {
      return;
    }
    const v = this.box.value;
    const end = m.start + 1 + m.query.length;
    const insert = `@${file} `;
    this.box.value = v.slice(0, m.start) + insert + v.slice(end);
    const caret = m.start + insert.length;
    this.box.setSelectionRange(caret, caret);
    this.closeList();
    this.onInput();
    this.box.focus();
  }

  private drawList(): void {
    this.list.replaceChildren();
    this.list.hidden = this.files.length === 0;
    this.files.forEach((f, i) => {
      const item = document.createElement('div');
      item.className = `mention${i === this.chosen ? ' chosen' : ''}`;
      item.textContent = f;
      item.addEventListener('mousedown', (ev) => {
        ev.preventDefault();
        this.pick(f);
      });
      this.list.appendChild(item);
    });
  }

  private closeList(): void {
    this.files = [];
    this.list.hidden = true;
    this.list.replaceChildren();
  }

  private grow(): void {
    this.box.style.height = 'auto';
    this.box.style.height = `${Math.min(this.box.scrollHeight + 2, window.innerHeight * 0.4)}px`;
  }
}

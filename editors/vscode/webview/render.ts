// Draws one chat entry as DOM: the answer as markdown (markdown-it, raw
// HTML off, so the model's text cannot inject markup; fenced code
// highlighted by highlight.js, which escapes what it is given), tool calls as
// collapsible blocks with their whole output, questions with their
// choices as full-width-wrapping buttons.

import MarkdownIt from 'markdown-it';

import { highlight } from './highlight';

import type { AskEntry, Entry, NoticeEntry, TodosEntry, ToolEntry, TurnEntry } from '../src/chat/entries';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false, highlight });

/** What rendered entries can ask for. */
export interface RenderActions {
  answer(id: string, answer: string, extra?: { text?: string; chosen?: string[] }): void;
  openSettings(setting: string): void;
  openReview(id: string): void;
  /** A step's "Restore to here". */
  restore(checkpoint: number): void;
  retry(prompt: string): void;
  copyCode(text: string): void;
  insertCode(text: string): void;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) {
    e.className = cls;
  }
  if (text !== undefined) {
    e.textContent = text;
  }
  return e;
}

/**
 * Fills node with text whose `backticked` parts are code: the server's
 * questions quote commands and paths that way. Nothing else is markdown
 * there (a path like __init__.py stays as it is).
 */
function codeSpans(node: HTMLElement, text: string): HTMLElement {
  text.split(/`([^`\n]+)`/).forEach((part, i) => {
    node.appendChild(i % 2 === 1 ? el('code', '', part) : document.createTextNode(part));
  });
  return node;
}

function button(label: string, cls: string, onClick: () => void): HTMLButtonElement {
  const b = el('button', cls, label);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}

/** A unified diff with its lines coloured. */
function diffBlock(diff: string): HTMLElement {
  const pre = el('pre', 'diff');
  for (const line of diff.replace(/\n$/, '').split('\n')) {
    const cls = line.startsWith('+++') || line.startsWith('---') ? 'meta' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'hunk' : '';
    pre.appendChild(el('span', `line ${cls}`, line + '\n'));
  }
  return pre;
}

function section(title: string, body: HTMLElement): HTMLElement {
  const s = el('div', 'section');
  s.appendChild(el('div', 'section-title', title));
  s.appendChild(body);
  return s;
}

export function renderEntry(e: Entry, act: RenderActions): HTMLElement {
  const node = draw(e, act);
  node.dataset.id = e.id;
  node.dataset.kind = e.kind;
  // Out of the conversation (a restore): hidden until an undo brings it back.
  node.hidden = !!e.dropped;
  return node;
}

function draw(e: Entry, act: RenderActions): HTMLElement {
  switch (e.kind) {
    case 'user': {
      const d = el('div', 'entry user');
      d.appendChild(el('div', 'who', 'You'));
      d.appendChild(el('div', 'text', e.text));
      if (e.context) {
        d.appendChild(el('div', 'context-label', `with ${e.context}`));
      }
      return d;
    }
    case 'assistant': {
      const d = el('div', `entry assistant${e.streaming ? ' streaming' : ''}`);
      const body = el('div', 'markdown');
      body.innerHTML = md.render(e.text);
      if (!e.streaming) {
        codeBlocks(body, act);
      }
      d.appendChild(body);
      return d;
    }
    case 'thinking': {
      const d = el('details', `entry thinking${e.streaming ? ' streaming' : ''}`);
      d.appendChild(el('summary', '', e.streaming ? 'Thinking…' : 'Thought'));
      d.appendChild(el('pre', 'output', e.text));
      return d;
    }
    case 'tool':
      return tool(e, act);
    case 'ask':
      return ask(e, act);
    case 'notice':
      return notice(e, act);
    case 'turn':
      return turnEnd(e);
    case 'todos':
      return todos(e);
  }
}

/**
 * codeBlocks boxes each fenced block of a finished answer under a bar
 * with its language and Copy / Insert (at the editor's cursor).
 */
function codeBlocks(body: HTMLElement, act: RenderActions): void {
  for (const pre of Array.from(body.querySelectorAll('pre'))) {
    const code = pre.querySelector('code');
    const text = (code ?? pre).textContent ?? '';
    const lang = /(?:^|\s)language-(\S+)/.exec(code?.className ?? '')?.[1] ?? '';
    const box = el('div', 'codeblock');
    const bar = el('div', 'codeblock-bar');
    bar.appendChild(el('span', 'codeblock-lang', lang));
    const copy = el('button', 'codeblock-action', 'Copy');
    copy.type = 'button';
    copy.title = 'Copy the code';
    copy.addEventListener('click', () => {
      act.copyCode(text);
      copy.textContent = 'Copied';
      setTimeout(() => (copy.textContent = 'Copy'), 1500);
    });
    const insert = el('button', 'codeblock-action', 'Insert');
    insert.type = 'button';
    insert.title = "Insert the code at the editor's cursor";
    insert.addEventListener('click', () => act.insertCode(text));
    bar.append(copy, insert);
    pre.replaceWith(box);
    box.append(bar, pre);
  }
}

const statusMark: Record<ToolEntry['status'], string> = { running: '…', ok: '✓', failed: '✗', denied: '⊘', stopped: '■' };

function tool(e: ToolEntry, act: RenderActions): HTMLElement {
  const d = el('details', `entry tool status-${e.status}${e.parentId ? ' subagent' : ''}`);
  const sum = el('summary');
  sum.appendChild(el('span', 'mark', statusMark[e.status]));
  sum.appendChild(el('span', 'title', e.title));
  if (e.exitCode !== undefined) {
    sum.appendChild(el('span', `badge${e.exitCode === 0 ? '' : ' bad'}`, `exit ${e.exitCode}`));
  }
  if (e.status === 'failed' && e.exitCode === undefined) {
    sum.appendChild(el('span', 'badge bad', 'failed'));
  }
  if (e.status === 'denied') {
    sum.appendChild(el('span', 'badge bad', 'denied'));
  }
  if (e.status === 'stopped') {
    sum.appendChild(el('span', 'badge', 'stopped'));
  }
  if (e.checkpoint !== undefined) {
    const checkpoint = e.checkpoint;
    const b = button('Restore to here', 'restore-here', () => act.restore(checkpoint));
    b.title = 'Put the files, the conversation or both back to before this step (a restore can be undone)';
    // A button in the summary must not open or close the step.
    b.addEventListener('click', (ev) => {
      ev.preventDefault();
      ev.stopPropagation();
    });
    sum.appendChild(b);
  }
  d.appendChild(sum);
  const body = el('div', 'body');
  if (e.permission) {
    body.appendChild(el('div', 'permission', `permission: ${e.permission}`));
  }
  if (e.input) {
    body.appendChild(section('Input', el('pre', 'input', e.input)));
  }
  if (e.diff) {
    body.appendChild(section('Diff', diffBlock(e.diff)));
  }
  if (e.output !== undefined) {
    body.appendChild(section('Output', el('pre', 'output', e.output === '' ? '(no output)' : e.output)));
  }
  d.appendChild(body);
  return d;
}

function ask(e: AskEntry, act: RenderActions): HTMLElement {
  const d = el('div', `entry ask ${e.askKind} ask-${e.state}`);
  d.appendChild(codeSpans(el('div', 'ask-message'), e.message));
  for (const w of e.warnings ?? []) {
    d.appendChild(el('div', 'warning', `⚠ ${w}`));
  }
  if (e.diff) {
    const det = el('details', 'ask-diff');
    det.open = e.state === 'open';
    det.appendChild(el('summary', '', 'Diff'));
    det.appendChild(diffBlock(e.diff));
    d.appendChild(det);
  }
  if (e.state !== 'open') {
    d.appendChild(el('div', 'outcome', e.outcome ? `→ ${e.outcome}` : '→ closed'));
    return d;
  }
  const choices = el('div', 'choices');
  if (e.askKind === 'review') {
    choices.appendChild(button('Open review', 'choice secondary', () => act.openReview(e.id)));
  }
  if (e.askKind === 'question' && e.multi) {
    const picked = new Set<string>();
    for (const c of e.choices) {
      const b = button(c.title, 'choice toggle', () => {
        if (picked.has(c.answer)) {
          picked.delete(c.answer);
        } else {
          picked.add(c.answer);
        }
        b.classList.toggle('on', picked.has(c.answer));
      });
      choices.appendChild(b);
    }
    choices.appendChild(button('Send', 'choice', () => act.answer(e.id, '', { chosen: [...picked] })));
  } else {
    for (const c of e.choices) {
      const primary = c.answer === 'allow' || c.answer === 'accept_all';
      choices.appendChild(button(c.title, `choice${primary ? '' : ' secondary'}`, () => act.answer(e.id, c.answer)));
    }
  }
  d.appendChild(choices);
  if (e.freeText) {
    const row = el('div', 'free-text');
    const input = el('textarea');
    input.rows = 2;
    input.placeholder = 'Your answer';
    row.appendChild(input);
    row.appendChild(button('Answer', 'choice', () => act.answer(e.id, '', { text: input.value })));
    d.appendChild(row);
  }
  return d;
}

function notice(e: NoticeEntry, act: RenderActions): HTMLElement {
  const d = el('div', `entry notice ${e.level}`);
  d.appendChild(el('div', 'text', e.text));
  if (e.setting) {
    const setting = e.setting;
    d.appendChild(button(`Open Settings (${setting})`, 'choice secondary', () => act.openSettings(setting)));
  }
  if (e.retry !== undefined) {
    const prompt = e.retry;
    const b = button('Retry', 'choice', () => act.retry(prompt));
    b.title = `Send again: ${prompt.length > 80 ? `${prompt.slice(0, 80)}…` : prompt}`;
    d.appendChild(b);
  }
  return d;
}

function turnEnd(e: TurnEntry): HTMLElement {
  const words: Record<string, string> = {
    completed: 'done',
    cancelled: 'cancelled',
    denied: 'stopped: permission denied',
    max_steps: 'stopped: step limit reached (say "continue" to go on)',
    error: 'failed',
  };
  const d = el('div', `entry turn-end${e.reason === 'completed' ? '' : ' bad'}`);
  d.textContent = `— ${words[e.reason] ?? e.reason}${e.usage ? ` · ${e.usage}` : ''}`;
  return d;
}

function todos(e: TodosEntry): HTMLElement {
  const d = el('div', 'entry todos');
  d.appendChild(el('div', 'section-title', e.message ? `Plan — ${e.message}` : 'Plan'));
  const ul = el('ul');
  if (e.todos.length === 0) {
    // A restore took the conversation back to before its list.
    ul.appendChild(el('li', 'todo none', '(none)'));
  }
  for (const t of e.todos) {
    const mark = t.status === 'completed' ? '☑' : t.status === 'in_progress' ? '▶' : '☐';
    ul.appendChild(el('li', `todo ${t.status}`, `${mark} ${t.status === 'in_progress' && t.active_form ? t.active_form : t.content}`));
  }
  d.appendChild(ul);
  return d;
}

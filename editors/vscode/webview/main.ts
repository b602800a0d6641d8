// The chat webview: lays out the log, the status line and the prompt,
// draws the entries the extension sends (render.ts) and sends back what
// the person does. The extension owns all state; this page only draws it.

import './chat.css';

import type { Entry } from '../src/chat/entries';
import type { ChatStatus, FromView, ToView } from '../src/chat/messages';
import { Prompt } from './prompt';
import { renderEntry, RenderActions } from './render';

declare function acquireVsCodeApi(): { postMessage(m: FromView): void };
const vscode = acquireVsCodeApi();
const post = (m: FromView) => vscode.postMessage(m);

function byId<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

document.getElementById('app')!.innerHTML = `
<header class="bar" hidden>
  <span id="session" class="session"></span>
  <span id="usage" class="usage"></span>
  <button id="model" type="button" class="model" title="The model the next prompt goes to. Click to switch: the conversation goes on." hidden></button>
</header>
<main id="log" aria-live="polite"><div id="empty" class="empty">Ask the agent about your workspace. <kbd>Enter</kbd> sends, <kbd>Shift+Enter</kbd> starts a new line, <kbd>@</kbd> mentions a file, <kbd>↑</kbd> recalls earlier prompts.</div></main>
<footer>
  <div id="status" class="status" hidden>
    <span id="step" class="step"></span>
    <button id="cancel" type="button" class="link">Cancel</button>
    <button id="revert" type="button" class="link" title="Undo every file change of the last turn">Revert</button>
  </div>
  <div id="mentions" class="mentions" hidden></div>
  <label id="context" class="context" hidden><input id="with-context" type="checkbox" checked> <span id="context-label"></span></label>
  <div class="prompt-row">
    <textarea id="prompt" rows="2" placeholder="Ask the agent… (@ to mention a file)" aria-label="Prompt"></textarea>
    <button id="send" type="button">Send</button>
  </div>
</footer>`;

const log = byId<HTMLElement>('log');
const defaultPlaceholder = byId<HTMLTextAreaElement>('prompt').placeholder;
const nodes = new Map<string, HTMLElement>();
let sending = false;

const actions: RenderActions = {
  answer: (id, answer, extra) => post({ type: 'answer', id, answer, ...extra }),
  openSettings: (setting) => post({ type: 'openSettings', setting }),
  openReview: (id) => post({ type: 'openReview', id }),
  restore: (checkpoint) => post({ type: 'restore', checkpoint }),
  retry: (text) => send(text),
  copyCode: (text) => post({ type: 'copyCode', text }),
  insertCode: (text) => post({ type: 'insertCode', text }),
};

const prompt = new Prompt(byId('prompt'), byId('mentions'), {
  send: (text) => send(text),
  draft: (text, gen) => post({ type: 'draft', text, gen }),
  mentions: (query) => post({ type: 'mentions', query }),
});

function send(text: string): void {
  if (sending) {
    return;
  }
  sending = true;
  byId<HTMLButtonElement>('send').disabled = true;
  post({ type: 'ask', prompt: text, withContext: byId<HTMLInputElement>('with-context').checked, gen: prompt.sending() });
}

byId('send').addEventListener('click', () => {
  const text = prompt.box.value;
  if (text.trim() !== '') {
    send(text);
  }
});
byId('cancel').addEventListener('click', () => post({ type: 'cancel' }));
byId('revert').addEventListener('click', () => post({ type: 'revert' }));
byId('model').addEventListener('click', () => post({ type: 'pickModel' }));

function nearBottom(): boolean {
  return log.scrollTop + log.clientHeight >= log.scrollHeight - 48;
}

/** Draws entries: new ones at the end, changed ones in place (details keep their open state); order, when given, is the order. */
function upsert(entries: Entry[], order?: string[]): void {
  const stick = nearBottom();
  for (const e of entries) {
    const node = renderEntry(e, actions);
    const old = nodes.get(e.id);
    if (old) {
      if (old instanceof HTMLDetailsElement && node instanceof HTMLDetailsElement) {
        node.open = old.open;
      }
      old.replaceWith(node);
    } else {
      log.appendChild(node);
    }
    nodes.set(e.id, node);
  }
  for (const id of order ?? []) {
    const n = nodes.get(id);
    if (n) {
      log.appendChild(n);
    }
  }
  byId('empty').hidden = [...nodes.values()].some((n) => !n.hidden);
  if (stick) {
    log.scrollTop = log.scrollHeight;
  }
}

/** shortModel is a model as the header shows it: a replay script by its file name, the rest as named. */
function shortModel(m: string): string {
  const replay = /^replay:(?:.*[\\/])?([^\\/]+)$/.exec(m);
  return replay ? `replay:${replay[1]}` : m;
}

function showStatus(s: ChatStatus): void {
  const busy = s.status === 'working' || s.status === 'waiting';
  const words: Record<string, string> = {
    working: s.step ? `Working: ${s.step}` : 'Working…',
    waiting: 'Waiting for you',
    starting: 'Starting agentls…',
    stopped: 'agentls is not running',
  };
  byId('step').textContent = words[s.status] ?? '';
  byId('cancel').hidden = !busy;
  byId('revert').hidden = busy || !s.revertTurnId;
  byId('status').hidden = !(busy || s.revertTurnId || s.status === 'stopped' || s.status === 'starting');
  byId('status').dataset.status = s.status;
  byId('session').textContent = s.session ?? '';
  const usage = byId('usage');
  usage.textContent = s.usage ?? '';
  usage.title = s.usageTitle ? `This session: ${s.usageTitle}` : '';
  usage.setAttribute('aria-label', usage.title);
  const model = byId<HTMLButtonElement>('model');
  model.textContent = s.model ? `${shortModel(s.model)} ▾` : '';
  model.hidden = !s.model;
  model.setAttribute('aria-label', s.model ? `Model: ${s.model}. Switch model` : 'Switch model');
  byId('session').parentElement!.hidden = !s.session && !s.usage && !s.model;
  const ctx = byId('context');
  ctx.hidden = !s.context;
  byId('context-label').textContent = s.context ? `with ${s.context}` : '';
}

window.addEventListener('message', (ev: MessageEvent<ToView>) => {
  const m = ev.data;
  switch (m.type) {
    case 'reset':
      for (const n of nodes.values()) {
        n.remove();
      }
      nodes.clear();
      upsert(m.entries);
      log.scrollTop = log.scrollHeight;
      prompt.setHistory(m.history);
      prompt.gen = Math.max(prompt.gen, m.draftGen);
      if (prompt.box.value === '' && m.draft) {
        prompt.set(m.draft);
      }
      showStatus(m.status);
      return;
    case 'entries':
      upsert(m.entries, m.order);
      return;
    case 'status':
      showStatus(m.status);
      return;
    case 'asked':
      sending = false;
      byId<HTMLButtonElement>('send').disabled = false;
      if (m.ok) {
        prompt.sent(m.prompt);
        prompt.box.placeholder = defaultPlaceholder;
      }
      prompt.box.focus();
      return;
    case 'mentions':
      prompt.showFiles(m.query, m.files);
      return;
    case 'focus':
      if (m.text !== undefined && prompt.box.value.trim() === '') {
        prompt.set(m.text);
      }
      prompt.box.placeholder = m.placeholder ?? defaultPlaceholder;
      prompt.box.focus();
      return;
  }
});

post({ type: 'ready' });

// End-to-end test of the agentls VS Code extension in a real editor:
// code-server (VS Code in the browser) with the packaged .vsix installed,
// driven through headless Chromium with playwright-core, running the real
// agentls binary with replay models. Run it with test/e2e.sh (npm test),
// which installs and builds what this file needs and passes it here:
//
//   AGENTLS_E2E_CODE_SERVER  the code-server executable
//   AGENTLS_E2E_VSIX         the packaged extension (universal: no binary in it)
//   AGENTLS_E2E_PLATFORM_VSIX  the extension for this platform, agentls bundled
//                            (scripts/release builds it)
//   AGENTLS_E2E_BIN          the agentls binary
//   AGENTLS_E2E_ARTIFACTS    where screenshots and logs go
//   AGENTLS_E2E_CHROMIUM     the browser (default /usr/bin/chromium)

import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.join(here, 'fixture');

function required(name) {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set: run editors/vscode/test/e2e.sh (npm test), which builds and installs what this test needs`);
  }
  return v;
}

const codeServer = required('AGENTLS_E2E_CODE_SERVER');
const vsix = required('AGENTLS_E2E_VSIX');
const platformVsix = required('AGENTLS_E2E_PLATFORM_VSIX');
const agentlsBin = required('AGENTLS_E2E_BIN');
const artifacts = required('AGENTLS_E2E_ARTIFACTS');
const chromiumPath = process.env.AGENTLS_E2E_CHROMIUM || '/usr/bin/chromium';

/** How long one step (a toast, a file change, a status) may take. */
const stepTimeout = 30_000;

const notes = fs.readFileSync(path.join(fixture, 'workspace', 'notes.txt'), 'utf8');

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitFor(what, fn, timeout = stepTimeout) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) {
        return v;
      }
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeout} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Editor is one code-server + Chromium session on a fresh copy of the
 * fixture workspace, with its own HOME, settings and extensions folder.
 */
class Editor {
  /**
   * settings: user settings over the defaults (undefined removes one);
   * opts.vsix, opts.env, opts.script (a fixture), opts.userConfig
   * (agentls's config file), opts.files (copied into the workspace:
   * {to: from}), opts.trust (VS Code's Workspace Trust on, as a person has
   * it: the folder starts untrusted).
   */
  constructor(name, settings = {}, opts = {}) {
    this.name = name;
    this.overrides = settings;
    this.vsix = opts.vsix ?? vsix;
    this.scriptName = opts.script ?? 'script.json';
    this.userConfig = opts.userConfig;
    this.files = opts.files ?? {};
    this.trust = opts.trust ?? false;
    this.root = fs.mkdtempSync(path.join(os.tmpdir(), `agentls-vscode-e2e-${name}-`));
    this.out = path.join(artifacts, name);
    fs.mkdirSync(this.out, { recursive: true });
    this.workspace = path.join(this.root, 'workspace');
    this.home = path.join(this.root, 'home');
    this.dataDir = path.join(this.root, 'data');
    this.extDir = path.join(this.root, 'extensions');
    this.env = {
      ...process.env,
      HOME: this.home,
      XDG_CONFIG_HOME: path.join(this.home, '.config'),
      XDG_DATA_HOME: path.join(this.home, '.local', 'share'),
      XDG_STATE_HOME: path.join(this.home, '.local', 'state'),
      XDG_CACHE_HOME: path.join(this.home, '.cache'),
    };
    delete this.env.AGENTLS_MODEL;
    delete this.env.VSCODE_IPC_HOOK_CLI;
    // opts.env: undefined removes a variable (a key the test must not have).
    for (const [k, v] of Object.entries(opts.env ?? {})) {
      if (v === undefined) {
        delete this.env[k];
      } else {
        this.env[k] = v;
      }
    }
  }

  async start() {
    fs.cpSync(path.join(fixture, 'workspace'), this.workspace, { recursive: true });
    for (const [to, from] of Object.entries(this.files)) {
      fs.cpSync(from, path.join(this.workspace, to), { recursive: true });
    }
    // The replay script lives outside the workspace, where the agent does not see it.
    this.script = path.join(this.root, 'script.json');
    fs.copyFileSync(path.join(fixture, this.scriptName), this.script);
    fs.mkdirSync(this.home, { recursive: true });
    if (this.userConfig) {
      // ~/.config/agentls/config.json: what the extension's settings do not carry.
      fs.mkdirSync(path.join(this.home, '.config', 'agentls'), { recursive: true });
      fs.writeFileSync(path.join(this.home, '.config', 'agentls', 'config.json'), JSON.stringify(this.userConfig, null, 2));
    }

    const settings = {
      // What a person sets for agentls, in their user settings.
      'agentls.path': agentlsBin,
      'agentls.model': `replay:${this.script}`,
      'agentls.permissions.mode': 'smart',
      // The save after the agent's edit must come from the extension's
      // agentls/saveDocument handler, not from VS Code's refactoring autosave.
      'files.refactoring.autoSave': false,
      // A quiet editor.
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'workbench.enableExperiments': false,
      'telemetry.telemetryLevel': 'off',
      'update.mode': 'none',
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'extensions.ignoreRecommendations': true,
      'security.workspace.trust.enabled': this.trust,
      'git.enabled': false,
      'chat.commandCenter.enabled': false,
      // The chat is a narrow column on the right, where people keep it:
      // choices must be readable there.
      'workbench.panel.defaultLocation': 'right',
      ...this.overrides,
    };
    fs.mkdirSync(path.join(this.dataDir, 'User'), { recursive: true });
    fs.writeFileSync(path.join(this.dataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));

    this.port = await freePort();
    this.config = path.join(this.root, 'config.yaml');
    fs.writeFileSync(this.config, `bind-addr: 127.0.0.1:${this.port}\nauth: none\ncert: false\n`);
    const base = ['--config', this.config, '--user-data-dir', this.dataDir, '--extensions-dir', this.extDir];

    const { stdout } = await promisify(execFile)(codeServer, [...base, '--install-extension', this.vsix], { env: this.env, timeout: 60_000 });
    assert.match(stdout, /successfully installed/i, `installing ${this.vsix}`);

    this.log = fs.openSync(path.join(this.out, 'code-server.log'), 'w');
    // Its own process group, so that ending it ends its children (the
    // extension host and agentls) too.
    const trust = this.trust ? [] : ['--disable-workspace-trust'];
    this.proc = spawn(codeServer, [...base, '--disable-telemetry', '--disable-update-check', ...trust, '--disable-getting-started-override'], {
      env: this.env,
      detached: true,
      stdio: ['ignore', this.log, this.log],
    });
    this.exited = new Promise((resolve) => this.proc.once('exit', resolve));
    await waitFor('code-server /healthz', async () => (await fetch(`http://127.0.0.1:${this.port}/healthz`)).ok);

    this.context = await chromium.launchPersistentContext(path.join(this.root, 'chromium'), {
      executablePath: chromiumPath,
      headless: true,
      viewport: { width: 1400, height: 900 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    this.page = this.context.pages()[0] ?? (await this.context.newPage());
    this.page.setDefaultTimeout(stepTimeout);
    this.consoleErrors = [];
    this.page.on('console', (m) => {
      if (m.type() === 'error') {
        this.consoleErrors.push(m.text());
      }
    });
    await this.page.goto(`http://127.0.0.1:${this.port}/?folder=${encodeURIComponent(this.workspace)}`);
    await this.page.locator('.monaco-workbench').waitFor();
  }

  /** The extension's status bar item, found by its accessible label. */
  status(label) {
    return this.page.locator(`#workbench\\.parts\\.statusbar [aria-label="${label}"]`);
  }

  async waitStatus(label) {
    await this.status(label).first().waitFor({ state: 'visible' });
  }

  async quickInput(text) {
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible' });
    await input.fill(text);
  }

  /** Opens a workspace file with Quick Open (Ctrl+P); firstLine: text to wait for. */
  async openFile(name, firstLine) {
    await this.page.keyboard.press('Control+P');
    await this.quickInput(name);
    await this.page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
    await this.page.keyboard.press('Enter');
    await this.page.locator(`.tabs-container .tab[aria-label*="${name}"]`).first().waitFor();
    await this.page.locator('.part.editor .view-lines', { hasText: firstLine }).first().waitFor();
  }

  /** Runs a command from the command palette (F1). */
  async runCommand(title) {
    await this.page.keyboard.press('F1');
    await this.quickInput(`>${title}`);
    await this.page.locator('.quick-input-list .monaco-list-row.focused', { hasText: title }).first().waitFor();
    await this.page.keyboard.press('Enter');
  }

  /** A toast (notification). */
  toast(text) {
    return this.page.locator('.notification-toast', { hasText: text });
  }

  /**
   * The chat view's document: the webview is an iframe holding the
   * extension's page in another iframe.
   */
  chat() {
    return this.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  }

  /** The chat's entries of a kind (user, assistant, tool, ask, notice, turn-end). */
  entries(kind, text) {
    return this.chat().locator(`#log .entry.${kind}`, text === undefined ? {} : { hasText: text });
  }

  /** The open question in the chat whose message has text. */
  openAsk(text) {
    return this.chat().locator('.entry.ask.ask-open', { hasText: text });
  }

  choice(ask, title) {
    return ask.getByRole('button', { name: title, exact: true });
  }

  /**
   * Opens the chat with the keybinding (Ctrl+Alt+A) from the editor and
   * types the prompt, as a person does; Enter sends it.
   */
  async askInChat(prompt) {
    await this.page.keyboard.press('Control+Alt+A');
    const box = this.chat().locator('#prompt');
    await box.waitFor({ state: 'visible' });
    const focused = () => box.evaluate((e) => document.activeElement === e && document.hasFocus());
    try {
      await waitFor('the chat prompt to have the keyboard', focused);
    } catch (err) {
      const where = await this.page.evaluate(() => {
        const e = document.activeElement;
        return `${e?.tagName} "${e?.getAttribute('aria-label') ?? e?.className}"`;
      });
      throw new Error(`${err.message} (the keyboard is at ${where})`);
    }
    await this.page.keyboard.type(prompt);
    await this.page.keyboard.press('Enter');
  }

  /** Records, inside the webview, whether an answer was ever drawn while it streamed. */
  async watchStreaming() {
    await this.chat().locator('#log').evaluate((log) => {
      window.__streamed = [];
      new MutationObserver(() => {
        for (const e of log.querySelectorAll('.entry.assistant.streaming')) {
          window.__streamed.push(e.textContent);
        }
      }).observe(log, { childList: true, subtree: true, characterData: true });
    });
  }

  async streamed() {
    return this.chat().locator('#log').evaluate(() => window.__streamed ?? []);
  }

  /** The rendered size of every button of a question: [{text, scrollWidth, clientWidth, right, viewport}]. */
  async choiceWidths(ask) {
    return ask.locator('button.choice').evaluateAll((buttons) =>
      buttons.map((b) => ({
        text: b.textContent,
        scrollWidth: b.scrollWidth,
        clientWidth: b.clientWidth,
        scrollHeight: b.scrollHeight,
        clientHeight: b.clientHeight,
        right: Math.round(b.getBoundingClientRect().right),
        viewport: document.documentElement.clientWidth,
      })),
    );
  }

  /**
   * The whole text of an output channel: VS Code writes every output
   * channel to a file under the logs folder (the panel only draws the lines
   * in view).
   */
  channel(name) {
    const found = [];
    const walk = (dir) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) {
          walk(p);
        } else if (e.name.endsWith(`-${name}.log`)) {
          found.push(p);
        }
      }
    };
    const logs = path.join(this.dataDir, 'logs');
    if (fs.existsSync(logs)) {
      walk(logs);
    }
    return found.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
  }

  async screenshot(name) {
    await this.page.waitForTimeout(500); // let toasts finish sliding in
    await this.page.screenshot({ path: path.join(this.out, `${name}.png`) });
  }

  async stop(failed) {
    if (this.page && failed) {
      await this.screenshot('failure').catch(() => undefined);
    }
    await this.context?.close().catch(() => undefined);
    if (this.proc && this.proc.exitCode === null) {
      try {
        process.kill(-this.proc.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const killed = await Promise.race([this.exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
      if (!killed) {
        try {
          process.kill(-this.proc.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    if (this.log !== undefined) {
      fs.closeSync(this.log);
    }
    // Keep the logs a person needs to see what happened.
    const keep = [
      [path.join(this.home, '.local', 'state', 'agentls', 'agentls.log'), 'agentls.log'],
    ];
    for (const [from, to] of keep) {
      if (fs.existsSync(from)) {
        fs.copyFileSync(from, path.join(this.out, to));
      }
    }
    const logs = path.join(this.dataDir, 'logs');
    if (fs.existsSync(logs)) {
      fs.cpSync(logs, path.join(this.out, 'vscode-logs'), { recursive: true });
    }
    if (this.consoleErrors?.length) {
      fs.writeFileSync(path.join(this.out, 'browser-console-errors.txt'), this.consoleErrors.join('\n'));
    }
    if (failed) {
      console.error(`# kept ${this.root} for inspection; artifacts in ${this.out}`);
    } else {
      fs.rmSync(this.root, { recursive: true, force: true });
    }
  }
}

async function withEditor(name, fn, settings, opts) {
  const ed = new Editor(name, settings, opts);
  let failed = true;
  try {
    await ed.start();
    await fn(ed);
    failed = false;
  } finally {
    await ed.stop(failed);
  }
}

const prompt = 'Please create hello.txt';
const hello = (ed) => path.join(ed.workspace, 'hello.txt');

/** Every choice shows its whole label: nothing scrolls inside a button, and no button runs past the view. */
function assertNotCut(widths) {
  assert.ok(widths.length > 0, 'the question has buttons');
  for (const w of widths) {
    assert.ok(w.scrollWidth <= w.clientWidth, `"${w.text}" is cut: scrollWidth ${w.scrollWidth} > clientWidth ${w.clientWidth}`);
    assert.ok(w.scrollHeight <= w.clientHeight + 1, `"${w.text}" is cut vertically: ${w.scrollHeight} > ${w.clientHeight}`);
    assert.ok(w.right <= w.viewport, `"${w.text}" runs past the chat: right ${w.right} > ${w.viewport}`);
  }
}

test('Chat: a streamed answer, the ask inline with full labels, tool output and exit codes, kept across a reload', { timeout: 180_000 }, async () => {
  await withEditor('chat', async (ed) => {
    await ed.waitStatus('agentls: idle');
    await ed.openFile('greeting.txt', 'Hello, world!');
    // Select the first line: it goes with the prompt as context.
    await ed.page.keyboard.press('Control+Home');
    await ed.page.keyboard.press('Shift+End');
    await ed.askInChat('');
    await ed.chat().locator('#context-label', { hasText: 'with greeting.txt:1' }).waitFor();
    await ed.watchStreaming();
    await ed.page.keyboard.type(prompt);
    await ed.page.keyboard.press('Enter');

    // The command is asked inline, in the chat, with every choice in full.
    const ask = ed.openAsk('wants to run');
    await ask.waitFor({ state: 'visible' });
    assert.match(await ask.innerText(), /touch hello\.txt/);
    // The quoted command is drawn as code, not with its backticks.
    await ask.locator('.ask-message code', { hasText: 'touch hello.txt' }).waitFor();
    assert.doesNotMatch(await ask.locator('.ask-message').innerText(), /`/);
    await ed.choice(ask, 'Allow').waitFor();
    await ed.choice(ask, 'Deny').waitFor();
    const widths = await ed.choiceWidths(ask);
    console.log(`# inline ask, chat ${widths[0].viewport} px wide: ${widths.map((w) => `"${w.text}" ${w.scrollWidth}/${w.clientWidth} px`).join(', ')}`);
    assertNotCut(widths);
    assert.deepEqual(widths.map((w) => w.text), ['Allow', 'Allow "touch" this session', 'Always allow', 'Deny']);
    await ed.waitStatus('agentls: waiting for you');
    await ed.screenshot('1-inline-ask');

    await ed.choice(ask, 'Allow').click();

    // The answer streams in and is drawn as markdown.
    const answer = ed.entries('assistant', 'is there now');
    await answer.waitFor();
    await answer.locator('strong', { hasText: 'hello.txt' }).waitFor();
    assert.equal(await answer.locator('li').count(), 3);
    await ed.entries('turn-end', 'done').waitFor();
    const streamed = await ed.streamed();
    assert.ok(streamed.length > 0, 'an answer was drawn while it streamed');
    assert.equal(fs.existsSync(hello(ed)), true);
    await ed.waitStatus('agentls: idle');

    // Tool calls: the ask closed with its answer; each call has its whole output and exit code; a failure is marked.
    await ed.chat().locator('.entry.ask.ask-answered', { hasText: 'Allow' }).waitFor();
    const view = ed.entries('tool', 'view greeting.txt');
    assert.match(await view.getAttribute('class'), /status-ok/);
    const cat = ed.entries('tool', 'cat missing.txt');
    assert.match(await cat.getAttribute('class'), /status-failed/);
    assert.equal(await cat.locator('.badge', { hasText: 'exit 1' }).count(), 1);
    await cat.locator('summary').click();
    await cat.locator('pre.output', { hasText: 'missing.txt' }).waitFor();
    const touch = ed.entries('tool', 'touch hello.txt');
    assert.equal(await touch.locator('.badge', { hasText: 'exit 0' }).count(), 1);
    await ed.screenshot('2-streamed-answer');

    // A window reload keeps the chat.
    await ed.page.reload();
    await ed.page.locator('.monaco-workbench').waitFor();
    await ed.waitStatus('agentls: idle');
    await ed.runCommand('agentls: Show Chat');
    await ed.entries('user', prompt).waitFor();
    await ed.entries('assistant', 'is there now').waitFor();
    await ed.entries('tool', 'cat missing.txt').waitFor();
    await ed.screenshot('3-after-reload');

    // The prompt: Up brings back the last prompt (kept across the reload), @ offers workspace
    // files, Shift+Enter breaks the line without sending.
    const box = ed.chat().locator('#prompt');
    await box.click();
    await ed.page.keyboard.press('ArrowUp');
    await waitFor('Up to bring back the last prompt', async () => (await box.inputValue()) === prompt);
    // Typed into the box itself (pressSequentially focuses it first): on a loaded machine the
    // first keys after the reload's restore could miss it.
    await box.fill('');
    await box.pressSequentially('Look at @greet');
    await waitFor('the typed prompt in the box', async () => (await box.inputValue()) === 'Look at @greet');
    await ed.chat().locator('#mentions .mention', { hasText: 'greeting.txt' }).waitFor();
    await ed.screenshot('4-file-mention');
    await ed.page.keyboard.press('Tab');
    await ed.page.keyboard.press('Shift+Enter');
    await ed.page.keyboard.type('and say hi');
    assert.equal(await box.inputValue(), 'Look at @greeting.txt \nand say hi');
    assert.equal(await ed.entries('user').count(), 1);
    await ed.page.keyboard.press('Control+A');
    await ed.page.keyboard.press('Delete');

    // After the reload (a new agentls process, whose ids start again), a
    // new ask comes at the bottom of the chat with its buttons, and the
    // old card keeps its answer.
    assert.equal(await ed.chat().locator('.entry.ask').count(), 1);
    const oldAsk = ed.chat().locator('.entry.ask').first();
    assert.match(await oldAsk.getAttribute('class'), /ask-answered/);
    const oldText = await oldAsk.innerText();
    await box.fill('Once more, please');
    await box.press('Enter');
    const again = ed.openAsk('wants to run');
    await again.waitFor({ state: 'visible' });
    await ed.choice(again, 'Allow').waitFor();
    await ed.choice(again, 'Deny').waitFor();
    await ed.waitStatus('agentls: waiting for you');
    assert.equal(await ed.chat().locator('.entry.ask').count(), 2, 'the new ask has a card of its own');
    assert.ok(
      await ed.chat().locator('#log .entry').last().evaluate((e) => e.classList.contains('ask-open')),
      'the new ask is the last entry of the chat',
    );
    assert.equal(await oldAsk.innerText(), oldText, 'the old card changed');
    await ed.screenshot('5-ask-after-reload');
    await ed.choice(again, 'Deny').click();
    await ed.entries('turn-end').nth(1).waitFor();
    assert.equal(await oldAsk.innerText(), oldText, 'the old card changed');
  });
});

test('The agent\'s question answered in the chat; the QuickPick answers too: Deny ends the turn, nothing runs', { timeout: 180_000 }, async () => {
  await withEditor('deny', async (ed) => {
    await ed.waitStatus('agentls: idle');
    await ed.askInChat(prompt);
    // The question tool: its options inline, with free text beside them.
    const question = ed.openAsk('Create hello.txt in the workspace root?');
    await question.waitFor();
    assertNotCut(await ed.choiceWidths(question));
    await question.locator('textarea').waitFor();
    await ed.choice(question, 'Yes, create it').click();
    await ed.chat().locator('.entry.ask.ask-answered', { hasText: 'Yes, create it' }).waitFor();

    await ed.openAsk('wants to run').waitFor();
    await ed.waitStatus('agentls: waiting for you');
    // The status bar item opens the QuickPick with the same choices.
    await ed.status('agentls: waiting for you').first().click();
    const row = ed.page.locator('.quick-input-list .monaco-list-row', { hasText: /^Deny$/ });
    await row.waitFor();
    await ed.screenshot('1-quickpick');
    await row.click();
    await ed.entries('turn-end', 'permission denied').waitFor();
    await ed.chat().locator('.entry.ask.ask-answered', { hasText: 'Deny' }).waitFor();
    await ed.waitStatus('agentls: idle');
    await ed.screenshot('2-after-deny');
    assert.equal(fs.existsSync(hello(ed)), false);
  }, {}, { script: 'question.json' });
});

test('Cancel while the agent waits for you: the question closes, the turn ends, nothing runs', { timeout: 180_000 }, async () => {
  await withEditor('cancel', async (ed) => {
    await ed.waitStatus('agentls: idle');
    await ed.askInChat(prompt);
    await ed.openAsk('wants to run').waitFor();
    await ed.chat().locator('#cancel').click();
    await ed.entries('turn-end', 'cancelled').waitFor();
    await waitFor('the question to close', async () => (await ed.chat().locator('.entry.ask.ask-open').count()) === 0);
    await ed.waitStatus('agentls: idle');
    await ed.screenshot('1-after-cancel');
    assert.equal(fs.existsSync(hello(ed)), false);
  });
});

test('Review in the diff editor: one hunk of two accepted, the model told the other was rejected; Revert undoes the turn', { timeout: 180_000 }, async () => {
  await withEditor(
    'review',
    async (ed) => {
      await ed.waitStatus('agentls: idle');
      await ed.openFile('notes.txt', 'alpha: first line');
      // Select the first line and ask about it from the editor's context menu: the question is the person's.
      await ed.page.keyboard.press('Control+Home');
      await ed.page.keyboard.press('Shift+End');
      await ed.page.locator('.part.editor .view-line', { hasText: 'alpha: first line' }).first().click({ button: 'right' });
      // Monaco's menu can miss a click that comes before the pointer moved over it: hover first;
      // Enter (the item has the focus) only when the menu is still open a while after the click.
      const item = ed.page.locator('.context-view .action-label', { hasText: 'Ask About Selection' });
      await item.hover();
      await item.click();
      const closed = await item.waitFor({ state: 'hidden', timeout: 3000 }).then(() => true, () => false);
      if (!closed) {
        await ed.page.keyboard.press('Enter');
      }
      const box = ed.chat().locator('#prompt');
      await waitFor('the chat prompt to ask about the selection', async () => (await box.getAttribute('placeholder')) === 'Ask about notes.txt:1…' && box.evaluate((e) => document.activeElement === e));
      await ed.chat().locator('#context-label', { hasText: 'with notes.txt:1' }).waitFor();
      await ed.page.keyboard.type('Tidy notes.txt');
      await ed.page.keyboard.press('Enter');

      // The diff editor: current text left, proposal right, a lens per hunk.
      await ed.page.locator('.tabs-container .tab', { hasText: "agentls's change (2 hunks)" }).waitFor();
      const diff = ed.page.locator('.monaco-diff-editor');
      await diff.locator('.editor.modified .view-lines', { hasText: 'ALPHA: the first line' }).waitFor();
      const lens = (text) => diff.locator('.editor.modified .codelens-decoration', { hasText: text });
      await lens('Accept hunk 1 of 2').waitFor();
      await lens('Accept hunk 2 of 2').waitFor();
      await lens('Accept all 2').waitFor();
      await ed.openAsk('notes.txt').waitFor();
      await ed.screenshot('1-review-diff-editor');

      await lens('Accept hunk 1 of 2').locator('a', { hasText: 'Accept hunk 1 of 2' }).click();
      await lens('Accepted hunk 1 of 2').waitFor();
      await ed.screenshot('2-one-hunk-accepted');
      await lens('Accept hunk 2 of 2').locator('a', { hasText: /^Reject$/ }).click();

      // Only hunk 1 lands; the review closes; the model's result says hunk 2 was rejected.
      const want = notes.replace('alpha: first line', 'ALPHA: the first line');
      await waitFor('notes.txt to hold hunk 1 only', () => fs.readFileSync(path.join(ed.workspace, 'notes.txt'), 'utf8') === want);
      await waitFor('the review tab to close', async () => (await ed.page.locator('.tabs-container .tab', { hasText: "agentls's change" }).count()) === 0);
      await ed.chat().locator('.entry.ask.ask-answered', { hasText: 'accepted hunk 1 of 2' }).waitFor();
      const tool = ed.entries('tool', 'notes.txt').filter({ hasText: 'multiedit' });
      await tool.locator('summary').first().click();
      await tool.locator('pre.output', { hasText: /rejected/ }).waitFor();
      assert.match(await tool.locator('pre.output').innerText(), /hunk\(s\) 1 of 2/);
      await ed.entries('turn-end', 'done').waitFor();
      await ed.screenshot('3-after-review');

      // A window reload (a new agentls process) keeps Revert.
      await ed.page.reload();
      await ed.page.locator('.monaco-workbench').waitFor();
      await ed.waitStatus('agentls: idle');
      await ed.runCommand('agentls: Show Chat');

      // Revert, next to the status: it asks first, naming the file (no
      // internal ids); Cancel changes nothing, Revert undoes the whole turn.
      const dialog = ed.page.locator('.monaco-dialog-box');
      await ed.status('agentls: revert the last turn').first().click();
      await dialog.filter({ hasText: "Revert the last turn's changes?" }).filter({ hasText: 'notes.txt' }).waitFor();
      await ed.screenshot('4-revert-confirmation');
      assert.doesNotMatch(await dialog.innerText(), /-t\d|turn [0-9a-f]{6,}/, 'the confirmation shows no internal ids');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      assert.equal(fs.readFileSync(path.join(ed.workspace, 'notes.txt'), 'utf8'), want, 'Cancel left the change');
      await ed.status('agentls: revert the last turn').first().click();
      await dialog.getByRole('button', { name: 'Revert' }).click();
      await waitFor('notes.txt to be restored', () => fs.readFileSync(path.join(ed.workspace, 'notes.txt'), 'utf8') === notes);
      const notice = ed.entries('notice', "Reverted the last turn's changes");
      await notice.waitFor();
      assert.doesNotMatch(await notice.innerText(), /-t\d/, 'the notice shows no internal ids');
    },
    {},
    { script: 'review.json' },
  );
});

test('Restore to here puts an unsaved buffer back through the editor: Ctrl+Z takes the restore back, the disk is never written; the timeline undoes a restore; a newer edit is kept and opened as a diff; a restore of the conversation takes the forgotten turn out of the chat, its prompt back in the box, and its undo shows it again', { timeout: 180_000 }, async () => {
  await withEditor(
    'checkpoint',
    async (ed) => {
      const file = path.join(ed.workspace, 'notes.txt');
      const mtime = fs.statSync(file).mtimeMs;
      const disk = () => fs.readFileSync(file, 'utf8');
      // The editor's text (Monaco draws spaces as no-break spaces).
      const lines = ed.page.locator('.part.editor .editor-instance .view-lines').first();
      const text = async () => (await lines.innerText()).replace(/\u00a0/g, ' ');
      const shows = (what, want) => waitFor(what, async () => want(await text()));

      await ed.waitStatus('agentls: idle');
      await ed.openFile('notes.txt', 'alpha: first line');
      // The person's own change, not saved.
      await ed.page.locator('.part.editor .view-line', { hasText: 'line 2' }).first().click();
      await ed.page.keyboard.press('End');
      await ed.page.keyboard.type(' (mine)');
      await ed.page.locator('.tabs-container .tab.dirty', { hasText: 'notes.txt' }).waitFor();

      await ed.askInChat('Capitalise the first line of notes.txt');
      await ed.entries('turn-end', 'done').waitFor();
      await shows("the agent's edit in the buffer, beside the person's", (t) => t.includes('ALPHA: the first line') && t.includes('line 2 (mine)'));
      assert.equal(disk(), notes, 'the agent wrote the disk of a buffer with unsaved changes');

      // The step's Restore to here: files, through the editor.
      const step = ed.entries('tool', 'edit notes.txt');
      const restore = step.getByRole('button', { name: 'Restore to here' });
      await restore.waitFor();
      assert.equal(await ed.entries('tool', 'view notes.txt').getByRole('button', { name: 'Restore to here' }).count(), 0, 'a view has no checkpoint');
      await ed.screenshot('1-restore-to-here');
      await restore.click();
      const rows = ed.page.locator('.quick-input-list .monaco-list-row');
      await rows.filter({ hasText: 'Files and conversation' }).waitFor();
      await ed.screenshot('2-restore-what');
      await rows.filter({ hasText: 'Put the files back to before this step' }).click();
      await ed.entries('notice', 'Restored to checkpoint').filter({ hasText: 'put back notes.txt' }).waitFor();
      await shows('the buffer before the edit, the unsaved change kept', (t) => t.includes('alpha: first line') && !t.includes('ALPHA') && t.includes('line 2 (mine)'));
      assert.equal(await step.getAttribute('open'), null, 'Restore to here opened the step');
      await ed.page.locator('.tabs-container .tab.dirty', { hasText: 'notes.txt' }).waitFor();
      await ed.screenshot('3-restored');

      // Ctrl+Z in the editor takes the restore back.
      await ed.page.locator('.part.editor .view-line', { hasText: 'line 5' }).first().click();
      await ed.page.keyboard.press('Control+Z');
      await shows('Ctrl+Z to bring back the text before the restore', (t) => t.includes('ALPHA: the first line') && t.includes('line 2 (mine)'));
      await ed.page.keyboard.press('Control+Y');
      await shows('Ctrl+Y to redo the restore', (t) => t.includes('alpha: first line') && t.includes('line 2 (mine)'));

      // The timeline: undo the last restore.
      await ed.runCommand('agentls: Checkpoints…');
      await rows.filter({ hasText: 'restore to checkpoint' }).waitFor();
      await rows.filter({ hasText: 'edit notes.txt' }).waitFor();
      await ed.screenshot('4-timeline');
      await rows.filter({ hasText: 'Undo the last restore' }).click();
      await ed.entries('notice', 'Undid the last restore').waitFor();
      await shows('the undo of the restore', (t) => t.includes('ALPHA: the first line') && t.includes('line 2 (mine)'));

      // The person changes the agent's line: a restore keeps it, says so, and opens the two versions as a diff.
      await ed.page.locator('.part.editor .view-line', { hasText: 'ALPHA: the first line' }).first().click();
      await ed.page.keyboard.press('End');
      await ed.page.keyboard.type(' (edited)');
      await shows("the person's edit", (t) => t.includes('ALPHA: the first line (edited)'));
      await restore.click();
      await rows.filter({ hasText: 'Put the files back to before this step' }).click();
      const conflict = ed.entries('notice', 'kept your version of notes.txt');
      await conflict.waitFor();
      assert.match(await conflict.getAttribute('class'), /warning/);
      await ed.page.locator('.tabs-container .tab', { hasText: 'notes.txt: checkpoint 1 ↔ yours (kept)' }).waitFor();
      const diff = ed.page.locator('.monaco-diff-editor').first();
      await diff.locator('.editor.original .view-lines', { hasText: 'alpha: first line' }).waitFor();
      await diff.locator('.editor.modified .view-lines', { hasText: 'ALPHA: the first line (edited)' }).waitFor();
      await ed.screenshot('5-conflict-diff');
      // The chat says each restore once, in its own words (not the server's message too).
      assert.equal(await ed.entries('notice', 'agentls: restored to checkpoint').count(), 0, "the server's message repeated in the chat");
      assert.equal(await ed.entries('notice', 'Restored to checkpoint 1').count(), 2);

      assert.equal(disk(), notes, 'the disk was written behind the editor');
      assert.equal(fs.statSync(file).mtimeMs, mtime, 'notes.txt was touched');

      // The conversation: back to before the turn's prompt. The chat shows
      // what the model sees: the turn leaves the view, its prompt goes back
      // in the box, and undoing the restore shows the turn again.
      const said = ed.entries('user', 'Capitalise the first line of notes.txt');
      const turnEntries = ed.chat().locator('#log .entry:not(.notice):visible');
      const shown = await turnEntries.count();
      assert.ok(shown >= 4, `the turn shows (prompt, steps, answer, end): ${shown} entries`);
      await ed.page.keyboard.press('Escape');
      await restore.click();
      await rows.filter({ hasText: "The agent forgets this step's prompt" }).click();
      const forgot = ed.entries('notice', 'the conversation is back to 0 messages');
      await forgot.waitFor();
      assert.match(await forgot.innerText(), /no longer shows the 1 turn the agent forgot; the prompt is back in the box/);
      await said.waitFor({ state: 'hidden' });
      await step.waitFor({ state: 'hidden' });
      assert.equal(await turnEntries.count(), 0, 'an entry of the forgotten turn is still shown');
      assert.ok((await ed.entries('notice', 'Restored to checkpoint 1').filter({ hasText: 'put back notes.txt' }).count()) > 0, "the restores' reports stay");
      await waitFor('the prompt back in the box', async () => (await ed.chat().locator('#prompt').inputValue()) === 'Capitalise the first line of notes.txt');
      await ed.screenshot('6-conversation-restored');
      await ed.chat().locator('#prompt').fill('');
      await ed.runCommand('agentls: Undo the Last Restore');
      await ed.entries('notice', 'Undid the last restore').filter({ hasText: 'shows again the 1 turn' }).waitFor();
      await said.waitFor();
      await step.waitFor();
      assert.equal(await turnEntries.count(), shown, 'the undo brought back every entry of the turn');
      assert.equal(disk(), notes, 'a restore of the conversation wrote a file');
    },
    // code-server saves after a delay by default: off, so the buffer keeps its unsaved change.
    { 'agentls.permissions.mode': 'auto', 'files.autoSave': 'off' },
    { script: 'checkpoint.json' },
  );
});

test('agentls.model set in the user settings of a running code-server window applies without a reload; the prompt is kept', { timeout: 180_000 }, async () => {
  await withEditor(
    'settings',
    async (ed) => {
      // No model anywhere: the status says so before any prompt, and the
      // activity bar's agentls entry leads to setting one.
      await ed.waitStatus('agentls: no model');
      await ed.page.locator('.activitybar .action-item a[aria-label^="agentls"]').first().click();
      const welcome = ed.page.locator('.welcome-view-content', { hasText: 'No model is set yet' });
      await welcome.waitFor();
      await welcome.getByRole('button', { name: 'Choose a Model' }).waitFor();
      await ed.screenshot('0-get-started');
      const question = 'Who answers?';
      await ed.askInChat(question);
      // The error names the VS Code setting, and the prompt stays.
      const err = ed.entries('notice', 'agentls.model');
      await err.waitFor();
      assert.equal(await ed.chat().locator('#prompt').inputValue(), question);
      await ed.screenshot('1-no-model');

      // Open Settings: the user settings, where agentls.model applies in this (remote) window.
      await err.getByRole('button', { name: 'Open Settings (agentls.model)' }).click();
      const editor = ed.page.locator('.settings-editor');
      const item = editor.locator('.setting-item-contents', { hasText: 'Agentls: Model' });
      await item.waitFor();
      const tab = await editor.locator('.settings-tabs-widget .checked').innerText();
      assert.match(tab, /^User/, 'the User tab is chosen');
      assert.doesNotMatch(await item.innerText(), /cannot be applied|can only be applied|not applied/i);
      const input = item.locator('input').first();
      await input.fill(`replay:${ed.script}`);
      await input.press('Tab');
      await waitFor('the user settings file to hold agentls.model', () => fs.readFileSync(path.join(ed.dataDir, 'User', 'settings.json'), 'utf8').includes(ed.script));
      await ed.screenshot('2-settings-user-tab');

      // The server restarts with it; the kept prompt goes as it is.
      await ed.entries('notice', 'Settings changed').waitFor();
      await ed.waitStatus('agentls: idle');
      const box = ed.chat().locator('#prompt');
      await ed.chat().getByRole('button', { name: 'Send', exact: true }).click();
      await ed.entries('assistant', 'Hello from the replay model').locator('li', { hasText: 'no window reload' }).waitFor();
      await waitFor('the sent prompt to leave the box', async () => (await box.inputValue()) === '');
      await ed.screenshot('3-answer-after-settings');

      // The session is stored: Resume Session… lists it, as the one shown.
      await ed.page.locator('.action-label[aria-label^="Resume Session"]').first().click();
      await ed.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Who answers?' }).filter({ hasText: 'shown now' }).waitFor();
      await ed.screenshot('4-sessions');
      await ed.page.keyboard.press('Escape');

      // New Chat empties the chat; resuming the session brings its transcript back.
      await ed.page.locator('.action-label[aria-label^="New Chat"]').first().click();
      await waitFor('the new chat to be empty', async () => (await ed.entries('assistant').count()) === 0);
      await ed.waitStatus('agentls: idle');
      await ed.page.locator('.action-label[aria-label^="Resume Session"]').first().click();
      await ed.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Who answers?' }).click();
      await ed.entries('notice', 'Resumed this session').waitFor();
      await ed.entries('assistant', 'Hello from the replay model').waitFor();
      await ed.screenshot('5-resumed');

      // A quick send — Enter at once after typing, the draft's save still
      // pending — then Resume Session again: the sent prompt never comes
      // back into the box.
      const answers = await ed.entries('assistant').count();
      await box.click();
      await ed.page.keyboard.type('one more');
      await ed.page.keyboard.press('Enter');
      await waitFor('the answer to the quick send', async () => (await ed.entries('assistant').count()) > answers);
      await ed.page.locator('.action-label[aria-label^="Resume Session"]').first().click();
      await ed.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Who answers?' }).click();
      await ed.page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
      await new Promise((r) => setTimeout(r, 1500)); // past every draft timer and the chat's reset
      assert.equal(await box.inputValue(), '', 'the sent prompt came back into the box');
      await ed.screenshot('6-resumed-after-quick-send');
    },
    { 'agentls.model': undefined },
    { script: 'answer.json' },
  );
});

/** The trust tests' TypeScript project (internal/langserver/client/testdata/tsmarker): its own tsserver writes tsserver-ran when it runs. */
const tsmarker = path.join(here, '..', '..', '..', 'internal', 'langserver', 'client', 'testdata', 'tsmarker');

test('Workspace Trust on: the untrusted folder opens in Restricted Mode, where an ask offers no Always allow and says why; trusting the folder is the one trust question, and its language server then runs in its full form', { timeout: 240_000 }, async () => {
  // The language server agentls starts for hello.ts, and the global
  // TypeScript the project's own hands over to (scripts/test installs both).
  await promisify(execFile)('typescript-language-server', ['--version']).catch((err) => {
    throw new Error(`typescript-language-server is needed (npm install -g typescript-language-server typescript): ${err.message}`);
  });
  await withEditor(
    'trust',
    async (ed) => {
      const marker = path.join(ed.workspace, 'tsserver-ran');
      // VS Code's own question, once, as the folder opens: not trusted.
      const dialog = ed.page.locator('.monaco-dialog-box', { hasText: 'trust the authors' });
      await dialog.waitFor();
      await ed.screenshot('0-trust-dialog');
      await dialog.getByRole('button', { name: /No, I don.t trust the authors/ }).click();
      await dialog.waitFor({ state: 'detached' });
      await ed.page.locator('#workbench\\.parts\\.statusbar', { hasText: 'Restricted Mode' }).waitFor();
      await ed.waitStatus('agentls: idle');

      // The project's TypeScript file: agentls starts its language server
      // in the safe form (the global TypeScript), asking nothing.
      await ed.openFile('hello.ts', 'export function hello');

      // The agent's command is asked with Allow (once, or this session) and
      // Deny; Always allow is not offered, and the card says why.
      await ed.askInChat(prompt);
      const ask = ed.openAsk('wants to run');
      await ask.waitFor({ state: 'visible' });
      const titles = (await ed.choiceWidths(ask)).map((w) => w.text);
      assert.deepEqual(titles, ['Allow', 'Allow "touch" this session', 'Deny'], `the Restricted Mode ask offers ${JSON.stringify(titles)}`);
      assert.match(await ask.innerText(), /not offered: Always allow — the editor keeps this folder in Restricted Mode/);
      await ed.screenshot('1-restricted-ask');
      await ed.choice(ask, 'Allow').click();
      await ed.entries('turn-end', 'done').waitFor();
      assert.equal(fs.existsSync(hello(ed)), true, 'the allowed command did not run');
      assert.equal(fs.existsSync(marker), false, "the workspace's own TypeScript ran in Restricted Mode");

      // Trusting the folder in VS Code restarts agentls, which takes VS
      // Code's answer as its own: the workspace's TypeScript runs (its
      // full form) with no second question from agentls.
      await ed.runCommand('Workspaces: Manage Workspace Trust');
      const trustEditor = ed.page.locator('.workspace-trust-editor');
      await trustEditor.waitFor();
      await trustEditor.getByRole('button', { name: 'Trust', exact: true }).first().click();
      await ed.entries('notice', 'Workspace trusted').waitFor();
      await ed.page.locator('#workbench\\.parts\\.statusbar', { hasText: 'Restricted Mode' }).waitFor({ state: 'detached' });
      // The restarted server runs (VS Code also reported agentls's
      // settings changed, as the workspace's values began to apply: a
      // second restart at once left it stopped, "couldn't create
      // connection to server").
      await ed.waitStatus('agentls: idle');
      await new Promise((r) => setTimeout(r, 2000));
      await ed.waitStatus('agentls: idle');
      assert.equal(await ed.toast("couldn't create connection").count(), 0, 'the restart after the grant failed');
      // Only the workspace's values (which agentls ignores) began to apply:
      // no "Settings changed" card.
      assert.equal(await ed.entries('notice', 'Settings changed').count(), 0, 'a spurious "Settings changed" card after the grant');
      // hello.ts is still open: the restarted server gets it again and
      // starts its language server, in its full form now.
      await waitFor("the workspace's own TypeScript to run once the folder is trusted", () => fs.existsSync(marker), 60_000);
      await ed.screenshot('2-trusted');
      await new Promise((r) => setTimeout(r, 2000)); // a question would come as the server starts
      assert.equal(await ed.entries('ask', 'starts code from this repository').count(), 0, 'agentls asked its own trust question in the chat');
      assert.equal(await ed.toast('starts code from this repository').count(), 0, 'agentls asked its own trust question in a notification');
      assert.equal(await ed.page.locator('.monaco-dialog-box').count(), 0, 'a second trust dialog is open');
      assert.ok(!ed.channel('agentls').includes('starts code from this repository'), 'agentls asked its own trust question');
    },
    {},
    {
      trust: true,
      files: {
        'hello.ts': path.join(tsmarker, 'project', 'hello.ts'),
        'use.ts': path.join(tsmarker, 'project', 'use.ts'),
        'tsconfig.json': path.join(tsmarker, 'project', 'tsconfig.json'),
        node_modules: path.join(tsmarker, 'modules'),
      },
    },
  );
});

/**
 * A local OpenAI-compatible model server on loopback, as llama.cpp or vLLM
 * serve one: chat completions, streamed (server-sent events) or not. It
 * answers every request with text and records the requests' bodies.
 */
async function localModelServer(text) {
  const requests = [];
  let flaked = false;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no ${req.method} ${req.url} here`, type: 'not_found' } }));
        return;
      }
      const r = JSON.parse(body);
      requests.push({ url: req.url, auth: req.headers.authorization, body: r });
      // The first prompt saying FLAKY fails as a real server's bad request
      // does (not retried by the client): the chat's Retry sends it again.
      if (JSON.stringify(r.messages).includes('FLAKY') && !flaked) {
        flaked = true;
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'the server is warming up', type: 'invalid_request_error', code: null, param: null } }));
        return;
      }
      const base = { id: `chatcmpl-${requests.length}`, created: 0, model: r.model };
      const usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };
      if (!r.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (choices, extra = {}) => res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, ...extra })}\n\n`);
      chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
      for (const word of text.split(/(?<= )/)) {
        chunk([{ index: 0, delta: { content: word }, finish_reason: null }]);
      }
      chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]);
      chunk([], { usage });
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, requests, close: () => server.close() };
}

test('A local OpenAI-compatible server set up in Settings answers; a model without a provider (gpt-4o) or without its key (openai:gpt-4.1) is refused before anything runs; a permission mode that is none of the modes is an error', { timeout: 180_000 }, async () => {
  const local = await localModelServer('Hello from the local server.');
  try {
    await withEditor(
      'local-server',
      async (ed) => {
        await ed.waitStatus('agentls: idle');
        await ed.askInChat('Who answers?');
        await ed.entries('assistant', 'Hello from the local server.').waitFor();
        assert.ok(local.requests.length >= 1, 'the local server got the prompt');
        assert.equal(local.requests[0].body.model, 'qwen3-coder');
        assert.equal(local.requests[0].auth, undefined, 'no key is sent to a server configured without one');
        assert.ok(JSON.stringify(local.requests[0].body.messages).includes('Who answers?'));
        await ed.screenshot('1-local-server-answer');

        // agentls.model changed in the Settings editor to a name without a
        // provider: the next prompt is refused and names the setting;
        // nothing reaches any model.
        await ed.runCommand('Preferences: Open User Settings');
        const editor = ed.page.locator('.settings-editor');
        await editor.waitFor();
        await ed.page.keyboard.type('agentls.model');
        const item = editor.locator('.setting-item-contents', { hasText: 'Agentls: Model' });
        await item.waitFor();
        const input = item.locator('input').first();
        await input.fill('gpt-4o');
        await input.press('Tab');
        await waitFor('the user settings file to hold gpt-4o', () => fs.readFileSync(path.join(ed.dataDir, 'User', 'settings.json'), 'utf8').includes('"gpt-4o"'));
        // Not announced as applied: an error that names the setting, with
        // Open Settings.
        const bad = ed.entries('notice', 'is not of the form provider:model');
        await bad.waitFor();
        assert.match(await bad.innerText(), /agentls\.model setting "gpt-4o"/);
        await bad.getByRole('button', { name: 'Open Settings (agentls.model)' }).waitFor();
        assert.equal(await ed.entries('notice', 'the next prompt uses the model gpt-4o').count(), 0, 'gpt-4o was announced as applied');
        const before = local.requests.length;
        const answers = await ed.entries('assistant').count();
        // Done with the setting, the person closes the Settings editor
        // (with the mouse) and asks again with the keybinding. Not
        // straight from the Settings editor: after Tab out of a setting
        // the keyboard is on its "More Actions" button, whose hover eats
        // the next keystroke and takes the focus back whenever it leaves
        // (code-server 4.100's Settings editor), so neither Ctrl+Alt+A
        // nor a click into the chat gets the keyboard there.
        await ed.page.locator('.tabs-container .tab', { hasText: 'Settings' }).locator('.action-label.codicon-close').click();
        await editor.waitFor({ state: 'detached' });
        await ed.askInChat('And now?');
        const refused = ed.entries('notice', 'prompt was not sent');
        await refused.waitFor();
        assert.match(await refused.innerText(), /gpt-4o/);
        assert.equal(await ed.chat().locator('#prompt').inputValue(), 'And now?', 'the refused prompt stays in the box');
        await new Promise((r) => setTimeout(r, 1000));
        assert.equal(local.requests.length, before, 'a refused prompt reached the model');
        assert.equal(await ed.entries('assistant').count(), answers, 'something answered the refused prompt');
        await ed.screenshot('2-gpt-4o-refused');

        // openai:gpt-4.1 with no OPENAI_API_KEY in agentls's environment
        // (issue 27: announced as applied, then the previous model
        // answered): an error that names the variable, not "Settings
        // changed"; the next prompt is refused in the same words and
        // reaches no model.
        const box = ed.chat().locator('#prompt');
        await ed.runCommand('Preferences: Open User Settings');
        await editor.waitFor();
        await ed.page.keyboard.type('agentls.model');
        await item.waitFor();
        await input.fill('openai:gpt-4.1');
        await input.press('Tab');
        await waitFor('the user settings file to hold openai:gpt-4.1', () => fs.readFileSync(path.join(ed.dataDir, 'User', 'settings.json'), 'utf8').includes('"openai:gpt-4.1"'));
        const noKey = ed.entries('notice', 'OPENAI_API_KEY');
        await noKey.waitFor();
        assert.ok((await noKey.getAttribute('class')).includes('error'), `the missing key is not an error: ${await noKey.getAttribute('class')}`);
        assert.equal(await ed.entries('notice', 'the next prompt uses the model openai:gpt-4.1').count(), 0, 'openai:gpt-4.1 without its key was announced as applied');
        await ed.page.locator('.tabs-container .tab', { hasText: 'Settings' }).locator('.action-label.codicon-close').click();
        await editor.waitFor({ state: 'detached' });
        await box.fill('');
        const errors = await ed.entries('notice', 'OPENAI_API_KEY').count();
        await ed.askInChat('Is the key there?');
        await waitFor('the refusal naming OPENAI_API_KEY', async () => (await ed.entries('notice', 'OPENAI_API_KEY').count()) > errors);
        assert.equal(await box.inputValue(), 'Is the key there?', 'the refused prompt stays in the box');
        await new Promise((r) => setTimeout(r, 1000));
        assert.equal(local.requests.length, before, 'a prompt without the model\'s key reached a model');
        assert.equal(await ed.entries('assistant').count(), answers, 'something answered the prompt without the model\'s key');
        await ed.screenshot('3-no-key-refused');

        // An agentls.permissions.mode that is none of the modes, written
        // into settings.json by hand (the Settings editor offers only the
        // modes), with the model back to the local one: an error naming
        // the setting and the value, not "Settings changed … yolo mode".
        const file = path.join(ed.dataDir, 'User', 'settings.json');
        const user = JSON.parse(fs.readFileSync(file, 'utf8'));
        user['agentls.model'] = 'local:qwen3-coder';
        user['agentls.permissions.mode'] = 'yolo';
        await ed.runCommand('Preferences: Open User Settings (JSON)');
        await ed.page.locator('.tabs-container .tab[aria-label*="settings.json"]').first().waitFor();
        await ed.page.locator('.part.editor .monaco-editor textarea').first().focus();
        await ed.page.keyboard.press('Control+A');
        await ed.page.keyboard.insertText(JSON.stringify(user));
        // What the editor closed for the text as it went in (a brace, a
        // quote) is after the cursor: gone.
        await ed.page.keyboard.press('Control+Shift+End');
        await ed.page.keyboard.press('Delete');
        await ed.page.keyboard.press('Control+S');
        await waitFor('settings.json to hold the mode yolo', () => JSON.parse(fs.readFileSync(file, 'utf8'))['agentls.permissions.mode'] === 'yolo');
        await ed.page.locator('.tabs-container .tab', { hasText: 'settings.json' }).locator('.action-label.codicon-close').click();
        const badMode = ed.entries('notice', 'agentls.permissions.mode');
        await badMode.waitFor();
        assert.match(await badMode.innerText(), /yolo/);
        assert.ok((await badMode.getAttribute('class')).includes('error'), `the bad mode is not an error: ${await badMode.getAttribute('class')}`);
        await badMode.getByRole('button', { name: 'Open Settings (agentls.permissions.mode)' }).waitFor();
        assert.equal(await ed.entries('notice', 'yolo mode').count(), 0, 'the mode yolo was announced as applied');
        // As the notice says, the next prompt is refused, naming the mode.
        await box.fill('');
        const yolos = await ed.entries('notice', 'yolo').count();
        await ed.askInChat('Any mode?');
        await waitFor('the refusal naming yolo', async () => (await ed.entries('notice', 'yolo').count()) > yolos);
        await new Promise((r) => setTimeout(r, 1000));
        assert.equal(local.requests.length, before, 'a prompt under the mode yolo reached the model');
        assert.equal(await ed.entries('assistant').count(), answers, 'something answered a prompt under the mode yolo');
        await ed.screenshot('4-bad-mode');
      },
      { 'agentls.model': 'local:qwen3-coder', 'agentls.providers': { local: { base_url: local.url } } },
      { env: { OPENAI_API_KEY: undefined } },
    );
  } finally {
    local.close();
  }
});

test('The chat header\'s model button switches the conversation to another model, which gets the whole conversation; one that cannot run is refused; a reload keeps the choice', { timeout: 180_000 }, async () => {
  const local = await localModelServer('Hello from the local server.');
  const ed = new Editor('model-switch', {}, { script: 'answer.json' });
  // The person's config file names the local server and its model, so
  // the picker offers it.
  const cfgDir = path.join(ed.home, '.config', 'agentls');
  fs.mkdirSync(cfgDir, { recursive: true });
  fs.writeFileSync(path.join(cfgDir, 'config.json'), JSON.stringify({ providers: { local: { base_url: local.url, models: { 'qwen3-coder': {} } } } }));
  let failed = true;
  try {
    await ed.start();
    await ed.waitStatus('agentls: idle');
    await ed.askInChat('Remember the word ZEBRA.');
    await ed.entries('assistant', 'Hello from the replay model').waitFor();
    const button = ed.chat().locator('header #model');
    await waitFor('the header to name the replay model', async () => (await button.innerText()).includes('replay:script.json'));
    await ed.screenshot('1-replay-model');

    // The header's button: a QuickPick of the models agentls knows, the
    // running one checked; the local one picked.
    await button.click();
    const rows = ed.page.locator('.quick-input-list .monaco-list-row');
    await rows.filter({ hasText: 'local:qwen3-coder' }).waitFor();
    const current = rows.filter({ hasText: 'this session\'s model' });
    assert.match(await current.innerText(), /replay:/);
    assert.equal(await current.locator('.codicon-check').count(), 1, 'the running model is checked');
    await rows.filter({ hasText: 'Other model' }).waitFor();
    await ed.screenshot('2-model-picker');
    await rows.filter({ hasText: 'local:qwen3-coder' }).click();
    await ed.entries('notice', 'model: local:qwen3-coder (was replay:').waitFor();
    await waitFor('the header to name the local model', async () => (await button.innerText()).includes('local:qwen3-coder'));

    // The next prompt goes to the local server, with the conversation.
    await ed.askInChat('Which word?');
    await ed.entries('assistant', 'Hello from the local server.').waitFor();
    assert.equal(local.requests.length, 1);
    const msgs = local.requests[0].body.messages;
    assert.deepEqual(msgs.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
    const said = JSON.stringify(msgs);
    for (const want of ['Remember the word ZEBRA.', 'Hello from the replay model', 'Which word?']) {
      assert.ok(said.includes(want), `the local model's first request lacks ${want}`);
    }
    await ed.screenshot('3-local-model-answer');

    // Other model…: one that cannot run is refused before anything runs.
    await button.click();
    await rows.filter({ hasText: 'Other model' }).click();
    await ed.quickInput('nokey:m');
    await ed.page.keyboard.press('Enter');
    const refused = ed.entries('notice', 'the conversation stays on local:qwen3-coder');
    await refused.waitFor();
    assert.match(await refused.innerText(), /nokey/);
    assert.match(await button.innerText(), /local:qwen3-coder/);

    // A reload: the chat shows the session again, the header the model
    // chosen in it, and the next prompt goes there.
    await ed.page.reload();
    await ed.page.locator('.monaco-workbench').waitFor();
    await ed.waitStatus('agentls: idle');
    await ed.runCommand('agentls: Show Chat');
    await waitFor('the header to name the chosen model after the reload', async () => (await ed.chat().locator('header #model').innerText()).includes('local:qwen3-coder'));
    await ed.askInChat('Still there?');
    await waitFor('the local server to get the prompt', () => local.requests.length === 2);
    assert.ok(JSON.stringify(local.requests[1].body.messages).includes('Remember the word ZEBRA.'), 'the resumed conversation lost its first turn');
    await ed.screenshot('4-after-reload');
    failed = false;
  } finally {
    await ed.stop(failed);
    local.close();
  }
});

/**
 * A local fill-in-the-middle model on loopback, as Ollama or llama.cpp
 * serve one: /v1/completions with a prompt and a suffix, streamed as
 * text_completion events. A prompt with agentls's recent edits (a
 * next-edit request) gets the search/replace block after the rename of
 * Add's a; any other gets fill(prompt).
 */
async function localFimServer(fill) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url.endsWith('/v1/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no ${req.method} ${req.url} here`, type: 'not_found' } }));
        return;
      }
      const r = JSON.parse(body);
      const nextEdit = r.prompt.includes('Recent edits:');
      requests.push({ nextEdit, body: r });
      let text = fill(r.prompt);
      if (nextEdit) {
        text = r.prompt.includes('+func Add(x, b int) int {') ? '\treturn a + b\n=======\n\treturn x + b\n' : 'NONE';
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const piece of text.split(/(?<= )/)) {
        res.write(`data: ${JSON.stringify({ id: 'cmpl-1', object: 'text_completion', created: 0, model: r.model, choices: [{ index: 0, text: piece, finish_reason: null }] })}\n\n`);
      }
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, requests, close: () => server.close() };
}

test('Inline completion: ghost text from the completion model, accepted with Tab; a renamed parameter\'s other use offered as the next edit (Refactor…)', { timeout: 180_000 }, async () => {
  const fim = await localFimServer((prompt) => (prompt.endsWith('int {\n\tr') ? 'eturn a + b' : ''));
  try {
    await withEditor(
      'inline-completion',
      async (ed) => {
        await ed.waitStatus('agentls: idle');
        fs.writeFileSync(path.join(ed.workspace, 'calc.go'), 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\t\n}\n');
        await ed.openFile('calc.go', 'package calc');
        // The cursor into Add's empty body (line 5), then a pause: VS Code
        // asks by itself.
        await ed.page.locator('.part.editor .view-lines').first().click();
        await ed.page.keyboard.press('Control+G');
        await ed.quickInput(':5');
        await ed.page.keyboard.press('Enter');
        await ed.page.keyboard.press('End');
        await ed.page.keyboard.type('r');
        const ghost = ed.page.locator('.part.editor .ghost-text-decoration, .part.editor .ghost-text');
        // Monaco draws spaces as no-break spaces.
        await waitFor('the ghost text', async () => (await ghost.allInnerTexts()).join('').replace(/\u00a0/g, ' ').includes('eturn a + b'));
        await ed.screenshot('1-ghost-text');
        const fills = fim.requests.filter((r) => !r.nextEdit);
        assert.ok(fills.length >= 1, 'the completion model was asked');
        assert.ok(
          fills.some((r) => r.body.prompt.endsWith('func Add(a, b int) int {\n\tr') && r.body.suffix?.startsWith('\n}')),
          'the prompt and suffix are the buffer around the cursor',
        );
        await ed.page.keyboard.press('Tab');
        const lines = ed.page.locator('.part.editor .view-lines').first();
        await waitFor('the accepted text in the buffer', async () => (await lines.innerText()).replace(/\u00a0/g, ' ').includes('return a + b'));
        // The accepted item's command (agentls.inlineAccepted) has agentls
        // ask for the next edit at once; typing alone asked for none.
        assert.equal(fim.requests.filter((r) => r.nextEdit && !r.body.prompt.includes('+\treturn a + b')).length, 0, 'typing asked for a next edit');
        await waitFor('the next edit asked on accept', async () => fim.requests.some((r) => r.nextEdit && r.body.prompt.includes('+\treturn a + b')));

        // Rename a to x in the signature (line 4, column 10); agentls
        // suggests the other use as a code action.
        await ed.page.keyboard.press('Control+G');
        await ed.quickInput(':4:10');
        await ed.page.keyboard.press('Enter');
        await ed.page.keyboard.press('Shift+ArrowRight');
        await ed.page.keyboard.type('x');
        await ed.runCommand('Refactor...');
        // The first action, where the keyboard is: Enter applies it.
        const action = ed.page.locator('.action-widget .monaco-list-row.focused', { hasText: 'agentls: next edit: line 5: return a + b → return x + b' });
        await action.first().waitFor();
        await ed.screenshot('2-next-edit-action');
        await ed.page.keyboard.press('Enter');
        await waitFor('the next edit applied', async () => (await lines.innerText()).replace(/\u00a0/g, ' ').includes('return x + b'));
        assert.ok(fim.requests.some((r) => r.nextEdit && r.body.prompt.includes('-func Add(a, b int) int {')), 'the next edit was asked with the rename');
        await ed.screenshot('3-next-edit-applied');
      },
      // The suggest widget would take over the keystrokes: inline
      // suggestions only.
      // The model from the extension's setting, the rest from the
      // person's config file: the two merge.
      { 'editor.quickSuggestions': { other: 'off', comments: 'off', strings: 'off' }, 'editor.suggestOnTriggerCharacters': false, 'agentls.completion.model': 'local:coder' },
      { userConfig: { completion: { debounce_ms: 0 }, providers: { local: { base_url: fim.url } } } },
    );
  } finally {
    fim.close();
  }
});

test('An answer\'s code block has Copy and Insert; a model error keeps the prompt, and Retry sends it again', { timeout: 180_000 }, async () => {
  const local = await localModelServer('Hello from the local server.\n\n```go\nfmt.Println("inserted by agentls")\n```\n');
  try {
    await withEditor(
      'code-and-retry',
      async (ed) => {
        await ed.waitStatus('agentls: idle');
        await ed.askInChat('Who answers?');
        await ed.entries('assistant', 'Hello from the local server.').waitFor();
        // The turn's tokens and cost at its end, the session's in the chat's
        // header and the status bar (12 tokens in at $1000/M, 5 out at $2000/M).
        await ed.chat().locator('#usage', { hasText: '$0.0220' }).waitFor();
        assert.equal(await ed.chat().locator('#usage').getAttribute('title'), 'This session: 12 tokens in, 5 out · $0.0220');
        await ed.entries('turn-end', '12 tokens in, 5 out · $0.0220').first().waitFor();
        await ed.page.locator('.statusbar-item', { hasText: '$0.0220' }).first().waitFor();
        // The answer's code block: boxed, its language named, Copy and
        // Insert; Insert puts it at the cursor of the open file.
        const block = ed.entries('assistant', 'Hello from the local server.').locator('.codeblock');
        await block.waitFor();
        assert.equal(await block.locator('.codeblock-lang').innerText(), 'go');
        // Highlighted in the theme's colours: the string is a token of its own.
        const str = block.locator('pre .hljs-string');
        assert.equal(await str.innerText(), '"inserted by agentls"');
        assert.notEqual(await str.evaluate((n) => getComputedStyle(n).color), await block.locator('pre').evaluate((n) => getComputedStyle(n).color), 'the string has a colour of its own');
        await ed.openFile('greeting.txt', 'Hello, world!');
        await block.getByRole('button', { name: 'Insert' }).click();
        await ed.page.locator('.part.editor .view-lines', { hasText: 'fmt.Println("inserted by agentls")' }).first().waitFor();
        const copy = block.getByRole('button', { name: 'Copy' });
        await copy.click();
        await block.getByRole('button', { name: 'Copied' }).waitFor();
        await ed.screenshot('1-code-inserted');

        // The model's server fails the prompt: the error keeps it, with
        // Retry, which sends it again and gets the answer.
        const answered = await ed.entries('assistant').count();
        await ed.askInChat('A FLAKY question');
        const failed = ed.entries('notice', 'warming up');
        await failed.waitFor();
        await ed.screenshot('2-model-error');
        await failed.getByRole('button', { name: 'Retry' }).click();
        await waitFor('the retried prompt to be answered', async () => (await ed.entries('assistant').count()) > answered);
        assert.ok(local.requests.filter((r) => JSON.stringify(r.body.messages).includes('A FLAKY question')).length >= 2, 'Retry sent the prompt again');
      },
      { 'agentls.model': 'local:qwen3-coder', 'agentls.providers': { local: { base_url: local.url, price: { input: 1000, output: 2000 } } } },
    );
  } finally {
    local.close();
  }
});

test('A missing agentls binary: the status says stopped and the error names the setting', { timeout: 120_000 }, async () => {
  await withEditor(
    'missing-binary',
    async (ed) => {
      await ed.waitStatus('agentls: stopped');
      await ed.toast('agentls.path').waitFor({ state: 'visible' });
      assert.match(await ed.toast('agentls.path').first().innerText(), /\/nonexistent\/agentls/);
      await ed.screenshot('1-missing-binary');
    },
    { 'agentls.path': '/nonexistent/agentls' },
  );
});

test('The platform .vsix runs its bundled agentls: no agentls.path, none on PATH', { timeout: 120_000 }, async () => {
  // PATH without any agentls (code-server itself needs node from it).
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((d) => d && !fs.existsSync(path.join(d, 'agentls')));
  await withEditor(
    'bundled-binary',
    async (ed) => {
      await ed.waitStatus('agentls: idle');
      // The server process is the extension's bin/agentls.
      const exe = await waitFor('an agentls process of the installed extension', () => {
        for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
          try {
            const target = fs.readlinkSync(`/proc/${pid}/exe`);
            if (target.startsWith(ed.extDir + path.sep)) {
              return target;
            }
          } catch {
            // not ours, or gone
          }
        }
        return undefined;
      });
      assert.match(exe, /\/bin\/agentls$/);
      const log = await waitFor('the agentls output channel to name the binary', () => {
        const text = ed.channel('agentls');
        return /serve --stdio \(the binary bundled with the extension\)/.test(text) && text;
      });
      assert.ok(log.includes(exe), `the log names ${exe}:\n${log}`);
      await ed.screenshot('1-bundled-binary-idle');
    },
    { 'agentls.path': undefined },
    { vsix: platformVsix, env: { PATH: dirs.join(path.delimiter) } },
  );
});

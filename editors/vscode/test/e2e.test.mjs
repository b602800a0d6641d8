// End-to-end test of the agentls VS Code extension in a real editor:
// code-server (VS Code in the browser) with the packaged .vsix installed,
// driven through headless Chromium with playwright-core, running the real
// agentls binary with a replay model. Run it with test/e2e.sh (npm test),
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

const original = fs.readFileSync(path.join(fixture, 'workspace', 'greeting.txt'), 'utf8');
const edited = original.replace('Hello, world!', 'Hello, agentls!');

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
  /** settings: user settings over the defaults (undefined removes one); opts.vsix, opts.env. */
  constructor(name, settings = {}, opts = {}) {
    this.name = name;
    this.overrides = settings;
    this.vsix = opts.vsix ?? vsix;
    this.root = fs.mkdtempSync(path.join(os.tmpdir(), `agentls-vscode-e2e-${name}-`));
    this.out = path.join(artifacts, name);
    fs.mkdirSync(this.out, { recursive: true });
    this.workspace = path.join(this.root, 'workspace');
    this.file = path.join(this.workspace, 'greeting.txt');
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
    Object.assign(this.env, opts.env ?? {});
  }

  async start() {
    fs.cpSync(path.join(fixture, 'workspace'), this.workspace, { recursive: true });
    // The replay script lives outside the workspace, where the agent does not see it.
    this.script = path.join(this.root, 'script.json');
    fs.copyFileSync(path.join(fixture, 'script.json'), this.script);
    fs.mkdirSync(this.home, { recursive: true });

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
      'security.workspace.trust.enabled': false,
      'git.enabled': false,
      'chat.commandCenter.enabled': false,
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
    this.proc = spawn(codeServer, [...base, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override'], {
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

  /** Opens a workspace file with Quick Open (Ctrl+P). */
  async openFile(name) {
    await this.page.keyboard.press('Control+P');
    await this.quickInput(name);
    await this.page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
    await this.page.keyboard.press('Enter');
    await this.page.locator(`.tabs-container .tab[aria-label*="${name}"]`).first().waitFor();
    await this.page.locator('.part.editor .view-lines', { hasText: original.split('\n')[0] }).first().waitFor();
  }

  /** Runs a command from the command palette (F1). */
  async runCommand(title) {
    await this.page.keyboard.press('F1');
    await this.quickInput(`>${title}`);
    await this.page.locator('.quick-input-list .monaco-list-row.focused', { hasText: title }).first().waitFor();
    await this.page.keyboard.press('Enter');
  }

  /** agentls: Ask, typed as a person does. */
  async ask(prompt) {
    await this.runCommand('agentls: Ask');
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    await this.page.locator('.quick-input-widget', { hasText: 'agentls: Ask' }).waitFor({ state: 'visible' });
    await input.waitFor({ state: 'visible' });
    await this.page.keyboard.type(prompt);
    await this.page.keyboard.press('Enter');
  }

  /** The permission question: the toast with the server's action buttons. */
  toast(text) {
    return this.page.locator('.notification-toast', { hasText: text });
  }

  button(toast, title) {
    return toast.locator('.monaco-button', { hasText: new RegExp(`^${title}$`) });
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

  transcript() {
    return this.channel('agentls Transcript');
  }

  async waitTranscript(what, re) {
    return waitFor(`the transcript to show ${what}`, () => {
      const text = this.transcript();
      return re.test(text) && text;
    });
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

const prompt = 'Please greet agentls in greeting.txt';

test('Ask, Allow: the agent edits the open file, it is saved, the status returns to idle', { timeout: 180_000 }, async () => {
  await withEditor('allow', async (ed) => {
    await ed.waitStatus('agentls: idle');
    await ed.openFile('greeting.txt');
    // Select the first line: Ask sends it as the range.
    await ed.page.keyboard.press('Control+Home');
    await ed.page.keyboard.press('Shift+End');
    await ed.ask(prompt);

    // The question comes although the workspace's .vscode/settings.json
    // says permissions.mode auto (and a bogus binary and model): the
    // machine-scoped settings come from the user's settings only.
    const toast = ed.toast('wants to edit');
    await toast.waitFor({ state: 'visible' });
    assert.match(await toast.innerText(), /greeting\.txt/);
    for (const title of ['Allow', 'Deny', 'Show diff']) {
      await ed.button(toast, title).waitFor({ state: 'visible' });
    }
    await ed.waitStatus('agentls: waiting for you');
    await ed.screenshot('1-permission-toast');

    await ed.button(toast, 'Allow').click();

    await waitFor('greeting.txt on disk to hold the agent\'s edit', () => fs.readFileSync(ed.file, 'utf8') === edited);
    await ed.waitStatus('agentls: idle');
    // The buffer holds the edit and is saved (no dirty tab).
    await ed.page.locator('.part.editor .view-lines', { hasText: 'Hello, agentls!' }).first().waitFor();
    await waitFor('the greeting.txt tab to be saved', async () => (await ed.page.locator('.tabs-container .tab.dirty').count()) === 0);
    // The transcript shows the turn, the tool calls and the diff.
    const transcript = await ed.waitTranscript('the end of the turn', /ended: completed/);
    assert.match(transcript, /you: Please greet agentls in greeting\.txt +\[greeting\.txt, lines 1-1\]/);
    assert.match(transcript, /→ view greeting\.txt/);
    assert.match(transcript, /permission: edit greeting\.txt allowed/);
    assert.match(transcript, /\+Hello, agentls!/);
    // The server's answer arrives as a message.
    await ed.toast('greeting.txt now greets agentls').waitFor({ state: 'visible' });
    await ed.screenshot('2-after-allow');
    assert.equal(fs.readFileSync(ed.file, 'utf8'), edited);

    // agentls: Revert Last Turn. A server with agentls.revertTurn restores
    // the file; one without it answers an error, shown as a message.
    await ed.runCommand('agentls: Revert Last Turn');
    const outcome = await waitFor('the revert to restore greeting.txt or to show the server\'s error', async () => {
      if (fs.readFileSync(ed.file, 'utf8') === original) {
        return 'reverted';
      }
      if (await ed.toast('Revert Last Turn:').count()) {
        return 'error';
      }
      return undefined;
    });
    await ed.screenshot(`3-after-revert-${outcome}`);
    if (outcome === 'reverted') {
      await ed.page.locator('.part.editor .view-lines', { hasText: 'Hello, world!' }).first().waitFor();
      await ed.waitTranscript('the revert', /reverted turn/);
    } else {
      console.log(`# the server did not revert: ${await ed.toast('Revert Last Turn:').first().innerText()}`);
    }
    await ed.waitStatus('agentls: idle');
  });
});

test('Ask, Deny: the file is unchanged, the turn ends, the status returns to idle', { timeout: 180_000 }, async () => {
  await withEditor('deny', async (ed) => {
    await ed.waitStatus('agentls: idle');
    await ed.openFile('greeting.txt');
    await ed.ask(prompt);

    const toast = ed.toast('wants to edit');
    await toast.waitFor({ state: 'visible' });
    await ed.waitStatus('agentls: waiting for you');

    // Show diff: the diff opens as a document and the question comes again.
    await ed.button(toast, 'Show diff').click();
    await ed.page.locator('.tabs-container .tab[aria-label*=".diff"]').first().waitFor();
    await ed.page.locator('.part.editor .view-lines', { hasText: '+Hello, agentls!' }).first().waitFor();
    const again = ed.toast('wants to edit');
    await again.waitFor({ state: 'visible' });
    await ed.waitStatus('agentls: waiting for you');
    await ed.screenshot('1-diff-and-question');

    await ed.button(again, 'Deny').click();

    await ed.toast('permission denied').waitFor({ state: 'visible' });
    await ed.waitStatus('agentls: idle');
    const transcript = await ed.waitTranscript('the denied turn', /ended: denied/);
    assert.match(transcript, /permission: edit greeting\.txt denied/);
    await ed.screenshot('2-after-deny');
    assert.equal(fs.readFileSync(ed.file, 'utf8'), original);
    assert.equal(await ed.page.locator('.tabs-container .tab.dirty').count(), 0);
    await ed.page.locator('.part.editor .view-lines', { hasText: 'Hello, world!' }).first().waitFor();
  });
});

test('Cancel while the agent waits for you: the turn ends, the file is unchanged', { timeout: 180_000 }, async () => {
  await withEditor('cancel', async (ed) => {
    await ed.waitStatus('agentls: idle');
    await ed.openFile('greeting.txt');
    await ed.ask(prompt);
    await ed.toast('wants to edit').waitFor({ state: 'visible' });
    await ed.waitStatus('agentls: waiting for you');

    await ed.runCommand('agentls: Cancel');

    await ed.waitTranscript('the cancelled turn', /ended: cancelled/);
    await ed.waitStatus('agentls: idle');
    await ed.toast('turn cancelled').waitFor({ state: 'visible' });
    await ed.screenshot('1-after-cancel');
    assert.equal(fs.readFileSync(ed.file, 'utf8'), original);
  });
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

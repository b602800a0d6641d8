// A scripted ACP editor for the tests: it starts the real `agentls acp`
// with a replay model, speaks to it with the official ACP client library
// (@agentclientprotocol/sdk, stable v1 entrypoint), keeps "unsaved
// buffers" that fs/read_text_file answers from, records every
// fs/write_text_file and session/update, and answers permission requests
// with a function the test gives. With `terminal: true` it runs
// terminal/* for real, as an editor's terminal does: each terminal is a
// process of the requested command, its output kept to the requested
// limit, killed with SIGKILL.
//
// Environment (set by run.sh):
//   AGENTLS_ACP_BIN   the agentls binary to test

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';

import * as acp from '@agentclientprotocol/sdk';

export const bin = process.env.AGENTLS_ACP_BIN;
if (!bin) {
  throw new Error('AGENTLS_ACP_BIN is not set: run editors/acp/test/run.sh, which builds agentls and installs the ACP client library');
}

/** How long one wait (an update, a request, a reply) may take. */
export const stepTimeout = 20_000;

/**
 * ACP's tool kinds (ToolKind in the SDK's schema/types.gen.d.ts): what a
 * client sorts permission requests by.
 */
export const toolKinds = new Set(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);

/**
 * What is wrong with a session/request_permission's params, or '' when
 * nothing is: every request carries a toolCall with a kind from ACP's
 * ToolKind set and its rawInput as an object, so clients can sort it and
 * judge it by its input.
 */
export function permissionProblem(params) {
  const call = params?.toolCall;
  if (call === null || typeof call !== 'object') {
    return 'no toolCall';
  }
  const problems = [];
  if (typeof call.kind !== 'string' || !toolKinds.has(call.kind)) {
    problems.push(`kind ${JSON.stringify(call.kind)} is not one of ACP's tool kinds (${[...toolKinds].join(', ')})`);
  }
  if (call.rawInput === null || typeof call.rawInput !== 'object' || Array.isArray(call.rawInput)) {
    problems.push(`rawInput ${JSON.stringify(call.rawInput)} is not an object`);
  }
  return problems.join('; ');
}

/** A fresh home (config, data, state) and workspace with the given files. */
export function makeWorld(files = {}) {
  const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-acp-')));
  const workspace = path.join(top, 'workspace');
  fs.mkdirSync(workspace);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }
  return { top, workspace, home: path.join(top, 'home') };
}

/**
 * The environment agentls runs in for a world: its home and XDG folders,
 * and no AGENTLS_MODEL (the replay script is the model).
 */
export function worldEnv(world) {
  const env = { ...process.env, HOME: world.home, XDG_CONFIG_HOME: path.join(world.home, 'config'),
    XDG_DATA_HOME: path.join(world.home, 'data'), XDG_STATE_HOME: path.join(world.home, 'state') };
  delete env.AGENTLS_MODEL;
  return env;
}

/** Writes agentls's user config file (config.json) in the world's home. */
export function writeConfig(world, cfg) {
  const dir = path.join(world.home, 'config', 'agentls');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(cfg));
}

/** Writes a replay script and returns its path. */
export function writeScript(world, name, turns) {
  const p = path.join(world.top, name);
  fs.writeFileSync(p, JSON.stringify({ turns }));
  return p;
}

export class Editor {
  /**
   * @param {object} world        from makeWorld
   * @param {object} [opts]
   * @param {Record<string,string>} [opts.buffers]  absolute path → unsaved text
   * @param {{readTextFile?: boolean, writeTextFile?: boolean}} [opts.fs]
   * @param {(req: object) => Promise<object>|object} [opts.onPermission]  returns the outcome
   * @param {boolean} [opts.terminal]  offer terminals (terminal/*)
   * @param {(req: object) => Promise<object>|object} [opts.onElicit]  declares
   *   elicitation forms and answers elicitation/create with what it returns
   */
  constructor(world, opts = {}) {
    this.world = world;
    this.buffers = new Map(Object.entries(opts.buffers ?? {}));
    this.fsCaps = opts.fs ?? { readTextFile: true, writeTextFile: true };
    this.onPermission = opts.onPermission ?? (() => ({ outcome: { outcome: 'cancelled' } }));
    this.updates = [];
    this.reads = [];
    this.writes = [];
    this.permissions = [];
    /** What was wrong with permission requests (permissionProblem): fails the test. */
    this.badPermissions = [];
    this.terminalCap = opts.terminal ?? false;
    this.onElicit = opts.onElicit;
    this.elicitations = [];
    /** terminal id → { params, child, output, exit, released } */
    this.terminals = new Map();
    this.stderr = '';
    this.waiters = [];
  }

  /** Starts agentls acp and initializes the connection. */
  async start(script, extraArgs = []) {
    const env = worldEnv(this.world);
    this.child = spawn(bin, ['acp', '--model', 'replay:' + script, ...extraArgs], { cwd: this.world.workspace, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
    this.child.stderr.on('data', (d) => { this.stderr += d; });
    const app = acp.client({ name: 'agentls-acp-test' })
      .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => this.read(params))
      .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => this.write(params))
      .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
        this.permissions.push(params);
        const problem = permissionProblem(params);
        if (problem) {
          this.badPermissions.push(`${problem}: ${JSON.stringify(params)}`);
        }
        this.notify();
        return await this.onPermission(params);
      })
      .onRequest(acp.methods.client.terminal.create, ({ params }) => this.createTerminal(params))
      .onRequest(acp.methods.client.terminal.output, ({ params }) => this.terminalOutput(params))
      .onRequest(acp.methods.client.terminal.waitForExit, ({ params }) => this.terminal(params).exited)
      .onRequest(acp.methods.client.terminal.kill, async ({ params }) => {
        const t = this.terminal(params);
        t.child.kill('SIGKILL');
        await t.exited;
        return {};
      })
      .onRequest(acp.methods.client.terminal.release, async ({ params }) => {
        const t = this.terminal(params);
        t.child.kill('SIGKILL');
        await t.exited;
        t.released = true;
        this.notify();
        return {};
      })
      .onRequest(acp.methods.client.elicitation.create, async ({ params }) => {
        if (!this.onElicit) {
          throw acp.RequestError.methodNotFound('elicitation/create');
        }
        this.elicitations.push(params);
        this.notify();
        return await this.onElicit(params);
      })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        this.updates.push(params);
        this.notify();
      });
    const stream = acp.ndJsonStream(Writable.toWeb(this.child.stdin), Readable.toWeb(this.child.stdout));
    this.conn = app.connect(stream);
    this.agent = this.conn.agent;
    this.init = await this.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: this.fsCaps, terminal: this.terminalCap, ...(this.onElicit ? { elicitation: { form: {} } } : {}) },
      clientInfo: { name: 'agentls-acp-test', version: '1.0.0' },
    });
    return this.init;
  }

  createTerminal(params) {
    if (!this.terminalCap) {
      throw acp.RequestError.methodNotFound('terminal/create');
    }
    const env = { ...process.env };
    for (const { name, value } of params.env ?? []) env[name] = value;
    const child = spawn(params.command, params.args ?? [], { cwd: params.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const id = `term-${this.terminals.size + 1}`;
    const t = { params, child, output: '', limit: params.outputByteLimit ?? Infinity, exit: null, released: false };
    const keep = (d) => { t.output += d; };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    t.exited = new Promise((resolve) => child.on('close', (code, signal) => {
      t.exit = { exitCode: code, signal };
      this.notify();
      resolve(t.exit);
    }));
    this.terminals.set(id, t);
    this.notify();
    return { terminalId: id };
  }

  terminal(params) {
    const t = this.terminals.get(params.terminalId);
    if (!t || t.released) {
      throw acp.RequestError.invalidParams(undefined, 'no terminal ' + params.terminalId);
    }
    return t;
  }

  terminalOutput(params) {
    const t = this.terminal(params);
    const bytes = Buffer.from(t.output);
    const truncated = bytes.length > t.limit;
    const output = truncated ? bytes.subarray(bytes.length - t.limit).toString() : t.output;
    return { output, truncated, ...(t.exit ? { exitStatus: t.exit } : {}) };
  }

  read(params) {
    this.reads.push(params.path);
    this.notify();
    if (this.buffers.has(params.path)) {
      return { content: this.buffers.get(params.path) };
    }
    try {
      return { content: fs.readFileSync(params.path, 'utf8') };
    } catch {
      throw acp.RequestError.resourceNotFound(params.path);
    }
  }

  write(params) {
    this.writes.push({ path: params.path, content: params.content });
    this.buffers.set(params.path, params.content);
    this.notify();
    return {};
  }

  /** Throws when a permission request lacked its kind or rawInput. */
  checkPermissions() {
    if (this.badPermissions.length > 0) {
      throw new Error('session/request_permission without a valid toolCall kind and rawInput:\n' + this.badPermissions.join('\n'));
    }
  }

  notify() {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until fn() is truthy, re-checking after every message. */
  async until(what, fn, timeout = stepTimeout) {
    const deadline = Date.now() + timeout;
    for (;;) {
      this.checkPermissions();
      const v = fn();
      if (v) return v;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`timed out waiting for ${what}; updates: ${JSON.stringify(this.updates.map((u) => u.update.sessionUpdate))}\nagentls stderr:\n${this.stderr}`);
      }
      await new Promise((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => { clearTimeout(t); resolve(); });
      });
    }
  }

  async newSession() {
    return this.agent.request(acp.methods.agent.session.new, { cwd: this.world.workspace, mcpServers: [] });
  }

  /** Sends a prompt; resolves with its response once its updates are handled. */
  async prompt(sessionId, text) {
    const res = await this.settled(this.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] }));
    this.checkPermissions();
    return res;
  }

  /**
   * Resolves with what a request resolves with, after the notifications
   * that came before its response are handled. agentls writes every update
   * before the response, but the client library handles a notification
   * through a chain of promises and a response at once; the chain is
   * microtasks only, so one macrotask later it has run.
   */
  async settled(request) {
    const res = await request;
    await new Promise((resolve) => setImmediate(resolve));
    return res;
  }

  /** The session/update payloads of one kind for a session. */
  of(sessionId, kind) {
    return this.updates.filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === kind).map((u) => u.update);
  }

  /** The agent's message text so far (all agent_message_chunk text). */
  message(sessionId) {
    return this.of(sessionId, 'agent_message_chunk').map((u) => u.content.text).join('');
  }

  /** Ends the connection and waits for agentls to exit. */
  async stop() {
    this.child.stdin.end();
    let timer;
    const code = await Promise.race([this.exited, new Promise((r) => { timer = setTimeout(() => r('timeout'), stepTimeout); })]);
    clearTimeout(timer);
    if (code === 'timeout') {
      this.child.kill('SIGKILL');
      throw new Error('agentls acp did not exit after its stdin closed\n' + this.stderr);
    }
    // ACP clients (acp.el, agent-shell) show every stderr line as an
    // agent error: a whole session writes none.
    if (this.stderr !== '') {
      throw new Error('agentls acp wrote to stderr:\n' + this.stderr);
    }
    this.checkPermissions();
    return code;
  }
}

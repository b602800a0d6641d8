// The extension's settings: read from the person's user settings only
// (local and, in a remote window, remote), never from a workspace, and
// opened where they apply. Why window scope: in a remote window (SSH, WSL,
// containers, code-server) VS Code ignores machine-scoped settings in the
// local user settings ("cannot be applied in this window") and
// application-scoped ones in the remote settings; window-scoped settings
// apply from both. A workspace could set window-scoped ones, so the
// extension reads the user-level value only and says when a workspace's
// value is ignored. See docs/editors/vscode.md ("Who can set what").

import * as vscode from 'vscode';

/** The settings that decide what runs and what it may do without asking. */
export const restrictedSettings = ['agentls.path', 'agentls.model', 'agentls.providers', 'agentls.permissions.mode', 'agentls.completion.model'] as const;
export type RestrictedSetting = (typeof restrictedSettings)[number];

export interface Settings {
  /** agentls.path; undefined: not set (see binary.ts for what runs then). */
  path: string | undefined;
  model: string | undefined;
  /** agentls.providers: model servers by name; undefined when none is set. */
  providers: Record<string, ProviderSetting> | undefined;
  mode: string | undefined;
  /** agentls.completion.model: the model of inline completion (ghost text, next edits). */
  completionModel: string | undefined;
}

/** One model server of agentls.providers, in the keys of agentls's config file. */
export interface ProviderSetting {
  base_url?: string;
  api_key_env?: string;
  type?: string;
  /** Dollars per million tokens, for the cost shown. */
  price?: PriceSetting;
}

/** A provider's price: input and output required, the cache rates optional. */
export interface PriceSetting {
  input: number;
  output: number;
  cached_input?: number;
  cache_write?: number;
}

/** What a user-level inspect holds; globalRemoteValue is there since 1.90 but not typed. */
interface Inspected<T> {
  globalValue?: T;
  globalRemoteValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

function inspect<T>(key: string): Inspected<T> | undefined {
  return vscode.workspace.getConfiguration().inspect<T>(key) as Inspected<T> | undefined;
}

/** readSettings reads the restricted settings from the user's own settings. */
export function readSettings(): Settings {
  const user = (key: Exclude<RestrictedSetting, 'agentls.providers'>) => {
    const v = inspect<string>(key)?.globalValue;
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  };
  let mode = user('agentls.permissions.mode');
  // In Restricted Mode the agent never runs in auto mode.
  if (mode === 'auto' && !vscode.workspace.isTrusted) {
    mode = 'smart';
  }
  return {
    path: user('agentls.path'),
    model: user('agentls.model'),
    providers: providers(inspect<unknown>('agentls.providers')?.globalValue),
    mode,
    completionModel: user('agentls.completion.model'),
  };
}

/**
 * providers keeps the well-formed entries of agentls.providers (an object
 * of objects with string values, and a price of non-negative numbers):
 * VS Code shows a schema error for the rest, and agentls reports what it
 * cannot use.
 */
function providers(v: unknown): Record<string, ProviderSetting> | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) {
    return undefined;
  }
  const out: Record<string, ProviderSetting> = {};
  for (const [name, p] of Object.entries(v as Record<string, unknown>)) {
    if (!p || typeof p !== 'object' || Array.isArray(p)) {
      continue;
    }
    const entry: ProviderSetting = {};
    for (const key of ['base_url', 'api_key_env', 'type'] as const) {
      const field = (p as Record<string, unknown>)[key];
      if (typeof field === 'string' && field.trim() !== '') {
        entry[key] = field.trim();
      }
    }
    const price = priceOf((p as Record<string, unknown>).price);
    if (price) {
      entry.price = price;
    }
    out[name] = entry;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** priceOf keeps a well-formed price: input and output, and the cache rates given. */
function priceOf(v: unknown): PriceSetting | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) {
    return undefined;
  }
  const rate = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : undefined);
  const r = v as Record<string, unknown>;
  const input = rate(r.input);
  const output = rate(r.output);
  if (input === undefined || output === undefined) {
    return undefined;
  }
  const out: PriceSetting = { input, output };
  for (const key of ['cached_input', 'cache_write'] as const) {
    const x = rate(r[key]);
    if (x !== undefined) {
      out[key] = x;
    }
  }
  return out;
}

/** The settings the server gets: initializationOptions and workspace/configuration. */
export function serverSettings(s: Settings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.model) {
    out.model = s.model;
  }
  if (s.providers) {
    out.providers = s.providers;
  }
  if (s.mode) {
    out.permissions = { mode: s.mode };
  }
  if (s.completionModel) {
    out.completion = { model: s.completionModel };
  }
  return out;
}

/** The value of a workspace/configuration section under agentls, from user settings only. */
export function configurationSection(section: string): unknown {
  const all = serverSettings(readSettings());
  if (section === 'agentls') {
    return all;
  }
  let v: unknown = all;
  for (const part of section.slice('agentls.'.length).split('.')) {
    v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  }
  return v ?? null;
}

/** The restricted settings a workspace (or folder) sets; they are ignored. */
export function ignoredWorkspaceSettings(): string[] {
  return restrictedSettings.filter((k) => {
    const v = inspect<unknown>(k);
    return v?.workspaceValue !== undefined || v?.workspaceFolderValue !== undefined;
  });
}

/**
 * openSettings opens the Settings editor on key, in the tab whose value
 * applies: the remote settings when the value is set there, else the
 * user settings (both apply in a remote window; never the workspace).
 */
export async function openSettings(key: string): Promise<void> {
  const remote = vscode.env.remoteName !== undefined && inspect<unknown>(key)?.globalRemoteValue !== undefined;
  const command = remote ? 'workbench.action.openRemoteSettings' : 'workbench.action.openGlobalSettings';
  try {
    await vscode.commands.executeCommand(command, { query: key });
  } catch {
    await vscode.commands.executeCommand('workbench.action.openSettings', key);
  }
}

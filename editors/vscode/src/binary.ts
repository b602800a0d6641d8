// Which agentls binary the extension runs, in this order:
//
//  1. the agentls.path user setting, when set: an absolute path (~/ works)
//     or a name looked up on PATH;
//  2. the binary bundled in a platform .vsix (scripts/release builds one per
//     platform): <extension>/bin/agentls, agentls.exe on Windows;
//  3. agentls on PATH (the universal .vsix bundles none).
//
// See docs/editors/vscode.md ("Which agentls runs"). No vscode import here,
// so that test/unit/binary.test.ts runs it under plain node.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export type BinarySource = 'setting' | 'bundled' | 'PATH';

export interface Binary {
  /** What to run: the executable found, or what was looked for. */
  command: string;
  source: BinarySource;
  /** Whether command is an executable file. */
  found: boolean;
  /** Why nothing runs, when found is false. */
  problem?: string;
}

export interface BinaryPlaces {
  /** agentls.path from the user's settings; undefined or blank: not set. */
  setting: string | undefined;
  /** The extension's folder (ExtensionContext.extensionPath). */
  extensionPath: string;
  platform?: NodeJS.Platform;
  /** PATH (and PATHEXT on Windows) come from here. */
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/** bundledBinary is where a platform .vsix holds its agentls. */
export function bundledBinary(extensionPath: string, platform: NodeJS.Platform = process.platform): string {
  return path.join(extensionPath, 'bin', platform === 'win32' ? 'agentls.exe' : 'agentls');
}

/** chooseBinary picks the binary to run as `<command> serve --stdio`. */
export function chooseBinary(places: BinaryPlaces): Binary {
  const platform = places.platform ?? process.platform;
  const env = places.env ?? process.env;
  let setting = (places.setting ?? '').trim();
  if (setting) {
    if (setting === '~' || setting.startsWith('~/')) {
      setting = path.join(places.home ?? os.homedir(), setting.slice(1));
    }
    const found = findExecutable(setting, platform, env);
    if (found) {
      return { command: found, source: 'setting', found: true };
    }
    const where = hasSeparator(setting) ? '' : ' on PATH';
    return { command: setting, source: 'setting', found: false, problem: `"${setting}" was not found${where}` };
  }
  const bundled = bundledBinary(places.extensionPath, platform);
  if (isExecutable(bundled)) {
    return { command: bundled, source: 'bundled', found: true };
  }
  const onPath = findExecutable('agentls', platform, env);
  if (onPath) {
    return { command: onPath, source: 'PATH', found: true };
  }
  return {
    command: 'agentls',
    source: 'PATH',
    found: false,
    problem: 'this extension has no agentls bundled (the .vsix for your platform has) and "agentls" was not found on PATH',
  };
}

/** findExecutable resolves bin (a path, or a bare name on PATH) to an executable file. */
export function findExecutable(bin: string, platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string | undefined {
  if (hasSeparator(bin)) {
    return isExecutable(bin) ? bin : undefined;
  }
  // On Windows a bare name runs with one of PATHEXT's extensions (agentls.exe).
  const exts = platform === 'win32' && !path.extname(bin) ? (env.PATHEXT ?? '.EXE').split(';').filter((e) => e) : [''];
  for (const dir of (env.PATH ?? '').split(platform === 'win32' ? ';' : ':')) {
    for (const ext of dir ? exts : []) {
      const p = path.join(dir, bin + ext);
      if (isExecutable(p)) {
        return p;
      }
    }
  }
  return undefined;
}

function hasSeparator(bin: string): boolean {
  return bin.includes('/') || bin.includes('\\');
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

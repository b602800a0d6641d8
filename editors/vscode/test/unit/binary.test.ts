// Unit tests of which agentls binary the extension runs (src/binary.ts),
// on real files in a temporary folder. Run: npm run test:unit
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { bundledBinary, chooseBinary } from '../../src/binary';

/** A temporary extension folder and two PATH folders, empty at first. */
function places() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-binary-test-'));
  const ext = path.join(root, 'extension');
  const pathA = path.join(root, 'path-a');
  const pathB = path.join(root, 'path-b');
  for (const d of [ext, pathA, pathB]) {
    fs.mkdirSync(d, { recursive: true });
  }
  const file = (p: string, mode = 0o755) => {
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, '#!/bin/sh\n');
    fs.chmodSync(p, mode);
    return p;
  };
  const env = { PATH: [pathA, pathB].join(':') };
  return { root, ext, pathA, pathB, file, env, done: () => fs.rmSync(root, { recursive: true, force: true }) };
}

test('chooseBinary: the bundled binary, else agentls on PATH, else a problem naming both', () => {
  const p = places();
  try {
    // Nothing anywhere: not found, and the problem says where it looked.
    let b = chooseBinary({ setting: undefined, extensionPath: p.ext, env: p.env, platform: 'linux' });
    assert.equal(b.found, false);
    assert.equal(b.source, 'PATH');
    assert.match(b.problem ?? '', /no agentls bundled.*"agentls" was not found on PATH/);

    // On PATH only (the universal .vsix): the first PATH folder that has it.
    const inB = p.file(path.join(p.pathB, 'agentls'));
    b = chooseBinary({ setting: undefined, extensionPath: p.ext, env: p.env, platform: 'linux' });
    assert.deepEqual(b, { command: inB, source: 'PATH', found: true });
    const inA = p.file(path.join(p.pathA, 'agentls'));
    b = chooseBinary({ setting: '  ', extensionPath: p.ext, env: p.env, platform: 'linux' });
    assert.deepEqual(b, { command: inA, source: 'PATH', found: true }, 'a blank setting is no setting');

    // A file on PATH that is not executable is passed over.
    fs.chmodSync(inA, 0o644);
    b = chooseBinary({ setting: undefined, extensionPath: p.ext, env: p.env, platform: 'linux' });
    assert.equal(b.command, inB);

    // A platform .vsix: the bundled binary wins over PATH.
    const bundled = p.file(path.join(p.ext, 'bin', 'agentls'));
    assert.equal(bundledBinary(p.ext, 'linux'), bundled);
    b = chooseBinary({ setting: undefined, extensionPath: p.ext, env: p.env, platform: 'linux' });
    assert.deepEqual(b, { command: bundled, source: 'bundled', found: true });

    // A bundled file that lost its executable bit: PATH again.
    fs.chmodSync(bundled, 0o644);
    b = chooseBinary({ setting: undefined, extensionPath: p.ext, env: p.env, platform: 'linux' });
    assert.deepEqual(b, { command: inB, source: 'PATH', found: true });
  } finally {
    p.done();
  }
});

test('chooseBinary: agentls.path wins over the bundled binary and PATH, and is never replaced by them', () => {
  const p = places();
  try {
    p.file(path.join(p.ext, 'bin', 'agentls'));
    p.file(path.join(p.pathA, 'agentls'));
    const mine = p.file(path.join(p.root, 'home', 'bin', 'my-agentls'));

    let b = chooseBinary({ setting: mine, extensionPath: p.ext, env: p.env, platform: 'linux' });
    assert.deepEqual(b, { command: mine, source: 'setting', found: true });
    // ~/ is the home folder.
    b = chooseBinary({ setting: '~/bin/my-agentls', extensionPath: p.ext, env: p.env, platform: 'linux', home: path.join(p.root, 'home') });
    assert.deepEqual(b, { command: mine, source: 'setting', found: true });
    // A bare name is looked up on PATH.
    const other = p.file(path.join(p.pathB, 'agentls-nightly'));
    b = chooseBinary({ setting: 'agentls-nightly', extensionPath: p.ext, env: p.env, platform: 'linux' });
    assert.deepEqual(b, { command: other, source: 'setting', found: true });

    // Set but missing: an error about the setting, not a silent fallback.
    b = chooseBinary({ setting: '/nonexistent/agentls', extensionPath: p.ext, env: p.env, platform: 'linux' });
    assert.deepEqual(b, { command: '/nonexistent/agentls', source: 'setting', found: false, problem: '"/nonexistent/agentls" was not found' });
    b = chooseBinary({ setting: 'agentls-missing', extensionPath: p.ext, env: p.env, platform: 'linux' });
    assert.equal(b.found, false);
    assert.equal(b.problem, '"agentls-missing" was not found on PATH');
  } finally {
    p.done();
  }
});

test('chooseBinary on Windows: bin\\agentls.exe bundled, PATHEXT on PATH', () => {
  const p = places();
  try {
    assert.equal(bundledBinary(p.ext, 'win32'), path.join(p.ext, 'bin', 'agentls.exe'));
    // A Unix binary bin/agentls is not the Windows one.
    p.file(path.join(p.ext, 'bin', 'agentls'));
    const env = { PATH: [p.pathA, p.pathB].join(';'), PATHEXT: '.COM;.EXE;.BAT' };
    const exe = p.file(path.join(p.pathB, 'agentls.EXE'));
    let b = chooseBinary({ setting: undefined, extensionPath: p.ext, env, platform: 'win32' });
    assert.deepEqual(b, { command: exe, source: 'PATH', found: true });
    const bundled = p.file(path.join(p.ext, 'bin', 'agentls.exe'));
    b = chooseBinary({ setting: undefined, extensionPath: p.ext, env, platform: 'win32' });
    assert.deepEqual(b, { command: bundled, source: 'bundled', found: true });
  } finally {
    p.done();
  }
});

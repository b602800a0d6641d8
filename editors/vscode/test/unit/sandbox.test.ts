import assert from 'node:assert/strict';
import { test } from 'node:test';

import { sandboxLine } from '../../src/sandbox';

test('the status says whether commands run confined, and why not', () => {
  assert.equal(sandboxLine(undefined), '');
  assert.match(sandboxLine({ confined: true, mechanism: 'landlock', network: 'namespace', mode: 'auto' }), /^Sandbox: on \(landlock, network: namespace\)/);
  assert.match(sandboxLine({ confined: false, mechanism: 'none', network: 'none', mode: 'off' }), /^Sandbox: off/);
  assert.match(
    sandboxLine({ confined: false, mechanism: 'none', network: 'none', mode: 'auto', reason: 'windows has no sandbox agentls can use' }),
    /^Sandbox: not enforced \(windows has no sandbox agentls can use\): agentls asks/,
  );
});

// The sandbox every program agentls starts runs in, as the status bar
// says it (agentls.sandbox, docs/security.md#sandbox).

/** The part of agentls.sandbox's answer the status shows (docs/protocol.md). */
export interface SandboxStatus {
  confined: boolean;
  mechanism: string;
  network: string;
  mode: string;
  reason?: string;
}

/** One line on the sandbox every program agentls starts runs in. */
export function sandboxLine(s: SandboxStatus | undefined): string {
  if (!s) {
    return '';
  }
  if (s.confined) {
    return `Sandbox: on (${s.mechanism}, network: ${s.network}): commands, hooks and servers write only in the workspace and reach the network through agentls's proxy.`;
  }
  if (s.mode === 'off') {
    return 'Sandbox: off (sandbox.mode "off" in the agentls config): programs run unconfined.';
  }
  return `Sandbox: not enforced (${s.reason ?? 'this system cannot confine programs'}): agentls asks before every command that is not read-only.`;
}

#!/usr/bin/env bash
# Drives `agentls acp` with the official ACP client library
# (@agentclientprotocol/sdk, stable v1 entrypoint) and with acpx (a
# headless ACP client, pinned) in node --test: it installs both (npm ci,
# from package-lock.json) when missing, builds agentls, and runs every
# editors/acp/test/*.test.mjs.
#
#   editors/acp/test/run.sh [node --test args]
#
# Environment:
#   AGENTLS_ACP_BIN   test this agentls binary instead of building one
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
for c in node npm go; do
  command -v "$c" >/dev/null || { echo "editors/acp/test/run.sh: $c is needed on PATH (Debian: apt-get install -y nodejs npm; Go from go.dev)" >&2; exit 1; }
done

cd "$here"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "# acp tests: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi

if [ -z "${AGENTLS_ACP_BIN:-}" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
  (cd "$repo" && go build -o "$out/agentls" ./cmd/agentls)
  export AGENTLS_ACP_BIN=$out/agentls
fi

node --test --test-concurrency=1 "$@" ./*.test.mjs

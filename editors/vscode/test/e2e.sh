#!/usr/bin/env bash
# Tests the agentls VS Code extension: unit tests, then the end-to-end test
# in a real editor (code-server 4.100.3 + headless Chromium, see
# shared recipe code-server.md). On a clean Debian machine it first installs
# what is missing: apt packages (as root), the extension's npm packages,
# and code-server into a cache outside the repository.
#
#   editors/vscode/test/e2e.sh          (or: cd editors/vscode && npm test)
#   editors/vscode/test/e2e.sh --prepare  only install what the test needs
#
# Environment:
#   AGENTLS_CI_CACHE   cache folder (default ~/.cache/agentls-ci): code-server lives here
#   AGENTLS_E2E_BIN    test this agentls binary instead of building one
#   AGENTLS_E2E_PLATFORM_VSIX  the .vsix for this platform, agentls bundled
#                      (default: scripts/release --only builds one)
#   AGENTLS_E2E_KEEP   keep the built binary and .vsix folder (prints it)
# Screenshots and logs: <repo>/test-artifacts/vscode/.
set -euo pipefail

ext=$(cd "$(dirname "$0")/.." && pwd)      # editors/vscode
repo=$(cd "$ext/../.." && pwd)
cache=${AGENTLS_CI_CACHE:-$HOME/.cache/agentls-ci}
cs_version=4.100.3
cs_dir=$cache/code-server-$cs_version
code_server=$cs_dir/node_modules/.bin/code-server

t0=$SECONDS
step() { echo "# e2e.sh: $* (at $((SECONDS - t0)) s)"; }

# --- apt packages -----------------------------------------------------------
apt_pkgs=(build-essential pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep chromium)
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" != 0 ]; then
    echo "e2e.sh: missing Debian packages: ${missing[*]}: run 'sudo apt-get install -y ${missing[*]}'" >&2
    exit 1
  fi
  step "installing ${missing[*]} (apt)"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
fi
for c in node npm go; do
  command -v "$c" >/dev/null || { echo "e2e.sh: $c is needed on PATH" >&2; exit 1; }
done

# --- the extension's npm packages -------------------------------------------
cd "$ext"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  step "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi

# --- code-server --------------------------------------------------------------
if [ ! -f "$cs_dir/.installed" ]; then
  step "installing code-server $cs_version into $cs_dir"
  mkdir -p "$cache"
  work=$(mktemp -d "$cache/code-server-install.XXXXXX")
  # @vscode/ripgrep's postinstall downloads ripgrep from the internet; give it
  # Debian's through its download cache instead (it looks in $TMPDIR).
  mkdir -p "$work/tmp/vscode-ripgrep-cache-1.15.11" "$work/rg"
  cp "$(command -v rg)" "$work/rg/rg"
  tar czf "$work/tmp/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$work/rg" rg
  mkdir -p "$work/pkg"
  echo '{"private": true}' >"$work/pkg/package.json"
  # unsafe_perm: the postinstall refuses to run as root otherwise;
  # yes: node-pty's `npx node-gyp` is cancelled without it.
  if ! (cd "$work/pkg" && TMPDIR="$work/tmp" npm_config_unsafe_perm=true npm_config_yes=true \
    npm install --no-audit --no-fund --loglevel=error "code-server@$cs_version" >"$work/install.log" 2>&1); then
    tail -40 "$work/install.log" >&2
    echo "e2e.sh: installing code-server failed; full log: $work/install.log" >&2
    exit 1
  fi
  [ -x "$work/pkg/node_modules/.bin/code-server" ] || { echo "e2e.sh: code-server missing after install ($work)" >&2; exit 1; }
  rm -rf "$cs_dir"
  mv "$work/pkg" "$cs_dir"
  rm -rf "$work"
  touch "$cs_dir/.installed"
fi

if [ "${1:-}" = --prepare ]; then
  step "prepared: the packages, the extension's npm packages and code-server are in place"
  exit 0
fi

# --- agentls and the .vsix ----------------------------------------------------
build=$(mktemp -d "${TMPDIR:-/tmp}/agentls-vscode-build.XXXXXX")
if [ -z "${AGENTLS_E2E_KEEP:-}" ]; then
  trap 'rm -rf "$build"' EXIT
fi
bin=${AGENTLS_E2E_BIN:-}
if [ -z "$bin" ]; then
  step "go build ./cmd/agentls"
  (cd "$repo" && go build -o "$build/agentls" ./cmd/agentls)
  bin=$build/agentls
fi
step "npm run package"
npm run --silent package >"$build/package.log" 2>&1 || { cat "$build/package.log" >&2; exit 1; }
platform_vsix=${AGENTLS_E2E_PLATFORM_VSIX:-}
if [ -z "$platform_vsix" ]; then
  goarch=$(go env GOARCH)
  step "scripts/release --only linux/$goarch (the platform .vsix)"
  "$repo/scripts/release" --out "$build/release" --only "linux/$goarch" e2e >"$build/release.log" 2>&1 ||
    { cat "$build/release.log" >&2; exit 1; }
  platform_vsix=$build/release/agentls-e2e-linux-${goarch/amd64/x64}.vsix
fi
npx --no-install esbuild test/unit/*.test.ts --bundle --platform=node --format=cjs \
  --outdir="$build/unit" --log-level=warning

# --- the tests ----------------------------------------------------------------
artifacts=$repo/test-artifacts/vscode
rm -rf "$artifacts"
mkdir -p "$artifacts"
step "node --test (unit + code-server end-to-end)"
status=0
AGENTLS_E2E_CODE_SERVER=$code_server \
AGENTLS_E2E_VSIX=$ext/dist/agentls.vsix \
AGENTLS_E2E_PLATFORM_VSIX=$platform_vsix \
AGENTLS_E2E_BIN=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin") \
AGENTLS_E2E_ARTIFACTS=$artifacts \
NODE_PATH=$ext/node_modules \
  node --test --test-reporter=spec "$build"/unit/*.test.js test/e2e.test.mjs || status=$?
step "done; screenshots and logs in $artifacts"
if [ -n "${AGENTLS_E2E_KEEP:-}" ]; then echo "# e2e.sh: kept $build"; fi
exit $status

#!/bin/sh
# Installs what editors/emacs/eglot_test.go needs: Emacs without X and eglot
# (Debian/Ubuntu, as root). Emacs 29+ has eglot built in; Emacs 28 (Debian
# 12) needs the elpa-eglot package.
set -eu
hint="sudo apt-get install -y --no-install-recommends emacs-nox elpa-eglot"
if [ "$(id -u)" != 0 ]; then
  echo "install-emacs.sh: not root; run: $hint" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-emacs.sh: no apt-get; install Emacs 28+ and eglot with your package manager" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
if ! apt-get install -y -q --no-install-recommends emacs-nox elpa-eglot >/dev/null; then
  # Newer releases may have dropped elpa-eglot: their Emacs has eglot built in.
  apt-get install -y -q --no-install-recommends emacs-nox >/dev/null
fi

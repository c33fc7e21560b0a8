#!/usr/bin/env bash
# End-to-end test of the playground in real headless Chromium (Debian's chromium driven by
# playwright-core; no browser download). Installs what is missing: chromium (apt, as root),
# node_modules (npm ci), and builds the editor bundle (scripts/build.sh) and the nodecast CLI
# (cargo) that gives the expected answers.
# Needs web-demo/pkg/, the wasm browser build that bindings-wasm's build copies here (make wasm).
set -euo pipefail
cd "$(dirname "$0")/.."
WEB=$(pwd)
ROOT=$(cd .. && pwd)

if [ ! -d pkg ] || [ -z "$(ls -A pkg 2>/dev/null)" ]; then
  echo "web-demo/pkg/ is missing: the playground needs the nodecast wasm browser build." >&2
  echo "Build it first with 'make wasm' (bindings-wasm's build copies its ESM build into web-demo/pkg/), then re-run." >&2
  exit 1
fi

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "== installing Debian's chromium"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "$CHROMIUM not found: install Debian's chromium (sudo apt-get install -y chromium)" >&2
    exit 1
  fi
fi

# npm ci when node_modules does not match package-lock.json, then the editor bundle (build/).
bash scripts/build.sh

# The CLI that gives the expected answers: NODECAST_BIN when given (e.g. a debug build), else the
# release build, built (or brought up to date) here.
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
if [ -z "${NODECAST_BIN:-}" ]; then
  export NODECAST_BIN=$TARGET_DIR/release/nodecast
  if command -v cargo >/dev/null 2>&1; then
    (cd "$ROOT" && cargo build --release -q -p nodecast-cli)
  fi
fi
[ -x "$NODECAST_BIN" ] || { echo "NODECAST_BIN=$NODECAST_BIN is not an executable nodecast CLI" >&2; exit 1; }
export NODECAST_BIN

node scripts/gen-presets.mjs --check
node scripts/check-modules.mjs
export CHROMIUM
echo "== e2e: $WEB in $("$CHROMIUM" --version 2>/dev/null || echo chromium)"
node tests/e2e.mjs

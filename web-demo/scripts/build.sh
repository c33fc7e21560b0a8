#!/usr/bin/env bash
# Builds what the page needs besides pkg/ (make wasm): the editor bundle build/editor.js, from
# src/editor.js and the npm packages pinned in package-lock.json (npm ci when node_modules does
# not match the lock file). Nothing is downloaded at run time; this is the only network step.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! npm ls --depth=0 >/dev/null 2>&1; then
  echo "== npm ci (web-demo: esbuild, CodeMirror, playwright-core)"
  npm ci --no-audit --no-fund
fi
node scripts/build.mjs

#!/usr/bin/env bash
# Serve the playground (static files) on localhost: scripts/serve.sh [PORT], default 8000.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${1:-${PORT:-8000}}
if [ ! -d pkg ]; then
  echo "warning: web-demo/pkg/ is missing, the page will say so: run 'make wasm' first" >&2
fi
bash scripts/build.sh # the editor bundle (build/editor.js)
echo "nodecast playground: open http://127.0.0.1:${PORT}/ in a browser (Ctrl-C stops the server)"
exec python3 -m http.server "$PORT" --bind 127.0.0.1

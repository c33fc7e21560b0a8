#!/usr/bin/env bash
# Builds the npm package (scripts/build.sh; a no-op when nothing changed), makes sure the CLI the
# determinism tests compare against is built, then runs the Node tests (node --test tests/) and
# the TypeScript check of pkg/nodecast.d.ts. Exits non-zero on any failure.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(dirname "$HERE")"
TYPESCRIPT="${NODECAST_TYPESCRIPT:-typescript@7}"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

command -v node >/dev/null 2>&1 || { echo "test.sh: node is required (Node >= 20)" >&2; exit 1; }

echo "== build"
"$HERE/scripts/build.sh"

# The CLI of the root workspace (its own toolchain and target dir): built when missing or older
# than its sources.
CLI="${CARGO_TARGET_DIR:-$ROOT/target}/release/nodecast"
if [ ! -x "$CLI" ] || [ -n "$(find "$ROOT/core" "$ROOT/cli" "$ROOT/Cargo.lock" -newer "$CLI" -type f -print -quit)" ]; then
  echo "== cargo build --release -p nodecast-cli (for the determinism tests)"
  (cd "$ROOT" && cargo build --release -p nodecast-cli)
fi

echo "== node --test tests/"
TIMINGS="$(mktemp)"
trap 'rm -f "$TIMINGS"' EXIT
# One file at a time, so that the timing test runs alone.
(cd "$HERE" && NODECAST_WASM_TIMINGS="$TIMINGS" node --test --test-concurrency=1 --test-reporter=spec tests/)
cat "$TIMINGS"

echo "== tsc --noEmit (pkg/nodecast.d.ts, tests/types/usage.ts; $TYPESCRIPT)"
(cd "$HERE" && npx --yes -p "$TYPESCRIPT" tsc -p tests/types 2> >(grep -v '^npm warn' >&2))
echo "== bindings-wasm: all tests passed"

#!/usr/bin/env bash
# Build the nodecast wheel, install it into a virtualenv and test the INSTALLED package:
# cargo clippy + cargo test of the bindings crate, mypy.stubtest and mypy --strict of the stubs,
# pytest. Works on a fresh machine (needs python3 >= 3.9 with venv, and cargo); idempotent and
# quick when everything is already there.
#
#   bindings-py/scripts/test.sh              # everything
#   bindings-py/scripts/test.sh -k errors    # extra arguments go to pytest
#
# Environment: NODECAST_VENV (default <repo>/.venv-py), PYTHON (default python3),
# NODECAST_PY_ENV_ONLY=1 stops once the virtualenv has its packages,
# NODECAST_SKIP_RUST=1 skips clippy/cargo test, NODECAST_PY39=path/to/python3.9 (or a python3.9
# on PATH) adds a smoke test of the abi3 wheel on CPython 3.9.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BINDINGS="$(dirname "$HERE")"
ROOT="$(dirname "$BINDINGS")"
VENV="${NODECAST_VENV:-$ROOT/.venv-py}"
PYTHON="${PYTHON:-python3}"
CARGO="${CARGO:-cargo}"

step() { printf '\n== %s\n' "$*"; }

command -v "$CARGO" >/dev/null 2>&1 || { echo "cargo not found: install Rust (make deps at the repo root)" >&2; exit 1; }

step "virtualenv $VENV"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
PY="$VENV/bin/python"
"$PY" -c 'import sys; assert sys.version_info >= (3, 9), sys.version' >/dev/null

# Install only what is missing (pip is slow even when there is nothing to do).
need=()
"$PY" -c 'import maturin' 2>/dev/null || need+=("maturin>=1.9.4,<2")
"$PY" -c 'import pytest' 2>/dev/null || need+=("pytest")
"$PY" -c 'import yaml' 2>/dev/null || need+=("pyyaml")
"$PY" -c 'import pandas' 2>/dev/null || need+=("pandas")
"$PY" -c 'import mypy' 2>/dev/null || need+=("mypy")
"$PY" -c 'import kubernetes' 2>/dev/null || need+=("kubernetes")  # the client-model dict tests
"$PY" -c 'import tqdm' 2>/dev/null || need+=("tqdm")              # nodecast.sweep's progress bar
"$PY" -c 'import ray' 2>/dev/null || need+=("ray")                # nodecast.sweep(engine="ray"): a local Ray in tests/test_sweep.py (~50 s to install)
"$PY" -c 'import matplotlib' 2>/dev/null || need+=("matplotlib")  # Simulation.plot_cost()/plot_nodes() (tests/test_plots.py, Agg)
"$PY" -c 'import ortools' 2>/dev/null || need+=("ortools")  # CP-SAT: the exact solver optimize is checked against
if [ "${#need[@]}" -gt 0 ]; then
  echo "installing: ${need[*]}"
  "$PY" -m pip install --quiet --disable-pip-version-check "${need[@]}"
else
  echo "maturin, pytest, pyyaml, pandas, mypy, kubernetes, tqdm, ray, matplotlib, ortools already installed"
fi
# make test installs the environment first, beside the compiles (the Makefile's python-env).
[ "${NODECAST_PY_ENV_ONLY:-0}" = 1 ] && exit 0

# The bindings crate is a member of the root workspace (not a default one, so the root's plain
# `cargo test` needs no Python): it builds in the root's target directory with the root's
# Cargo.lock and release profile, so the core and the C++ HiGHS solver `make build` compiled are
# reused, not compiled again (as a workspace of its own it compiled the core again: cargo's unit
# hash includes a package's path relative to the workspace root).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$CARGO_TARGET_DIR/nodecast-py"
mkdir -p "$OUT"

if [ "${NODECAST_SKIP_RUST:-0}" != 1 ]; then
  step "cargo clippy / cargo test (bindings crate)"
  # --release: the same profile as maturin's build below, so the C++ HiGHS solver (optimize) and
  # the core are compiled once for this crate, not once per profile.
  "$CARGO" clippy --release --manifest-path "$BINDINGS/Cargo.toml" --all-targets -- -D warnings
  "$CARGO" test --release --manifest-path "$BINDINGS/Cargo.toml" --quiet
fi

step "maturin build --release"
rm -f "$OUT"/wheels/nodecast-*.whl
LOG="$OUT/maturin-build.log"
if ! (cd "$BINDINGS" && "$VENV/bin/maturin" build --release --out "$OUT/wheels" >"$LOG" 2>&1); then
  cat "$LOG" >&2
  echo "maturin build failed" >&2
  exit 1
fi
tail -n 1 "$LOG"
WHEEL="$(ls "$OUT"/wheels/nodecast-*-abi3-*.whl | head -n 1)"
echo "wheel: $WHEEL"

step "pip install --force-reinstall (the wheel, no dependencies)"
"$PY" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$WHEEL"

export MYPY_CACHE_DIR="$OUT/mypy-cache"

# From here on, run outside the source tree so that `import nodecast` is the installed package.
cd "$BINDINGS/tests"
"$PY" -c 'import nodecast, sys; print("installed:", nodecast.__file__, nodecast.__version__); sys.exit("site-packages" not in nodecast.__file__)'

step "mypy.stubtest nodecast (the stubs, nodecast._native included, vs the installed package)"
(cd "$OUT" && "$PY" -m mypy.stubtest nodecast --allowlist "$BINDINGS/tests/stubtest-allowlist.txt")  # its cache lands in target/

step "mypy --strict: the installed package, and tests/typing_usage.py through its stubs (mypy 2 checks 3.10+; the 3.9 smoke test covers the runtime)"
"$PY" -m mypy --strict --python-version 3.10 --no-incremental -p nodecast
"$PY" -m mypy --strict --python-version 3.10 --no-incremental "$BINDINGS/tests/typing_usage.py"

# Optional: the same abi3 wheel on CPython 3.9 (the oldest supported), if one is around.
PY39=""
candidates=("${NODECAST_PY39:-}")
if command -v pyenv >/dev/null 2>&1; then
  for v in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.9(\.|$)' || true); do candidates+=("$(pyenv root)/versions/$v/bin/python3.9"); done
fi
candidates+=(/usr/bin/python3.9 /usr/local/bin/python3.9 "$(command -v python3.9 || true)")
for c in "${candidates[@]}"; do
  if [ -n "$c" ] && [ -x "$c" ] && "$c" -c 'import sys, venv; assert sys.version_info[:2] == (3, 9)' >/dev/null 2>&1; then PY39="$c"; break; fi
done
if [ -n "$PY39" ] && [ -x "$PY39" ]; then
  step "smoke test on $("$PY39" --version 2>&1) (abi3 wheel)"
  V39="$OUT/venv-py39"
  [ -x "$V39/bin/python" ] || "$PY39" -m venv "$V39"
  "$V39/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$WHEEL"
  "$V39/bin/python" "$BINDINGS/tests/smoke.py" "$ROOT/examples"
else
  echo "(no CPython 3.9 found: abi3 smoke test on 3.9 skipped)"
fi

step "nodecast CLI (the byte-identity tests compare with it): cargo build --release -p nodecast-cli"
(cd "$ROOT" && "$CARGO" build --release --quiet -p nodecast-cli)

step "pytest (installed wheel)"
NODECAST_REPO="$ROOT" "$PY" -m pytest "$BINDINGS/tests" "$@"

#!/usr/bin/env bash
# Prints the size of the built wasm module (raw bytes and gzip -9 bytes, with MB / KB figures) so
# the README quotes a measurement, not a memory. Reads bindings-wasm/pkg/ as `make wasm` left it;
# builds nothing (run `make wasm` first). Usage: bindings-wasm/scripts/size.sh [PKG_DIR]
#   --check BYTES  exit 1 when the gzip size is above BYTES (the 1 MB budget of build.sh).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(dirname "$HERE")"
LIMIT=""
PKG="$HERE/pkg"
while [ $# -gt 0 ]; do
  case "$1" in
    --check) LIMIT="${2:?--check needs a byte count}"; shift 2 ;;
    -h | --help) sed -n 2,5p "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) PKG="$1"; shift ;;
  esac
done
WASM="$PKG/web/nodecast_wasm_bg.wasm"
if [ ! -f "$WASM" ]; then
  echo "size.sh: $WASM not found: build the package first with 'make wasm'" >&2
  exit 1
fi
RAW=$(wc -c <"$WASM")
GZ=$(gzip -9 -c "$WASM" | wc -c)
# MB = 10^6 bytes, KB = 10^3 bytes (as the README writes them).
awk -v raw="$RAW" -v gz="$GZ" -v f="${WASM#"$ROOT/"}" 'BEGIN {
  printf "%s: %d bytes raw (%.2f MB), %d bytes gzip -9 (%.0f KB)\n", f, raw, raw / 1e6, gz, gz / 1e3
}'
if [ -n "$LIMIT" ] && [ "$GZ" -gt "$LIMIT" ]; then
  echo "size.sh: gzip size $GZ bytes is over the limit of $LIMIT bytes" >&2
  exit 1
fi

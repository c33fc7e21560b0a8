#!/usr/bin/env bash
# Builds the nodecast npm package into bindings-wasm/pkg/:
#   index.js (browsers/bundlers, wasm-bindgen --target web glue in web/),
#   node.js (Node, --target nodejs glue in node/), api.js, nodecast.d.ts, package.json.
# and, when /work/main/web-demo (../web-demo) exists, copies the browser build to web-demo/pkg/.
#
# Toolchain: a rustup toolchain with the wasm32-unknown-unknown target when installed; otherwise
# Debian's rustc-web/cargo-web/rust-web-src/lld (std rebuilt with -Zbuild-std), installed with
# apt-get when missing. wasm-bindgen-cli is installed at the crate's pinned version when missing;
# wasm-opt (binaryen) shrinks the .wasm. Idempotent: an unchanged build only re-checks cargo.
#
# Environment: NODECAST_WASM_ROUTE=rustup|debian forces a route; CARGO_TARGET_DIR is ignored
# (the wasm build always uses bindings-wasm/target/<route>, never the root's target/).
# Output: progress on stderr; the size lines on stdout.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(dirname "$HERE")"
PKG="$HERE/pkg"
TARGET=wasm32-unknown-unknown
WB_VERSION=0.2.130
APT_PACKAGES=(rustc-web cargo-web rust-web-src lld binaryen)
SIZE_LIMIT=$((1152 * 1024)) # gzip -9 of the .wasm (catalog included); 1.125 MiB, see docs/front-ends.md
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

log() { echo "== $*" >&2; }
die() {
  echo "bindings-wasm/scripts/build.sh: error: $*" >&2
  exit 1
}

as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root to run '$*' and sudo is not available: run this script as root, or install a rustup toolchain with 'rustup target add $TARGET'"
  fi
}

installed() { dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'; }

# apt_ensure PACKAGE...: install the packages that are missing (apt-get update once first).
APT_UPDATED=0
apt_ensure() {
  local missing=() p attempt
  for p in "$@"; do installed "$p" || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null 2>&1 ||
    die "missing ${missing[*]} and there is no apt-get: install Rust with rustup and run 'rustup target add $TARGET'"
  if [ "$APT_UPDATED" = 0 ]; then
    log "apt-get update"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    APT_UPDATED=1
  fi
  log "apt-get install ${missing[*]}"
  # Docker's Debian images delete downloaded .debs after every dpkg run (docker-clean), so a large
  # install can stop halfway ("cannot access archive"); a second run installs the rest.
  for attempt in 1 2 3; do
    if as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2; then
      break
    fi
    [ "$attempt" = 3 ] && die "apt-get install ${missing[*]} failed"
    log "apt-get install failed (attempt $attempt), retrying"
  done
  for p in "${missing[@]}"; do installed "$p" || die "$p is still not installed"; done
}

# ---- 1. Rust for wasm32 ----------------------------------------------------------------------
ROUTE="${NODECAST_WASM_ROUTE:-}"
if [ -z "$ROUTE" ]; then
  if command -v rustup >/dev/null 2>&1 && rustup target list --installed 2>/dev/null | grep -qx "$TARGET"; then
    ROUTE=rustup
  else
    ROUTE=debian
  fi
fi
TARGET_DIR="$HERE/target/$ROUTE"
WASM_IN="$TARGET_DIR/$TARGET/release/nodecast_wasm.wasm"

cd "$HERE"
case "$ROUTE" in
  rustup)
    log "cargo build ($TARGET from rustup)"
    CARGO_TARGET_DIR="$TARGET_DIR" cargo build --release --target "$TARGET" >&2
    ;;
  debian)
    apt_ensure "${APT_PACKAGES[@]}"
    log "cargo build ($TARGET with Debian's rustc-web and -Zbuild-std)"
    # std's `optimize_for_size`: one small sort per element type instead of driftsort/ipnsort
    # (sort code was 388 kB of the 3.08 MB un-optimised module), shorter integer formatting and
    # float parsing. The answers stay the same bytes: a stable sort has one result, and every
    # unstable sort nodecast and its solvers run orders keys that tie only on equal elements
    # (docs/front-ends.md); float parsing stays correctly rounded.
    PATH="/usr/bin:$PATH" RUSTC_BOOTSTRAP=1 CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=wasm-ld \
      CARGO_TARGET_DIR="$TARGET_DIR" \
      /usr/bin/cargo build --release --target "$TARGET" -Zbuild-std=std,panic_abort \
      -Zbuild-std-features=optimize_for_size >&2
    ;;
  *) die "NODECAST_WASM_ROUTE must be rustup or debian, not '$ROUTE'" ;;
esac
[ -f "$WASM_IN" ] || die "cargo did not produce $WASM_IN"

# ---- 2. Tools: wasm-bindgen (pinned) and wasm-opt ------------------------------------------------
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WB_VERSION" ]; then
  log "cargo install wasm-bindgen-cli --version $WB_VERSION (a few minutes, once)"
  # Not --locked: one of its locked dependencies is missing from some registry mirrors.
  cargo install wasm-bindgen-cli --version "$WB_VERSION" >&2
  [ "$(wasm-bindgen --version 2>/dev/null)" = "wasm-bindgen $WB_VERSION" ] || die "wasm-bindgen $WB_VERSION is not on PATH after cargo install"
fi
# (The Debian route installed binaryen above; with rustup, install binaryen yourself for a smaller
# module: without wasm-opt the build still works, unoptimised.)

# ---- 3. Bind, optimise, assemble pkg/ (skipped when nothing changed) -----------------------------
fingerprint() {
  {
    sha256sum "$WASM_IN" "$HERE/scripts/build.sh" "$HERE"/js/* "$ROOT/schema/answers.schema.json" "$HERE/README.md" 2>/dev/null | cut -d' ' -f1
    wasm-bindgen --version
    command -v wasm-opt >/dev/null 2>&1 && wasm-opt --version
  } | sha256sum | cut -d' ' -f1
}
STAMP="$(fingerprint)"
if [ -f "$PKG/.stamp" ] && [ "$(cat "$PKG/.stamp")" = "$STAMP" ]; then
  log "pkg/ is up to date"
else
  TMP="$HERE/pkg.tmp"
  rm -rf "$TMP"
  mkdir -p "$TMP"
  # wasm-opt runs on cargo's module, before wasm-bindgen: binaryen 108 (Debian 12) rewrites
  # wasm-bindgen's output wrongly (the `__wbindgen_externrefs` export ends up naming the funcref
  # table: "WebAssembly.Table.set(): Argument 1 is invalid"). The optimised module is checked
  # in Node below and dropped if it does not work.
  OPT_IN="$WASM_IN"
  if command -v wasm-opt >/dev/null 2>&1; then
    log "wasm-opt -Oz"
    # Features come from the module's target_features section; name them if that fails.
    if wasm-opt -Oz "$WASM_IN" -o "$TMP/opt.wasm" 2>/dev/null ||
      wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
        --enable-mutable-globals --enable-reference-types --enable-multivalue "$WASM_IN" -o "$TMP/opt.wasm"; then
      OPT_IN="$TMP/opt.wasm"
    else
      log "wasm-opt failed: keeping the unoptimised module"
    fi
  else
    log "wasm-opt not found (binaryen): the module is not size-optimised"
  fi
  bind() {
    rm -rf "$TMP/web" "$TMP/node"
    log "wasm-bindgen --target web, --target nodejs"
    # --experimental-reset-state-function: __wbg_reset_state() re-instantiates the module after a
    # panic (api.js); wasm-bindgen 0.2.130 has it for both targets.
    wasm-bindgen --target web --experimental-reset-state-function --out-dir "$TMP/web" --out-name nodecast_wasm "$1"
    wasm-bindgen --target nodejs --experimental-reset-state-function --out-dir "$TMP/node" --out-name nodecast_wasm "$1"
    echo '{ "type": "commonjs" }' >"$TMP/node/package.json"
  }
  smoke() {
    command -v node >/dev/null 2>&1 || return 0
    node -e 'const m = require(process.argv[1]);
      const a = JSON.parse(m.callJson("catalog", JSON.stringify({ query: { limit: 1 } })));
      if (a.status !== "success") throw new Error(JSON.stringify(a));' "$TMP/node/nodecast_wasm.js" >&2
  }
  bind "$OPT_IN"
  if ! smoke; then
    [ "$OPT_IN" != "$WASM_IN" ] || die "the module does not work in Node (see above)"
    log "the optimised module does not work in Node: binding the unoptimised one"
    bind "$WASM_IN"
    smoke || die "the module does not work in Node (see above)"
  fi
  rm -f "$TMP/opt.wasm"
  cp "$HERE"/js/{index.js,node.js,api.js,nodecast.d.ts,answers.d.ts,package.json} "$TMP/"
  # The answers' JSON Schema (generated with answers.d.ts by `make schema`), shipped.
  cp "$ROOT/schema/answers.schema.json" "$TMP/"
  cp "$HERE/README.md" "$TMP/README.md"
  echo "$STAMP" >"$TMP/.stamp"
  rm -rf "$PKG"
  mv "$TMP" "$PKG"
fi

# The package under its own name for the tests (tests/ import 'nodecast-wasm', like a user).
mkdir -p "$HERE/node_modules"
ln -sfn ../pkg "$HERE/node_modules/nodecast-wasm"

# ---- 4. The playground's copy (browser build only) ----------------------------------------------
if [ -d "$ROOT/web-demo" ]; then
  DEMO="$ROOT/web-demo/pkg"
  if ! diff -rq "$PKG/web" "$DEMO/web" >/dev/null 2>&1 ||
    ! cmp -s "$PKG/.stamp" "$DEMO/.stamp"; then
    log "copying the browser build to web-demo/pkg/"
    rm -rf "$DEMO"
    mkdir -p "$DEMO"
    cp -r "$PKG"/{index.js,api.js,nodecast.d.ts,answers.d.ts,package.json,web,.stamp} "$DEMO/"
  fi
fi

# ---- 5. Sizes (stdout) -----------------------------------------------------------------------------
gz() { gzip -9 -c "$@" | wc -c; }
raw() { cat "$@" | wc -c; }
WASM="$PKG/web/nodecast_wasm_bg.wasm"
JS=("$PKG/index.js" "$PKG/api.js" "$PKG/web/nodecast_wasm.js")
WASM_GZ=$(gz "$WASM")
echo "route: $ROUTE ($(wasm-bindgen --version), $(command -v wasm-opt >/dev/null 2>&1 && wasm-opt --version || echo 'no wasm-opt'))"
echo "size: wasm (embedded catalog included) $(raw "$WASM") bytes raw, $WASM_GZ bytes gzip -9 (limit $SIZE_LIMIT)"
echo "size: browser JS (index.js, api.js, web/nodecast_wasm.js) $(raw "${JS[@]}") bytes raw, $(cat "${JS[@]}" | gzip -9 -c | wc -c) bytes gzip -9"
if [ "$WASM_GZ" -gt "$SIZE_LIMIT" ]; then
  echo "size: OVER the 1.125 MiB gzip budget" >&2
fi

#!/usr/bin/env bash
# Whole-process timing of `nodecast plan ... -o json` on Karpenter's scheduling-benchmark inputs
# (../shared/bench/karpenter-diverse: N/pods.yaml.gz, N/nodepool.yaml, catalog.yaml).
#
#   benches/cli_timing.sh [RUNS] [SIZES...]      # defaults: 5 runs of 1000 5000 20000
#   NODECAST=path/to/nodecast BENCH=dir benches/cli_timing.sh 3 20000
#   benches/cli_timing.sh 3 1000 5000 20000 100000   # sizes without a dump are generated
#
# A size with no N/pods.yaml.gz in BENCH (100,000: a 60 MB file, not committed) is generated
# with the same distribution by the `karpenter_pods` example (deterministic, seed 42; built
# here if missing) and run with the dumped NodePool as it is (its `memory: 10000000Gi` limit,
# past what i64 milli-units hold, is never booked down from that cap: it binds nowhere, as in
# Karpenter; core/tests/capped_limits.rs).
# Per size: the median over RUNS of wall, user and system seconds and of the peak RSS
# (/usr/bin/time), the input and answer sizes, and decode-free throughput is left to criterion.
# The pods are decompressed once, outside the timing. The answer goes to /dev/null after one
# checked run (status "success").
set -euo pipefail
RUNS=${1:-5}
shift || true
SIZES=${*:-1000 5000 20000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=${BENCH:-$ROOT/../shared/bench/karpenter-diverse}
NODECAST=${NODECAST:-$ROOT/target/release/nodecast}
[ -x "$NODECAST" ] || { echo "build first: cargo build --release -p nodecast-cli" >&2; exit 2; }
[ -d "$BENCH" ] || { echo "no benchmark inputs at $BENCH" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-11s %10s %10s %10s %10s %10s %10s %s\n' pods "wall s" "user s" "sys s" "RSS MB" "in MB" "out MB" NodeClaims
GEN=${GEN:-$ROOT/target/release/examples/karpenter_pods}
for n in $SIZES; do
  nodepool="$BENCH/$n/nodepool.yaml"
  if [ -f "$BENCH/$n/pods.yaml.gz" ]; then
    gzip -dc "$BENCH/$n/pods.yaml.gz" > "$TMP/pods.yaml"
  else
    [ -x "$GEN" ] || (cd "$ROOT" && cargo build --release -q -p nodecast-benches --example karpenter_pods)
    "$GEN" "$n" > "$TMP/pods.yaml"
    nodepool="$BENCH/20000/nodepool.yaml"
    n="$n(gen)"
  fi
  args=(plan "$nodepool" "$TMP/pods.yaml" --catalog "$BENCH/catalog.yaml" -o json)
  "$NODECAST" "${args[@]}" > "$TMP/answer.json"
  grep -q '"status": "success"' "$TMP/answer.json" || { echo "$n: the plan failed" >&2; head -c 2000 "$TMP/answer.json" >&2; exit 1; }
  claims=$(grep -c '"nodePool": ' "$TMP/answer.json" || true)
  : > "$TMP/times"
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f '%e %U %S %M' -a -o "$TMP/times" "$NODECAST" "${args[@]}" > /dev/null
  done
  in_mb=$(du -bc "$nodepool" "$TMP/pods.yaml" "$BENCH/catalog.yaml" | tail -1 | awk '{printf "%.1f", $1/1e6}')
  out_mb=$(awk '{printf "%.1f", $1/1e6}' <<< "$(stat -c %s "$TMP/answer.json")")
  printf '%-11s %10s %10s %10s %10s %10s %10s %s\n' "$n" \
    "$(awk '{print $1}' "$TMP/times" | median)" "$(awk '{print $2}' "$TMP/times" | median)" \
    "$(awk '{print $3}' "$TMP/times" | median)" "$(awk '{printf "%.0f\n", $4/1024}' "$TMP/times" | median)" \
    "$in_mb" "$out_mb" "$claims"
done

#!/usr/bin/env bash
# Runs every fuzz target in turn for FUZZ_TIME seconds (default 600) on one core, starting from
# the kept seeds and regressions, and appends one summary line per target to fuzz/campaign.log:
#   <date> <target> <seconds> execs=<n> exec/s=<n> corpus=<n> result=<ok|FINDING>
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). A finding leaves its
# input under fuzz/artifacts/<target>/; fix it, then copy the input to fuzz/regressions/<target>/.
set -uo pipefail
cd "$(dirname "$0")/.."
FUZZ_TIME=${FUZZ_TIME:-600}
TARGETS=${TARGETS:-"front_door quantity requirements facade_plan facade_consolidate facade_simulate facade_node_groups trace_text sweep_spec"}
# Build flags, the same for build and run (a difference rebuilds everything): release with
# overflow checks and debug assertions (-O -a), no sanitizer by default (the core is safe Rust;
# SANITIZER=address adds ASan at about 2x the cost). TIMEOUT: seconds per input before a
# timeout finding (generous: the campaign runs at nice 19 on shared machines).
FLAGS=(-O -a -s "${SANITIZER:-none}")
TIMEOUT=${TIMEOUT:-30}
command -v cargo-fuzz >/dev/null 2>&1 || { echo "cargo-fuzz not found: cargo install cargo-fuzz"; exit 1; }
cargo +nightly fuzz build "${FLAGS[@]}" >/dev/null || exit 1
status=0
for t in $TARGETS; do
  mkdir -p "corpus/$t" "artifacts/$t"
  for kept in seeds regressions; do
    [ -d "$kept/$t" ] && cp -n "$kept/$t"/* "corpus/$t/" 2>/dev/null
  done
  log="fuzz-$t.log"
  cargo +nightly fuzz run "${FLAGS[@]}" "$t" "corpus/$t" -- \
    -max_total_time="$FUZZ_TIME" -rss_limit_mb=2048 -timeout="$TIMEOUT" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  corpus=$(ls "corpus/$t" | wc -l)
  result=ok; [ $rc -eq 0 ] || { result=FINDING; status=1; }
  line="$(date -u +%Y-%m-%dT%H:%MZ) $t ${FUZZ_TIME}s execs=${execs:-?} exec/s=${speed:-?} corpus=$corpus result=$result"
  echo "$line" | tee -a campaign.log
done
exit $status

#!/bin/sh
# Runs Karpenter v1.15.0's own test suites against envtest with nodecast's instrumentation
# (issue 39). Nothing of Karpenter's is committed: its module is copied from the Go module cache
# into a temporary directory, our dump.go.in is added to the copy's package provisioning (one call
# inserted into Provisioner.Schedule) and dump_disruption.go.in to its package disruption (two calls
# inserted into the disruption Controller). Each suite writes its provisioning passes (JSON lines)
# to $OUT/<suite>.jsonl, its disruption decisions to $OUT/<suite>.disrupt.jsonl and its `go test`
# log to $OUT/<suite>.log.
#
# usage: run.sh OUT_DIR SUITE...   (SUITE: a package under pkg/, e.g. controllers/provisioning/scheduling)
# env:   KUBEBUILDER_ASSETS (envtest's kube-apiserver and etcd), GOTOOLCHAIN, SUITE_TIMEOUT (default 60m),
#        SUITE_WORK (the copy; default oracle/out/suite-karpenter: a fixed path keeps Go's build cache
#        warm between runs), SUITE_COMPILE_ONLY=1 (build the test binaries, run nothing),
#        SUITE_FOCUS (a ginkgo focus regexp: run only the specs it matches)
set -eu
out=$(cd "$1" && pwd); shift
here=$(cd "$(dirname "$0")" && pwd)
version=$(sed -n 's/^require sigs.k8s.io\/karpenter \(v[^ ]*\)$/\1/p' "$here/../go.mod")
src=$(cd "$here/.." && go list -m -f '{{.Dir}}' sigs.k8s.io/karpenter)
work=${SUITE_WORK:-$here/../out/suite-karpenter}
[ ! -d "$work" ] || { chmod -R u+w "$work"; rm -rf "$work"; }
mkdir -p "$work"
cp -R "$src" "$work/karpenter"
chmod -R u+w "$work/karpenter"
cd "$work/karpenter"
# hook FILE ANCHOR CALL: insert CALL after ANCHOR, a line that must be in FILE exactly once.
hook() {
  [ "$(grep -c -x -F "$2" "$1")" = 1 ] || {
    echo "run.sh: the hook's anchor line is not in Karpenter $version's $1 exactly once: $2" >&2; exit 1; }
  sed -i "/^$(printf '%s' "$2" | sed 's/[][\.*^$/]/\\&/g')\$/a\\
$3" "$1"
}
cp "$here/dump.go.in" pkg/controllers/provisioning/nodecast_dump.go
# Provisioning: right after Schedule truncates the result's instance types (what it returns).
hook pkg/controllers/provisioning/provisioner.go \
  '	results = results.TruncateInstanceTypes(ctx, scheduler.MaxInstanceTypes)' \
  '	nodecastDumpPass(ctx, p, pods, deletingPodUIDs, nodes, results)'
cp "$here/dump_disruption.go.in" pkg/controllers/disruption/nodecast_dump.go
# Disruption: where a method's commands lost their no-ops (non-empty: that method decides the
# Reconcile), and where Reconcile finds that every method did nothing.
hook pkg/controllers/disruption/controller.go \
  '	cmds = lo.Filter(cmds, func(c Command, _ int) bool { return c.Decision() != NoOpDecision })' \
  '	nodecastDumpDecision(ctx, c, disruption, cmds)'
# And right before Reconcile runs its methods: what the cluster was when the decision began.
hook pkg/controllers/disruption/controller.go \
  "	// Attempt different disruption methods. We'll only let one method perform an action" \
  '	nodecastReconcileStart(ctx, c)'
hook pkg/controllers/disruption/controller.go \
  '	// All methods did nothing, so return nothing to do' \
  '	nodecastDumpDecision(ctx, c, nil, nil)'
echo "== Karpenter $version copied to $work/karpenter, hook inserted"
status=0
for suite in "$@"; do
  name=$(echo "$suite" | tr / -)
  if [ "${SUITE_COMPILE_ONLY:-}" = 1 ]; then
    echo "== go test -c ./pkg/$suite"
    nice -n 15 go test -c -o /dev/null "./pkg/$suite" || status=1
    continue
  fi
  rm -f "$out/$name.jsonl" "$out/$name.disrupt.jsonl"
  echo "== go test ./pkg/$suite ($(date -u +%H:%M:%S))"
  NODECAST_SUITE_DUMP="$out/$name.jsonl" NODECAST_SUITE_DISRUPT_DUMP="$out/$name.disrupt.jsonl" nice -n 15 go test "./pkg/$suite" -count=1 -timeout "${SUITE_TIMEOUT:-60m}" \
    -ginkgo.no-color -ginkgo.json-report="$out/$name.report.json" ${SUITE_FOCUS:+"-ginkgo.focus=$SUITE_FOCUS"} > "$out/$name.log" 2>&1 || status=1
  tail -n 5 "$out/$name.log"
done
exit $status

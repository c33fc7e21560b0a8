#!/usr/bin/env bash
# Issue 29's hostile cases against the CLI, each under a 4 GB address-space limit and a time
# limit: prints one line per case (exit code, seconds, peak RSS, the answer's first line).
# Usage: tools/probe29.sh [path/to/nodecast]   (default target/release/nodecast)
# Expected: every case ends in a located error or an answer within its limit (no 124 timeout,
# no 134/137 abort, no 101 panic); the table in docs/performance.md names the test of each.
set -u
BIN=$(realpath "${1:-target/release/nodecast}")
D=$(mktemp -d /tmp/probe29.XXXXXX)
trap 'rm -rf "$D"' EXIT
cd "$D"
POOL='apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []'
echo "$POOL" > pool.yaml
dep() { printf -- '---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s}\nspec:\n  replicas: %s\n  selector: {matchLabels: {app: %s}}\n  template:\n    metadata: {labels: {app: %s}}\n    spec: {containers: [{name: c, resources: {requests: {cpu: %s, memory: %s}}}]}\n' "$1" "$2" "$1" "$1" "${3:-1m}" "${4:-1Mi}"; }
job() { printf -- '---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: %s}\nspec:\n  template:\n    spec: {containers: [{name: c, resources: {requests: {cpu: 1m}}}]}\n' "$1"; }

probe() { # name limit_seconds cmd...
  local name=$1 limit=$2; shift 2
  local out=$D/out.$$ err=$D/err.$$ tv=$D/tv.$$
  ( ulimit -v 4000000; /usr/bin/time -v -o "$tv" timeout "$limit" "$@" >"$out" 2>"$err" )
  local rc
  rc=$(grep -o 'Exit status: [0-9]*' "$tv" | grep -o '[0-9]*$'); rc=${rc:-?}
  grep -q 'Command terminated by signal' "$tv" && rc="sig$(grep -o 'signal [0-9]*' "$tv" | grep -o '[0-9]*$')"
  local secs rss
  secs=$(grep 'Elapsed (wall' "$tv" | awk '{print $NF}')
  rss=$(grep 'Maximum resident' "$tv" | awk '{print int($NF/1024)}')
  local first
  first=$( (head -c 4000 "$err"; head -c 4000 "$out") | grep -v '^\s*$' | head -1 | cut -c1-110)
  printf '%-34s rc=%-5s %8s %5s MB  %s\n' "$name" "$rc" "$secs" "$rss" "$first"
  rm -f "$out" "$err" "$tv"
}

# -- totals across objects
RT='---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: shared}
spec:
  mlPolicy: {numNodes: 1, torch: {numProcPerNode: auto}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          spec:
            template:
              spec:
                containers: [{name: c, resources: {requests: {cpu: 1m}}}]'
{ echo "$RT"; for i in $(seq 12); do printf -- '---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: t%s}\nspec: {runtimeRef: {name: shared}, trainer: {numNodes: 190000}}\n' "$i"; done; } > trainjobs.yaml
probe "12 TrainJobs, one runtime: validate" 60 "$BIN" validate pool.yaml trainjobs.yaml
probe "12 TrainJobs, one runtime: plan" 60 "$BIN" plan pool.yaml trainjobs.yaml
for i in $(seq 20); do dep "d$i" 1999999; done > deps.yaml
probe "20 Deployments under the cap" 60 "$BIN" plan pool.yaml deps.yaml
dep str 3 | sed 's/replicas: 3/replicas: "3"/' > str.yaml
probe "replicas: \"3\"" 30 "$BIN" validate pool.yaml str.yaml
dep huge 3000000 > huge.yaml
probe "cap exit class (3,000,000 replicas)" 30 "$BIN" validate pool.yaml huge.yaml

# -- simulate
job train > job.yaml
printf 'kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/train, replicas: 100000, runTime: 1h}, repeat: {every: 1m, times: 100000}}\n' > rep.yaml
probe "trace repeat x replicas = 1e10" 60 "$BIN" simulate pool.yaml job.yaml --trace rep.yaml
{ echo "time,workload,replicas,runTime"; seq 0 9999999 | awk '{print $1"s,Job/train,1,1m"}'; } > big.csv
probe "CSV trace of 1e7 rows" 120 "$BIN" simulate pool.yaml job.yaml --trace big.csv
{ echo "time,workload,replicas,runTime"; yes ',,,' | head -c 8000000; } > empty.csv
probe "8 MB CSV of empty rows (bytes out)" 60 sh -c "\"$BIN\" simulate pool.yaml job.yaml --trace empty.csv 2>&1 | wc -c"
N=${PROBE_JOBS:-100000}
{ cat pool.yaml; for i in $(seq "$N"); do job "j$i"; done; } > jobs.yaml
{ echo "time,workload,replicas,runTime"; seq 1 "$N" | awk '{print ($1*60)"s,Job/j"$1",1,1m"}'; } > jobs.csv
probe "$N one-pod Jobs, one row each" 300 "$BIN" simulate jobs.yaml --trace jobs.csv -o json
printf '# start: 2025-03-03T00:00:00Z\ntime,workload,replicas,runTime\n2025-03-03T01:00:00Z,Job/train,1,30m\n' > rfc.csv
probe "CSV trace with RFC 3339 times" 30 "$BIN" simulate pool.yaml job.yaml --trace rfc.csv

# -- sweep
python3 - <<'PY'
seg = ".".join(["a"] * 30000)
open("deep.yaml", "w").write(f"operation: plan\ninputs: [pool.yaml]\ngrid:\n  - name: deep\n    target: NodePool/default\n    path: {seg}\n    values: [1, 2]\n")
vals = ", ".join(str(i) for i in range(1024))
open("huge-grid.yaml", "w").write("operation: plan\ninputs: [pool.yaml]\ngrid:\n" + "".join(f"  - name: w{i}\n    target: NodePool/default\n    path: spec.weight\n    values: [{vals}]\n" for i in range(7)))
PY
probe "sweep path of 30,000 segments" 30 "$BIN" sweep deep.yaml
probe "sweep 2^70 combinations (--dry-run)" 30 "$BIN" sweep huge-grid.yaml --dry-run
printf 'operation: plan\ninputs: [/etc/passwd]\n' > anyfile.yaml
probe "sweep spec naming /etc/passwd" 30 "$BIN" sweep anyfile.yaml
printf 'operation: plan\ninputs: [pool.yaml, job.yaml]\ngrid:\n  - name: w\n    target: NodePool/default\n    path: spec.weight\n    values: [1, 2]\n' > ok.yaml
probe "sweep --out into a missing dir" 30 "$BIN" sweep ok.yaml --out nodir/x.csv
probe "sweep --out = its own spec" 30 "$BIN" sweep ok.yaml --out ok.yaml
probe "sweep --dry-run into a closed pipe" 30 bash -c "\"$BIN\" sweep ok.yaml --dry-run 2>&1 | true; echo exit \${PIPESTATUS[0]}"

# -- output
probe "plan to a full disk (/dev/full)" 30 sh -c "\"$BIN\" plan pool.yaml job.yaml > /dev/full; echo exit \$?"
probe "plan with stdout closed" 30 sh -c "\"$BIN\" plan pool.yaml job.yaml >&- 2>/dev/null; echo exit \$?"

# -- optimize / advise
{ cat pool.yaml; for i in $(seq 0 199); do dep "d$i" 3 "$((100 + 37 * i))m" "$((128 + 53 * i))Mi"; done; } > shapes.yaml
probe "optimize 200 Deployment shapes" 120 "$BIN" optimize shapes.yaml
python3 - <<'PY'
import random
random.seed(29)
fams = ["m5", "c5", "r5", "m6i", "c6i", "r6i", "m7i", "c7i", "r7i", "g5", "g6", "p4d", "p5"]
out = []
for i in range(300):
    f = fams[i % len(fams)]
    out.append(f"---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: p{i}}}\nspec:\n  weight: {1 + i % 100}\n  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\n      requirements:\n      - {{key: karpenter.k8s.aws/instance-family, operator: In, values: [{f}]}}\n      - {{key: karpenter.k8s.aws/instance-cpu, operator: Lt, values: ['{8 + (i % 7) * 16}']}}\n")
for j in range(50):
    out.append(f"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: s{j}}}\nspec:\n  replicas: {1 + j % 9}\n  selector: {{matchLabels: {{app: s{j}}}}}\n  template:\n    metadata: {{labels: {{app: s{j}}}}}\n    spec: {{containers: [{{name: c, resources: {{requests: {{cpu: {100 + 61 * j}m, memory: {256 + 97 * j}Mi}}}}}}]}}\n")
open("pools-shapes.yaml", "w").write("".join(out))
PY
probe "optimize 300 pools x 50 shapes, 5 s" 120 "$BIN" optimize pools-shapes.yaml --time-budget 5
probe "advise 300 pools x 50 shapes, 5 s" 300 "$BIN" advise pools-shapes.yaml --time-budget 5

# -- exclusive placement
ex() { # jobs kind
  if [ "$2" = jobset ]; then
    printf -- '---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: js\n  annotations: {alpha.jobset.sigs.k8s.io/exclusive-topology: kubernetes.io/hostname}\nspec:\n  replicatedJobs:\n  - name: w\n    replicas: %s\n    template:\n      spec:\n        parallelism: 1\n        completions: 1\n        template:\n          spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}\n' "$1"
  else
    printf -- '---\napiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: lws\n  annotations: {leaderworkerset.sigs.k8s.io/exclusive-topology: kubernetes.io/hostname}\nspec:\n  replicas: %s\n  leaderWorkerTemplate:\n    size: 1\n    workerTemplate:\n      spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}\n' "$1"
  fi
}
for n in ${PROBE_EXCLUSIVE:-1000 2000}; do
  ex "$n" jobset > js.yaml; probe "JobSet $n exclusive Jobs" 120 "$BIN" plan pool.yaml js.yaml -o json
  ex "$n" lws > lws.yaml; probe "LWS $n exclusive groups" 120 "$BIN" plan pool.yaml lws.yaml -o json
done

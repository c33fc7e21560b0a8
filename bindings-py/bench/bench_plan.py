"""Benchmark: a 10,000-pod plan from Python dicts, against the Rust core on the same request.

    python bench/bench_plan.py                      # diverse 10k pods, 5 rounds, with the Rust timing
    python bench/bench_plan.py --case one-app --pods 10000 --rounds 3
    python bench/bench_plan.py --no-rust            # Python side only

The input is the diverse benchmark of benches/src/lib.rs, generated in Python with the same
SplitMix64 seed: one NodePool dict (on-demand + spot), an inline catalog of 400 synthetic types,
and N pod dicts (one fifth each generic, zone spread, hostname spread, zone affinity, hostname
anti-affinity; apps of 10-50 replicas, or one app per kind with --case one-app). It is the same
request as `one_case diverse N` (benches/examples/one_case.rs), so the NodeClaim count can be
checked against that.

Per round it times:

* python total: ``nodecast.plan(nodepool, pods, catalog=...)`` end to end: building the request
  JSON from the dicts, the native call (GIL released), parsing the answer into frozen results;
* native call: ``nodecast._native.call("plan", request_json)`` on the same request JSON (the
  Rust core through pyo3: isolates the Python-side overhead);
* rust core: ``nodecast::call("plan", request_json)`` timed in Rust by the bindings crate's
  ``time_call`` example, on the request JSON this script writes (no Python in the process).

Target: python total <= 2x the Rust core. Prints a Markdown table (best and median of the rounds).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence, Tuple

import nodecast
from nodecast import _native

HERE = Path(__file__).resolve().parent
BINDINGS = HERE.parent
MASK = (1 << 64) - 1


class SplitMix64:
    """The benches crate's generator, bit for bit."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return self.next() % n

    def between(self, lo: int, hi: int) -> int:
        return lo + self.below(hi - lo + 1)

    def pick(self, items: Sequence[Any]) -> Any:
        return items[self.below(len(items))]


CORES = [1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 72, 96]
RATIOS = [(2, 0.0425), (4, 0.048), (8, 0.063)]
ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
KINDS = ["generic", "zone-spread", "host-spread", "zone-affinity", "host-anti"]


def _reserved_cpu_milli(cores: int) -> int:
    c = float(cores)
    m = 60.0 + 10.0 * min(max(c - 1.0, 0.0), 1.0) + 5.0 * min(max(c - 2.0, 0.0), 2.0) + 2.5 * max(c - 4.0, 0.0)
    return math.ceil(m)


def _allocatable_memory_mib(gib: int) -> int:
    mib = gib * 1024
    vm = mib - math.ceil(mib * 0.075)
    return max(max(vm - (11 * 110 + 255 + 100), 0), 256)


def synthetic_catalog(n: int = 400) -> Dict[str, Any]:
    types = []
    for i in range(n):
        shape = i % (len(CORES) * len(RATIOS))
        variant = i // (len(CORES) * len(RATIOS))
        cores = CORES[shape // len(RATIOS)]
        gib_per_core, price_per_core = RATIOS[shape % len(RATIOS)]
        gib = cores * gib_per_core
        price = cores * price_per_core * (1.0 + 0.021 * variant + 0.0003 * shape)
        price = math.floor(price * 1e5 + 0.5) / 1e5  # Rust's f64::round (half away from zero)
        types.append(
            {
                "name": f"synth-{i}",
                "capacity": {"cpu": str(cores), "memory": f"{gib}Gi", "pods": "110"},
                "allocatable": {
                    "cpu": f"{cores * 1000 - _reserved_cpu_milli(cores)}m",
                    "memory": f"{_allocatable_memory_mib(gib)}Mi",
                    "pods": "110",
                },
                "labels": {"example.com/family": f"f{variant}", "example.com/cores": str(cores)},
                "onDemandPrice": price,
            }
        )
    return {"instanceTypes": types}


def default_nodepool() -> Dict[str, Any]:
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "default"},
        "spec": {
            "template": {
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                    "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand", "spot"]}],
                }
            }
        },
    }


def _pod(kind: str, app: str, name: str, rng: SplitMix64) -> Dict[str, Any]:
    cpu = rng.pick(["100m", "250m", "500m", "1", "1500m", "2", "4"])
    memory = rng.pick(["100Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi"])
    selector = {"matchLabels": {"app": app}}
    spec: Dict[str, Any] = {
        "containers": [{"name": "app", "image": "registry.k8s.io/pause:3.9", "resources": {"requests": {"cpu": cpu, "memory": memory}}}]
    }
    if kind in ("zone-spread", "host-spread"):
        key = ZONE if kind == "zone-spread" else HOSTNAME
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule", "labelSelector": selector}]
    elif kind == "zone-affinity":
        spec["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": selector, "topologyKey": ZONE}]}}
    elif kind == "host-anti":
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": selector, "topologyKey": HOSTNAME}]}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "labels": {"app": app}}, "spec": spec}


def diverse_pods(n: int, seed: int = 42, one_app: bool = False) -> List[Dict[str, Any]]:
    rng = SplitMix64(seed)
    per_kind = n // 5
    pods: List[Dict[str, Any]] = []
    for kind in KINDS:
        count = n - 4 * per_kind if kind == "generic" else per_kind
        made = group = 0
        while made < count:
            size = count - made if one_app else min(rng.between(10, 50), count - made)
            app = f"{kind}-{group}"
            for r in range(size):
                pods.append(_pod(kind, app, f"{app}-{r}", rng))
            made += size
            group += 1
    return pods


def _time(f: Callable[[], Any]) -> Tuple[float, Any]:
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


def rust_times(request_path: str, rounds: int) -> List[float]:
    """`nodecast::call("plan", json)` in Rust: the bindings crate's time_call example."""
    manifest = BINDINGS / "Cargo.toml"
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "--manifest-path", str(manifest), "--example", "time_call"],
        check=True,
    )
    target = Path(os.environ.get("CARGO_TARGET_DIR", BINDINGS / "target"))
    exe = target / "release" / "examples" / "time_call"
    out = subprocess.run([str(exe), request_path, "plan", str(rounds)], check=True, capture_output=True, text=True).stdout
    return [float(line.split()[1]) for line in out.splitlines() if line.startswith("#")]


def main(argv: Sequence[str] = ()) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pods", type=int, default=10_000)
    ap.add_argument("--case", choices=["diverse", "one-app"], default="diverse")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-rust", action="store_true", help="skip the Rust timing (needs cargo)")
    ap.add_argument("--write-request", metavar="FILE", help="write the request JSON and exit")
    args = ap.parse_args(list(argv) or None)

    t_gen, (pool, pods, catalog) = _time(lambda: (default_nodepool(), diverse_pods(args.pods, one_app=args.case == "one-app"), synthetic_catalog()))
    request = nodecast.request_json(pool, pods, catalog=catalog)
    if args.write_request:
        Path(args.write_request).write_text(request)
        return 0
    print(f"# {args.case} {args.pods} pods: generated {len(pods)} pod dicts in {t_gen:.2f} s; request {len(request) / 1e6:.1f} MB", file=sys.stderr)

    rows: Dict[str, List[float]] = {k: [] for k in ("python total", "  request JSON", "  native call", "  parse answer", "native call (same JSON)")}
    plan = None
    for i in range(args.rounds):
        total, plan = _time(lambda: nodecast.plan(pool, pods, catalog=catalog))
        # Where the Python total goes (the same three steps nodecast.plan runs).
        t_req, req = _time(lambda: nodecast.request_json(pool, pods, catalog=catalog))
        t_call, answer = _time(lambda: _native.call("plan", req))
        t_parse, _ = _time(lambda: nodecast.Plan._from(answer, json.loads(answer)))
        t_native, _ = _time(lambda: _native.call("plan", request))
        for k, v in zip(rows, (total, t_req, t_call, t_parse, t_native)):
            rows[k].append(v)
        print(f"# round {i}: python total {total:.3f} s, native call {t_native:.3f} s", file=sys.stderr)
    assert plan is not None
    print(f"# {len(plan.node_claims)} NodeClaims, {plan.pods_placed} pods placed, {len(plan.unschedulable)} unschedulable; answer {len(plan.to_json()) / 1e6:.1f} MB", file=sys.stderr)

    if not args.no_rust:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write(request)
        try:
            rows["rust core (nodecast::call)"] = rust_times(f.name, args.rounds)
        finally:
            os.unlink(f.name)

    print(f"\n{args.case} {args.pods} pods, {args.rounds} rounds, Python {platform.python_version()}, nodecast {nodecast.__version__}\n")
    print("| what | best | median |")
    print("|---|---:|---:|")
    for k, v in rows.items():
        print(f"| {k} | {min(v) * 1e3:.0f} ms | {statistics.median(v) * 1e3:.0f} ms |")
    base = rows.get("rust core (nodecast::call)") or rows["native call (same JSON)"]
    ratio = statistics.median(rows["python total"]) / statistics.median(base)
    overhead = statistics.median(rows["python total"]) - statistics.median(rows["native call (same JSON)"])
    print(f"\npython total / {'rust core' if 'rust core (nodecast::call)' in rows else 'native call'} (medians): {ratio:.2f}x (target <= 2x); Python-side overhead {overhead * 1e3:.0f} ms")
    return 0 if ratio <= 2.0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

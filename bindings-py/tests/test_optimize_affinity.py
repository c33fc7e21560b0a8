"""nodecast.optimize with required pod affinity (hostname and zone, to the workload itself or
another) and a NodePool minValues, against an independent exact model (OR-Tools CP-SAT): random
GPU instances over two zones. `optimal` is never wrong, the optimum is never below the exact one,
and it reaches it on at least 95 % of the instances compared.

The exact model counts pods per node slot and workload (pods of one workload are identical): one
slot per (type, capacity type, zone, i), the used slots of an offering a prefix ordered by GPUs
used, integer pods per (slot, workload). The rules with every pod in place:
- hostname affinity of w to v: a slot holding a pod of w holds a pod of v (v = w: another one,
  so 0 or at least 2), unless no other pod of v is placed at all;
- zone affinity of w to v: the same per zone, over the pods of each zone;
- minValues k on the instance type: at least k instance types (of the NodePool's) each hold all of
  a used slot's pods, as Karpenter requires of a NodeClaim before it launches it.
Only the pods Karpenter places are counted (those it leaves pending are out of both sides);
instances where nodecast keeps pods on Karpenter's NodeClaims are counted apart, not compared.
`python tests/test_optimize_affinity.py N PODS [SECONDS [CLI]]` runs N instances of up to PODS
pods through a CLI binary instead of the wheel and prints the counts."""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest
from helpers import GPU_TYPES, SPOT, cli_optimizer, gpu_catalog, solve_cp_sat, workload_of

TYPES = GPU_TYPES
ZONES = ["zone-a", "zone-b"]
HOST, ZONE = "kubernetes.io/hostname", "topology.kubernetes.io/zone"
Answer = Dict[str, Any]


def catalog() -> Dict[str, Any]:
    return gpu_catalog(ZONES)


def room(t: int) -> Tuple[int, int, int]:
    _, g, c, m, _ = TYPES[t]
    return (g, c * 1000 - 100, m * 1024 - 512)


class Instance:
    """Workloads (pod shape, replicas), affinities (owner, key, target), minValues, capacity types."""

    def __init__(self, seed: int, max_pods: int) -> None:
        r = random.Random(9000 + seed)
        self.capacity = ["on-demand"] if r.random() < 0.5 else ["spot", "on-demand"]
        self.min_values = r.choice([0, 0, 2, 3])
        n = r.randint(1, 3)
        self.shapes: List[Tuple[int, int, int]] = []
        self.replicas: List[int] = []
        left = max_pods
        for _ in range(n):
            if left <= 0:
                break
            k = max(1, min(left, r.randint(1, max(1, 2 * max_pods // n))))
            left -= k
            gpu = r.choice([1, 1, 2])
            self.shapes.append((gpu, r.choice([500, 2000, 3500]) * gpu, r.choice([2, 8, 14]) * gpu * 1024))
            self.replicas.append(k)
        self.affinity: List[Tuple[int, str, int]] = []
        for w in range(len(self.shapes)):
            key = r.choice([HOST, ZONE, None])
            if key is None:
                continue
            target = w if r.random() < 0.4 else r.randrange(len(self.shapes))
            self.affinity.append((w, key, target))

    def objects(self) -> List[Dict[str, Any]]:
        reqs: List[Dict[str, Any]] = [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": self.capacity}]
        if self.min_values:
            reqs.append({"key": "node.kubernetes.io/instance-type", "operator": "Exists", "minValues": self.min_values})
        out: List[Dict[str, Any]] = [{
            "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "gpu"},
            "spec": {"template": {"spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                "requirements": reqs,
            }}},
        }]
        for w, (gpu, cpu, mem) in enumerate(self.shapes):
            spec: Dict[str, Any] = {"containers": [{"name": "main", "image": "x", "resources": {
                "requests": {"cpu": f"{cpu}m", "memory": f"{mem}Mi"}, "limits": {"nvidia.com/gpu": str(gpu)}}}]}
            terms = [{"topologyKey": key, "labelSelector": {"matchLabels": {"app": f"w{t}"}}} for o, key, t in self.affinity if o == w]
            if terms:
                spec["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": terms}}
            out.append({
                "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": f"w{w}", "namespace": "ml"},
                "spec": {"replicas": self.replicas[w], "selector": {"matchLabels": {"app": f"w{w}"}},
                         "template": {"metadata": {"labels": {"app": f"w{w}"}}, "spec": spec}},
            })
        return out

    def exact(self, counts: List[int], seconds: float, ceiling: Optional[float] = None, hint: Optional[Answer] = None) -> Optional[float]:
        """The cheapest nodes for `counts` pods per workload under the rules ($/h), None when
        CP-SAT does not prove its optimum within `seconds`, -1.0 when none costs at most `ceiling`."""
        from ortools.sat.python import cp_model  # type: ignore[import-untyped,import-not-found,unused-ignore]

        m = cp_model.CpModel()
        nw = len(self.shapes)
        total = sum(counts)
        ceil = None if ceiling is None else round(ceiling * 1_000_000) + 1
        hinted: Dict[Tuple[str, str, str], List[List[int]]] = {}
        for c in (hint or {}).get("nodeClaims", []):
            per = [0] * nw
            for p in c["pods"]:
                per[workload_of(p)] += 1
            hinted.setdefault((c["instanceType"], c["capacityType"], c["zone"]), []).append(per)
        gpus_of = lambda per: sum(self.shapes[w][0] * k for w, k in enumerate(per))  # noqa: E731
        cost = []
        slot_counts: List[List[Any]] = []
        zone_sum: Dict[Tuple[str, int], List[Any]] = {}
        for t, (name, _, _, _, p) in enumerate(TYPES):
            for ct in self.capacity:
                price = round((p if ct == "on-demand" else round(p * SPOT, 4)) * 1_000_000)
                for z in ZONES:
                    nodes = sorted(hinted.get((name, ct, z), []), key=lambda per: -gpus_of(per))
                    prev: Optional[Tuple[Any, Any]] = None
                    for k in range(total if ceil is None else min(total, ceil // price)):
                        used = m.NewBoolVar("")
                        x = [m.NewIntVar(0, counts[w], "") for w in range(nw)]
                        cost.append(price * used)
                        load = [sum(self.shapes[w][d] * x[w] for w in range(nw)) for d in range(3)]
                        for d in range(3):
                            m.Add(load[d] <= room(t)[d] * used)
                        if prev is not None:  # interchangeable slots: a prefix, by GPUs used
                            m.Add(used <= prev[0])
                            m.Add(load[0] <= prev[1])
                        prev = (used, load[0])
                        if self.min_values:
                            fits = []
                            for u in range(len(TYPES)):
                                f = m.NewBoolVar("")
                                for d in range(3):
                                    m.Add(load[d] <= room(u)[d]).OnlyEnforceIf(f)
                                fits.append(f)
                            m.Add(sum(fits) >= self.min_values * used)
                        if hint is not None:
                            m.AddHint(used, k < len(nodes))
                            for w in range(nw):
                                m.AddHint(x[w], nodes[k][w] if k < len(nodes) else 0)
                        slot_counts.append(x)
                        for w in range(nw):
                            zone_sum.setdefault((z, w), []).append(x[w])
        for w in range(nw):
            m.Add(sum(x[w] for x in slot_counts) == counts[w])
        zc = [[sum(zone_sum.get((z, w), [])) for w in range(nw)] for z in ZONES]
        for owner, key, target in self.affinity:
            # No other pod of the target placed: the owner bootstraps anywhere.
            if counts[owner] == 0 or counts[target] - (1 if owner == target else 0) <= 0:
                continue
            places = slot_counts if key == HOST else zc
            for here in places:
                if owner == target:
                    b = m.NewBoolVar("")  # none here, or at least two
                    m.Add(here[owner] <= counts[owner] * b)
                    m.Add(here[owner] >= 2 * b)
                else:
                    b = m.NewBoolVar("")  # an owner pod here
                    m.Add(here[owner] <= counts[owner] * b)
                    m.Add(here[target] >= b)
        if ceil is not None:
            m.Add(sum(cost) <= ceil)
        m.Minimize(sum(cost))
        return solve_cp_sat(m, seconds)


def compare(optimize: Callable[[List[Dict[str, Any]]], Answer], seeds: range, max_pods: int, seconds: float = 60) -> Dict[str, Any]:
    out: Dict[str, Any] = {"instances": 0, "kept": 0, "unsolved": 0, "compared": 0, "optimal": 0, "reached": 0, "with_rules": 0,
                           "misses": [], "slowest_cp_sat": 0.0}
    for seed in seeds:
        inst = Instance(seed, max_pods)
        o = optimize(inst.objects())
        out["instances"] += 1
        assert o["lowerBoundPerHour"] <= o["optimumPricePerHour"] + 1e-9, seed
        if o["keptPods"] > 0:
            out["kept"] += 1
            continue
        counts = [0] * len(inst.shapes)
        for c in o["karpenterNodeClaims"]:
            for p in c["pods"]:
                counts[workload_of(p)] += 1
        start = time.monotonic()
        got = o["optimumPricePerHour"]
        exact = inst.exact(counts, seconds, got, o)
        out["slowest_cp_sat"] = max(out["slowest_cp_sat"], time.monotonic() - start)
        assert exact is None or exact >= 0, (seed, "nodecast's optimum is below every placement", got)
        if exact is None:
            out["unsolved"] += 1
            continue
        out["compared"] += 1
        out["with_rules"] += bool(inst.affinity) or bool(inst.min_values)
        assert got >= exact - 1e-6, (seed, got, exact)
        if o["certificate"] == "optimal":
            out["optimal"] += 1
            assert abs(got - exact) < 1e-6, (seed, got, exact)
        if abs(got - exact) < 1e-6:
            out["reached"] += 1
        else:
            out["misses"].append((seed, round((got - exact) / exact * 100, 2)))
    return out


def test_pod_affinity_and_min_values_against_cp_sat() -> None:
    pytest.importorskip("ortools")
    import nodecast

    def optimize(objects: List[Dict[str, Any]]) -> Answer:
        return json.loads(nodecast.optimize(*objects, catalog=catalog()).to_json())  # type: ignore[no-any-return]

    r = compare(optimize, range(30), 12)
    print("pod affinity and minValues vs CP-SAT:", r)
    assert r["compared"] >= 20 and r["with_rules"] >= 15, r
    assert r["reached"] >= 0.95 * r["compared"], r


def main() -> None:
    """Through a CLI binary: `python test_optimize_affinity.py INSTANCES MAX_PODS [SECONDS [CLI]]`."""
    n, max_pods = int(sys.argv[1]), int(sys.argv[2])
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
    cli = sys.argv[4] if len(sys.argv) > 4 else "target/release/nodecast"

    optimize = cli_optimizer(cli, catalog())
    r = compare(optimize, range(n), max_pods, seconds)
    print(json.dumps(r))
    assert r["reached"] >= 0.95 * r["compared"], r


if __name__ == "__main__":
    main()

"""nodecast.optimize(running=True) against an independent exact model (OR-Tools CP-SAT): random
running GPU clusters (nodes of one on-demand NodePool holding pods of a few workloads, some pods
`karpenter.sh/do-not-disrupt`, which pins their node, one workload sometimes one replica per
node by hostname anti-affinity). `optimal` is never wrong, the optimum is never below the exact
one, and it reaches it on at least 95 % of the instances.

The exact model keeps each pinned node with its pods, its free room open to moved pods, opens
new nodes of any type (a removable node kept is one of them: same price, same room once its pods
move), and places the moved pods by count per (node, workload): pods of one workload are
identical. It is asked for a placement no dearer than nodecast's (so an infeasible model means
nodecast's answer is below every placement), with nodecast's new nodes as a hint.
`python tests/test_optimize_running.py N [MAX_NODES [CLI [SECONDS]]]` runs N instances (2 to
MAX_NODES nodes of up to 4 pods each) through a CLI binary instead of the wheel and prints the counts."""

from __future__ import annotations

import json
import random
import sys
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest
from helpers import GPU_TYPES, cli_optimizer, gpu_allocatable, gpu_catalog, solve_cp_sat, workload_of

TYPES = GPU_TYPES
NOW = "2025-03-05T12:00:00Z"
Answer = Dict[str, Any]


def catalog() -> Dict[str, Any]:
    return gpu_catalog(["zone-a"])


def room(t: int) -> Tuple[int, int, int]:
    _, g, c, m, _ = TYPES[t]
    return (g, c * 1000 - 100, m * 1024 - 512)


class Instance:
    """Nodes (type, pinned), pods (workload, node, do-not-disrupt), workload shapes (gpu, mcpu, MiB)."""

    def __init__(self, seed: int, max_nodes: int = 6) -> None:
        r = random.Random(seed)
        self.shapes: List[Tuple[int, int, int]] = []
        for _ in range(r.randint(1, 3)):
            gpu = r.choice([1, 1, 2])
            self.shapes.append((gpu, r.choice([500, 2000, 3500]) * gpu, r.choice([2, 8, 14]) * gpu * 1024))
        self.one_per_node = r.random() < 0.4  # workload 0: one replica per node
        self.nodes: List[int] = []
        self.pods: List[Tuple[int, int, bool]] = []
        for n in range(r.randint(2, max_nodes)):
            t = r.randrange(len(TYPES))
            self.nodes.append(t)
            left = list(room(t))
            for _ in range(r.randint(1, 4)):
                w = r.randrange(len(self.shapes))
                if self.one_per_node and w == 0 and any(p[0] == 0 and p[1] == n for p in self.pods):
                    continue
                need = self.shapes[w]
                if all(need[d] <= left[d] for d in range(3)):
                    left = [left[d] - need[d] for d in range(3)]
                    self.pods.append((w, n, r.random() < 0.12))
        self.pinned = [any(p[2] and p[1] == n for p in self.pods) for n in range(len(self.nodes))]

    def objects(self) -> List[Dict[str, Any]]:
        out: List[Dict[str, Any]] = [
            {
                "apiVersion": "karpenter.sh/v1",
                "kind": "NodePool",
                "metadata": {"name": "gpu"},
                "spec": {"template": {"spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                    "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}],
                }}},
            }
        ]
        for n, t in enumerate(self.nodes):
            name, g, c, m, _ = TYPES[t]
            out.append({
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": f"node-{n}", "creationTimestamp": "2025-03-05T08:00:00Z", "labels": {
                    "karpenter.sh/nodepool": "gpu", "karpenter.sh/initialized": "true", "karpenter.sh/registered": "true",
                    "node.kubernetes.io/instance-type": name, "karpenter.sh/capacity-type": "on-demand",
                    "topology.kubernetes.io/zone": "zone-a", "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"}},
                "status": {"allocatable": gpu_allocatable(g, c, m)},
            })
        for i, (w, n, pin) in enumerate(self.pods):
            gpu, cpu, mem = self.shapes[w]
            spec: Dict[str, Any] = {"nodeName": f"node-{n}", "containers": [{"name": "main", "image": "x", "resources": {
                "requests": {"cpu": f"{cpu}m", "memory": f"{mem}Mi"}, "limits": {"nvidia.com/gpu": str(gpu)}}}]}
            if self.one_per_node and w == 0:
                spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "w0"}}}]}}
            meta: Dict[str, Any] = {"name": f"w{w}-{i}", "namespace": "ml", "labels": {"app": f"w{w}"}}
            if pin:
                meta["annotations"] = {"karpenter.sh/do-not-disrupt": "true"}
            out.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": "Running"}})
        return out

    def exact(self, seconds: float = 60.0, ceiling: Optional[float] = None, hint: Optional[Answer] = None) -> Optional[float]:
        """The cheapest set of nodes for every pod by CP-SAT (micro-dollars, then $/h); None
        when CP-SAT does not prove its optimum within `seconds`, and -1.0 when no placement
        costs at most `ceiling`.

        A removable node kept costs what a new node of its type costs and holds the same room
        once its pods are moved, so removable nodes are new slots of their type: the targets
        are the pinned nodes (paid, their free room open) and up to `total` new slots per type,
        fewer when `ceiling` (a price some placement reaches: the model is asked for one at
        most that dear) cannot pay for more. Slots of one type are interchangeable: the used
        ones are a prefix, ordered by GPUs used. `hint`: an answer whose new nodes seed the
        search (a hint only: CP-SAT proves the optimum itself)."""
        from ortools.sat.python import cp_model  # type: ignore[import-untyped,import-not-found,unused-ignore]

        m = cp_model.CpModel()
        nw = len(self.shapes)
        moving = [sum(1 for p in self.pods if p[0] == w and not self.pinned[p[1]]) for w in range(nw)]
        total = sum(moving)
        price = [round(t[4] * 1_000_000) for t in TYPES]
        paid = sum(price[t] for n, t in enumerate(self.nodes) if self.pinned[n])
        cap = None if ceiling is None else round(ceiling * 1_000_000) + 1
        # Targets: the pinned nodes, then new slots per type.
        targets: List[Tuple[int, bool, int]] = [(t, True, n) for n, t in enumerate(self.nodes) if self.pinned[n]]
        for t in range(len(TYPES)):
            most = total if cap is None else min(total, max(0, cap - paid) // price[t])
            targets += [(t, False, k) for k in range(most)]
        used = [m.NewBoolVar(f"u{j}") for j in range(len(targets))]
        count = [[m.NewIntVar(0, moving[w], f"n{j}_{w}") for w in range(nw)] for j in range(len(targets))]
        for w in range(nw):
            m.Add(sum(count[j][w] for j in range(len(targets))) == moving[w])
        gpus = []
        for j, (t, pinned, n) in enumerate(targets):
            if pinned:
                m.Add(used[j] == 1)
            fixed = [p for p in self.pods if pinned and p[1] == n]
            for d, room_d in enumerate(room(t)):
                held = sum(self.shapes[p[0]][d] for p in fixed)
                m.Add(sum(self.shapes[w][d] * count[j][w] for w in range(nw)) <= (room_d - held) * used[j])
            if self.one_per_node:
                m.Add(count[j][0] + sum(1 for p in fixed if p[0] == 0) <= 1)
            gpus.append(sum(self.shapes[w][0] * count[j][w] for w in range(nw)))
            if not pinned and n > 0:  # the previous target is the slot before, of the same type
                m.Add(used[j] <= used[j - 1])
                m.Add(gpus[j] <= gpus[j - 1])
        cost = sum(price[t] * used[j] for j, (t, _, _) in enumerate(targets))
        if cap is not None:
            m.Add(cost <= cap)
        if hint is not None:
            self._hint(m, targets, used, count, hint)
        m.Minimize(cost)
        return solve_cp_sat(m, seconds)

    def _hint(self, m: Any, targets: List[Tuple[int, bool, int]], used: List[Any], count: List[List[Any]], answer: Answer) -> None:
        """Hint the new slots with an answer's NodeClaims (kept nodes included): per type, its
        nodes in order of GPUs used, each slot's pods by workload."""
        names = [t[0] for t in TYPES]
        kinds: Dict[int, List[List[int]]] = {}
        for c in answer.get("nodeClaims", []):
            per = [0] * len(self.shapes)
            for p in c["pods"]:
                per[workload_of(p)] += 1
            kinds.setdefault(names.index(c["instanceType"]), []).append(per)
        for t in kinds:
            kinds[t].sort(key=lambda per: -sum(self.shapes[w][0] * k for w, k in enumerate(per)))
        for j, (t, pinned, n) in enumerate(targets):
            if pinned:
                continue
            nodes = kinds.get(t, [])
            m.AddHint(used[j], n < len(nodes))
            for w in range(len(self.shapes)):
                m.AddHint(count[j][w], nodes[n][w] if n < len(nodes) else 0)


def compare(optimize: Callable[[List[Dict[str, Any]]], Answer], seeds: range, max_nodes: int = 6, seconds: float = 60.0) -> Dict[str, Any]:
    """Per instance: nodecast's running optimum against the exact one."""
    stats: Dict[str, Any] = {"instances": 0, "pods": 0, "optimal": 0, "equal": 0, "wrong_optimal": [], "below": [], "pinned": 0, "gaps": [], "exact_unproven": 0}
    for seed in seeds:
        inst = Instance(seed, max_nodes)
        a = optimize(inst.objects())
        r = a["running"]
        ours = r["optimumPricePerHour"]
        # Asked for a placement no dearer than ours: none (-1) means ours is below every one.
        exact = inst.exact(seconds, ours, a)
        if exact is not None and exact < 0:
            stats["below"].append((seed, ours, None))
            continue
        if exact is None:
            stats["exact_unproven"] += 1
            continue
        stats["instances"] += 1
        stats["pods"] = max(stats["pods"], len(inst.pods))
        stats["pinned"] += sum(inst.pinned)
        stats["optimal"] += r["certificate"] == "optimal"
        if abs(ours - exact) <= 1e-6:
            stats["equal"] += 1
        elif ours < exact:
            stats["below"].append((seed, ours, exact))
        else:
            stats["gaps"].append((seed, round((ours - exact) / exact * 100, 2)))
            if r["certificate"] == "optimal":
                stats["wrong_optimal"].append((seed, ours, exact))
        assert r["lowerBoundPerHour"] <= exact + 1e-6, (seed, r["lowerBoundPerHour"], exact)
    return stats


def check(stats: Dict[str, Any]) -> None:
    assert not stats["wrong_optimal"], stats
    assert not stats["below"], stats
    assert stats["equal"] >= 0.95 * stats["instances"], stats
    assert stats["pinned"] > 0, "no instance pins a node: the test would not test pinning"


def test_running_optimum_against_cp_sat() -> None:
    pytest.importorskip("ortools")
    import nodecast

    def optimize(objects: List[Dict[str, Any]]) -> Answer:
        o = nodecast.optimize(*objects, catalog=catalog(), now=NOW, running=True)
        return json.loads(o.to_json())  # type: ignore[no-any-return]

    check(compare(optimize, range(20)))


def main() -> None:
    """Through a CLI binary: `python test_optimize_running.py INSTANCES [MAX_NODES [CLI [CP-SAT SECONDS]]]`."""
    n = int(sys.argv[1])
    max_nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    cli = sys.argv[3] if len(sys.argv) > 3 else "target/release/nodecast"
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 60.0

    optimize = cli_optimizer(cli, catalog(), "--running", "--now", NOW)
    stats = compare(optimize, range(n), max_nodes, seconds)
    print(json.dumps({k: v for k, v in stats.items() if k != "gaps"}), "gaps:", stats["gaps"][:20])
    check(stats)


if __name__ == "__main__":
    main()

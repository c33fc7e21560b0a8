"""Static NodePools (StaticCapacity gate) in Python's typed results: the replicas a static pool
keeps, static scale-down, no provisioning pass without a dynamic NodePool, and StaticDrift in
consolidation, each with the gate's default off and the gate on (issue 28)."""

from __future__ import annotations

from typing import Any, Dict

import pytest

import nodecast
from helpers import NOW, REPO

GATE = "StaticCapacity=true"
STATIC = ["examples/nodepools/gpu-inference.yaml", "examples/capacity/static-gpu-pool.yaml", "examples/workloads/vllm-inference.yaml"]
SCALE_DOWN = ["examples/nodepools/gpu-inference.yaml", "examples/capacity/static-scale-down.yaml"]


def _scenario(name: str) -> Dict[str, Any]:
    yaml = pytest.importorskip("yaml")
    with open(REPO / "tests" / "scenarios" / name, encoding="utf-8") as f:
        return dict(yaml.safe_load(f))


def test_replicas_are_kept_only_with_the_gate() -> None:
    on = nodecast.plan(*STATIC, feature_gates=GATE)
    assert [(c.name, c.node_pool, c.instance_type) for c in on.static_node_claims] == [
        ("gpu-static-1", "gpu-static", "g5.2xlarge"),
        ("gpu-static-2", "gpu-static", "g5.2xlarge"),
    ]
    assert all(isinstance(c, nodecast.StaticNodeClaim) and len(c.pods) == 1 for c in on.static_node_claims)
    assert on.node_claims == ()
    off = nodecast.plan(*STATIC)
    assert off.static_node_claims == ()
    assert len(off.node_claims) == 2
    assert any(w.code == "static-capacity-gate-off" and w.object == "NodePool/gpu-static" for w in off.warnings)


def test_static_scale_down() -> None:
    p = nodecast.plan(*SCALE_DOWN, feature_gates={"StaticCapacity": True}, now=NOW)
    assert [(d.name, d.why, d.pods) for d in p.static_deprovisioned] == [
        ("gpu-static-b", "empty", ()),
        ("gpu-static-a", "lowest disruption cost", ("inference/vllm-0",)),
    ]
    assert all(isinstance(d, nodecast.StaticDeprovision) for d in p.static_deprovisioned)
    # Its pod is provisioned for again in the same pass.
    assert [c.pods for c in p.node_claims] == [("inference/vllm-0",)]
    assert nodecast.plan(*SCALE_DOWN, now=NOW).static_deprovisioned == ()


def test_only_static_pools_run_no_provisioning_pass() -> None:
    s = _scenario("st01-only-static-nodepools-no-provisioning-pass.yaml")
    p = nodecast.plan(s["objects"], catalog=s["catalog"], feature_gates=GATE)
    assert len(p.static_node_claims) == 2 and p.node_claims == ()
    assert {u.pod: u.code for u in p.unschedulable} == {"default/small": "no-nodepools", "default/large": "no-nodepools"}


def test_static_drift() -> None:
    s = _scenario("st03-static-drift-replaces-with-the-template.yaml")
    d = nodecast.consolidate(s["objects"], catalog=s["catalog"], now=s["clock"]["now"])
    assert (d.decision, d.reason) == ("replace", "drifted")
    assert sorted(d.disrupted_nodes) == ["fixed-a", "fixed-b"]
    assert d.replacement is not None and d.replacement.instance_type == "standard-2"
    assert len(d.more_replacements) == 1

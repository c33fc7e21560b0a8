"""nodecast.migrate: NodePools for EKS node groups, and both autoscalers' plans, typed."""

from __future__ import annotations

from pathlib import Path

from helpers import cli_json

import nodecast

GROUPS = "examples/node-groups/eksctl-gpu.yaml"
SETTINGS = "examples/node-groups/ca-settings.yaml"
PODS = ["examples/workloads/eval-jobs-1gpu.yaml", "examples/workloads/training-job-4gpu.yaml"]


def test_node_pools_and_both_plans_are_typed() -> None:
    m = nodecast.migrate(GROUPS, SETTINGS, *PODS)
    assert isinstance(m, nodecast.Migration) and m.kind == "Migration"
    assert [(p.node_pool, p.weight) for p in m.node_pools] == [
        ("gpu-p3dn-24xlarge", 10),
        ("gpu-g5-xlarge", 20),
        ("gpu-g5-2xlarge", 20),
        ("gpu-p4d-24xlarge", 50),
    ]
    assert m.node_pools[3].limits["nvidia.com/gpu"] == "400" and m.node_classes == ("gpu-cluster",)
    assert m.cluster_autoscaler is not None and m.karpenter is not None
    assert m.cluster_autoscaler.pods_placed == 6 and m.karpenter.pods_placed == 6
    assert "kind: NodePool" in m.manifests and "kind: EC2NodeClass" in m.manifests
    # The proposal plans the same pods when applied beside them.
    assert nodecast.plan(m.manifests, *PODS).unschedulable == ()
    assert list(m.to_pandas()["autoscaler"]) == ["cluster-autoscaler", "karpenter"]
    assert str(m).startswith("Migration: 4 node group(s) -> 4 NodePool(s)") and "gpu-p4d-24xlarge" in m._repr_html_()


def test_same_bytes_as_the_cli(cli: Path) -> None:
    assert nodecast.migrate(GROUPS, *PODS).to_json() == cli_json(cli, "migrate", GROUPS, *PODS)

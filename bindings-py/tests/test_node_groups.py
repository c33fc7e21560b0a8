"""nodecast.plan_node_groups: the Cluster Autoscaler's scale-up over EKS node groups, typed."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import cli_json

import nodecast

GROUPS = "examples/node-groups/eksctl-gpu.yaml"
SETTINGS = "examples/node-groups/ca-settings.yaml"
PODS = ["examples/workloads/eval-jobs-1gpu.yaml", "examples/workloads/training-job-4gpu.yaml"]


def test_least_waste_scale_ups_are_typed() -> None:
    p = nodecast.plan_node_groups(GROUPS, *PODS)
    assert isinstance(p, nodecast.NodeGroupPlan) and p.kind == "NodeGroupPlan"
    assert [(s.loop, s.node_group, s.nodes, s.decided_by) for s in p.scale_ups] == [
        (1, "gpu-g5-2xlarge", 5, "least-waste"),
        (2, "gpu-p3dn-24xlarge", 1, "least-waste"),
    ]
    assert p.new_nodes == 6 and p.pods_placed == 6 and p.unschedulable == ()
    g5 = next(g for g in p.node_groups if g.name == "gpu-g5-2xlarge")
    assert (g5.capacity_type, g5.min_size, g5.max_size, g5.new_nodes, g5.target_size) == ("spot", 0, 50, 5, 5)
    assert g5.capacity["nvidia.com/gpu"] == "1" and "nvidia.com/gpu=true:NoSchedule" in g5.taints
    assert p.settings is not None and p.settings.expander == ("least-waste",)
    assert str(p).startswith("Cluster Autoscaler: 2 scale-up(s), 6 new node(s): $11.182/h")
    assert "<td>gpu-p3dn-24xlarge</td>" in p._repr_html_()


def test_priority_expander_and_its_rules() -> None:
    p = nodecast.plan_node_groups(GROUPS, SETTINGS, *PODS)
    assert [(s.node_group, s.nodes, s.decided_by) for s in p.scale_ups] == [("gpu-p4d-24xlarge", 2, "priority")]
    assert p.settings is not None and p.settings.priorities[0] == (50, ("^gpu-p4d-",))


def test_same_bytes_as_the_cli(cli: Path) -> None:
    assert nodecast.plan_node_groups(GROUPS, *PODS).to_json() == cli_json(cli, "plan", "--autoscaler", "cluster-autoscaler", GROUPS, *PODS)


def test_errors_are_located() -> None:
    with pytest.raises(nodecast.InputError) as e:
        nodecast.plan_node_groups("examples/node-groups/eksctl-p3-2xlarge.yaml", *PODS)
    assert "managedNodeGroups[0].instanceType" in str(e.value)


def test_scale_down_of_the_seed_cluster_state() -> None:
    d = nodecast.consolidate_node_groups(GROUPS, "examples/node-groups/cluster-state.yaml", now="2025-03-05T12:00:00Z")
    assert isinstance(d, nodecast.NodeGroupScaleDown) and d.kind == "NodeGroupScaleDown"
    assert [n.name for n in d.removed] == ["ip-10-0-1-11.ec2.internal", "ip-10-0-2-20.ec2.internal"]
    codes = {n.name: n.code for n in d.nodes}
    assert codes["ip-10-0-3-30.ec2.internal"] == "not-replicated"
    moved = next(n for n in d.nodes if n.name == "ip-10-0-2-20.ec2.internal")
    assert moved.utilization == 0.25 and moved.utilization_resource == "nvidia.com/gpu"
    assert {m.to for m in moved.moves} == {"ip-10-0-2-21.ec2.internal"}
    assert d.settings is not None and d.settings.unneeded_time_seconds == 600
    assert str(d).startswith("Cluster Autoscaler scale-down at 2025-03-05T12:00:00Z: 2 node(s) removed")
    assert "<td>ip-10-0-3-30.ec2.internal</td>" in d._repr_html_()

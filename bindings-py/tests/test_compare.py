"""nodecast.compare: one trace under the node groups + the Cluster Autoscaler and under
NodePools + Karpenter, typed, with frames and an HTML view."""

from __future__ import annotations

from pathlib import Path

from helpers import cli_json

import nodecast

GROUPS = "examples/node-groups/eksctl-gpu.yaml"
PODS = ["examples/workloads/eval-jobs-1gpu.yaml", "examples/workloads/training-job-4gpu.yaml"]
TRACE = "examples/node-groups/gpu-day.yaml"


def test_both_sides_are_typed() -> None:
    c = nodecast.compare(GROUPS, *PODS, trace=TRACE)
    assert isinstance(c, nodecast.Comparison) and c.kind == "Comparison"
    assert [s.autoscaler for s in c.sides] == ["cluster-autoscaler", "karpenter"]
    assert c.node_pools == "migrate" and c.migration is not None and len(c.migration.node_pools) == 4
    assert all(s.pods_finished == 17 and s.pods_pending_at_end == 0 for s in c.sides)
    assert c.scale_ups[0].node_group == "gpu-p3dn-24xlarge" and c.scale_ups[0].decided_by == "least-waste"
    assert c.cluster_autoscaler is not None and c.karpenter is not None
    assert c.side("karpenter").cost_usd == c.karpenter.cost_usd
    assert c.series is not None and len(c.series.nodes[0]) == len(c.series.times_seconds)
    frame = c.to_pandas()
    assert list(frame["autoscaler"]) == ["cluster-autoscaler", "karpenter"]
    long = c.series_frame()
    assert len(long) == 2 * len(c.series.times_seconds) and set(long["autoscaler"]) == {"cluster-autoscaler", "karpenter"}
    html = c._repr_html_()
    assert "<svg" in html and "Cluster Autoscaler" in html and str(c).startswith("Side by side:")


def test_same_bytes_as_the_cli(cli: Path) -> None:
    got = nodecast.compare(GROUPS, *PODS, trace=TRACE).to_json()
    assert got == cli_json(cli, "simulate", "--compare", "cluster-autoscaler", "--trace", TRACE, GROUPS, *PODS)


def test_located_error_without_node_groups() -> None:
    try:
        nodecast.compare(*PODS, trace=TRACE)
    except nodecast.InputError as e:
        assert "no-node-groups" in str(e)
    else:  # pragma: no cover
        raise AssertionError("expected InputError")

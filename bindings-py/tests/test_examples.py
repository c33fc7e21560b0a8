"""The examples/ manifests through the Python facade: the answers the README and
examples/expectations.yaml promise."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest

import nodecast
from helpers import INFERENCE, NOW, REPO, TRAINING, UNDERUTILIZED


def test_installed_package_not_source_tree() -> None:
    assert "site-packages" in nodecast.__file__, nodecast.__file__
    assert not Path(nodecast.__file__).resolve().is_relative_to(REPO / "bindings-py" / "python")
    assert nodecast.__version__ == nodecast._native.__version__


def test_training_job_gets_g5_12xlarge() -> None:
    plan = nodecast.plan(*TRAINING)
    assert isinstance(plan, nodecast.Plan)
    assert len(plan.node_claims) == 1
    c = plan.node_claims[0]
    assert (c.name, c.node_pool, c.instance_type, c.capacity_type) == ("gpu-training-1", "gpu-training", "g5.12xlarge", "on-demand")
    assert c.price_per_hour == 5.672
    assert c.pods == ("ml/train-llm-0",)
    assert c.instance_type_options == ("g5.12xlarge", "g5.24xlarge", "g5.48xlarge", "p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge")
    assert c.utilization["nvidia.com/gpu"] == 1.0
    assert c.requests["nvidia.com/gpu"] == "4"
    assert c.labels["workload-type"] == "training"
    assert c.accelerator == "nvidia.com/gpu"
    assert plan.unschedulable == ()
    assert plan.total_price_per_hour == 5.672
    assert plan.pods_placed == 1
    assert str(plan) == "1 new NodeClaim: $5.672/h for 1 pod; 0 pods on existing nodes; 0 pods unschedulable"
    gpu_pool = next(p for p in plan.node_pools if p.name == "gpu-training")
    assert gpu_pool.new_node_claims == 1
    assert gpu_pool.limits["nvidia.com/gpu"] == nodecast.Limit(limit=Decimal(16), used=Decimal(4), remaining=Decimal(12))
    assert gpu_pool.limits["nvidia.com/gpu"].remaining == 12 and not isinstance(gpu_pool.limits["nvidia.com/gpu"].limit, str)


def test_paths_as_pathlib() -> None:
    plan = nodecast.plan(*(REPO / f for f in TRAINING))
    assert plan.node_claims[0].instance_type == "g5.12xlarge"


def test_spot_inference() -> None:
    plan = nodecast.plan(*INFERENCE)
    assert [c.instance_type for c in plan.node_claims] == ["g6.2xlarge", "g6.2xlarge"]
    assert {c.capacity_type for c in plan.node_claims} == {"spot"}
    assert plan.node_claims[0].instance_type_options == ("g6.2xlarge", "g5.2xlarge", "g6.4xlarge", "gr6.4xlarge", "g5.4xlarge")
    assert sorted(p for c in plan.node_claims for p in c.pods) == ["inference/vllm-mistral-7b-0", "inference/vllm-mistral-7b-1"]
    # The Service in vllm-inference.yaml is not a scheduling input: skipped, not an error.
    assert any(s.kind == "Service" for s in plan.skipped)


def test_spot_unavailable_falls_back_to_on_demand() -> None:
    cat = {"source": "aws-us-east-1", "unavailable": [{"capacityType": "spot"}]}
    plan = nodecast.plan(*INFERENCE, catalog=cat)
    assert [(c.instance_type, c.capacity_type) for c in plan.node_claims] == [("g6.2xlarge", "on-demand")] * 2


def test_options_compose_into_the_catalog_mapping() -> None:
    req = nodecast.request_json("kind: Pod", zones="us-east-1b, us-east-1c", spot_price_factor=0.5)
    assert '"catalog":{"source":"aws-us-east-1","zones":["us-east-1b","us-east-1c"],"spotPriceFactor":0.5}' in req
    plan = nodecast.plan(*INFERENCE, zones=["us-east-1c"], spot_price_factor=0.5)
    assert {c.zone for c in plan.node_claims} == {"us-east-1c"}
    assert plan.node_claims[0].price_per_hour == pytest.approx(0.9776 * 0.5)
    assert nodecast.request_json(catalog="aws-us-east-1").endswith('"catalog":"aws-us-east-1"}')
    both = nodecast.request_json(catalog={"source": "aws-us-east-1", "zones": ["x"]}, zones=["us-east-1a"])
    assert '"zones":["us-east-1a"]' in both


def test_unschedulable_pods_are_an_answer() -> None:
    plan = nodecast.plan(
        "examples/nodepools/gpu-inference.yaml",
        "examples/nodepools/gpu-training.yaml",
        "examples/workloads/gpu-notebook.yaml",
        "examples/workloads/training-job-16gpu.yaml",
    )
    assert plan.node_claims == ()
    by_pod = {u.pod: u for u in plan.unschedulable}
    assert by_pod["ml/train-70b-0"].code == "no-instance-type-fits"
    assert by_pod["research/notebook-gpu"].code == "taint-not-tolerated"
    reasons = {r.node_pool: r for r in by_pod["ml/train-70b-0"].reasons}
    assert reasons["gpu-training"].code == "no-instance-type-fits"
    assert "largest allowed type g5.48xlarge has 8" in reasons["gpu-training"].message
    assert reasons["gpu-inference"].code == "requirement-conflict"


@pytest.mark.parametrize(
    "now",
    [
        NOW,
        dt.datetime(2025, 3, 5, 12, 0, tzinfo=dt.timezone.utc),
        dt.datetime(2025, 3, 5, 13, 0, tzinfo=dt.timezone(dt.timedelta(hours=1))),
    ],
    ids=["string", "aware-utc", "aware-plus-1h"],
)
def test_half_used_gpu_node_is_replaced_by_g5_2xlarge(now: object) -> None:
    d = nodecast.consolidate(*UNDERUTILIZED, now=now)  # type: ignore[arg-type]
    assert isinstance(d, nodecast.Decision)
    assert d.now == NOW
    assert (d.decision, d.reason) == ("replace", "underutilized")
    assert d.disrupted_nodes == ("ip-10-0-3-41.ec2.internal",)
    assert d.replacement is not None
    assert d.replacement.instance_type == "g5.2xlarge"
    assert d.replacement.capacity_type == "on-demand"
    assert d.replacement.instance_type_options == ("g5.2xlarge", "g5.4xlarge", "g5.8xlarge", "g5.16xlarge")
    assert (d.price_per_hour_before, d.price_per_hour_after) == (5.672, 1.212)
    assert round(d.monthly_savings, 2) == 3255.80
    assert d.nodes[0].disrupted
    assert str(d).startswith("At 2025-03-05T12:00:00Z: replace 1 node (ip-10-0-3-41.ec2.internal) with 1 on-demand node")


def test_when_empty_pool_keeps_the_node() -> None:
    d = nodecast.consolidate("examples/disruption/pool-when-empty.yaml", "examples/disruption/cluster-state.yaml", now=NOW)
    assert d.decision == "none"
    assert d.replacement is None
    assert d.nodes[0].reasons[0].code == "policy-when-empty"


def test_budget_window() -> None:
    files = ["examples/disruption/pool-business-hours.yaml", "examples/disruption/cluster-state.yaml"]
    at_noon = nodecast.consolidate(*files, now=NOW)
    assert at_noon.decision == "none"
    assert at_noon.nodes[0].reasons[0].code == "budget"
    assert at_noon.node_pools[0].allowed["Underutilized"] == 0
    evening = nodecast.consolidate(*files, now="2025-03-05T18:00:00Z")
    assert evening.decision == "replace"
    assert evening.replacement is not None and evening.replacement.instance_type == "g5.2xlarge"


def test_explain_pod_and_instance_type() -> None:
    e = nodecast.explain(*TRAINING, pod="ml/train-llm-0", instance_type="p4d.24xlarge")
    assert e.pod is not None and e.instance_type is not None
    assert e.pod.outcome == "new-node-claim"
    assert e.pod.node_claim is not None and e.pod.node_claim.instance_type == "g5.12xlarge"
    assert e.summary().startswith("ml/train-llm-0 goes to a new gpu-training NodeClaim gpu-training-1")
    assert [(v.name, v.ok) for v in e.pod.node_pools] == [("gpu-training", True), ("general", False)]
    assert e.instance_type.verdict == "option"
    assert "costs $21.957642 vs $5.672 for g5.12xlarge" in e.instance_type.reasons[0]


def test_explain_node() -> None:
    e = nodecast.explain("examples/disruption/pool-when-empty.yaml", "examples/disruption/cluster-state.yaml", node="ip-10-0-3-41.ec2.internal", now=NOW)
    assert e.pod is None and e.node is not None
    assert not e.node.node.disrupted
    assert e.node.node.reasons[0].code == "policy-when-empty"


def test_validate_success_returns_the_report() -> None:
    r = nodecast.validate(*TRAINING)
    assert isinstance(r, nodecast.ValidationReport)
    assert set(r.node_pools) == {"general", "gpu-training"}
    assert r.pods == 1


def test_catalog_query() -> None:
    c = nodecast.catalog(gpu=True, requirements=["karpenter.k8s.aws/instance-gpu-name In h100,a100"])
    assert c.names() == ["p5.4xlarge", "p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge"]
    assert c.count == 4 and c.source == "aws-us-east-1"
    p5 = c.instance_types[0]
    assert (p5.gpu_name, p5.gpu_count, p5.on_demand_price_per_hour) == ("h100", "1", 6.88)
    one = nodecast.catalog(True, "karpenter.k8s.aws/instance-gpu-name In h100", limit=1)
    assert one.names() == ["p5.4xlarge"]


def test_yaml_text_and_mixed_sources() -> None:
    pools = (REPO / "examples/nodepools/gpu-training.yaml").read_text()
    job = (REPO / "examples/workloads/training-job-4gpu.yaml").read_text()
    from_text = nodecast.plan(pools, job)
    from_bytes = nodecast.plan(pools.encode(), [job])
    assert from_text.node_claims[0].instance_type == "g5.12xlarge"
    assert from_text == from_bytes
    assert from_text.to_json() == from_bytes.to_json()

"""The ML workload kinds through the Python facade: a PyTorchJob and a RayCluster plan from their
manifests, with the pod names their controllers give."""

from __future__ import annotations

import pytest

import nodecast
from helpers import REPO

PYTORCH = ["examples/nodepools/gpu-training.yaml", "examples/workloads/pytorchjob-llama-finetune.yaml"]
RAY = ["examples/nodepools/gpu-general.yaml", "examples/nodepools/gpu-training.yaml", "examples/workloads/raycluster-gpu.yaml"]


def test_pytorchjob_plans_one_g5_48xlarge_per_pod() -> None:
    plan = nodecast.plan(*PYTORCH)
    assert [(c.instance_type, c.pods) for c in plan.node_claims] == [
        ("g5.48xlarge", ("ml/llama-finetune-master-0",)),
        ("g5.48xlarge", ("ml/llama-finetune-worker-0",)),
    ]
    assert plan.unschedulable == ()
    assert plan.total_price_per_hour == pytest.approx(32.576)


def test_raycluster_head_and_workers() -> None:
    plan = nodecast.plan(*RAY)
    by_pool = {c.node_pool: c for c in plan.node_claims}
    assert by_pool["general"].pods == ("ml/ray-batch-head",)
    assert by_pool["gpu-training"].instance_type == "g5.12xlarge"
    assert by_pool["gpu-training"].pods == ("ml/ray-batch-gpu-worker-00000", "ml/ray-batch-gpu-worker-00001")


def test_pytorchjob_webhook_error_is_located() -> None:
    text = (REPO / PYTORCH[1]).read_text().replace("    Master:\n      replicas: 1", "    Master:\n      replicas: 2")
    with pytest.raises(nodecast.ValidationError) as err:
        nodecast.plan(PYTORCH[0], text)
    assert "spec.pytorchReplicaSpecs.Master.replicas" in str(err.value)

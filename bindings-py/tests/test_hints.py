"""Checked fix hints on unschedulable pods (issue 18 part 2), from Python."""

from __future__ import annotations

import nodecast

NOTEBOOK = ["examples/nodepools/gpu-inference.yaml", "examples/workloads/gpu-notebook.yaml"]


def test_unschedulable_pod_carries_a_verified_toleration_hint() -> None:
    plan = nodecast.plan(*NOTEBOOK)
    (u,) = plan.unschedulable
    assert u.code == "taint-not-tolerated"
    (h,) = u.hints
    assert isinstance(h, nodecast.Hint)
    assert h.verified is True
    assert h.node_pool == "gpu-inference"
    assert h.code == "taint-not-tolerated"
    assert "{key: nvidia.com/gpu, operator: Equal, value: true, effect: NoSchedule}" in h.change
    assert h.check.startswith("verified: re-planned with this change")
    # The same hint in the pods frame, the HTML view and the wire dict.
    row = plan.pods_frame().set_index("pod").loc[u.pod]
    assert row["fix"] == h.change and bool(row["fix_verified"]) is True
    assert "fix (verified)" in plan._repr_html_()
    assert plan.to_dict()["unschedulable"][0]["hints"][0]["verified"] is True


def test_scheduled_pods_have_no_fix() -> None:
    plan = nodecast.plan("examples/nodepools/gpu-general.yaml", "examples/nodepools/gpu-training.yaml", "examples/workloads/training-job-4gpu.yaml")
    assert not plan.unschedulable
    assert plan.pods_frame()["fix"].isna().all()

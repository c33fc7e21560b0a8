"""Simulation.autoscaling_frame() / autoscaling_series_frame() / plot_autoscaling(): the HPA and
KEDA figures of a simulation as pandas DataFrames and a matplotlib chart (docs/simulate.md)."""

from __future__ import annotations

import pytest

import nodecast
from helpers import REPO

pd = pytest.importorskip("pandas")

HPA = ["examples/nodepools/gpu-inference.yaml", "examples/workloads/vllm-inference.yaml", "examples/simulate/hpa-vllm.yaml"]
HPA_TRACE = "examples/simulate/hpa-day.yaml"
KEDA = ["examples/nodepools/gpu-training.yaml", "examples/simulate/keda-batch.yaml"]
KEDA_TRACE = "examples/simulate/keda-queue.yaml"
WORKLOAD = "Deployment/inference/vllm-mistral-7b"


@pytest.fixture(scope="module")
def hpa() -> nodecast.Simulation:
    # Module-scoped fixtures run before the per-test chdir (conftest.py): change directory here.
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO)
        return nodecast.simulate(*HPA, trace=HPA_TRACE, seed=7)


@pytest.fixture(scope="module")
def keda() -> nodecast.Simulation:
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO)
        return nodecast.simulate(*KEDA, trace=KEDA_TRACE, seed=7)


def test_the_autoscaling_frame_is_the_answers_rows(hpa: nodecast.Simulation) -> None:
    df = hpa.autoscaling_frame()
    (w,) = hpa.autoscaling
    assert list(df.columns)[:3] == ["workload", "hpa", "keda"]
    assert len(df) == 1
    row = df.iloc[0]
    assert row["workload"] == WORKLOAD and row["hpa"] == "inference/vllm-mistral-7b"
    assert (row["min_replicas"], row["max_replicas"], row["peak_replicas"]) == (2, 10, w.peak_replicas)
    assert row["served_percent"] == w.served_percent
    assert row["scale_up_max_seconds"] == w.scale_up_seconds["max"]
    assert str(df["min_replicas"].dtype) == "Int64"
    # Not a KEDA workload: its KEDA counts are missing, not 0.
    assert pd.isna(row["keda_activations"]) and pd.isna(row["jobs_created"])


def test_the_series_frame_has_replicas_desired_ready_and_demand_over_time(hpa: nodecast.Simulation) -> None:
    df = hpa.autoscaling_series_frame()
    assert len(df) == len(hpa.series_times_seconds)
    assert list(df.columns) == [
        "time_seconds", "time", "workload", "hpa", "replicas", "ready_replicas", "desired_replicas", "jobs", "demand_gpu_utilization",
    ]
    (replicas,) = hpa.metric("nodecast_workload_replicas", workload=WORKLOAD)
    (ready,) = hpa.metric("nodecast_workload_ready_replicas", workload=WORKLOAD)
    (desired,) = hpa.metric("kube_horizontalpodautoscaler_status_desired_replicas", horizontalpodautoscaler="vllm-mistral-7b")
    (demand,) = hpa.metric("nodecast_demand", workload=WORKLOAD)
    assert [float(v) for v in df["replicas"]] == list(replicas.values)
    assert [float(v) for v in df["ready_replicas"]] == list(ready.values)
    assert [float(v) for v in df["desired_replicas"]] == list(desired.values)
    assert list(df["demand_gpu_utilization"]) == list(demand.values)
    assert df["jobs"].isna().all()
    # The HPA keeps between its bounds once it has synced; Ready never exceeds asked.
    assert df["replicas"].max() == hpa.autoscaling[0].peak_replicas
    assert (df["ready_replicas"] <= df["replicas"]).all()
    assert str(df["time"].dtype) == "datetime64[ns, UTC]"
    assert df["time"].iloc[0] == pd.Timestamp("2025-03-04T00:00:00Z")


def test_a_scaledjob_has_its_jobs_as_replicas(keda: nodecast.Simulation) -> None:
    frame = keda.autoscaling_frame()
    (row,) = frame.to_dict("records")
    assert row["workload"] == "ScaledJob/ml/embed-batches" and row["keda"] == "ScaledJob/ml/embed-batches"
    assert row["jobs_created"] == keda.autoscaling[0].jobs_created > 0
    df = keda.autoscaling_series_frame()
    (jobs,) = keda.metric("nodecast_scaledjob_jobs")
    assert [float(v) for v in df["jobs"]] == list(jobs.values)
    assert df["replicas"].equals(df["jobs"])
    assert df["desired_replicas"].isna().all() and df["hpa"].isna().all()
    assert df["jobs"].max() == row["peak_replicas"]


def test_a_simulation_without_autoscaling_has_empty_frames() -> None:
    sim = nodecast.simulate("examples/nodepools/gpu-training.yaml", "examples/workloads/training-job-4gpu.yaml",
                            trace="time,workload,replicas,runTime\n0s,Job/ml/train-llm,1,1h\n")
    assert sim.autoscaling == ()
    assert len(sim.autoscaling_frame()) == 0 and len(sim.autoscaling_series_frame()) == 0
    with pytest.raises(ValueError, match="scales no workload"):
        sim.plot_autoscaling()


def test_plot_autoscaling_draws_demand_replicas_and_nodes(hpa: nodecast.Simulation) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = hpa.plot_autoscaling()
    try:
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert labels == ["replicas", "Ready replicas", "nodes", "demand (gpu_utilization)"]
        replicas, ready, nodes = ax.get_lines()
        (asked,) = hpa.metric("nodecast_workload_replicas", workload=WORKLOAD)
        assert list(replicas.get_ydata()) == list(asked.values)
        (usage,) = hpa.metric("karpenter_nodepool_usage", resource_type="nodes")
        assert list(nodes.get_ydata()) == list(usage.values)
        assert WORKLOAD in ax.get_title()
        with pytest.raises(ValueError, match="no autoscaled workload"):
            hpa.plot_autoscaling("Deployment/x/y")
    finally:
        plt.close("all")


def test_a_sweep_over_hpa_settings_has_the_autoscaling_columns() -> None:
    # examples/sweeps/hpa-scale-up.yaml: scale-up policy x per-pod target x capacity types.
    r = nodecast.sweep(spec="examples/sweeps/hpa-scale-up.yaml", progress=False)
    assert r.count == 18 and r.failed == 0
    df = r.to_pandas()
    for c in ("autoscaled_workloads", "served_percent", "scale_up_p95_s", "scale_up_max_s", "autoscaled_gpu_cost_usd"):
        assert c in df.columns
    assert (df.autoscaled_workloads == 1).all()
    # Row 0 is the HPA as written but for its policy: its served percent is its answer's.
    (w,) = r.answer(0).autoscaling
    assert abs(df.served_percent.iloc[0] - w.served_percent) <= 0.1
    # More pods per minute never serves less, for the same target and capacity.
    slow = df[df.up_pods_per_min == 1].served_percent.values
    fast = df[df.up_pods_per_min == 4].served_percent.values
    assert (fast >= slow).all(), (slow, fast)

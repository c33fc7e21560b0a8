"""DataFrames hold numbers and times, not strings: cpu in cores (float), memory in GiB (float),
GPU counts (nullable Int64), simulation times as datetime64[ns, UTC] beside the seconds, metric
labels as columns."""

from __future__ import annotations

import pytest

import nodecast
from helpers import ONE_JOB, TRAINING

pd = pytest.importorskip("pandas")


def test_quantities_parse_exactly() -> None:
    from nodecast._frames import cores, count, gib, quantity

    assert cores("3500m") == 3.5 and cores("32") == 32.0 and cores(None) is None
    assert gib("128Gi") == 128.0 and gib("512Mi") == 0.5 and gib("1G") == pytest.approx(1e9 / 2**30)
    assert count("4") == 4 and count("0.125") == 1 and count(None) is None
    assert quantity("1e3") == 1000 and quantity("2Ki") == 2048
    with pytest.raises(ValueError, match="not a Kubernetes quantity"):
        quantity("12 cores")


def test_plan_frame_is_numeric() -> None:
    p = nodecast.plan(*TRAINING)
    f = p.to_pandas()
    c = p.node_claims[0]
    row = f.iloc[0]
    # examples/workloads/training-job-4gpu.yaml asks for 32 cpu, 128Gi, 4 nvidia.com/gpu; the
    # g5.12xlarge allocates 47810m and 173400Mi (the answer's strings).
    assert (c.requests["cpu"], c.requests["memory"], c.allocatable["cpu"], c.allocatable["memory"]) == ("32", "128Gi", "47810m", "173400Mi")
    assert row["requests_cpu"] == 32.0 and row["allocatable_cpu"] == 47.81
    assert row["requests_memory_gib"] == 128.0 and row["allocatable_memory_gib"] == 173400 / 1024
    assert row["requests_gpu"] == 4 and row["allocatable_gpu"] == 4 and row["gpu_resource"] == "nvidia.com/gpu"
    assert str(f["requests_cpu"].dtype) == "float64" and str(f["allocatable_memory_gib"].dtype) == "float64"
    assert str(f["requests_gpu"].dtype) == "Int64" and str(f["allocatable_gpu"].dtype) == "Int64"
    # cpu_utilization is requests/allocatable, as the answer rounds it.
    assert row["requests_cpu"] / row["allocatable_cpu"] == pytest.approx(row["cpu_utilization"], abs=1e-4)


def test_catalog_frame_is_numeric() -> None:
    c = nodecast.catalog(gpu=True, requirements=["karpenter.k8s.aws/instance-gpu-name In h100,a100"])
    f = c.to_pandas()
    assert len(f) == len(c.instance_types) > 0
    assert {str(f[col].dtype) for col in ("vcpu", "gpu_count", "gpu_memory_mib")} == {"Int64"}
    assert {str(f[col].dtype) for col in ("memory_gib", "allocatable_cpu", "allocatable_memory_gib")} == {"float64"}
    by_name = f.set_index("name")
    p4d = next(r for r in c.instance_types if r.name == "p4d.24xlarge")
    assert (p4d.vcpu, p4d.memory, p4d.gpu_count) == ("96", "1179648Mi", "8")  # 1179648 MiB = 1152 GiB
    assert by_name.loc["p4d.24xlarge", "vcpu"] == 96 and by_name.loc["p4d.24xlarge", "memory_gib"] == 1152.0
    assert by_name.loc["p4d.24xlarge", "gpu_count"] == 8
    # Numbers sort and filter as numbers.
    assert (f[f["gpu_count"] >= 8]["name"]).str.startswith("p").all()


def test_simulation_times_are_utc_datetimes(day: nodecast.Simulation) -> None:
    assert day.start == "2025-03-04T00:00:00Z"
    start = pd.Timestamp("2025-03-04T00:00:00Z")
    utc = "datetime64[ns, UTC]"

    nodes = day.nodes_frame()
    assert str(nodes["launched"].dtype) == utc and str(nodes["terminated"].dtype) == utc
    assert list(nodes.columns).index("launched") == list(nodes.columns).index("launched_seconds") + 1
    for n, (_, r) in zip(day.nodes, nodes.iterrows()):
        assert r["launched"] == start + pd.Timedelta(seconds=n.launched_seconds)
        if n.terminated_seconds is None:
            assert pd.isna(r["terminated"])
        else:
            assert r["terminated"] == start + pd.Timedelta(seconds=n.terminated_seconds)

    pods = day.pods_frame()
    assert {str(pods[c].dtype) for c in ("submitted", "started", "finished")} == {utc}
    assert (pods["started"].isna() == pods["started_seconds"].isna()).all()

    timeline = day.timeline_frame()
    assert list(timeline.columns) == ["time_seconds", "time", "event", "object", "node", "reason", "detail"]
    assert str(timeline["time"].dtype) == utc
    # The frame's time is the answer's RFC 3339 string, parsed.
    for t, (_, r) in zip(day.timeline[:50], timeline.head(50).iterrows()):
        assert r["time"] == pd.Timestamp(t.time)

    series = day.series_frame()
    assert str(series["time"].dtype) == utc
    assert (series["time"] == start + pd.to_timedelta(series["time_seconds"], unit="s")).all()


def test_series_labels_are_columns(day: nodecast.Simulation) -> None:
    series = day.series_frame()
    keys = sorted({k for m in day.series for k in m.labels})
    assert keys and list(series.columns[5:]) == keys
    usage = series[(series["metric"] == "karpenter_nodepool_usage") & (series["nodepool"] == "gpu-inference") & (series["resource_type"] == "cpu")]
    (metric,) = day.metric("karpenter_nodepool_usage", nodepool="gpu-inference", resource_type="cpu")
    assert list(usage["value"]) == list(metric.values)
    # A metric without a label has None/NaN there, not an empty string.
    no_pool = series[series["labels"].str.contains("nodepool=") == False]  # noqa: E712
    assert no_pool.empty or no_pool["nodepool"].isna().all()


def test_without_a_start_the_times_are_nat() -> None:
    s = nodecast.simulate("examples/nodepools/gpu-training.yaml", "examples/workloads/training-job-4gpu.yaml", trace=ONE_JOB, seed=1)
    assert s.start is None
    nodes, timeline = s.nodes_frame(), s.timeline_frame()
    assert len(nodes) > 0 and str(nodes["launched"].dtype) == "datetime64[ns, UTC]" and nodes["launched"].isna().all()
    assert timeline["time"].isna().all() and timeline["time_seconds"].notna().all()

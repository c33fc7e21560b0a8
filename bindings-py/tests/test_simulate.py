"""nodecast.simulate: the Simulation result, its byte identity with `nodecast simulate`, the trace
forms, the settings, DataFrames, the HTML view and the errors."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from pathlib import Path
from typing import Any, Dict

import pytest

import nodecast
from helpers import DAY, DAY_TRACE, ONE_JOB, REPO, cli_json, run_cli

ONE_JOB_CSV = "time,workload,replicas,runTime\n0s,Job/ml/train-llm,1,1h\n"
TRAINING_ONLY = ["examples/nodepools/gpu-training.yaml", "examples/workloads/training-job-4gpu.yaml"]


# ---------------------------------------------------------------------------------------------
# Identity with the CLI, determinism


def test_json_is_byte_identical_to_the_cli(cli: Path, day: nodecast.Simulation) -> None:
    expected = cli_json(cli, "simulate", *DAY, "--trace", DAY_TRACE, "--seed", "7")
    assert day.to_json() == expected
    assert nodecast.simulate(*DAY, trace=DAY_TRACE, seed=7).to_json() == expected  # and again


def test_csv_and_prometheus_are_the_cli_bytes(cli: Path, day: nodecast.Simulation) -> None:
    for output, text in (("csv", day.to_csv()), ("prom", day.to_prometheus())):
        p = run_cli(cli, "simulate", *DAY, "--trace", DAY_TRACE, "--seed", "7", "-o", output)
        assert p.returncode == 0, p.stderr
        assert text == p.stdout
    assert day.to_csv() is day.to_csv()  # rendered once
    assert day.to_csv().startswith("timeSeconds,metric,labels,value\n")
    assert "# TYPE nodecast_cost_usd_total counter" in day.to_prometheus()


def test_the_seed_changes_the_draws_and_only_the_seed(day: nodecast.Simulation) -> None:
    other = nodecast.simulate(*DAY, trace=DAY_TRACE, seed=8)
    assert other.seed == 8 and day.seed == 7
    assert other.to_json() != day.to_json()
    # Uniform 2-3 h run times: the drawn values differ, the bounds hold for both seeds.
    for sim in (day, other):
        for p in sim.pods:
            if p.workload.startswith("Job/ml/finetune") and p.run_time_seconds is not None:
                assert 2 * 3600 <= p.run_time_seconds <= 3 * 3600
    draws = lambda s: [p.run_time_seconds for p in s.pods if p.workload.startswith("Job/")]  # noqa: E731
    assert draws(day) != draws(other)


def test_settings_keywords_match_the_cli_settings_file(cli: Path, tmp_path: Path) -> None:
    settings = tmp_path / "settings.yaml"
    settings.write_text("seed: 3\nspotInterruptionRatePerHour: 0.01\ngpuStartupSeconds: {min: 200, max: 200}\nmetricsIntervalSeconds: 600\n")
    trace = tmp_path / "one.yaml"
    trace.write_text(ONE_JOB)
    files = TRAINING_ONLY
    expected = cli_json(cli, "simulate", *files, "--trace", str(trace), "--settings", str(settings))
    by_keywords = nodecast.simulate(
        *files,
        trace=trace,
        seed=3,
        spot_interruption_rate_per_hour=0.01,
        gpu_startup_seconds=dt.timedelta(seconds=200),
        metrics_interval_seconds=dt.timedelta(minutes=10),
    )
    assert by_keywords.to_json() == expected
    assert nodecast.simulate(*files, trace=trace, settings=settings).to_json() == expected
    assert nodecast.simulate(*files, trace=str(trace), settings=str(settings)).to_json() == expected
    # Keywords override the file; --seed overrides the file's seed on the CLI too.
    assert nodecast.simulate(*files, trace=trace, settings=settings, seed=4).to_json() == cli_json(
        cli, "simulate", *files, "--trace", str(trace), "--settings", str(settings), "--seed", "4"
    )
    s = by_keywords.settings
    assert s["seed"] == 3 and s["gpuStartupSeconds"] == {"min": 200, "max": 200} and s["metricsIntervalSeconds"] == 600
    assert by_keywords.series_interval_seconds == 600
    # The GPU node registered exactly 200 s after launch.
    (node,) = by_keywords.nodes
    assert node.gpus == 4 and node.registered_seconds is not None
    assert node.registered_seconds - node.launched_seconds == 200


def test_a_failure_answer_is_the_cli_failure(cli: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: nodecast/v1\nkind: Trace\nevents:\n  - {at: soon, submit: {ref: Job/ml/train-llm}}\n")
    with pytest.raises(nodecast.InputError) as info:
        nodecast.simulate(*DAY, trace=bad)
    assert info.value.to_json() == cli_json(cli, "simulate", *DAY, "--trace", str(bad))


# ---------------------------------------------------------------------------------------------
# The result


def test_result_attributes(day: nodecast.Simulation) -> None:
    answer = json.loads(day.to_json())
    assert answer["kind"] == "Simulation" and answer["status"] == "success"
    assert day.kind == "Simulation" and day.api_version == "nodecast/v1"
    assert day.start == "2025-03-04T00:00:00Z" == answer["start"]
    s = day.summary
    assert s is not None
    assert s.duration_seconds == 86400
    assert s.cost_usd == answer["summary"]["costUsd"] == day.cost_usd
    assert s.static_cost_usd == answer["summary"]["staticCostUsd"]
    assert s.savings_usd == pytest.approx(s.static_cost_usd - s.cost_usd, abs=0.02)
    assert s.cost_usd == pytest.approx(sum(n.cost_usd for n in day.nodes), abs=0.01 * max(1, len(day.nodes)))
    assert s.launches == len(day.nodes) == sum(s.launches_by_node_pool.values())
    assert set(s.launches_by_node_pool) <= {"gpu-training", "gpu-inference"}
    assert s.disruptions == sum(s.disruptions_by_reason.values())
    assert s.disruptions_by_reason.get("interrupted", 0) >= 1  # the what-if interruption at 12:00
    assert s.pods["submitted"] == len(day.pods)
    assert set(s.pending_seconds) == {"p50", "p95", "max"}
    assert {g.node_pool for g in s.static_cluster} <= {"gpu-training", "gpu-inference"}
    assert all(g.capacity_type == "on-demand" and g.count >= 1 for g in s.static_cluster)
    assert s.nodes_alive_at_end == sum(1 for n in day.nodes if n.terminated_seconds is None)
    # Nodes: as in the answer, snake_case.
    assert [n.name for n in day.nodes] == [n["name"] for n in answer["nodes"]]
    interrupted = [n for n in day.nodes if n.termination_reason == "interrupted"]
    assert [n.name for n in interrupted] == ["gpu-inference-1"]
    for n in day.nodes:
        assert n.launched_seconds <= (n.registered_seconds or n.launched_seconds) <= (n.initialized_seconds or 10**9)
        assert (n.termination_reason is None) == (n.terminated_seconds is None)
    training = [n for n in day.nodes if n.node_pool == "gpu-training"]
    assert training and all(n.instance_type == "g5.12xlarge" and n.gpus == 4 for n in training)
    # Pods and the timeline.
    assert {p.state for p in day.pods} <= {"finished", "running", "pending", "deleted"}
    assert [t.time_seconds for t in day.timeline] == sorted(t.time_seconds for t in day.timeline)
    assert day.timeline[0].time == "2025-03-04T00:00:00Z"
    assert any(t.event == "nodeclaim-interrupted" and t.object == "gpu-inference-1" for t in day.timeline)
    # Series: Karpenter's metric names.
    assert day.series_times_seconds[0] == 0 and day.series_interval_seconds == 300
    cost = day.metric("nodecast_cost_usd_total")
    assert len(cost) == 1 and len(cost[0].values) == len(day.series_times_seconds)
    assert list(cost[0].values) == sorted(cost[0].values)
    assert day.metric("karpenter_nodepool_usage", nodepool="gpu-training", resource_type="nvidia.com/gpu")
    assert str(day).startswith(f"${s.cost_usd:.2f} with Karpenter")
    assert repr(day).startswith("<nodecast.Simulation: $")


def test_result_is_frozen_and_hashable(day: nodecast.Simulation) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        day.seed = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        day.settings["seed"] = 1  # type: ignore[index]
    assert isinstance(hash(day), int)
    d = day.to_dict()
    d["seed"] = 99
    assert day.to_dict()["seed"] == 7


# ---------------------------------------------------------------------------------------------
# Trace forms


def test_every_trace_form_gives_the_same_answer(tmp_path: Path) -> None:
    yaml = pytest.importorskip("yaml")
    base = nodecast.simulate(*TRAINING_ONLY, trace=ONE_JOB, seed=1).to_json()
    path = tmp_path / "one.yaml"
    path.write_text(ONE_JOB)
    doc = yaml.safe_load(ONE_JOB)
    assert nodecast.simulate(*TRAINING_ONLY, trace=path, seed=1).to_json() == base
    assert nodecast.simulate(*TRAINING_ONLY, trace=str(path), seed=1).to_json() == base
    assert nodecast.simulate(*TRAINING_ONLY, trace=ONE_JOB.encode(), seed=1).to_json() == base
    assert nodecast.simulate(*TRAINING_ONLY, trace=doc, seed=1).to_json() == base
    assert nodecast.simulate(*TRAINING_ONLY, trace=doc["events"], seed=1).to_json() == base
    assert nodecast.simulate(*TRAINING_ONLY, trace=json.dumps(doc), seed=1).to_json() == base
    # CSV rows (scheduler exports), text and file, forced format too.
    csv_file = tmp_path / "one.csv"
    csv_file.write_text(ONE_JOB_CSV)
    from_csv = nodecast.simulate(*TRAINING_ONLY, trace=ONE_JOB_CSV, seed=1)
    assert nodecast.simulate(*TRAINING_ONLY, trace=csv_file, seed=1) == from_csv
    assert nodecast.simulate(*TRAINING_ONLY, trace=ONE_JOB_CSV, trace_format="csv", seed=1) == from_csv
    for sim in (from_csv, nodecast.simulate(*TRAINING_ONLY, trace=doc, seed=1)):
        (pod,) = sim.pods
        assert pod.state == "finished" and pod.run_time_seconds == 3600 and pod.running_seconds == 3600
        assert pod.nodes == ("gpu-training-1",)


def test_cluster_sources_can_be_dicts() -> None:
    yaml = pytest.importorskip("yaml")
    docs = [d for f in TRAINING_ONLY for d in yaml.safe_load_all((REPO / f).read_text()) if d is not None]
    assert nodecast.simulate(docs, trace=ONE_JOB, seed=2).to_dict() == nodecast.simulate(*TRAINING_ONLY, trace=ONE_JOB, seed=2).to_dict()


def test_request_json_of_the_simulation_is_kept(day: nodecast.Simulation) -> None:
    req = json.loads(day._request)
    assert req["trace"]["name"] == DAY_TRACE and req["simulation"] == {"seed": 7}
    assert [i["name"] for i in req["inputs"]] == DAY


# ---------------------------------------------------------------------------------------------
# DataFrames


def test_frames(day: nodecast.Simulation) -> None:
    pd = pytest.importorskip("pandas")
    nodes = day.nodes_frame()
    assert nodes.shape == (len(day.nodes), 18)  # 16 + launched/terminated as UTC times
    assert list(nodes["name"]) == [n.name for n in day.nodes]
    assert str(nodes["terminated_seconds"].dtype) == "Int64"
    alive = nodes[nodes["termination_reason"].isna()]
    assert len(alive) == day.summary.nodes_alive_at_end  # type: ignore[union-attr]
    assert alive["terminated_seconds"].isna().all()
    assert nodes["cost_usd"].sum() == pytest.approx(day.cost_usd, abs=0.01 * len(day.nodes))
    assert day.to_pandas().equals(nodes)

    pods = day.pods_frame()
    assert pods.shape == (len(day.pods), 15)  # 12 + submitted/started/finished as UTC times
    assert set(pods["state"]) <= {"finished", "running", "pending", "deleted"}
    assert str(pods["started_seconds"].dtype) == "Int64"

    timeline = day.timeline_frame()
    assert timeline.shape == (len(day.timeline), 7)
    assert list(timeline.columns) == ["time_seconds", "time", "event", "object", "node", "reason", "detail"]
    assert timeline["time_seconds"].is_monotonic_increasing

    summary = day.summary_frame()
    assert summary.shape == (1, 27)
    row = summary.iloc[0]
    assert row["cost_usd"] == day.cost_usd
    assert row["pending_p95_seconds"] == day.summary.pending_seconds["p95"]  # type: ignore[union-attr]
    assert row["disruptions_interrupted"] >= 1
    assert "g5.12xlarge" in row["static_cluster"]

    series = day.series_frame()
    assert series.shape[0] == len(day.series) * len(day.series_times_seconds)
    assert list(series.columns[:5]) == ["time_seconds", "time", "metric", "labels", "value"]
    csv_rows = day.to_csv().splitlines()[1:]
    assert len(csv_rows) == len(series)
    first = csv_rows[0].split(",")
    assert int(first[0]) == series.iloc[0]["time_seconds"] and first[1] == series.iloc[0]["metric"]
    assert isinstance(series, pd.DataFrame)


# ---------------------------------------------------------------------------------------------
# Notebook HTML


def test_html_has_a_gantt_chart_coloured_by_cost(day: nodecast.Simulation) -> None:
    html = day._repr_html_()
    assert "<script" not in html.lower() and "<style" not in html.lower()
    assert html.count("<svg") == 1
    # One bar group (with its tooltip) per node, named, with the cost in the tooltip.
    titles = re.findall(r"<g><title>(.*?)</title>", html)
    assert len(titles) == len(day.nodes)
    for n, t in zip(day.nodes, titles):
        assert t.startswith(f"{n.name}: ") and f"cost ${n.cost_usd:.2f}" in t
    # The most expensive node has the darkest colour, the cheapest the lightest.
    from nodecast._html import cost_color

    assert cost_color(1.0) == "#7f0000" and cost_color(0.0) == "#fee0b6"
    top = max(day.nodes, key=lambda n: n.cost_usd)
    assert f'fill="{cost_color(1.0)}"' in html and top.name in html
    assert f"${day.summary.cost_usd:.2f}" in html  # type: ignore[union-attr]
    assert "static cluster" in html and "% saved" in html


def test_html_escapes_every_text() -> None:
    answer = json.loads(nodecast.simulate(*TRAINING_ONLY, trace=ONE_JOB, seed=1).to_json())
    evil = '<script>alert("x")</script>&'
    answer["nodes"][0]["name"] = evil
    answer["nodes"][0]["instanceType"] = evil
    answer["summary"]["staticCluster"][0]["instanceType"] = evil
    answer["warnings"] = [{"code": "c", "message": evil, "object": evil}]
    text = json.dumps(answer)
    sim = nodecast.Simulation._from(text, answer)
    html = sim._repr_html_()
    assert "<script>" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;" in html


# ---------------------------------------------------------------------------------------------
# Errors


def test_trace_syntax_error_is_located() -> None:
    with pytest.raises(nodecast.InputError) as info:
        nodecast.simulate(*TRAINING_ONLY, trace="apiVersion: nodecast/v1\nkind: Trace\nevents: [\n")
    e = info.value.errors()[0]
    assert e["source"] == "<trace>" and "line" in e
    with pytest.raises(nodecast.InputError) as info:
        nodecast.simulate(*TRAINING_ONLY, trace="apiVersion: nodecast/v1\nkind: Trace\nevents: [oops]\n", trace_name="mine.yaml")
    assert info.value.errors()[0]["source"] == "mine.yaml"


def test_bad_run_time_is_located_by_path() -> None:
    trace = {"apiVersion": "nodecast/v1", "kind": "Trace", "events": [{"at": "0s", "submit": {"ref": "Job/ml/train-llm", "runTime": "soon"}}]}
    with pytest.raises(nodecast.InputError) as info:
        nodecast.simulate(*TRAINING_ONLY, trace=trace)
    errors = info.value.errors()
    assert errors[0]["path"] == "events[0].submit.runTime", errors
    assert errors[0]["source"] == "<trace>"


def test_unknown_reference_and_csv_line() -> None:
    with pytest.raises(nodecast.InputError) as info:
        nodecast.simulate(*TRAINING_ONLY, trace=[{"at": "0s", "submit": {"ref": "Job/ml/nope", "runTime": "1h"}}])
    assert "events[0]" in info.value.errors()[0].get("path", "")
    with pytest.raises(nodecast.InputError) as info:
        nodecast.simulate(*TRAINING_ONLY, trace=ONE_JOB_CSV + "later,Job/ml/train-llm,1,1h\n")
    assert info.value.errors()[0]["line"] == 3


def test_missing_trace_and_bad_types() -> None:
    with pytest.raises(FileNotFoundError):
        nodecast.simulate(*TRAINING_ONLY, trace="examples/simulate/nope.yaml")
    with pytest.raises(TypeError):
        nodecast.simulate(*TRAINING_ONLY, trace=42)
    with pytest.raises(TypeError):
        nodecast.simulate(*TRAINING_ONLY)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    "kwargs, path",
    [
        ({"seed": -1}, "simulation.seed"),
        ({"seed": "7"}, "simulation.seed"),
        ({"gpu_startup_seconds": (1, 2, 3)}, "simulation.gpuStartupSeconds"),
        ({"startup_seconds": {"min": 1}}, "simulation.startupSeconds"),
        ({"batch_max_seconds": 1.5}, "simulation.batchMaxSeconds"),
        ({"end": dt.timedelta(milliseconds=1500)}, "simulation.endSeconds"),
        ({"spot_interruption_rate_per_hour": float("nan")}, "simulation.spotInterruptionRatePerHour"),
        ({"trace_format": "xml"}, "trace.format"),
    ],
)
def test_bad_settings_are_located_input_errors(kwargs: Dict[str, Any], path: str) -> None:
    with pytest.raises(nodecast.InputError) as info:
        nodecast.simulate(*TRAINING_ONLY, trace=ONE_JOB, **kwargs)
    assert info.value.errors()[0]["path"] == path


@pytest.mark.parametrize(
    "kwargs, path",
    [
        ({"metrics_interval_seconds": 0}, "simulation.metricsIntervalSeconds"),
        ({"gpu_startup_seconds": (300, 180)}, "simulation.gpuStartupSeconds"),
        ({"spot_interruption_rate_per_hour": -1}, "simulation.spotInterruptionRatePerHour"),
        ({"end": 0}, "simulation.endSeconds"),
    ],
)
def test_settings_the_core_rejects_are_located(kwargs: Dict[str, Any], path: str) -> None:
    with pytest.raises(nodecast.InputError) as info:
        nodecast.simulate(*TRAINING_ONLY, trace=ONE_JOB, **kwargs)
    assert info.value.codes == ["invalid-setting"]
    assert info.value.errors()[0]["path"] == path
    assert info.value.to_dict()["kind"] == "Simulation"


def test_unknown_settings_field_is_an_input_error() -> None:
    with pytest.raises(nodecast.InputError) as info:
        nodecast.simulate(*TRAINING_ONLY, trace=ONE_JOB, settings={"seeed": 1})
    assert info.value.codes == ["invalid-request"]
    assert "seeed" in str(info.value)


def test_an_invalid_nodepool_is_a_validation_error() -> None:
    bad_pool = (REPO / "examples/nodepools/gpu-training.yaml").read_text().replace("operator: In", "operator: Inn", 1)
    with pytest.raises(nodecast.ValidationError) as info:
        nodecast.simulate(bad_pool, "examples/workloads/training-job-4gpu.yaml", trace=ONE_JOB)
    assert "invalid-operator" in info.value.codes


def test_end_and_timedelta(day: nodecast.Simulation) -> None:
    short = nodecast.simulate(*DAY, trace=DAY_TRACE, seed=7, end=dt.timedelta(hours=6))
    assert short.summary is not None and short.summary.duration_seconds == 6 * 3600
    assert all(t.time_seconds <= 6 * 3600 for t in short.timeline)
    assert short.settings["endSeconds"] == 21600
    assert short.cost_usd < day.cost_usd


WEEK = [
    "examples/nodepools/gpu-training.yaml",
    "examples/nodepools/gpu-inference.yaml",
    "examples/workloads/vllm-inference.yaml",
    "examples/simulate/workloads.yaml",
]


def test_the_readme_week_matches_the_cli(cli: Path) -> None:
    settings = "examples/simulate/settings.yaml"
    week = nodecast.simulate(*WEEK, trace="examples/simulate/week.yaml", settings=settings)
    assert week.to_json() == cli_json(cli, "simulate", *WEEK, "--trace", "examples/simulate/week.yaml", "--settings", settings)
    assert week.seed == 7 and week.settings["spotInterruptionRatePerHour"] == 0.01
    assert week.summary is not None and week.summary.duration_seconds == 7 * 86400
    assert week.summary.savings_percent > 0
    html = week._repr_html_()
    assert len(re.findall(r"<g><title>", html)) == min(len(week.nodes), 60)


# ---------------------------------------------------------------------------------------------
# HorizontalPodAutoscalers (docs/simulate.md, "Demand and autoscaling")

HPA = ["examples/nodepools/gpu-inference.yaml", "examples/workloads/vllm-inference.yaml", "examples/simulate/hpa-vllm.yaml"]
HPA_TRACE = "examples/simulate/hpa-day.yaml"


def test_an_hpa_drives_the_replicas_and_its_report_is_typed(cli: Path) -> None:
    sim = nodecast.simulate(*HPA, trace=HPA_TRACE, seed=7)
    assert sim.to_json() == cli_json(cli, "simulate", *HPA, "--trace", HPA_TRACE, "--seed", "7")
    (w,) = sim.autoscaling
    assert isinstance(w, nodecast.AutoscaledWorkload)
    assert w.workload == "Deployment/inference/vllm-mistral-7b"
    assert w.hpa == "inference/vllm-mistral-7b" and (w.min_replicas, w.max_replicas) == (2, 10)
    assert 2 <= w.peak_replicas <= 10 and w.rescales > 0
    assert w.served_percent is not None and 0 < w.served_percent <= 100
    assert set(w.scale_up_seconds) == {"p50", "p95", "max"}
    # The HPA is simulated, so it is no longer listed as skipped.
    assert not any(s.kind == "HorizontalPodAutoscaler" for s in sim.skipped)

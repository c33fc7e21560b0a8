"""nodecast.sweep: the spec read by the core, the same rows from every engine (in-process,
process pool, a real local Ray), the CLI's CSV, failed rows, answers on demand, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

import nodecast
from helpers import REPO, run_cli, run_python

WEEK_SPEC = "examples/sweeps/week-capacity.yaml"
DAY_CLUSTER = [
    "examples/nodepools/gpu-training.yaml",
    "examples/nodepools/gpu-inference.yaml",
    "examples/workloads/training-job-4gpu.yaml",
    "examples/workloads/vllm-inference.yaml",
]
AFTER = {"name": "consolidate_after", "target": "NodePool/gpu-training", "path": "spec.disruption.consolidateAfter", "values": ["30m", "0s"]}
CAPACITY = {
    "name": "inference_capacity",
    "target": "NodePool/gpu-inference",
    "path": "spec.template.spec.requirements[key=karpenter.sh/capacity-type].values",
    "values": [["spot", "on-demand"], ["on-demand"]],
    "labels": ["spot", "on-demand"],
}


def small(**kw: Any) -> nodecast.SweepResult:
    """2 x 2 grid x 2 seeds = 8 simulations of the day trace."""
    return nodecast.sweep(
        *DAY_CLUSTER,
        trace="examples/simulate/day.yaml",
        seeds=[7, 8],
        simulation={"spotInterruptionRatePerHour": 0.01},
        grid=[AFTER, CAPACITY],
        **{"progress": False, **kw},
    )


@pytest.fixture(scope="module")
def local() -> nodecast.SweepResult:
    cwd = os.getcwd()
    os.chdir(REPO)  # module-scoped: runs before the per-test chdir of conftest
    try:
        return small()
    finally:
        os.chdir(cwd)


def test_importing_nodecast_imports_no_optional_dependency() -> None:
    p = run_python("import sys, nodecast; print(sorted(m for m in ('ray', 'pandas', 'tqdm') if m in sys.modules))")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"


def test_rows_columns_and_order(local: nodecast.SweepResult) -> None:
    assert local.count == 8 and local.completed == 8 and local.failed == 0 and not local.interrupted
    assert local.columns[:8] == ["index", "variant", "consolidate_after", "inference_capacity", "trace", "seed", "status", "error"]
    assert [r[0] for r in local.rows] == list(range(8))
    assert [(r[2], r[3], r[5]) for r in local.rows[:4]] == [("30m", "spot", 7), ("30m", "spot", 8), ("30m", "on-demand", 7), ("30m", "on-demand", 8)]
    df = local.to_pandas()
    assert list(df.columns) == local.columns and len(df) == 8
    # On-demand inference costs more than spot, seed for seed.
    assert (df[df.inference_capacity == "on-demand"].cost_usd.values > df[df.inference_capacity == "spot"].cost_usd.values).all()
    # consolidateAfter 0s spends less on empty training nodes than 30m.
    assert df[df.consolidate_after == "0s"].empty_node_cost_usd.sum() < df[df.consolidate_after == "30m"].empty_node_cost_usd.sum()


def test_a_row_is_the_summary_of_plain_simulate(local: nodecast.SweepResult) -> None:
    direct = nodecast.simulate(*DAY_CLUSTER, trace="examples/simulate/day.yaml", seed=8, spot_interruption_rate_per_hour=0.01)
    row = dict(zip(local.columns, local.rows[1]))
    assert row["cost_usd"] == direct.summary.cost_usd
    assert row["pending_p95_s"] == direct.summary.pending_seconds["p95"]
    assert row["gpu_hours_paid"] == direct.summary.gpu_hours_paid
    assert local.answer(1).to_json() == direct.to_json()
    kept = small(keep_answers=True)
    assert kept.rows == local.rows
    assert kept.answer(6).to_json() == local.answer(6).to_json()


def test_the_spec_file_gives_the_clis_bytes(cli: Path, tmp_path: Path) -> None:
    spec = tmp_path / "day.yaml"
    repo = Path.cwd()
    spec.write_text(json.dumps({
        "apiVersion": "nodecast/v1", "kind": "Sweep", "operation": "simulate",
        "inputs": [str(repo / f) for f in DAY_CLUSTER], "traces": [str(repo / "examples/simulate/day.yaml")],
        "seeds": [7, 8], "simulation": {"spotInterruptionRatePerHour": 0.01}, "grid": [AFTER, CAPACITY],
    }))
    from_file = nodecast.sweep(spec=str(spec), progress=False)
    p = run_cli(cli, "sweep", str(spec), "-j", "2")
    assert p.returncode == 0, p.stderr
    assert from_file.to_csv() == p.stdout
    # The keyword form differs only in the trace's name (the path as given).
    local = small()
    k = local.columns.index("trace")
    assert [r[:k] + r[k + 1:] for r in from_file.rows] == [r[:k] + r[k + 1:] for r in local.rows]


def test_the_process_pool_gives_the_same_bytes(local: nodecast.SweepResult) -> None:
    pooled = small(engine="process", workers=2)
    assert pooled.rows == local.rows
    assert pooled.to_csv() == local.to_csv()
    assert pooled.stats["engine"] == "process" and pooled.stats["tasks"] >= 2


@pytest.fixture(scope="module")
def ray_local() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, _node_ip_address="127.0.0.1", include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def test_ray_gives_the_same_bytes(local: nodecast.SweepResult, ray_local: Any) -> None:
    assert ray_local.is_initialized()
    on_ray = small(engine="ray")
    assert on_ray.rows == local.rows
    assert on_ray.to_csv() == local.to_csv()
    assert on_ray.stats["engine"] == "ray" and on_ray.stats["tasks"] >= 2
    batched = small(engine="ray", batch_size=3)
    assert batched.rows == local.rows and batched.stats["tasks"] == 1 + 3


def test_failed_combinations_are_rows_with_their_error() -> None:
    r = nodecast.sweep(
        "examples/nodepools/gpu-training.yaml", "examples/workloads/training-job-4gpu.yaml",
        operation="plan", grid={"weight": {"target": "NodePool/gpu-training", "path": "spec.weight", "values": [10, 1000]}},
        progress=False,
    )
    assert r.failed == 1
    ok, bad = (dict(zip(r.columns, row)) for row in r.rows)
    assert ok["status"] == "success" and ok["price_per_hour_usd"] == 5.672 and ok["node_claims"] == 1
    assert bad["status"] == "failure" and "spec.weight" in bad["error"] and bad["price_per_hour_usd"] is None
    with pytest.raises(nodecast.InputError):
        r.answer(1)


def test_a_bad_spec_raises_located_errors() -> None:
    with pytest.raises(nodecast.InputError) as e:
        nodecast.sweep(*DAY_CLUSTER, trace="examples/simulate/day.yaml", seeds=[1, 1],
                       grid=[{**AFTER, "target": "NodePool/nope"}, {**CAPACITY, "path": "spec..x"}])
    paths = {err.get("path") for err in e.value.errors()}
    assert {"seeds", "grid[1].path"} <= paths, e.value.errors()
    with pytest.raises(ValueError, match="engine"):
        small(engine="dask")
    with pytest.raises(ValueError, match="not both"):
        nodecast.sweep("x.yaml", spec=WEEK_SPEC)


def test_variants_replace_documents() -> None:
    yaml_text = Path("examples/nodepools/gpu-training.yaml").read_text().replace('values: ["a100", "h100", "a10g"]', 'values: ["a100"]')
    r = nodecast.sweep(
        "examples/nodepools/gpu-training.yaml", "examples/workloads/training-job-4gpu.yaml", operation="plan",
        variants=[{"name": "as-is"}, {"name": "a100-only", "sources": [yaml_text]}], progress=False,
    )
    assert [row[1] for row in r.rows] == ["as-is", "a100-only"]
    plan = r.answer(1)
    assert isinstance(plan, nodecast.Plan) and plan.node_claims[0].instance_type.startswith("p4d")


def test_progress_bar_and_ctrl_c_returns_the_rows_done(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tqdm")
    small(progress=True)
    assert "nodecast sweep" in capsys.readouterr().err
    # Python's own Ctrl-C handler, as in a user's session: a native library loaded by an earlier
    # test (OR-Tools' CP-SAT) may have left SIGINT at its default action, which would kill pytest.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        r = nodecast.sweep(spec=WEEK_SPEC, progress=False)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert r.interrupted, "the 108-run sweep finished within a second"
    assert 0 < r.completed < r.count == 108
    assert [row[0] for row in r.rows] == list(range(r.completed))
    assert "interrupted" in repr(r)


def test_a_spec_mapping_reads_its_paths_from_the_working_directory(local: nodecast.SweepResult) -> None:
    r = nodecast.sweep(spec={
        "operation": "simulate", "inputs": DAY_CLUSTER, "traces": ["examples/simulate/day.yaml"], "seeds": [7, 8],
        "simulation": {"spotInterruptionRatePerHour": 0.01}, "grid": [AFTER, CAPACITY],
    }, progress=False)
    k = r.columns.index("trace")
    assert [row[:k] + row[k + 1:] for row in r.rows] == [row[:k] + row[k + 1:] for row in local.rows]
    assert r.rows[0][k] == "examples/simulate/day.yaml"


def test_a_spec_reads_only_files_beside_it_unless_allowed(tmp_path: Path) -> None:
    # Issue 29: a spec could name any file of the machine and have it read (and its first line
    # echoed into a row's error). The CLI refused it; now Python does too, before opening it.
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.yaml"
    secret.write_text("top-secret-first-line\n")
    specs = tmp_path / "specs"
    specs.mkdir()
    spec = specs / "sweep.yaml"
    spec.write_text(f"operation: plan\ninputs: [{secret}]\n")
    cwd = os.getcwd()
    os.chdir(specs)
    try:
        with pytest.raises(PermissionError, match="outside the spec's directory") as e:
            nodecast.sweep(spec=str(spec), progress=False)
        assert "top-secret" not in str(e.value)
        with pytest.raises(PermissionError, match="allow_any_file"):
            nodecast.sweep(spec={"operation": "plan", "inputs": [str(secret)]}, progress=False)
        with pytest.raises(PermissionError):
            nodecast.sweep(spec={"operation": "plan", "inputs": ["../outside/secret.yaml"]}, progress=False)
        # Allowed, the file is read: it is not a manifest, which the answer says of that file.
        with pytest.raises(nodecast.InputError) as bad:
            nodecast.sweep(spec=str(spec), progress=False, allow_any_file=True)
        assert str(secret) in str(bad.value), bad.value
        # Beside the spec: read without the flag.
        (specs / "pool.yaml").write_text(Path(REPO, "examples/nodepools/gpu-training.yaml").read_text())
        (specs / "beside.yaml").write_text("operation: plan\ninputs: [pool.yaml]\n")
        assert nodecast.sweep(spec=str(specs / "beside.yaml"), progress=False).count == 1
    finally:
        os.chdir(cwd)


def test_a_catalog_list_is_an_axis_in_the_keyword_form_and_the_spec_file() -> None:
    inference = ["examples/nodepools/gpu-inference.yaml", "examples/workloads/vllm-inference.yaml"]
    eu = ["examples/prices/eu-west-1-on-demand.yaml", "examples/prices/eu-west-1-spot-price-history.json"]
    r = nodecast.sweep(
        *inference, operation="plan", progress=False,
        catalog=["aws-us-gov-west-1", {"catalog": "aws-eu-west-1", "label": "eu", "sources": eu}],
    )
    assert r.columns[:4] == ["index", "variant", "catalog", "status"]
    assert [row[2] for row in r.rows] == ["aws-us-gov-west-1", "eu"]
    assert [row[3] for row in r.rows] == ["success", "success"]
    price = r.columns.index("price_per_hour_usd")
    # Each row is plan on that region alone.
    assert r.rows[0][price] == nodecast.plan(*inference, catalog="aws-us-gov-west-1").total_price_per_hour
    assert r.rows[1][price] == nodecast.plan(*inference, *eu, catalog="aws-eu-west-1").total_price_per_hour
    spec = nodecast.sweep(spec="examples/sweeps/regions.yaml", progress=False)
    assert [row[2] for row in spec.rows] == ["aws-us-east-1"] * 2 + ["aws-eu-west-1"] * 2 + ["aws-us-gov-west-1"] * 2
    with pytest.raises(ValueError, match="zones"):
        nodecast.sweep(*inference, operation="plan", catalog=["aws-us-east-1"], zones=["us-east-1a"])

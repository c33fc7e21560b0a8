"""Type-checked with `mypy --strict --python-version 3.9` by scripts/test.sh: the public API as a
user's code sees it through the installed stubs (not collected by pytest: no test_ prefix)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import nodecast
from nodecast import _native


def training(paths: List[Path]) -> Tuple[Optional[str], float]:
    plan: nodecast.Plan = nodecast.plan(*paths, zones=["us-east-1a"], spot_price_factor=0.3, min_values_policy="Strict")
    claim: nodecast.NodeClaim = plan.node_claims[0]
    gpu: float = claim.utilization.get("nvidia.com/gpu", 0.0)
    reasons: List[str] = [r.message for u in plan.unschedulable for r in u.reasons]
    _ = (gpu, reasons, plan.to_dict()["kind"], plan.summary(), plan.monthly_price)
    return claim.instance_type, plan.total_price_per_hour


def decision(objects: List[Dict[str, Any]]) -> Optional[str]:
    d: nodecast.Decision = nodecast.consolidate(objects, now=dt.datetime(2025, 3, 5, 12, tzinfo=dt.timezone.utc))
    d2 = nodecast.consolidate("cluster.yaml", now="2025-03-05T12:00:00Z", catalog={"source": "aws-us-east-1"})
    disrupted: Tuple[str, ...] = d.disrupted_nodes + d2.disrupted_nodes
    _ = disrupted
    return d.replacement.instance_type if d.replacement is not None else None


def others() -> None:
    e: nodecast.Explanation = nodecast.explain("a.yaml", pod="ml/train-llm-0", instance_type="p4d.24xlarge")
    if e.pod is not None:
        ok: List[bool] = [v.ok for v in e.pod.node_pools]
        _ = ok
    v: nodecast.ValidationReport = nodecast.validate("a.yaml")
    pools: Tuple[str, ...] = v.node_pools
    c: nodecast.CatalogResult = nodecast.catalog(gpu=True, requirements=["kubernetes.io/arch In amd64"], limit=3)
    price: float = c.instance_types[0].on_demand_price_per_hour
    text: str = nodecast.request_json("a.yaml", now="2025-03-05T12:00:00Z")
    answer: str = _native.call("plan", text)
    version: str = nodecast.__version__ + _native.__version__
    _ = (pools, price, answer, version)
    try:
        nodecast.validate("bad.yaml")
    except nodecast.ValidationError as err:
        errors: List[Dict[str, Any]] = err.errors()
        _ = errors
    except nodecast.InputError as err:
        codes: List[str] = err.codes
        _ = (codes, err.to_json())


def simulation() -> None:
    s: nodecast.Simulation = nodecast.simulate(
        "pools.yaml",
        "jobs.yaml",
        trace="week.yaml",
        seed=7,
        end=dt.timedelta(days=1),
        gpu_startup_seconds=(180, 300),
        spot_interruption_rate_per_hour=0.01,
        settings={"batchMaxSeconds": 10},
    )
    s2 = nodecast.simulate({"kind": "Pod"}, trace=[{"at": "0s", "submit": {"ref": "Pod/p"}}], trace_format="json")
    if s.summary is not None:
        cost: float = s.summary.cost_usd + s.summary.static_cost_usd
        p95: int = s.summary.pending_seconds["p95"]
        _ = (cost, p95)
    ends: List[Optional[int]] = [n.terminated_seconds for n in s.nodes]
    states: List[str] = [p.state for p in s2.pods]
    events: List[str] = [t.event for t in s.timeline]
    values: Tuple[float, ...] = s.metric("nodecast_cost_usd_total")[0].values
    csv: str = s.to_csv() + s.to_prometheus() + s._repr_html_()
    _ = (ends, states, events, values, csv, s.timeline_frame(), s.nodes_frame(), s.pods_frame(), s.summary_frame(), s.to_pandas())
    _ = (s.plot_cost(), s.plot_nodes(max_rows=10), s.series_frame())


def sweeps() -> None:
    r: nodecast.SweepResult = nodecast.sweep(
        "a.yaml",
        trace="t.yaml",
        seeds={"from": 1, "count": 3},
        grid=[{"name": "w", "target": "NodePool/p", "path": "spec.weight", "values": [1, 2]}],
        engine="process",
        workers=2,
        progress=False,
    )
    from_file = nodecast.sweep(spec="sweep.yaml", engine="ray", address="auto")
    rows: List[List[object]] = r.rows
    n: int = r.completed + r.failed + from_file.count
    text: str = r.to_csv() + r.request_json(0)
    answer = r.answer(0)
    if isinstance(answer, nodecast.Simulation) and answer.summary is not None:
        _ = answer.summary.cost_usd
    _ = (rows, n, text, r.interrupted, r.to_pandas())

"""pandas DataFrames of answers. pandas is optional: it is imported only here, on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional

from ._answer import _GIB, quantity
from ._renderers import renders

if TYPE_CHECKING:  # pragma: no cover
    import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]

    from ._results import CatalogResult, Decision, Explanation, NodeClaim, Plan, Simulation, ValidationReport


def _pandas() -> Any:
    try:
        import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError as e:
        raise ImportError(
            "to_pandas() needs pandas, which is not installed: pip install pandas "
            "(or pip install 'nodecast[pandas]'). Everything else in nodecast works without it."
        ) from e
    return pandas


def _frame(rows: List[Dict[str, Any]], columns: List[str]) -> pandas.DataFrame:
    frame: pandas.DataFrame = _pandas().DataFrame(rows, columns=columns)
    return frame


def cores(q: Optional[str]) -> Optional[float]:
    """CPU in cores, a float ("3500m" -> 3.5)."""
    v = quantity(q)
    return None if v is None else float(v)


def gib(q: Optional[str]) -> Optional[float]:
    """Memory in GiB, a float ("173400Mi" -> 169.336)."""
    v = quantity(q)
    return None if v is None else float(v / _GIB)


def count(q: Optional[str]) -> Optional[int]:
    """A whole count (GPUs, pods) as an int; a fractional one rounds up, as a request does."""
    v = quantity(q)
    return None if v is None else int(v.to_integral_value(rounding="ROUND_CEILING"))


PLAN_COLUMNS = [
    "name",
    "node_pool",
    "instance_type",
    "capacity_type",
    "zone",
    "price_per_hour",
    "pods",
    "pod_names",
    "options",
    "cpu_utilization",
    "memory_utilization",
    "gpu_utilization",
    "gpu_resource",
    "requests_cpu",
    "requests_memory_gib",
    "requests_gpu",
    "allocatable_cpu",
    "allocatable_memory_gib",
    "allocatable_gpu",
    "daemon_sets",
]
# Numbers, not quantity strings: cpu in cores (float), memory in GiB (float), GPUs (nullable int).
_PLAN_INT_COLUMNS = ["requests_gpu", "allocatable_gpu"]


def _claim_row(c: NodeClaim) -> Dict[str, Any]:
    acc = c.accelerator
    return {
        "name": c.name,
        "node_pool": c.node_pool,
        "instance_type": c.instance_type,
        "capacity_type": c.capacity_type,
        "zone": c.zone,
        "price_per_hour": c.price_per_hour,
        "pods": len(c.pods),
        "pod_names": ", ".join(c.pods),
        "options": len(c.instance_type_options),
        "cpu_utilization": c.utilization.get("cpu"),
        "memory_utilization": c.utilization.get("memory"),
        "gpu_utilization": c.utilization.get(acc) if acc else None,
        "gpu_resource": acc,
        "requests_cpu": cores(c.requests.get("cpu")),
        "requests_memory_gib": gib(c.requests.get("memory")),
        "requests_gpu": count(c.requests.get(acc)) if acc else None,
        "allocatable_cpu": cores(c.allocatable.get("cpu")),
        "allocatable_memory_gib": gib(c.allocatable.get("memory")),
        "allocatable_gpu": count(c.allocatable.get(acc)) if acc else None,
        "daemon_sets": ", ".join(c.daemon_sets),
    }


@renders
def plan_frame(p: Plan) -> pandas.DataFrame:
    return _nullable_ints(_frame([_claim_row(c) for c in p.node_claims], PLAN_COLUMNS), _PLAN_INT_COLUMNS)


PODS_COLUMNS = [
    "pod",
    "namespace",
    "name",
    "placement",
    "node",
    "node_pool",
    "instance_type",
    "capacity_type",
    "zone",
    "node_price_per_hour",
    "code",
    "reason",
    "fix",
    "fix_verified",
]


def _split(key: str) -> List[Optional[str]]:
    ns, _, name = key.rpartition("/")
    return [ns or None, name]


@renders
def plan_pods_frame(p: Plan) -> pandas.DataFrame:
    rows: List[Dict[str, Any]] = []
    for c in p.node_claims:
        for pod in c.pods:
            ns, name = _split(pod)
            rows.append(
                {
                    "pod": pod,
                    "namespace": ns,
                    "name": name,
                    "placement": "new-node-claim",
                    "node": c.name,
                    "node_pool": c.node_pool,
                    "instance_type": c.instance_type,
                    "capacity_type": c.capacity_type,
                    "zone": c.zone,
                    "node_price_per_hour": c.price_per_hour,
                    "code": None,
                    "reason": None,
                }
            )
    for n in p.existing_nodes:
        for pod in n.pods:
            ns, name = _split(pod)
            rows.append(
                {
                    "pod": pod,
                    "namespace": ns,
                    "name": name,
                    "placement": "existing-node",
                    "node": n.name,
                    "node_pool": n.node_pool,
                    "instance_type": n.instance_type,
                    "capacity_type": None,
                    "zone": None,
                    "node_price_per_hour": None,
                    "code": None,
                    "reason": None,
                }
            )
    for u in p.unschedulable:
        ns, name = _split(u.pod)
        first = next((r for r in u.reasons if r.code == u.code), u.reasons[0] if u.reasons else None)
        # The first verified hint, else the first checked one.
        fix = next((h for h in u.hints if h.verified), u.hints[0] if u.hints else None)
        rows.append(
            {
                "pod": u.pod,
                "namespace": ns,
                "name": name,
                "placement": "unschedulable",
                "node": None,
                "node_pool": first.node_pool if first else None,
                "instance_type": None,
                "capacity_type": None,
                "zone": None,
                "node_price_per_hour": None,
                "code": u.code,
                "reason": first.message if first else None,
                "fix": fix.change if fix else None,
                "fix_verified": fix.verified if fix else None,
            }
        )
    return _frame(rows, PODS_COLUMNS)


DECISION_COLUMNS = [
    "name",
    "node_pool",
    "instance_type",
    "capacity_type",
    "price_per_hour",
    "pods",
    "disrupted",
    "verdict",
    "why",
]


@renders
def decision_frame(d: Decision) -> pandas.DataFrame:
    rows: List[Dict[str, Any]] = []
    for n in d.nodes:
        verdict: Optional[str]
        why: Optional[str]
        if n.disrupted:
            verdict, why = "disrupted", d.reason
        else:
            first = n.reasons[0] if n.reasons else None
            verdict, why = (first.code, first.message) if first else (None, None)
        rows.append(
            {
                "name": n.name,
                "node_pool": n.node_pool,
                "instance_type": n.instance_type,
                "capacity_type": n.capacity_type,
                "price_per_hour": n.price_per_hour,
                "pods": n.pods,
                "disrupted": n.disrupted,
                "verdict": verdict,
                "why": why,
            }
        )
    return _frame(rows, DECISION_COLUMNS)


@renders
def explanation_frame(e: Explanation) -> pandas.DataFrame:
    rows: List[Dict[str, Any]] = []
    if e.pod is not None:
        for v in e.pod.node_pools:
            rows.append({"scope": "node-pool", "name": v.name, "ok": v.ok, "reason": v.reason})
        for v in e.pod.existing_nodes:
            rows.append({"scope": "existing-node", "name": v.name, "ok": v.ok, "reason": v.reason})
    if e.instance_type is not None:
        it = e.instance_type
        for r in it.reasons:
            rows.append({"scope": "instance-type", "name": it.instance_type, "ok": it.verdict != "rejected", "reason": r})
    if e.node is not None:
        n = e.node.node
        reason = n.reasons[0].message if n.reasons else e.node.summary
        rows.append({"scope": "node", "name": n.name, "ok": n.disrupted, "reason": reason})
    return _frame(rows, ["scope", "name", "ok", "reason"])


@renders
def validation_frame(v: ValidationReport) -> pandas.DataFrame:
    row = {"objects": v.objects, "node_pools": ", ".join(v.node_pools), "pods": v.pods, "skipped": len(v.skipped)}
    return _frame([row], ["objects", "node_pools", "pods", "skipped"])


CATALOG_COLUMNS = [
    "name",
    "vcpu",
    "memory_gib",
    "arch",
    "gpu_name",
    "gpu_count",
    "gpu_memory_mib",
    "accelerator_name",
    "accelerator_count",
    "allocatable_cpu",
    "allocatable_memory_gib",
    "on_demand_price_per_hour",
    "spot_price_per_hour",
]


@renders
def catalog_frame(c: CatalogResult) -> pandas.DataFrame:
    rows = [
        {
            "name": r.name,
            "vcpu": count(r.vcpu),
            "memory_gib": gib(r.memory),
            "arch": r.arch,
            "gpu_name": r.gpu_name,
            "gpu_count": count(r.gpu_count),
            "gpu_memory_mib": count(r.gpu_memory_mib),
            "accelerator_name": r.accelerator_name,
            "accelerator_count": count(r.accelerator_count),
            "allocatable_cpu": cores(r.allocatable_cpu),
            "allocatable_memory_gib": gib(r.allocatable_memory),
            "on_demand_price_per_hour": r.on_demand_price_per_hour,
            "spot_price_per_hour": r.spot_price_per_hour,
        }
        for r in c.instance_types
    ]
    return _nullable_ints(_frame(rows, CATALOG_COLUMNS), ["vcpu", "gpu_count", "gpu_memory_mib", "accelerator_count"])


def _nullable_ints(frame: pandas.DataFrame, columns: List[str]) -> pandas.DataFrame:
    """Integer columns that may be missing (a node still alive, a pod that never started) as
    pandas' nullable ``Int64`` rather than floats with NaN."""
    if len(frame) == 0:
        return frame
    result: pandas.DataFrame = frame.astype({c: "Int64" for c in columns})
    return result


_UTC_NS = "datetime64[ns, UTC]"


def _with_times(frame: pandas.DataFrame, start: Optional[str], pairs: List[Any]) -> pandas.DataFrame:
    """Beside each ``<x>_seconds`` column, a ``<x>`` column of ``datetime64[ns, UTC]``: the trace's
    start + the offset (NaT when the trace gave no start, or the event never happened)."""
    pd = _pandas()
    origin = pd.Timestamp(start).tz_convert("UTC") if start else None
    for seconds_col, time_col in pairs:
        if origin is None or len(frame) == 0:
            values = pd.Series(pd.NaT, index=frame.index, dtype=_UTC_NS)
        else:
            offsets = pd.to_timedelta(pd.to_numeric(frame[seconds_col], errors="coerce"), unit="s")
            values = (origin + offsets).astype(_UTC_NS)
        frame.insert(frame.columns.get_loc(seconds_col) + 1, time_col, values)
    return frame


SIM_NODE_COLUMNS = [
    "name",
    "node_pool",
    "instance_type",
    "capacity_type",
    "zone",
    "price_per_hour_usd",
    "gpus",
    "launched_seconds",
    "registered_seconds",
    "initialized_seconds",
    "terminated_seconds",
    "lifetime_seconds",
    "cost_usd",
    "empty_cost_usd",
    "termination_reason",
    "pods",
]


@renders
def sim_nodes_frame(s: Simulation) -> pandas.DataFrame:
    rows = [{c: getattr(n, c) for c in SIM_NODE_COLUMNS} for n in s.nodes]
    frame = _nullable_ints(_frame(rows, SIM_NODE_COLUMNS), ["registered_seconds", "initialized_seconds", "terminated_seconds"])
    return _with_times(frame, s.start, [("launched_seconds", "launched"), ("terminated_seconds", "terminated")])


SIM_POD_COLUMNS = [
    "name",
    "workload",
    "submitted_seconds",
    "started_seconds",
    "finished_seconds",
    "state",
    "pending_seconds",
    "run_time_seconds",
    "running_seconds",
    "work_lost_seconds",
    "restarts",
    "nodes",
]


@renders
def sim_pods_frame(s: Simulation) -> pandas.DataFrame:
    rows = []
    for p in s.pods:
        row = {c: getattr(p, c) for c in SIM_POD_COLUMNS}
        row["nodes"] = ", ".join(p.nodes)
        rows.append(row)
    frame = _nullable_ints(_frame(rows, SIM_POD_COLUMNS), ["started_seconds", "finished_seconds", "run_time_seconds"])
    pairs = [("submitted_seconds", "submitted"), ("started_seconds", "started"), ("finished_seconds", "finished")]
    return _with_times(frame, s.start, pairs)


SIM_TIMELINE_COLUMNS = ["time_seconds", "event", "object", "node", "reason", "detail"]


@renders
def sim_timeline_frame(s: Simulation) -> pandas.DataFrame:
    """``time`` is ``datetime64[ns, UTC]`` (the answer's RFC 3339 string, parsed) beside ``time_seconds``."""
    rows = [{c: getattr(t, c) for c in SIM_TIMELINE_COLUMNS} for t in s.timeline]
    return _with_times(_frame(rows, SIM_TIMELINE_COLUMNS), s.start, [("time_seconds", "time")])


SIM_SUMMARY_COLUMNS = [
    "duration_seconds",
    "cost_usd",
    "static_cost_usd",
    "savings_usd",
    "savings_percent",
    "gpu_hours_paid",
    "gpu_hours_used",
    "gpu_utilization",
    "empty_node_cost_usd",
    "empty_node_seconds",
    "pending_p50_seconds",
    "pending_p95_seconds",
    "pending_max_seconds",
    "work_lost_seconds",
    "pods_submitted",
    "pods_finished",
    "pods_running",
    "pods_pending",
    "pods_deleted",
    "launches",
    "disruptions",
    "disruptions_empty",
    "disruptions_underutilized",
    "disruptions_expired",
    "disruptions_interrupted",
    "nodes_alive_at_end",
    "static_cluster",
]


@renders
def sim_summary_frame(s: Simulation) -> pandas.DataFrame:
    m = s.summary
    assert m is not None
    row: Dict[str, Any] = {c: getattr(m, c) for c in SIM_SUMMARY_COLUMNS if hasattr(m, c) and c != "static_cluster"}
    for k in ("p50", "p95", "max"):
        row[f"pending_{k}_seconds"] = m.pending_seconds.get(k)
    for k in ("submitted", "finished", "running", "pending", "deleted"):
        row[f"pods_{k}"] = m.pods.get(k)
    for k in ("empty", "underutilized", "expired", "interrupted"):
        row[f"disruptions_{k}"] = m.disruptions_by_reason.get(k, 0)
    row["static_cluster"] = ", ".join(f"{g.count} x {g.instance_type} ({g.node_pool})" for g in m.static_cluster)
    return _frame([row], SIM_SUMMARY_COLUMNS)


@renders
def sim_series_frame(s: Simulation) -> pandas.DataFrame:
    """One row per metric and sample, metric-major (the row order of ``to_csv()``): ``time_seconds``,
    ``time`` (UTC), ``metric``, ``labels`` (``k=v;...``, sorted), ``value``, then one column per label
    key (sorted; None where a metric lacks that label), ready for ``groupby``/``pivot``."""
    keys = sorted({k for metric in s.series for k in metric.labels})
    rows: List[Dict[str, Any]] = []
    for metric in s.series:
        labels = ";".join(f"{k}={metric.labels[k]}" for k in sorted(metric.labels))
        per_label = {k: metric.labels.get(k) for k in keys}
        for t, v in zip(s.series_times_seconds, metric.values):
            rows.append({"time_seconds": t, "metric": metric.name, "labels": labels, "value": v, **per_label})
    columns = ["time_seconds", "metric", "labels", "value"] + [k for k in keys if k not in SERIES_BASE_COLUMNS]
    return _with_times(_frame(rows, columns), s.start, [("time_seconds", "time")])


SERIES_BASE_COLUMNS = ("time_seconds", "time", "metric", "labels", "value")


__all__ = [
    "sim_nodes_frame",
    "sim_pods_frame",
    "sim_timeline_frame",
    "sim_summary_frame",
    "sim_series_frame",
    "plan_frame",
    "plan_pods_frame",
    "decision_frame",
    "explanation_frame",
    "validation_frame",
    "catalog_frame",
]

"""pandas DataFrames of answers. pandas is optional: it is imported only here, on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional

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
    "requests_memory",
    "requests_gpu",
    "allocatable_cpu",
    "allocatable_memory",
    "allocatable_gpu",
    "daemon_sets",
]


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
        "requests_cpu": c.requests.get("cpu"),
        "requests_memory": c.requests.get("memory"),
        "requests_gpu": c.requests.get(acc) if acc else None,
        "allocatable_cpu": c.allocatable.get("cpu"),
        "allocatable_memory": c.allocatable.get("memory"),
        "allocatable_gpu": c.allocatable.get(acc) if acc else None,
        "daemon_sets": ", ".join(c.daemon_sets),
    }


def plan_frame(p: Plan) -> pandas.DataFrame:
    return _frame([_claim_row(c) for c in p.node_claims], PLAN_COLUMNS)


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


def validation_frame(v: ValidationReport) -> pandas.DataFrame:
    row = {"objects": v.objects, "node_pools": ", ".join(v.node_pools), "pods": v.pods, "skipped": len(v.skipped)}
    return _frame([row], ["objects", "node_pools", "pods", "skipped"])


CATALOG_COLUMNS = [
    "name",
    "vcpu",
    "memory",
    "arch",
    "gpu_name",
    "gpu_count",
    "gpu_memory_mib",
    "accelerator_name",
    "accelerator_count",
    "allocatable_cpu",
    "allocatable_memory",
    "on_demand_price_per_hour",
    "spot_price_per_hour",
]


def catalog_frame(c: CatalogResult) -> pandas.DataFrame:
    rows = [{col: getattr(r, col) for col in CATALOG_COLUMNS} for r in c.instance_types]
    return _frame(rows, CATALOG_COLUMNS)


# ----------------------------------------------------------------------------------------------
# Simulation


def _nullable_ints(frame: pandas.DataFrame, columns: List[str]) -> pandas.DataFrame:
    """Integer columns that may be missing (a node still alive, a pod that never started) as
    pandas' nullable ``Int64`` rather than floats with NaN."""
    if len(frame) == 0:
        return frame
    result: pandas.DataFrame = frame.astype({c: "Int64" for c in columns})
    return result


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


def sim_nodes_frame(s: Simulation) -> pandas.DataFrame:
    rows = [{c: getattr(n, c) for c in SIM_NODE_COLUMNS} for n in s.nodes]
    return _nullable_ints(_frame(rows, SIM_NODE_COLUMNS), ["registered_seconds", "initialized_seconds", "terminated_seconds"])


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


def sim_pods_frame(s: Simulation) -> pandas.DataFrame:
    rows = []
    for p in s.pods:
        row = {c: getattr(p, c) for c in SIM_POD_COLUMNS}
        row["nodes"] = ", ".join(p.nodes)
        rows.append(row)
    return _nullable_ints(_frame(rows, SIM_POD_COLUMNS), ["started_seconds", "finished_seconds", "run_time_seconds"])


SIM_TIMELINE_COLUMNS = ["time_seconds", "time", "event", "object", "node", "reason", "detail"]


def sim_timeline_frame(s: Simulation) -> pandas.DataFrame:
    rows = [{c: getattr(t, c) for c in SIM_TIMELINE_COLUMNS} for t in s.timeline]
    return _frame(rows, SIM_TIMELINE_COLUMNS)


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


def sim_series_frame(s: Simulation) -> pandas.DataFrame:
    rows: List[Dict[str, Any]] = []
    for metric in s.series:  # metric-major, the row order of to_csv()
        labels = ";".join(f"{k}={metric.labels[k]}" for k in sorted(metric.labels))
        for t, v in zip(s.series_times_seconds, metric.values):
            rows.append({"time_seconds": t, "metric": metric.name, "labels": labels, "value": v})
    return _frame(rows, ["time_seconds", "metric", "labels", "value"])


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

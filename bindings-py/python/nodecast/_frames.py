"""pandas DataFrames of answers. pandas is optional: it is imported only here, on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional

from ._results import accelerator_of

if TYPE_CHECKING:  # pragma: no cover
    import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]

    from ._results import CatalogResult, Decision, Explanation, NodeClaim, Plan, ValidationReport


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


__all__ = [
    "plan_frame",
    "plan_pods_frame",
    "decision_frame",
    "explanation_frame",
    "validation_frame",
    "catalog_frame",
    "accelerator_of",
]

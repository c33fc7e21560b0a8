"""pandas DataFrames of a Simulation's autoscaling (HPA and KEDA): one row per scaled workload, and
the replicas, desired replicas, ready pods, Jobs and demand of each over time. Built from the
answer alone (``autoscaling`` and the ``series`` the core wrote), so nothing is recomputed here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from ._frames import _frame, _nullable_ints, _with_times
from ._renderers import renders

if TYPE_CHECKING:  # pragma: no cover
    import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]

    from ._results import Simulation

AUTOSCALING_COLUMNS = [
    "workload",
    "hpa",
    "keda",
    "min_replicas",
    "max_replicas",
    "peak_replicas",
    "rescales",
    "replica_hours",
    "ready_replica_hours",
    "seconds_below_desired",
    "readiness_delay_seconds",
    "capacity_per_replica",
    "demand_unit_hours",
    "served_unit_hours",
    "unserved_unit_hours",
    "served_percent",
    "seconds_short",
    "scale_up_p50_seconds",
    "scale_up_p95_seconds",
    "scale_up_max_seconds",
    "rises_covered",
    "rises_uncovered",
    "keda_activations",
    "keda_deactivations",
    "jobs_created",
    "jobs_succeeded",
    "jobs_failed",
    "gpu_hours",
    "gpu_cost_usd",
]
# Counts a row may lack (no HPA, no capacityPerReplica, not KEDA): nullable Int64, not float NaN.
_AUTOSCALING_INT_COLUMNS = [
    "min_replicas",
    "max_replicas",
    "seconds_short",
    "scale_up_p50_seconds",
    "scale_up_p95_seconds",
    "scale_up_max_seconds",
    "rises_covered",
    "rises_uncovered",
    "keda_activations",
    "keda_deactivations",
    "jobs_created",
    "jobs_succeeded",
    "jobs_failed",
]


@renders
def autoscaling_frame(s: Simulation) -> pandas.DataFrame:
    """One row per workload of ``Simulation.autoscaling``, in the answer's order."""
    rows: List[Dict[str, Any]] = []
    for w in s.autoscaling:
        row: Dict[str, Any] = {c: getattr(w, c) for c in AUTOSCALING_COLUMNS if hasattr(w, c)}
        for k in ("p50", "p95", "max"):
            row[f"scale_up_{k}_seconds"] = w.scale_up_seconds.get(k)
        rows.append(row)
    return _nullable_ints(_frame(rows, AUTOSCALING_COLUMNS), _AUTOSCALING_INT_COLUMNS)


AUTOSCALING_SERIES_COLUMNS = [
    "time_seconds",
    "workload",
    "hpa",
    "replicas",
    "ready_replicas",
    "desired_replicas",
    "jobs",
]


def _series_keys(s: Simulation) -> Tuple[Dict[Tuple[str, str], str], List[str]]:
    """(metric name, the label that names the workload's series) -> workload; and the demand
    metrics in order of first appearance."""
    by_hpa = {w.hpa: w.workload for w in s.autoscaling if w.hpa is not None}
    keys: Dict[Tuple[str, str], str] = {}
    metrics: List[str] = []
    for m in s.series:
        if m.name == "kube_horizontalpodautoscaler_status_desired_replicas":
            hpa = f"{m.labels.get('namespace')}/{m.labels.get('horizontalpodautoscaler')}"
            if hpa in by_hpa:
                keys[(m.name, hpa)] = by_hpa[hpa]
        elif m.name == "nodecast_demand" and m.labels.get("metric") not in metrics:
            metrics.append(m.labels["metric"])
    return keys, metrics


@renders
def autoscaling_series_frame(s: Simulation) -> pandas.DataFrame:
    """One row per (sample time, workload of ``autoscaling``), time-major: ``replicas`` (the Scale's
    replicas after the last HPA sync or KEDA poll: pods pending or running), ``ready_replicas``,
    ``desired_replicas`` (what the HPA computed; None without an HPA), ``jobs`` (a ScaledJob's
    unfinished Jobs, which stand for its replicas; None otherwise) and one ``demand_<metric>``
    column per demand metric of the trace (None where a workload has no series of that metric).
    ``time`` (UTC) sits beside ``time_seconds`` when the trace has a start."""
    hpa_keys, demand_metrics = _series_keys(s)
    hpa_of = {w.workload: w.hpa for w in s.autoscaling}
    columns = AUTOSCALING_SERIES_COLUMNS + [f"demand_{m}" for m in demand_metrics]
    # (workload, column) -> values at series_times_seconds
    values: Dict[Tuple[str, str], Tuple[float, ...]] = {}
    for m in s.series:
        workload: Optional[str] = m.labels.get("workload")
        column = {
            "nodecast_workload_replicas": "replicas",
            "nodecast_workload_ready_replicas": "ready_replicas",
            "nodecast_scaledjob_jobs": "jobs",
        }.get(m.name)
        if m.name == "kube_horizontalpodautoscaler_status_desired_replicas":
            hpa = f"{m.labels.get('namespace')}/{m.labels.get('horizontalpodautoscaler')}"
            workload, column = hpa_keys.get((m.name, hpa)), "desired_replicas"
        elif m.name == "nodecast_demand":
            column = f"demand_{m.labels.get('metric')}"
        if workload is not None and column is not None:
            values[(workload, column)] = m.values
    rows: List[Dict[str, Any]] = []
    for i, t in enumerate(s.series_times_seconds):
        for w in s.autoscaling:
            row: Dict[str, Any] = {"time_seconds": t, "workload": w.workload, "hpa": hpa_of[w.workload]}
            for c in columns[3:]:
                v = values.get((w.workload, c))
                row[c] = v[i] if v is not None and i < len(v) else None
            # A ScaledJob's Jobs are its replicas (as in the autoscaling row).
            if row["jobs"] is not None and row["replicas"] is None:
                row["replicas"] = row["jobs"]
            rows.append(row)
    frame = _nullable_ints(_frame(rows, columns), ["replicas", "ready_replicas", "desired_replicas", "jobs"])
    return _with_times(frame, s.start, [("time_seconds", "time")])


__all__ = ["autoscaling_frame", "autoscaling_series_frame", "AUTOSCALING_COLUMNS", "AUTOSCALING_SERIES_COLUMNS"]

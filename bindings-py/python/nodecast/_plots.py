"""matplotlib pictures of a Simulation: cost over time against the static cluster, and the node
Gantt chart. matplotlib is optional: it is imported only here, when a plot is asked for."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any, List, Optional, Tuple

from ._renderers import renders

if TYPE_CHECKING:  # pragma: no cover
    from ._results import Simulation

COST_METRIC = "nodecast_cost_usd_total"
# One colour per capacity type (spot is the cheap, interruptible one).
CAPACITY_COLORS = {"spot": "#f28e2b", "on-demand": "#4c78a8", "reserved": "#59a14f"}
OTHER_COLOR = "#9c9c9c"


def _pyplot() -> Any:
    try:
        import matplotlib.pyplot as plt  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        raise ImportError(
            "plotting needs matplotlib, which is not installed: pip install matplotlib. "
            "Everything else in nodecast works without it."
        ) from None
    return plt


def _axes(ax: Any) -> Any:
    if ax is not None:
        return ax
    _, new = _pyplot().subplots(figsize=(10, 4))
    return new


def _clock(s: Simulation) -> Tuple[Any, str]:
    """Seconds since the start -> an x value: a UTC datetime when the trace has a start, else hours."""
    if s.start:
        origin = _dt.datetime.fromisoformat(s.start.replace("Z", "+00:00")).astimezone(_dt.timezone.utc)
        return (lambda t: origin + _dt.timedelta(seconds=t)), "time (UTC)"
    return (lambda t: t / 3600.0), "hours since start"


@renders
def plot_cost(s: Simulation, ax: Any = None) -> Any:
    """Cumulative $ with Karpenter (the ``nodecast_cost_usd_total`` series) against the static
    cluster sized for the peak (its total spread evenly over the duration). Returns the Axes."""
    ax = _axes(ax)
    x, xlabel = _clock(s)
    series = [m for m in s.series if m.name == COST_METRIC]
    if not series or s.summary is None:
        raise ValueError(f"this simulation has no {COST_METRIC} series to plot")
    times = list(s.series_times_seconds)
    ax.plot([x(t) for t in times], list(series[0].values), label=f"Karpenter (${s.summary.cost_usd:.2f})", color="#4c78a8")
    end = s.summary.duration_seconds or (times[-1] if times else 0)
    static = s.summary.static_cost_usd
    ax.plot([x(0), x(end)], [0.0, static], label=f"static cluster (${static:.2f})", color="#c62828", linestyle="--")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("cumulative cost (USD)")
    ax.set_title(f"Cost over time: {s.summary.savings_percent:.1f}% saved")
    ax.legend(loc="upper left")
    return ax


# A new figure grows with the rows up to this height (inches; matplotlib refuses huge figures).
_MAX_HEIGHT_IN = 60.0
_ROW_IN = 0.2
_LABEL_PT = 7.0


@renders
def plot_nodes(s: Simulation, ax: Any = None, max_rows: Optional[int] = None) -> Any:
    """One bar per NodeClaim from launch to termination (or the end), coloured by capacity type,
    in launch order: every NodeClaim, or the first ``max_rows``. A new figure is as tall as the
    rows need (up to 60 inches); when the labels would overlap, every k-th row is labelled.
    Returns the Axes."""
    nodes = list(s.nodes if max_rows is None else s.nodes[:max_rows])
    if ax is None:
        height = min(_MAX_HEIGHT_IN, max(4.0, 1.5 + _ROW_IN * len(nodes)))
        _, ax = _pyplot().subplots(figsize=(10, height))
    x, xlabel = _clock(s)
    end = s.summary.duration_seconds if s.summary is not None else max((n.launched_seconds for n in s.nodes), default=0)
    names: List[str] = []
    for row, n in enumerate(nodes):
        stop = n.terminated_seconds if n.terminated_seconds is not None else end
        left = x(n.launched_seconds)
        width = x(stop) - left
        color = CAPACITY_COLORS.get(n.capacity_type or "", OTHER_COLOR)
        ax.barh(row, width, left=left, height=0.7, color=color)
        names.append(f"{n.name} ({n.instance_type})")
    step = _label_step(ax, len(nodes))
    rows = list(range(0, len(nodes), step))
    ax.set_yticks(rows)
    ax.set_yticklabels([names[r] for r in rows], fontsize=_LABEL_PT)
    ax.set_ylim(len(nodes) - 0.5, -0.5)  # the first node on top, as in the HTML view
    ax.set_xlabel(xlabel)
    every = "" if step == 1 else f", every {step}th labelled"
    shown = f" ({len(nodes)}{every})" if max_rows is None or len(s.nodes) <= max_rows else f" (first {max_rows} of {len(s.nodes)}{every})"
    ax.set_title(f"NodeClaims{shown}")
    used = sorted({n.capacity_type or "other" for n in nodes})
    handles = [_pyplot().Rectangle((0, 0), 1, 1, color=CAPACITY_COLORS.get(c, OTHER_COLOR)) for c in used]
    if handles:
        ax.legend(handles, used, loc="lower right")
    return ax


def _label_step(ax: Any, rows: int) -> int:
    """Label every k-th row so that labels (1.3 × their font size apart) fit the Axes' height."""
    if rows == 0:
        return 1
    fig = ax.figure
    height_pt = fig.get_figheight() * ax.get_position().height * 72.0
    fits = max(1, int(height_pt // (_LABEL_PT * 1.3)))
    return max(1, -(-rows // fits))


@renders
def plot_autoscaling(s: Simulation, workload: Optional[str] = None, ax: Any = None) -> Any:
    """Demand, replicas (asked and Ready) and the nodes alive on one time axis, for one workload of
    ``s.autoscaling`` (the first by default): replicas and nodes on the left axis, the demand on a
    second one at the right (its own units). Returns the left Axes."""
    if not s.autoscaling:
        raise ValueError("this simulation scales no workload (no HPA, ScaledObject, ScaledJob or demand series)")
    names = [w.workload for w in s.autoscaling]
    chosen = workload if workload is not None else names[0]
    if chosen not in names:
        raise ValueError(f"no autoscaled workload {chosen!r}; the simulation has {', '.join(names)}")
    ax = _axes(ax)
    x, xlabel = _clock(s)
    times = list(s.series_times_seconds)
    xs = [x(t) for t in times]

    def values(name: str, **labels: str) -> Optional[List[float]]:
        found = s.metric(name, **labels)
        return list(found[0].values) if found else None

    replicas = values("nodecast_workload_replicas", workload=chosen) or values("nodecast_scaledjob_jobs", workload=chosen)
    ready = values("nodecast_workload_ready_replicas", workload=chosen)
    if replicas is not None:
        ax.step(xs, replicas, where="post", label="replicas" if ready is not None else "unfinished Jobs", color="#4c78a8")
    if ready is not None:
        ax.step(xs, ready, where="post", label="Ready replicas", color="#59a14f")
    nodes = [0.0] * len(times)
    for m in s.series:
        if m.name == "karpenter_nodepool_usage" and m.labels.get("resource_type") == "nodes":
            nodes = [a + b for a, b in zip(nodes, m.values)]
    ax.step(xs, nodes, where="post", label="nodes", color="#9c9c9c", linestyle="--")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("replicas / nodes")
    twin = ax.twinx()
    for m in s.metric("nodecast_demand", workload=chosen):
        twin.plot(xs, list(m.values), label=f"demand ({m.labels.get('metric')})", color="#f28e2b")
    twin.set_ylabel("demand")
    handles, labels = ax.get_legend_handles_labels()
    more, more_labels = twin.get_legend_handles_labels()
    ax.legend(handles + more, labels + more_labels, loc="upper left")
    ax.set_title(f"Autoscaling: {chosen}")
    return ax


__all__ = ["plot_cost", "plot_nodes", "plot_autoscaling", "COST_METRIC"]

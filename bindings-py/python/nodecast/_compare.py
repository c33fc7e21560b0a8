"""``nodecast.compare``: one workload trace simulated under the node groups and the Cluster
Autoscaler and under NodePools and Karpenter, side by side (``nodecast simulate --compare
cluster-autoscaler``; docs/cluster-autoscaler.md, "Side by side")."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Optional, Tuple

from ._migrate import Migration
from ._answer import Answer, AnswerWarning, _seq, _strs
from ._simulation import Simulation

if TYPE_CHECKING:  # pragma: no cover
    import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]

__all__ = ["Comparison", "ComparisonSide", "ComparisonSeries", "CaScaleUp"]

#: The two sides, in the answer's order.
SIDES = ("cluster-autoscaler", "karpenter")


@dataclass(frozen=True)
class ComparisonSide:
    """One run's totals."""

    #: ``cluster-autoscaler`` or ``karpenter``.
    autoscaler: str
    cost_usd: float
    nodes_launched: int
    peak_nodes: int
    nodes_removed: int
    #: Sum over pods of the time they were pending, in minutes.
    pending_pod_minutes: float
    pending_p95_seconds: int
    pods_finished: int
    pods_pending_at_end: int
    gpu_hours_paid: float
    #: GPU-hours paid for and not used by a pod.
    idle_gpu_hours: float
    gpu_utilization: float
    duration_seconds: int

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> ComparisonSide:
        return cls(
            autoscaler=d["autoscaler"],
            cost_usd=d["costUsd"],
            nodes_launched=d["nodesLaunched"],
            peak_nodes=d["peakNodes"],
            nodes_removed=d["nodesRemoved"],
            pending_pod_minutes=d["pendingPodMinutes"],
            pending_p95_seconds=d["pendingP95Seconds"],
            pods_finished=d["podsFinished"],
            pods_pending_at_end=d["podsPendingAtEnd"],
            gpu_hours_paid=d["gpuHoursPaid"],
            idle_gpu_hours=d["idleGpuHours"],
            gpu_utilization=d["gpuUtilization"],
            duration_seconds=d["durationSeconds"],
        )


@dataclass(frozen=True)
class ComparisonSeries:
    """Both runs sampled at the same times; each pair is (Cluster Autoscaler, Karpenter)."""

    times_seconds: Tuple[int, ...]
    nodes: Tuple[Tuple[int, ...], Tuple[int, ...]]
    gpus: Tuple[Tuple[int, ...], Tuple[int, ...]]
    pending_pods: Tuple[Tuple[int, ...], Tuple[int, ...]]
    price_per_hour: Tuple[Tuple[float, ...], Tuple[float, ...]]

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> ComparisonSeries:
        def pair(key: str) -> Any:
            v = d.get(key) or [[], []]
            return (tuple(v[0]), tuple(v[1]))

        return cls(
            times_seconds=tuple(d.get("timesSeconds") or ()),
            nodes=pair("nodes"),
            gpus=pair("gpus"),
            pending_pods=pair("pendingPods"),
            price_per_hour=pair("pricePerHour"),
        )


@dataclass(frozen=True)
class CaScaleUp:
    """One scale-up of the Cluster Autoscaler's run."""

    time_seconds: int
    node_group: str
    nodes: int
    #: The expander that chose, or ``random`` when options tied after the chain.
    decided_by: str
    tied_with: Tuple[str, ...] = ()

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> CaScaleUp:
        return cls(
            time_seconds=d["timeSeconds"],
            node_group=d["nodeGroup"],
            nodes=d["nodes"],
            decided_by=d["decidedBy"],
            tied_with=_strs(d.get("tiedWith")),
        )


@dataclass(frozen=True, repr=False)
class Comparison(Answer):
    """Both runs' totals (``sides``), their nodes, GPUs, pending pods and $/h over time
    (``series``), the Cluster Autoscaler's scale-ups, what is random or timing-dependent in it
    (``disclosures``), and both runs in full (``cluster_autoscaler``, ``karpenter``: their
    ``to_json()`` is the run's object, not a whole answer, and they have no CSV rendering)."""

    #: ``given`` (the inputs' NodePools) or ``migrate`` (the proposal for the node groups).
    node_pools: str = "migrate"
    #: The proposal Karpenter ran over, when ``node_pools == "migrate"``.
    migration: Optional[Migration] = None
    sides: Tuple[ComparisonSide, ...] = ()
    #: Karpenter's cost less the Cluster Autoscaler's (negative: Karpenter is cheaper).
    cost_difference_usd: float = 0.0
    series: Optional[ComparisonSeries] = None
    scale_ups: Tuple[CaScaleUp, ...] = ()
    disclosures: Tuple[str, ...] = ()
    warnings: Tuple[AnswerWarning, ...] = ()
    cluster_autoscaler: Optional[Simulation] = None
    karpenter: Optional[Simulation] = None

    @classmethod
    def _from(cls, text: str, d: Mapping[str, Any]) -> Comparison:
        def sim(key: str) -> Optional[Simulation]:
            v = d.get(key)
            return None if v is None else Simulation._from(json.dumps(v), v)

        m = d.get("migration")
        return cls(
            _json=text,
            node_pools=d["nodePools"],
            migration=None if m is None else Migration._from(json.dumps(m), m),
            sides=_seq(d.get("sides"), ComparisonSide._from),
            cost_difference_usd=d.get("costDifferenceUsd", 0.0),
            series=ComparisonSeries._from(d.get("series") or {}),
            scale_ups=_seq(d.get("scaleUps"), CaScaleUp._from),
            disclosures=_strs(d.get("disclosures")),
            warnings=_seq(d.get("warnings"), AnswerWarning._from),
            cluster_autoscaler=sim("clusterAutoscaler"),
            karpenter=sim("karpenter"),
        )

    @property
    def kind(self) -> str:
        return "Comparison"

    def side(self, autoscaler: str) -> ComparisonSide:
        """The totals of ``cluster-autoscaler`` or ``karpenter``."""
        for s in self.sides:
            if s.autoscaler == autoscaler:
                return s
        raise KeyError(autoscaler)

    def __str__(self) -> str:
        if len(self.sides) < 2:  # pragma: no cover - a success answer has both
            return "Comparison"
        ca, k = self.sides[0], self.sides[1]
        return (
            f"Side by side: Cluster Autoscaler ${ca.cost_usd + 0.0:.2f} vs Karpenter ${k.cost_usd + 0.0:.2f} "
            f"({self.cost_difference_usd + 0.0:+.2f}) over the trace"
        )

    def to_pandas(self) -> pandas.DataFrame:
        """One row per autoscaler with its totals."""
        import pandas as pd  # type: ignore[import-untyped,import-not-found,unused-ignore]

        columns = [
            "autoscaler",
            "cost_usd",
            "nodes_launched",
            "peak_nodes",
            "nodes_removed",
            "pending_pod_minutes",
            "pending_p95_seconds",
            "pods_finished",
            "pods_pending_at_end",
            "gpu_hours_paid",
            "idle_gpu_hours",
            "gpu_utilization",
            "duration_seconds",
        ]
        return pd.DataFrame([{c: getattr(s, c) for c in columns} for s in self.sides], columns=columns)

    def series_frame(self) -> pandas.DataFrame:
        """One row per sample time and autoscaler: nodes, GPUs, pending pods and $/h (long
        form, ready for ``seaborn.lineplot(x="time_seconds", y="nodes", hue="autoscaler")``)."""
        import pandas as pd  # type: ignore[import-untyped,import-not-found,unused-ignore]

        columns = ["time_seconds", "autoscaler", "nodes", "gpus", "pending_pods", "price_per_hour"]
        s = self.series
        rows = []
        if s is not None:
            for i, name in enumerate(SIDES):
                for j, t in enumerate(s.times_seconds):
                    rows.append(
                        {
                            "time_seconds": t,
                            "autoscaler": name,
                            "nodes": s.nodes[i][j],
                            "gpus": s.gpus[i][j],
                            "pending_pods": s.pending_pods[i][j],
                            "price_per_hour": s.price_per_hour[i][j],
                        }
                    )
        return pd.DataFrame(rows, columns=columns)

    def _chart(self) -> str:
        """Nodes over time of both runs as an inline SVG step chart."""
        s = self.series
        if s is None or len(s.times_seconds) < 2:
            return ""
        w, h, pad = 560, 160, 24
        t0, t1 = s.times_seconds[0], s.times_seconds[-1]
        top = max(1, max(max(s.nodes[0], default=0), max(s.nodes[1], default=0)))

        def x(t: int) -> float:
            return pad + (w - 2 * pad) * (t - t0) / max(1, t1 - t0)

        def y(v: int) -> float:
            return h - pad - (h - 2 * pad) * v / top

        lines = []
        for i, color in ((0, "#d9822b"), (1, "#2b6cd9")):
            points = []
            for j, t in enumerate(s.times_seconds):
                if j:
                    points.append(f"{x(t):.1f},{y(s.nodes[i][j - 1]):.1f}")
                points.append(f"{x(t):.1f},{y(s.nodes[i][j]):.1f}")
            lines.append(f"<polyline fill='none' stroke='{color}' stroke-width='2' points='{' '.join(points)}'/>")
        return (
            f"<svg width='{w}' height='{h}' role='img' aria-label='nodes over time'>"
            f"<text x='{pad}' y='14' font-size='11'>nodes (max {top}): "
            "<tspan fill='#d9822b'>Cluster Autoscaler</tspan> / <tspan fill='#2b6cd9'>Karpenter</tspan></text>"
            + "".join(lines)
            + "</svg>"
        )

    def _repr_html_(self) -> str:
        e = html.escape
        rows = "".join(
            f"<tr><td>{e(s.autoscaler)}</td><td style='text-align:right'>{s.cost_usd:.2f}</td>"
            f"<td style='text-align:right'>{s.nodes_launched}</td><td style='text-align:right'>{s.peak_nodes}</td>"
            f"<td style='text-align:right'>{s.pending_pod_minutes:.1f}</td><td style='text-align:right'>{s.idle_gpu_hours:.2f}</td>"
            f"<td style='text-align:right'>{s.pods_pending_at_end}</td></tr>"
            for s in self.sides
        )
        disclosures = "".join(f"<li>{e(d)}</li>" for d in self.disclosures)
        return (
            f"<div class='nodecast-comparison'><p><b>{e(str(self))}</b></p>"
            "<table><thead><tr><th>autoscaler</th><th>cost $</th><th>launched</th><th>peak nodes</th>"
            "<th>pending pod-min</th><th>idle GPU-h</th><th>pending at end</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>{self._chart()}"
            f"<details><summary>disclosures</summary><ul>{disclosures}</ul></details></div>"
        )

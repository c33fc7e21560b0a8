"""``nodecast.optimize``: the cheapest NodeClaims for the pods Karpenter's plan places, beside
Karpenter's plan (``nodecast optimize``)."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Tuple

from ._answer import Answer, AnswerWarning, _seq, _strs

if TYPE_CHECKING:  # pragma: no cover
    import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]

__all__ = [
    "Optimization",
    "OptimizedClaim",
    "PodMove",
    "OptimizationStats",
    "RunningCluster",
    "RunningNode",
    "KarpenterConsolidation",
    "add_optimize_options",
]

HOURS_PER_MONTH = 730.0


@dataclass(frozen=True)
class OptimizedClaim:
    """One NodeClaim of either side: ``kept`` when the optimum keeps Karpenter's NodeClaim (its
    pods carry constraints the optimiser does not optimise)."""

    name: str
    node_pool: str
    instance_type: str
    capacity_type: str
    zone: str
    price_per_hour: float
    pods: Tuple[str, ...]
    kept: bool
    #: The capacity reservation it launches into (capacity type ``reserved``).
    reservation_id: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> OptimizedClaim:
        return cls(
            name=d["name"],
            node_pool=d["nodePool"],
            instance_type=d["instanceType"],
            capacity_type=d["capacityType"],
            zone=d["zone"],
            price_per_hour=d["pricePerHour"],
            pods=_strs(d.get("pods")),
            kept=bool(d.get("kept")),
            reservation_id=d.get("reservationId"),
        )


@dataclass(frozen=True)
class PodMove:
    """A pod whose NodePool, instance type, capacity type or zone differ between the plans."""

    pod: str
    karpenter: str
    optimum: str

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> PodMove:
        return cls(pod=d["pod"], karpenter=d["karpenter"], optimum=d["optimum"])


@dataclass(frozen=True)
class OptimizationStats:
    pods: int
    groups: int
    offerings: int
    patterns: int
    exhaustive: bool
    timed_out: bool

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> OptimizationStats:
        return cls(
            pods=d["pods"],
            groups=d["groups"],
            offerings=d["offerings"],
            patterns=d["patterns"],
            exhaustive=d["exhaustive"],
            timed_out=d["timedOut"],
        )


@dataclass(frozen=True)
class RunningNode:
    """One existing node in the running-cluster optimum: ``fate`` is ``pinned`` (Karpenter can
    never disrupt it now: ``reason``), ``kept`` (as ``optimum_node_claim``) or ``removed``."""

    name: str
    price_per_hour: float
    fate: str
    pods: int
    node_pool: Optional[str] = None
    instance_type: Optional[str] = None
    reason: Optional[str] = None
    optimum_node_claim: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> RunningNode:
        return cls(
            name=d["name"],
            price_per_hour=d["pricePerHour"],
            fate=d["fate"],
            pods=d["pods"],
            node_pool=d.get("nodePool"),
            instance_type=d.get("instanceType"),
            reason=d.get("reason"),
            optimum_node_claim=d.get("optimumNodeClaim"),
        )


@dataclass(frozen=True)
class KarpenterConsolidation:
    """What Karpenter's consolidation does from the running cluster: its command now, and the
    cluster after a day of passes."""

    command: str
    price_per_hour_after: float
    until: str
    commands: int
    price_per_hour_at_until: float

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> KarpenterConsolidation:
        return cls(
            command=d["command"],
            price_per_hour_after=d["pricePerHourAfter"],
            until=d["until"],
            commands=d["commands"],
            price_per_hour_at_until=d["pricePerHourAtUntil"],
        )


@dataclass(frozen=True)
class RunningCluster:
    """The running cluster's optimum (``optimize(..., running=True)``): the cheapest set of
    nodes for the pods that run now, beside Karpenter's consolidation."""

    now: str
    current_price_per_hour: float
    optimum_price_per_hour: float
    lower_bound_per_hour: float
    certificate: str
    savings_per_hour: float
    savings_per_month: float
    nodes: Tuple[RunningNode, ...]
    new_node_claims: Tuple[str, ...]
    pods_moved: int
    pending_left_out: Tuple[str, ...]
    karpenter: Optional[KarpenterConsolidation] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> RunningCluster:
        k = d.get("karpenter")
        return cls(
            now=d["now"],
            current_price_per_hour=d["currentPricePerHour"],
            optimum_price_per_hour=d["optimumPricePerHour"],
            lower_bound_per_hour=d["lowerBoundPerHour"],
            certificate=d["certificate"],
            savings_per_hour=d["savingsPerHour"],
            savings_per_month=d["savingsPerMonth"],
            nodes=_seq(d.get("nodes"), RunningNode._from),
            new_node_claims=_strs(d.get("newNodeClaims")),
            pods_moved=d["podsMoved"],
            pending_left_out=_strs(d.get("pendingLeftOut")),
            karpenter=KarpenterConsolidation._from(k) if k is not None else None,
        )


@dataclass(frozen=True, repr=False)
class Optimization(Answer):
    """Karpenter's plan beside the cheapest plan under the same constraints, with a lower bound."""

    karpenter_price_per_hour: float = 0.0
    optimum_price_per_hour: float = 0.0
    lower_bound_per_hour: float = 0.0
    #: ``"optimal"`` or ``"within x % of optimal"``.
    certificate: str = ""
    gap_percent: float = 0.0
    savings_per_hour: float = 0.0
    savings_per_month: float = 0.0
    node_claims: Tuple[OptimizedClaim, ...] = ()
    karpenter_node_claims: Tuple[OptimizedClaim, ...] = ()
    moved_pods: Tuple[PodMove, ...] = ()
    pods_on_existing_nodes: Tuple[str, ...] = ()
    unschedulable: Tuple[str, ...] = ()
    not_optimised: Tuple[str, ...] = ()
    #: Pods that keep Karpenter's NodeClaims (reasons in ``not_optimised``); the bound covers them.
    kept_pods: int = 0
    stats: Optional[OptimizationStats] = None
    warnings: Tuple[AnswerWarning, ...] = ()
    #: The running cluster's optimum beside Karpenter's consolidation (``running=True``).
    running: Optional[RunningCluster] = None

    @classmethod
    def _from(cls, text: str, d: Mapping[str, Any]) -> Optimization:
        return cls(
            _json=text,
            karpenter_price_per_hour=d["karpenterPricePerHour"],
            optimum_price_per_hour=d["optimumPricePerHour"],
            lower_bound_per_hour=d["lowerBoundPerHour"],
            certificate=d["certificate"],
            gap_percent=d["gapPercent"],
            savings_per_hour=d["savingsPerHour"],
            savings_per_month=d["savingsPerMonth"],
            node_claims=_seq(d.get("nodeClaims"), OptimizedClaim._from),
            karpenter_node_claims=_seq(d.get("karpenterNodeClaims"), OptimizedClaim._from),
            moved_pods=_seq(d.get("movedPods"), PodMove._from),
            pods_on_existing_nodes=_strs(d.get("podsOnExistingNodes")),
            unschedulable=_strs(d.get("unschedulable")),
            not_optimised=_strs(d.get("notOptimised")),
            kept_pods=d["keptPods"],
            stats=OptimizationStats._from(d["stats"]),
            warnings=_seq(d.get("warnings"), AnswerWarning._from),
            running=RunningCluster._from(d["running"]) if d.get("running") is not None else None,
        )

    @property
    def kind(self) -> str:
        return "Optimization"

    def __str__(self) -> str:
        return (
            f"Karpenter ${self.karpenter_price_per_hour:.4f}/h, optimum ${self.optimum_price_per_hour:.4f}/h "
            f"({self.certificate}), ${self.savings_per_month:.2f}/month"
        )

    def to_pandas(self) -> pandas.DataFrame:
        """One row per NodeClaim of both plans (``plan``: ``optimum`` or ``karpenter``)."""
        import pandas as pd  # type: ignore[import-untyped,import-not-found,unused-ignore]

        rows = []
        for plan, claims in (("optimum", self.node_claims), ("karpenter", self.karpenter_node_claims)):
            for c in claims:
                rows.append(
                    {
                        "plan": plan,
                        "name": c.name,
                        "node_pool": c.node_pool,
                        "instance_type": c.instance_type,
                        "capacity_type": c.capacity_type,
                        "zone": c.zone,
                        "price_per_hour": c.price_per_hour,
                        "pods": len(c.pods),
                        "kept": c.kept,
                        "pod_names": ", ".join(c.pods),
                    }
                )
        columns = ["plan", "name", "node_pool", "instance_type", "capacity_type", "zone", "price_per_hour", "pods", "kept", "pod_names"]
        return pd.DataFrame(rows, columns=columns)

    def moves_frame(self) -> pandas.DataFrame:
        """One row per pod placed differently: where Karpenter puts it, where the optimum does."""
        import pandas as pd  # type: ignore[import-untyped,import-not-found,unused-ignore]

        return pd.DataFrame([{"pod": m.pod, "karpenter": m.karpenter, "optimum": m.optimum} for m in self.moved_pods], columns=["pod", "karpenter", "optimum"])

    def _repr_html_(self) -> str:
        e = html.escape

        def table(claims: Tuple[OptimizedClaim, ...]) -> str:
            rows = "".join(
                f"<tr><td>{e(c.name)}{' (kept)' if c.kept else ''}</td><td>{e(c.node_pool)}</td><td>{e(c.instance_type)}</td>"
                f"<td>{e(c.capacity_type)}</td><td>{e(c.zone)}</td><td style='text-align:right'>${c.price_per_hour:.4f}</td>"
                f"<td>{e(', '.join(c.pods[:6]))}{' …' if len(c.pods) > 6 else ''}</td></tr>"
                for c in claims
            )
            head = "".join(f"<th>{h}</th>" for h in ("NodeClaim", "NodePool", "type", "capacity", "zone", "$/h", "pods"))
            return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"

        notes = "".join(f"<li>{e(n)}</li>" for n in self.not_optimised)
        return (
            f"<div class='nodecast-optimization'><p><b>Karpenter ${self.karpenter_price_per_hour:.4f}/h → optimum "
            f"${self.optimum_price_per_hour:.4f}/h</b> ({e(self.certificate)}; lower bound ${self.lower_bound_per_hour:.4f}/h): "
            f"${self.savings_per_month:.2f}/month</p>"
            f"<h4>Optimum</h4>{table(self.node_claims)}<h4>Karpenter</h4>{table(self.karpenter_node_claims)}"
            + (f"<h4>Not optimised</h4><ul>{notes}</ul>" if notes else "")
            + "</div>"
        )


def add_optimize_options(request: str, time_budget_seconds: Optional[float], running: bool = False) -> str:
    """The request with its ``optimize`` options (the same compact JSON as the other functions)."""
    if not isinstance(running, bool):
        raise TypeError(f"running must be a bool, not {running!r}")
    if time_budget_seconds is None and not running:
        return request
    opts: Dict[str, Any] = {}
    if time_budget_seconds is not None:
        if isinstance(time_budget_seconds, bool) or not isinstance(time_budget_seconds, (int, float)):
            raise TypeError(f"time_budget_seconds must be a number, not {time_budget_seconds!r}")
        opts["timeBudgetSeconds"] = float(time_budget_seconds)
    if running:
        opts["running"] = True
    r = json.loads(request)
    r["optimize"] = opts
    return json.dumps(r, allow_nan=True, ensure_ascii=False, separators=(",", ":"))

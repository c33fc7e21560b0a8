"""The ``consolidate`` answer: what the disruption controller does, node by node."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Optional, Tuple

from ._answer import Answer, AnswerWarning, FrozenMap, Reason, Skipped, _map, _seq, _strs
from ._plan import NodeClaim, ReservationChange
from ._renderers import renderer

if TYPE_CHECKING:  # pragma: no cover
    import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]

__all__ = [
    "BalancedScore",
    "ConsolidationSequence",
    "ConsolidationStep",
    "Decision",
    "Drift",
    "NodeVerdict",
    "PoolBudget",
    "Repair",
    "Replacement",
    "Tie",
]


@dataclass(frozen=True)
class Replacement:
    """The node a replace command launches."""

    node_pool: str
    instance_type: Optional[str]
    capacity_type: Optional[str]
    zone: Optional[str]
    price_per_hour: Optional[float]
    #: Options that survive the price filter, cheapest first.
    instance_type_options: Tuple[str, ...]
    pods: Tuple[str, ...]

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Replacement:
        return cls(
            node_pool=d["nodePool"],
            instance_type=d.get("instanceType"),
            capacity_type=d.get("capacityType"),
            zone=d.get("zone"),
            price_per_hour=d.get("pricePerHour"),
            instance_type_options=_strs(d.get("instanceTypeOptions")),
            pods=_strs(d.get("pods")),
        )


@dataclass(frozen=True)
class BalancedScore:
    """One Balanced NodePool's score of a consolidation move: approved when ``score >= threshold``
    (``1 / k``, k = 2 as in Karpenter). ``pool_cost_source`` says where the pool cost comes from
    (offline: the pool's nodes' prices, standing in for Karpenter's cluster-cost tracker)."""

    node_pool: str
    #: ``delete``, ``replace``, or ``delete (best case)`` (the pre-check before simulating).
    move: str
    score: float
    threshold: float
    k: int
    approved: bool
    savings_per_hour: float
    disruption_cost: float
    savings_fraction: float
    disruption_fraction: float
    pool_cost_per_hour: float
    pool_disruption_cost: float
    pool_cost_source: str

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> BalancedScore:
        return cls(
            node_pool=d["nodePool"],
            move=d["move"],
            score=d["score"],
            threshold=d["threshold"],
            k=d["k"],
            approved=d["approved"],
            savings_per_hour=d["savingsPerHour"],
            disruption_cost=d["disruptionCost"],
            savings_fraction=d["savingsFraction"],
            disruption_fraction=d["disruptionFraction"],
            pool_cost_per_hour=d["poolCostPerHour"],
            pool_disruption_cost=d["poolDisruptionCost"],
            pool_cost_source=d["poolCostSource"],
        )


@dataclass(frozen=True)
class Tie:
    """Nodes that tie on Karpenter's sort key (price ÷ disruption cost): Karpenter orders them
    arbitrarily, so it may take any ``count`` of ``nodes`` where nodecast took its pick."""

    count: int
    nodes: Tuple[str, ...]
    #: e.g. ``Karpenter may pick any of: node-a, node-b (...)``.
    message: str

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Tie:
        return cls(count=d["count"], nodes=_strs(d.get("nodes")), message=d["message"])


@dataclass(frozen=True)
class Drift:
    """Why Karpenter calls a NodeClaim drifted: ``reason`` (``NodePoolDrifted``,
    ``RequirementsDrifted``, or the reason its ``Drifted`` condition reports) and what changed."""

    reason: str
    message: str

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Drift:
        return cls(reason=d["reason"], message=d["message"])


@dataclass(frozen=True)
class Repair:
    """The repair policy an unhealthy node matches (the AWS provider's policies, Karpenter's
    NodeRepair): the Node ``condition``/``status``/``reason``, the ``action`` (``replace``), the
    toleration, when it becomes eligible and the drain bound (eligible matches only)."""

    condition: str
    status: str
    reason: str
    action: str
    toleration_seconds: int
    eligible_at: str
    eligible: bool
    termination_grace_period_seconds: Optional[int] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Repair:
        return cls(
            condition=d["condition"],
            status=d["status"],
            reason=d["reason"],
            action=d["action"],
            toleration_seconds=d["tolerationSeconds"],
            eligible_at=d["eligibleAt"],
            eligible=d["eligible"],
            termination_grace_period_seconds=d.get("terminationGracePeriodSeconds"),
        )


@dataclass(frozen=True)
class NodeVerdict:
    """One node of a disruption decision: disrupted, or why it stays (first reason decided)."""

    name: str
    pods: int
    disrupted: bool
    reasons: Tuple[Reason, ...]
    node_pool: Optional[str] = None
    instance_type: Optional[str] = None
    capacity_type: Optional[str] = None
    price_per_hour: Optional[float] = None
    #: The Balanced score of the move tried for this node, or of the command that takes it.
    score: Optional[BalancedScore] = None
    #: Why Karpenter calls the node's NodeClaim drifted, when it does.
    drift: Optional[Drift] = None
    #: The repair policy the node's conditions match, when one does (whatever the NodeRepair gate).
    repair: Optional[Repair] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> NodeVerdict:
        sc = d.get("score")
        return cls(
            name=d["name"],
            pods=d["pods"],
            disrupted=d["disrupted"],
            reasons=_seq(d.get("reasons"), Reason._from),
            node_pool=d.get("nodePool"),
            instance_type=d.get("instanceType"),
            capacity_type=d.get("capacityType"),
            price_per_hour=d.get("pricePerHour"),
            score=BalancedScore._from(sc) if sc else None,
            drift=Drift._from(d["drift"]) if d.get("drift") else None,
            repair=Repair._from(d["repair"]) if d.get("repair") else None,
        )


@dataclass(frozen=True)
class ConsolidationStep:
    """One command of a consolidation sequence (``consolidate(..., until=...)``)."""

    time: str
    after_seconds: int
    decided_after_seconds: int
    reason: str
    command: str
    disrupted_nodes: Tuple[str, ...]
    replacement: Optional[str]
    completed: Optional[str]

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> ConsolidationStep:
        return cls(
            time=d["time"],
            after_seconds=d["afterSeconds"],
            decided_after_seconds=d["decidedAfterSeconds"],
            reason=d["reason"],
            command=d["command"],
            disrupted_nodes=_strs(d.get("disruptedNodes")),
            replacement=d.get("replacement"),
            completed=d.get("completed"),
        )


@dataclass(frozen=True)
class ConsolidationSequence:
    """The commands the disruption controller carries out from ``now`` to ``until``, pass after
    pass (docs/consolidate-until.md)."""

    until: str
    steps: Tuple[ConsolidationStep, ...]
    nodes_at_until: Tuple[str, ...]
    price_per_hour_at_until: float
    pending_pods_at_until: int
    warnings: Tuple[AnswerWarning, ...]

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> ConsolidationSequence:
        return cls(
            until=d["until"],
            steps=_seq(d.get("steps"), ConsolidationStep._from),
            nodes_at_until=_strs(d.get("nodesAtUntil")),
            price_per_hour_at_until=d.get("pricePerHourAtUntil", 0.0),
            pending_pods_at_until=d.get("pendingPodsAtUntil", 0),
            warnings=_seq(d.get("warnings"), AnswerWarning._from),
        )


@dataclass(frozen=True)
class PoolBudget:
    """Disruptions a NodePool's budgets allow now, per reason (None = unlimited)."""

    name: str
    nodes: int
    allowed: FrozenMap[str, Optional[int]]

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> PoolBudget:
        return cls(name=d["name"], nodes=d["nodes"], allowed=_map(d.get("allowed")))


@dataclass(frozen=True, repr=False)
class Decision(Answer):
    """What Karpenter's disruption controller does at ``now`` (``nodecast consolidate``)."""

    now: str = ""
    #: ``none``, ``delete`` or ``replace``.
    decision: str = "none"
    #: ``expired``, ``empty`` or ``underutilized`` (None for ``none``).
    reason: Optional[str] = None
    #: ``expiration``, ``repair``, ``emptiness``, ``drift``, ``multi-node-consolidation`` or
    #: ``single-node-consolidation``.
    method: Optional[str] = None
    command: str = ""
    disrupted_nodes: Tuple[str, ...] = ()
    replacement: Optional[Replacement] = None
    #: Further nodes a drift replacement launches (drift may need several); empty otherwise.
    more_replacements: Tuple[Replacement, ...] = ()
    price_per_hour_before: float = 0.0
    price_per_hour_after: float = 0.0
    #: (before − after) × 730 h, to the cent (computed by the core).
    savings_per_month: float = 0.0
    #: The command's Balanced scores, one per Balanced pool among the disrupted nodes.
    scores: Tuple[BalancedScore, ...] = ()
    #: Where Karpenter's own pick is not determined (equally ranked candidates).
    ties: Tuple[Tie, ...] = ()
    nodes: Tuple[NodeVerdict, ...] = ()
    node_pools: Tuple[PoolBudget, ...] = ()
    skipped: Tuple[Skipped, ...] = ()
    warnings: Tuple[AnswerWarning, ...] = ()
    #: With ``until``: every command from ``now`` to ``until``, pass after pass.
    sequence: Optional[ConsolidationSequence] = None
    #: Nodes whose capacity reservation ended by ``now`` (a capacity block's deleted, an ODCR's
    #: turned on-demand).
    reservation_changes: Tuple[ReservationChange, ...] = ()
    #: ``no-reserved-capacity`` or ``static-at-limit`` for a drift or repair ``delete`` that is
    #: Karpenter's terminate-first command (TerminateFirstDrift / TerminateFirstRepair gates).
    terminate_first: Optional[str] = None
    #: The answer's ``summary`` line (read with ``summary()``).
    _summary: str = field(default="", repr=False)

    @classmethod
    def _from(cls, text: str, d: Mapping[str, Any]) -> Decision:
        rep = d.get("replacement")
        return cls(
            _json=text,
            now=d["now"],
            decision=d["decision"],
            reason=d.get("reason"),
            method=d.get("method"),
            command=d["command"],
            disrupted_nodes=_strs(d.get("disruptedNodes")),
            replacement=Replacement._from(rep) if rep else None,
            more_replacements=_seq(d.get("moreReplacements"), Replacement._from),
            price_per_hour_before=d.get("pricePerHourBefore", 0.0),
            price_per_hour_after=d.get("pricePerHourAfter", 0.0),
            savings_per_month=d.get("savingsPerMonth", 0.0),
            scores=_seq(d.get("scores"), BalancedScore._from),
            ties=_seq(d.get("ties"), Tie._from),
            nodes=_seq(d.get("nodes"), NodeVerdict._from),
            node_pools=_seq(d.get("nodePools"), PoolBudget._from),
            skipped=_seq(d.get("skipped"), Skipped._from),
            warnings=_seq(d.get("warnings"), AnswerWarning._from),
            sequence=ConsolidationSequence._from(d["sequence"]) if d.get("sequence") else None,
            reservation_changes=_seq(d.get("reservationChanges"), ReservationChange._from),
            terminate_first=d.get("terminateFirst"),
            _summary=d.get("summary", ""),
        )

    @property
    def kind(self) -> str:
        return "Decision"

    @property
    def monthly_savings(self) -> float:
        """(before − after) $/h × 730 h, to the cent."""
        return self.savings_per_month

    def summary(self) -> str:
        """The CLI's first line, e.g. ``At 2025-03-05T12:00:00Z: replace 1 node (...) ...`` (the
        answer's ``summary``, written by the core)."""
        return self._summary

    def to_pandas(self) -> pandas.DataFrame:
        """One row per node: disrupted or the reason it stays."""
        rendered: pandas.DataFrame = renderer("decision_frame")(self)
        return rendered

    def _repr_html_(self) -> str:
        rendered: str = renderer("decision_html")(self)
        return rendered

    def __str__(self) -> str:
        return self.summary()

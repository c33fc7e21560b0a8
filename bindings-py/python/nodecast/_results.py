"""Typed, frozen answers (``apiVersion: nodecast/v1``).

Every answer the core returns is parsed once into frozen dataclasses with snake_case attributes.
Lists become tuples and JSON objects become :class:`FrozenMap` (a read-only, hashable mapping), so
a result can neither be changed nor drift from the JSON it came from. ``to_json()`` returns the
core's string unchanged; ``to_dict()`` parses it afresh (camelCase keys, as in the schema).
"""

from __future__ import annotations

import json
from decimal import Decimal
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterator,
    List,
    Mapping,
    Optional,
    Tuple,
    TypeVar,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")

__all__ = [
    "FrozenMap",
    "Answer",
    "Plan",
    "NodeClaim",
    "DomainTie",
    "ExistingNode",
    "UnschedulablePod",
    "Reason",
    "NodePoolUsage",
    "Limit",
    "Skipped",
    "AnswerWarning",
    "Decision",
    "Replacement",
    "NodeVerdict",
    "PoolBudget",
    "Explanation",
    "PodExplanation",
    "NodeExplanation",
    "TypeExplanation",
    "Verdict",
    "ValidationReport",
    "CatalogResult",
    "InstanceTypeRow",
    "Simulation",
    "SimulationSummary",
    "StaticNodeGroup",
    "SimulatedNode",
    "SimulatedPod",
    "TimelineEntry",
    "SimulatedReservation",
    "ReservationChange",
    "MetricSeries",
    "Accelerator",
    "OverlayStatus",
    "Reservation",
    "ReservationSkip",
    "NodeClassReservations",
    "Drift",
    "Repair",
]


class FrozenMap(Mapping[K, V]):
    """A read-only, hashable mapping (a JSON object of an answer). Compares equal to a ``dict``
    with the same items; keeps the core's key order."""

    __slots__ = ("_data", "_hash")

    def __init__(self, data: Mapping[K, V] | None = None) -> None:
        self._data: Dict[K, V] = dict(data) if data is not None else {}
        self._hash: Optional[int] = None

    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(tuple(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenMap):
            return self._data == other._data
        if isinstance(other, Mapping):
            return self._data == dict(other.items())
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"

    def to_dict(self) -> Dict[K, V]:
        """A plain, mutable copy."""
        return dict(self._data)


def _seq(items: Any, make: Callable[[Any], T]) -> Tuple[T, ...]:
    return tuple(make(x) for x in items or ())


def _strs(items: Any) -> Tuple[str, ...]:
    return tuple(items or ())


def _map(d: Any) -> FrozenMap[str, Any]:
    return FrozenMap(d or {})


# ----------------------------------------------------------------------------------------------
# Shared parts


@dataclass(frozen=True)
class Reason:
    """Why a pod did not fit a NodePool, or why a node stays (``code`` is stable, FORMAT §7)."""

    code: str
    message: str
    node_pool: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Reason:
        return cls(code=d["code"], message=d["message"], node_pool=d.get("nodePool"))


@dataclass(frozen=True)
class Hint:
    """A change that may let a pending pod onto a NodePool, checked by re-planning with it
    applied: ``verified`` is True only when the pod then schedules on ``node_pool``;
    ``outcome`` is ``verified``, ``lands-elsewhere`` (it schedules, on another NodePool or node)
    or ``not-enough-alone``; ``check`` says what the re-plan did."""

    code: str
    node_pool: str
    change: str
    verified: bool
    check: str
    outcome: str = "verified"

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Hint:
        return cls(
            code=d["code"], node_pool=d["nodePool"], change=d["change"], verified=bool(d["verified"]), check=d["check"], outcome=d["outcome"]
        )


@dataclass(frozen=True)
class DomainTie:
    """A value real Karpenter picks at random among equal candidates (Go map order), so
    reruns of Karpenter differ; ``value`` (nodecast's) is one of ``candidates``."""

    key: str
    value: str
    candidates: Tuple[str, ...]
    message: str

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> DomainTie:
        return cls(key=d["key"], value=d["value"], candidates=_strs(d.get("candidates")), message=d["message"])


@dataclass(frozen=True)
class Skipped:
    """An input object nodecast does not plan with (a Service, a ConfigMap, ...)."""

    document: int
    kind: str
    name: str
    reason: str
    source: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Skipped:
        return cls(document=d["document"], kind=d["kind"], name=d["name"], reason=d["reason"], source=d.get("source"))


@dataclass(frozen=True)
class AnswerWarning:
    """A warning of the answer (e.g. a NodePool skipped because it fails runtime validation)."""

    code: str
    message: str
    object: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> AnswerWarning:
        return cls(code=d["code"], message=d["message"], object=d.get("object"))


@dataclass(frozen=True)
class Answer:
    """Base of every result: the core's answer JSON, and conversions of it."""

    _json: str = field(repr=False, compare=False)

    @property
    def api_version(self) -> str:
        return "nodecast/v1"

    def to_json(self) -> str:
        """The answer exactly as the core returned it: the bytes ``nodecast <fn> -o json`` prints,
        without the final newline."""
        return self._json

    def to_dict(self) -> Dict[str, Any]:
        """The answer as parsed JSON (a fresh, mutable copy; camelCase keys as in the schema)."""
        result: Dict[str, Any] = json.loads(self._json)
        return result

    def to_pandas(self) -> pandas.DataFrame:
        raise NotImplementedError  # pragma: no cover - every concrete answer overrides it

    def summary_line(self) -> str:
        """The answer in one line, the same as ``str(result)``: one method name on every result
        (``Plan.summary()`` and the like remain; ``Simulation.summary`` is its totals)."""
        return str(self)

    def __repr__(self) -> str:
        return f"<nodecast.{type(self).__name__}: {self}>"


# ----------------------------------------------------------------------------------------------
# Plan

@dataclass(frozen=True)
class Accelerator:
    """GPUs or other accelerators of a NodeClaim, as the core answers them (one definition, in
    Rust: ``nodecast::figures``): the resource, how many, and the catalog's facts."""

    resource: str
    count: int
    name: Optional[str] = None
    manufacturer: Optional[str] = None
    #: Memory of one device in MiB (GPUs).
    memory_mib: Optional[int] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Accelerator:
        return cls(
            resource=d["resource"],
            count=d["count"],
            name=d.get("name"),
            manufacturer=d.get("manufacturer"),
            memory_mib=d.get("memoryMib"),
        )


@dataclass(frozen=True)
class NodeClaim:
    """A NodeClaim the provisioning pass creates."""

    name: str
    node_pool: str
    instance_type: Optional[str]
    capacity_type: Optional[str]
    zone: Optional[str]
    price_per_hour: Optional[float]
    #: Cheapest first, as Karpenter writes them on the NodeClaim (at most 600).
    instance_type_options: Tuple[str, ...]
    pods: Tuple[str, ...]
    daemon_sets: Tuple[str, ...]
    #: Pods + DaemonSets on the launched type.
    requests: FrozenMap[str, str]
    allocatable: FrozenMap[str, str]
    #: requests / allocatable per resource, 0..1.
    utilization: FrozenMap[str, float]
    labels: FrozenMap[str, str]
    requirements: Tuple[str, ...]
    #: GPUs and other accelerators of the launched type (empty when none).
    accelerators: Tuple[Accelerator, ...] = ()
    #: Values Karpenter itself picks at random among equal ones (empty when none).
    ties: Tuple[DomainTie, ...] = ()
    #: The capacity reservation launched into (capacity type ``reserved``), else None.
    reservation_id: Optional[str] = None
    #: ``default`` (ODCR) or ``capacity-block``, with ``reservation_id``.
    reservation_type: Optional[str] = None
    #: Where its price comes from, only when the request supplies prices (``user``, ``list``,
    #: ``us-east-1-list``, ``factor``, ``reservation``, ``overlay``; docs/prices-and-places.md).
    price_source: Optional[str] = None
    #: EKS Auto Mode's management fee ($/h) on top of ``price_per_hour``, from a fee table among
    #: the inputs (docs/prices-and-places.md); None outside Auto Mode or without a fee.
    auto_mode_fee_per_hour: Optional[float] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> NodeClaim:
        return cls(
            name=d["name"],
            node_pool=d["nodePool"],
            instance_type=d.get("instanceType"),
            capacity_type=d.get("capacityType"),
            zone=d.get("zone"),
            price_per_hour=d.get("pricePerHour"),
            instance_type_options=_strs(d.get("instanceTypeOptions")),
            pods=_strs(d.get("pods")),
            daemon_sets=_strs(d.get("daemonSets")),
            requests=_map(d.get("requests")),
            allocatable=_map(d.get("allocatable")),
            utilization=_map(d.get("utilization")),
            labels=_map(d.get("labels")),
            requirements=_strs(d.get("requirements")),
            accelerators=_seq(d.get("accelerators"), Accelerator._from),
            ties=tuple(DomainTie._from(t) for t in d.get("ties") or ()),
            reservation_id=d.get("reservationId"),
            reservation_type=d.get("reservationType"),
            price_source=d.get("priceSource"),
            auto_mode_fee_per_hour=d.get("autoModeFeePerHour"),
        )

    @property
    def accelerator(self) -> Optional[str]:
        """The accelerator resource the node has (``nvidia.com/gpu``, ...), or None."""
        return self.accelerators[0].resource if self.accelerators else None


@dataclass(frozen=True)
class ExistingNode:
    """An existing node that takes pending pods in this pass."""

    name: str
    pods: Tuple[str, ...]
    node_pool: Optional[str] = None
    instance_type: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> ExistingNode:
        return cls(name=d["name"], pods=_strs(d.get("pods")), node_pool=d.get("nodePool"), instance_type=d.get("instanceType"))


@dataclass(frozen=True)
class StaticNodeClaim:
    """A NodeClaim a static NodePool keeps whatever the demand (StaticCapacity gate on), with
    the pending pods this pass places on it."""

    name: str
    node_pool: str
    pods: Tuple[str, ...]
    instance_type: Optional[str] = None
    capacity_type: Optional[str] = None
    zone: Optional[str] = None
    price_per_hour: Optional[float] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> StaticNodeClaim:
        return cls(
            name=d["name"],
            node_pool=d["nodePool"],
            pods=_strs(d.get("pods")),
            instance_type=d.get("instanceType"),
            capacity_type=d.get("capacityType"),
            zone=d.get("zone"),
            price_per_hour=d.get("pricePerHour"),
        )


@dataclass(frozen=True)
class StaticDeprovision:
    """A NodeClaim Karpenter's static deprovisioning controller deletes (a static NodePool above
    ``spec.replicas``, StaticCapacity gate on); its pods are provisioned for again in the plan."""

    name: str
    node_pool: str
    #: ``not launched yet``, ``empty`` or ``lowest disruption cost``.
    why: str
    pods: Tuple[str, ...]
    #: Nodes of the same rank Karpenter could have taken instead.
    tied_with: Tuple[str, ...] = ()

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> StaticDeprovision:
        return cls(
            name=d["name"],
            node_pool=d["nodePool"],
            why=d["why"],
            pods=_strs(d.get("pods")),
            tied_with=_strs(d.get("tiedWith")),
        )


@dataclass(frozen=True)
class CapacityBuffer:
    """A CapacityBuffer in a plan (CapacityBuffer gate on): its virtual pods, where they went,
    and the ``Provisioning`` condition reason Karpenter writes."""

    name: str
    replicas: int
    on_existing_nodes: int
    on_new_node_claims: int
    unschedulable: int
    provisioning: str
    message: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> CapacityBuffer:
        return cls(
            name=d["name"],
            replicas=d["replicas"],
            on_existing_nodes=d["onExistingNodes"],
            on_new_node_claims=d["onNewNodeClaims"],
            unschedulable=d["unschedulable"],
            provisioning=d["provisioning"],
            message=d.get("message"),
        )


@dataclass(frozen=True)
class OverlayStatus:
    """A NodeOverlay applied to the catalog (NodeOverlay gate on): the ``ValidationSucceeded``
    status Karpenter writes on it, and how many instance types it changed here."""

    name: str
    weight: int
    validation_succeeded: bool
    #: Instance types whose capacity or an offering's price this overlay set.
    instance_types: int
    #: ``Conflict`` or ``RuntimeValidation`` when the condition is false.
    reason: Optional[str] = None
    message: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> OverlayStatus:
        return cls(
            name=d["name"],
            weight=d["weight"],
            validation_succeeded=d["validationSucceeded"],
            instance_types=d["instanceTypes"],
            reason=d.get("reason"),
            message=d.get("message"),
        )


@dataclass(frozen=True)
class Reservation:
    """A capacity reservation after the pass: how much of it this plan uses
    (docs/reservations.md)."""

    #: ``CapacityReservationId``.
    id: str
    instance_type: str
    zone: str
    #: ``default`` (an ODCR) or ``capacity-block``.
    reservation_type: str
    interruptible: bool
    state: str
    total: int
    #: ``AvailableInstanceCount`` before the pass.
    available: int
    #: NodeClaims of this plan launched into it.
    used: int
    remaining: int
    #: EC2NodeClasses that selected it (empty: none did, see ``node_class_reservations``).
    node_classes: Tuple[str, ...]
    #: Offered to this pass (selected, not expiring, its type and zone in the catalog).
    offered: bool
    #: Why it is or is not offered, in one line.
    message: str
    #: Its use depends on the pass time (it has an end date) and none was given.
    depends_on_time: bool
    #: ``EndDate`` (RFC 3339), when it has one.
    end_date: Optional[str] = None
    #: $/h it bills whether used or not (None for a capacity block: prepaid).
    committed_price_per_hour: Optional[float] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Reservation:
        return cls(
            id=d["id"],
            instance_type=d["instanceType"],
            zone=d["zone"],
            reservation_type=d["reservationType"],
            interruptible=d["interruptible"],
            state=d["state"],
            total=d["total"],
            available=d["available"],
            used=d["used"],
            remaining=d["remaining"],
            node_classes=_strs(d.get("nodeClasses")),
            offered=d["offered"],
            message=d["message"],
            depends_on_time=d["dependsOnTime"],
            end_date=d.get("endDate"),
            committed_price_per_hour=d.get("committedPricePerHour"),
        )


@dataclass(frozen=True)
class ReservationSkip:
    """A reservation an EC2NodeClass did not get (or got without an offering), and why
    (``reason``: ``no-term-matches``, ``not-active``, ``ended``, ``expiring``, ...)."""

    id: str
    reason: str
    message: str

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> ReservationSkip:
        return cls(id=d["id"], reason=d["reason"], message=d["message"])


@dataclass(frozen=True)
class NodeClassReservations:
    """What one EC2NodeClass's ``capacityReservationSelectorTerms`` selected (like its status),
    and why the other reservations were not."""

    node_class: str
    #: Reservation ids selected, by id.
    selected: Tuple[str, ...]
    not_selected: Tuple[ReservationSkip, ...]

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> NodeClassReservations:
        return cls(node_class=d["nodeClass"], selected=_strs(d.get("selected")), not_selected=_seq(d.get("notSelected"), ReservationSkip._from))


@dataclass(frozen=True)
class UnschedulablePod:
    """A pod that stays Pending: one summary ``code`` and one reason per NodePool."""

    pod: str
    code: str
    reasons: Tuple[Reason, ...]
    #: Checked fix hints (see :class:`Hint`), empty when nodecast found no change to check.
    hints: Tuple[Hint, ...] = ()

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> UnschedulablePod:
        return cls(pod=d["pod"], code=d["code"], reasons=_seq(d.get("reasons"), Reason._from), hints=_seq(d.get("hints"), Hint._from))


@dataclass(frozen=True)
class Limit:
    """A NodePool limit: the limit, what existing nodes and new NodeClaims use, what remains.

    Exact numbers in the resource's base unit (cores for ``cpu``, bytes for ``memory``, a count
    for GPUs and ``nodes``), read from the answer's Kubernetes quantities: ``Decimal("16")``
    compares equal to ``16``; ``float(limit.remaining)`` for arithmetic with floats."""

    limit: Decimal
    used: Decimal
    remaining: Decimal
    #: The answer's quantities as written ("16", "1000Gi"), in that order (for display).
    text: Tuple[str, str, str] = field(default=("", "", ""), compare=False)


@dataclass(frozen=True)
class NodePoolUsage:
    name: str
    weight: int
    new_node_claims: int
    limits: FrozenMap[str, Limit]
    #: Why the NodePool took no part in the pass (static, not Ready, nothing to launch); None
    #: when it took part.
    unusable: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> NodePoolUsage:
        from ._frames import quantity

        def number(q: str) -> Decimal:
            v = quantity(q)
            assert v is not None
            return v

        limits = FrozenMap(
            {
                k: Limit(number(v["limit"]), number(v["used"]), number(v["remaining"]), (v["limit"], v["used"], v["remaining"]))
                for k, v in (d.get("limits") or {}).items()
            }
        )
        return cls(name=d["name"], weight=d["weight"], new_node_claims=d["newNodeClaims"], limits=limits, unusable=d.get("unusable"))


@dataclass(frozen=True, repr=False)
class Plan(Answer):
    """What one Karpenter provisioning pass does with the pending pods (``nodecast plan``)."""

    node_claims: Tuple[NodeClaim, ...] = ()
    existing_nodes: Tuple[ExistingNode, ...] = ()
    unschedulable: Tuple[UnschedulablePod, ...] = ()
    node_pools: Tuple[NodePoolUsage, ...] = ()
    total_price_per_hour: float = 0.0
    #: ``total_price_per_hour`` × 730 h, to the cent (computed by the core).
    total_price_per_month: float = 0.0
    skipped: Tuple[Skipped, ...] = ()
    warnings: Tuple[AnswerWarning, ...] = ()
    #: NodeClaims static NodePools keep (StaticCapacity gate on).
    static_node_claims: Tuple[StaticNodeClaim, ...] = ()
    #: NodeClaims static scale-down deletes (StaticCapacity gate on, a pool above its replicas).
    static_deprovisioned: Tuple[StaticDeprovision, ...] = ()
    #: CapacityBuffers and where their virtual pods went (CapacityBuffer gate on).
    capacity_buffers: Tuple[CapacityBuffer, ...] = ()
    #: NodeOverlays applied to the catalog, with their status (NodeOverlay gate on).
    node_overlays: Tuple[OverlayStatus, ...] = ()
    #: Every capacity reservation of the input after this pass (empty without reservations).
    reservations: Tuple[Reservation, ...] = ()
    #: Per EC2NodeClass with ``capacityReservationSelectorTerms``: what it selected and why not the others.
    node_class_reservations: Tuple[NodeClassReservations, ...] = ()
    #: $/h the selected On-Demand Capacity Reservations bill whether used or not (None without
    #: reservations).
    reserved_committed_price_per_hour: Optional[float] = None
    #: With a pass time (``now``): nodes whose capacity reservation ended by then, deleted (a
    #: capacity block's; their pods are in this plan again) or on-demand (an ODCR's).
    reservation_changes: Tuple[ReservationChange, ...] = ()
    #: The EKS Auto Mode fees within ``total_price_per_hour`` (None without a fee table).
    auto_mode_fee_per_hour: Optional[float] = None
    #: The answer's ``summary`` line (read with ``summary()``).
    _summary: str = field(default="", repr=False)

    @classmethod
    def _from(cls, text: str, d: Mapping[str, Any]) -> Plan:
        return cls(
            _json=text,
            node_claims=_seq(d.get("nodeClaims"), NodeClaim._from),
            existing_nodes=_seq(d.get("existingNodes"), ExistingNode._from),
            unschedulable=_seq(d.get("unschedulable"), UnschedulablePod._from),
            node_pools=_seq(d.get("nodePools"), NodePoolUsage._from),
            total_price_per_hour=d.get("totalPricePerHour", 0.0),
            total_price_per_month=d.get("totalPricePerMonth", 0.0),
            skipped=_seq(d.get("skipped"), Skipped._from),
            warnings=_seq(d.get("warnings"), AnswerWarning._from),
            static_node_claims=_seq(d.get("staticNodeClaims"), StaticNodeClaim._from),
            static_deprovisioned=_seq(d.get("staticDeprovisioned"), StaticDeprovision._from),
            capacity_buffers=_seq(d.get("capacityBuffers"), CapacityBuffer._from),
            node_overlays=_seq(d.get("nodeOverlays"), OverlayStatus._from),
            reservations=_seq(d.get("reservations"), Reservation._from),
            node_class_reservations=_seq(d.get("nodeClassReservations"), NodeClassReservations._from),
            reserved_committed_price_per_hour=d.get("reservedCommittedPricePerHour"),
            reservation_changes=_seq(d.get("reservationChanges"), ReservationChange._from),
            auto_mode_fee_per_hour=d.get("autoModeFeePerHour"),
            _summary=d.get("summary", ""),
        )

    @property
    def kind(self) -> str:
        return "Plan"

    @property
    def pods_placed(self) -> int:
        """Pending pods placed on new NodeClaims or existing nodes."""
        return sum(len(c.pods) for c in self.node_claims) + sum(len(n.pods) for n in self.existing_nodes)

    @property
    def monthly_price(self) -> float:
        """``total_price_per_hour`` × 730 h, to the cent, as the CLI's Cost line."""
        return self.total_price_per_month

    def summary(self) -> str:
        """The CLI's first line, e.g. ``1 new NodeClaim: $5.672/h for 1 pod; ...`` (the answer's
        ``summary``, written by the core)."""
        return self._summary

    def to_pandas(self) -> pandas.DataFrame:
        """One row per new NodeClaim, with its pods joined (``pods``: count, ``pod_names``)."""
        from ._frames import plan_frame

        return plan_frame(self)

    def pods_frame(self) -> pandas.DataFrame:
        """One row per pending pod: where it goes (new NodeClaim, existing node) or why it stays
        Pending."""
        from ._frames import plan_pods_frame

        return plan_pods_frame(self)

    def _repr_html_(self) -> str:
        from ._html import plan_html

        return plan_html(self)

    def __str__(self) -> str:
        return self.summary()


def _price(p: float) -> str:
    """$/h as the CLI prints it: up to 5 decimals, trailing zeros dropped, at least 2."""
    whole, _, frac = f"{p + 0.0:.5f}".partition(".")
    return f"{whole}.{frac.rstrip('0').ljust(2, '0')}"


# ----------------------------------------------------------------------------------------------
# Decision


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


@dataclass(frozen=True)
class ReservationChange:
    """A node whose capacity reservation ended by ``now`` (``reservationChanges`` of a decision or a plan):
    ``change`` is ``deleted`` (a capacity block expiring) or ``on-demand`` (an ODCR ended)."""

    node: str
    reservation_id: str
    reservation_type: str
    change: str
    message: str

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> ReservationChange:
        return cls(
            node=d["node"],
            reservation_id=d["reservationId"],
            reservation_type=d["reservationType"],
            change=d["change"],
            message=d["message"],
        )


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
        from ._frames import decision_frame

        return decision_frame(self)

    def _repr_html_(self) -> str:
        from ._html import decision_html

        return decision_html(self)

    def __str__(self) -> str:
        return self.summary()


# ----------------------------------------------------------------------------------------------
# Explanation


@dataclass(frozen=True)
class Verdict:
    """Whether a NodePool or an existing node could take the pod, and why (not)."""

    name: str
    ok: bool
    reason: str

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Verdict:
        return cls(name=d["name"], ok=d["ok"], reason=d["reason"])


@dataclass(frozen=True)
class PodExplanation:
    pod: str
    #: ``bound``, ``existing-node``, ``new-node-claim`` or ``unschedulable``.
    outcome: str
    summary: str
    relaxations: Tuple[str, ...]
    existing_nodes: Tuple[Verdict, ...]
    node_pools: Tuple[Verdict, ...]
    node: Optional[str] = None
    node_claim: Optional[NodeClaim] = None
    unschedulable: Optional[UnschedulablePod] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> PodExplanation:
        nc = d.get("nodeClaim")
        un = d.get("unschedulable")
        return cls(
            pod=d["pod"],
            outcome=d["outcome"],
            summary=d["summary"],
            relaxations=_strs(d.get("relaxations")),
            existing_nodes=_seq(d.get("existingNodes"), Verdict._from),
            node_pools=_seq(d.get("nodePools"), Verdict._from),
            node=d.get("node"),
            node_claim=NodeClaim._from(nc) if nc else None,
            unschedulable=UnschedulablePod._from(un) if un else None,
        )


@dataclass(frozen=True)
class TypeExplanation:
    instance_type: str
    #: ``launched``, ``option`` (allowed but not the cheapest) or ``rejected``.
    verdict: str
    reasons: Tuple[str, ...]

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> TypeExplanation:
        return cls(instance_type=d["instanceType"], verdict=d["verdict"], reasons=_strs(d.get("reasons")))


@dataclass(frozen=True)
class NodeExplanation:
    node: NodeVerdict
    command: str
    summary: str
    #: The decision's ties that name this node.
    ties: Tuple[Tie, ...] = ()

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> NodeExplanation:
        return cls(
            node=NodeVerdict._from(d["node"]),
            command=d["command"],
            summary=d["summary"],
            ties=_seq(d.get("ties"), Tie._from),
        )


@dataclass(frozen=True, repr=False)
class Explanation(Answer):
    """Why a pod goes where it goes, why an instance type was (not) chosen, or why a node is (not)
    disrupted (``nodecast explain``)."""

    pod: Optional[PodExplanation] = None
    instance_type: Optional[TypeExplanation] = None
    node: Optional[NodeExplanation] = None

    @classmethod
    def _from(cls, text: str, d: Mapping[str, Any]) -> Explanation:
        pod, it, node = d.get("pod"), d.get("instanceType"), d.get("node")
        return cls(
            _json=text,
            pod=PodExplanation._from(pod) if pod else None,
            instance_type=TypeExplanation._from(it) if it else None,
            node=NodeExplanation._from(node) if node else None,
        )

    @property
    def kind(self) -> str:
        return "Explanation"

    def summary(self) -> str:
        """The one-line answer: the pod's or the node's summary."""
        if self.pod is not None:
            return self.pod.summary
        if self.node is not None:
            return self.node.summary
        return ""

    def to_pandas(self) -> pandas.DataFrame:
        """One row per verdict: NodePools and existing nodes for a pod (plus the instance type
        asked about), or the node for ``node=``."""
        from ._frames import explanation_frame

        return explanation_frame(self)

    def _repr_html_(self) -> str:
        from ._html_more import explanation_html

        return explanation_html(self)

    def __str__(self) -> str:
        return self.summary()


# ----------------------------------------------------------------------------------------------
# Validation and catalog


@dataclass(frozen=True, repr=False)
class ValidationReport(Answer):
    """A successful ``validate``: what was read. (Failures raise ValidationError/InputError.)"""

    objects: int = 0
    node_pools: Tuple[str, ...] = ()
    pods: int = 0
    skipped: Tuple[Skipped, ...] = ()
    #: Valid objects that will not work as meant (a NodePool that can never launch anything).
    warnings: Tuple[AnswerWarning, ...] = ()

    @classmethod
    def _from(cls, text: str, d: Mapping[str, Any]) -> ValidationReport:
        return cls(
            _json=text,
            objects=d["objects"],
            node_pools=_strs(d.get("nodePools")),
            pods=d["pods"],
            skipped=_seq(d.get("skipped"), Skipped._from),
            warnings=_seq(d.get("warnings"), AnswerWarning._from),
        )

    @property
    def kind(self) -> str:
        return "Validation"

    def to_pandas(self) -> pandas.DataFrame:
        """One row: objects, node_pools (comma-joined), pods, skipped (count)."""
        from ._frames import validation_frame

        return validation_frame(self)

    def _repr_html_(self) -> str:
        from ._html_more import validation_html

        return validation_html(self)

    def __str__(self) -> str:
        return f"valid: {self.objects} objects, {len(self.node_pools)} NodePools, {self.pods} pods, {len(self.skipped)} skipped"


@dataclass(frozen=True)
class InstanceTypeRow:
    name: str
    vcpu: str
    memory: str
    arch: str
    allocatable_cpu: str
    allocatable_memory: str
    on_demand_price_per_hour: float
    spot_price_per_hour: Optional[float] = None
    gpu_name: Optional[str] = None
    gpu_count: Optional[str] = None
    #: Per GPU, MiB.
    gpu_memory_mib: Optional[str] = None
    accelerator_name: Optional[str] = None
    accelerator_count: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> InstanceTypeRow:
        return cls(
            name=d["name"],
            vcpu=d["vcpu"],
            memory=d["memory"],
            arch=d["arch"],
            allocatable_cpu=d["allocatableCpu"],
            allocatable_memory=d["allocatableMemory"],
            on_demand_price_per_hour=d["onDemandPricePerHour"],
            spot_price_per_hour=d.get("spotPricePerHour"),
            gpu_name=d.get("gpuName"),
            gpu_count=d.get("gpuCount"),
            gpu_memory_mib=d.get("gpuMemoryMib"),
            accelerator_name=d.get("acceleratorName"),
            accelerator_count=d.get("acceleratorCount"),
        )


@dataclass(frozen=True, repr=False)
class CatalogResult(Answer):
    """Instance types matching a catalog query, cheapest first (``nodecast catalog``)."""

    source: str = ""
    count: int = 0
    instance_types: Tuple[InstanceTypeRow, ...] = ()

    @classmethod
    def _from(cls, text: str, d: Mapping[str, Any]) -> CatalogResult:
        return cls(
            _json=text,
            source=d["source"],
            count=d["count"],
            instance_types=_seq(d.get("instanceTypes"), InstanceTypeRow._from),
        )

    @property
    def kind(self) -> str:
        return "CatalogQuery"

    def names(self) -> List[str]:
        return [r.name for r in self.instance_types]

    def to_pandas(self) -> pandas.DataFrame:
        """One row per instance type."""
        from ._frames import catalog_frame

        return catalog_frame(self)

    def _repr_html_(self) -> str:
        from ._html_more import catalog_html

        return catalog_html(self)

    def __str__(self) -> str:
        return f"{self.count} instance types ({self.source})"


# ----------------------------------------------------------------------------------------------
# Simulation (docs/simulate.md)


def _freeze(v: Any) -> Any:
    """JSON values made immutable and hashable: objects → FrozenMap, arrays → tuples."""
    if isinstance(v, Mapping):
        return FrozenMap({k: _freeze(x) for k, x in v.items()})
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    return v


@dataclass(frozen=True)
class StaticNodeGroup:
    """Part of the static cluster: ``count`` nodes of one type, kept for the whole duration at
    on-demand prices (the mix alive when the NodePool's on-demand $/h peaked)."""

    node_pool: str
    instance_type: str
    capacity_type: str
    count: int
    price_per_hour_usd: float

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> StaticNodeGroup:
        return cls(
            node_pool=d["nodePool"],
            instance_type=d["instanceType"],
            capacity_type=d["capacityType"],
            count=d["count"],
            price_per_hour_usd=d["pricePerHourUsd"],
        )


@dataclass(frozen=True)
class SimulationSummary:
    """The totals of a simulation (``summary`` of the answer). Times are seconds."""

    duration_seconds: int
    cost_usd: float
    static_cost_usd: float
    savings_usd: float
    savings_percent: float
    static_cluster: Tuple[StaticNodeGroup, ...]
    gpu_hours_paid: float
    gpu_hours_used: float
    gpu_utilization: float
    empty_node_cost_usd: float
    empty_node_seconds: int
    #: Nearest-rank percentiles of pending time over pods that started: ``p50``, ``p95``, ``max``.
    pending_seconds: FrozenMap[str, int]
    work_lost_seconds: int
    #: ``submitted``, ``finished``, ``running``, ``pending``, ``deleted``.
    pods: FrozenMap[str, int]
    launches: int
    launches_by_node_pool: FrozenMap[str, int]
    disruptions: int
    #: ``empty``, ``underutilized``, ``expired``, ``interrupted``.
    disruptions_by_reason: FrozenMap[str, int]
    nodes_alive_at_end: int
    #: With capacity reservations: ``cost_usd`` by capacity type (``on-demand``, ``spot``, ``reserved``).
    cost_by_capacity_type: FrozenMap[str, float] = field(default_factory=FrozenMap)
    #: With capacity reservations: what they commit over the run, used or not (known prices only).
    reserved_committed_cost_usd: Optional[float] = None
    #: With capacity reservations: ``cost_usd`` + ``reserved_committed_cost_usd``.
    total_cost_with_reservations_usd: Optional[float] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> SimulationSummary:
        launches = d.get("launches") or {}
        disruptions = d.get("disruptions") or {}
        return cls(
            duration_seconds=d["durationSeconds"],
            cost_usd=d["costUsd"],
            static_cost_usd=d["staticCostUsd"],
            savings_usd=d["savingsUsd"],
            savings_percent=d["savingsPercent"],
            static_cluster=_seq(d.get("staticCluster"), StaticNodeGroup._from),
            gpu_hours_paid=d["gpuHoursPaid"],
            gpu_hours_used=d["gpuHoursUsed"],
            gpu_utilization=d["gpuUtilization"],
            empty_node_cost_usd=d["emptyNodeCostUsd"],
            empty_node_seconds=d["emptyNodeSeconds"],
            pending_seconds=_map(d.get("pendingSeconds")),
            work_lost_seconds=d["workLostSeconds"],
            pods=_map(d.get("pods")),
            launches=launches.get("total", 0),
            launches_by_node_pool=_map(launches.get("byNodePool")),
            disruptions=disruptions.get("total", 0),
            disruptions_by_reason=_map(disruptions.get("byReason")),
            nodes_alive_at_end=d["nodesAliveAtEnd"],
            cost_by_capacity_type=_map(d.get("costByCapacityType")),
            reserved_committed_cost_usd=d.get("reservedCommittedCostUsd"),
            total_cost_with_reservations_usd=d.get("totalCostWithReservationsUsd"),
        )


@dataclass(frozen=True)
class SimulatedNode:
    """One NodeClaim of the simulation, from launch to termination (seconds since the start;
    ``terminated_seconds`` is None for nodes alive at the end)."""

    name: str
    node_pool: Optional[str]
    instance_type: Optional[str]
    capacity_type: Optional[str]
    zone: Optional[str]
    price_per_hour_usd: float
    gpus: int
    launched_seconds: int
    registered_seconds: Optional[int]
    initialized_seconds: Optional[int]
    terminated_seconds: Optional[int]
    lifetime_seconds: int
    cost_usd: float
    #: What the node cost while empty after its first pod left (waiting for consolidateAfter).
    empty_cost_usd: float
    #: ``empty``, ``underutilized``, ``expired``, ``interrupted``; None while alive.
    termination_reason: Optional[str]
    pods: int

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> SimulatedNode:
        return cls(
            name=d["name"],
            node_pool=d.get("nodePool"),
            instance_type=d.get("instanceType"),
            capacity_type=d.get("capacityType"),
            zone=d.get("zone"),
            price_per_hour_usd=d["pricePerHourUsd"],
            gpus=d["gpus"],
            launched_seconds=d["launchedSeconds"],
            registered_seconds=d.get("registeredSeconds"),
            initialized_seconds=d.get("initializedSeconds"),
            terminated_seconds=d.get("terminatedSeconds"),
            lifetime_seconds=d["lifetimeSeconds"],
            cost_usd=d["costUsd"],
            empty_cost_usd=d["emptyCostUsd"],
            termination_reason=d.get("terminationReason"),
            pods=d["pods"],
        )


@dataclass(frozen=True)
class SimulatedPod:
    """One pod of the simulation: when it was submitted, started and finished, and where it ran."""

    name: str
    workload: str
    submitted_seconds: int
    started_seconds: Optional[int]
    finished_seconds: Optional[int]
    #: ``finished``, ``running``, ``pending`` or ``deleted``.
    state: str
    pending_seconds: int
    run_time_seconds: Optional[int]
    running_seconds: int
    work_lost_seconds: int
    restarts: int
    nodes: Tuple[str, ...]

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> SimulatedPod:
        return cls(
            name=d["name"],
            workload=d["workload"],
            submitted_seconds=d["submittedSeconds"],
            started_seconds=d.get("startedSeconds"),
            finished_seconds=d.get("finishedSeconds"),
            state=d["state"],
            pending_seconds=d["pendingSeconds"],
            run_time_seconds=d.get("runTimeSeconds"),
            running_seconds=d["runningSeconds"],
            work_lost_seconds=d["workLostSeconds"],
            restarts=d["restarts"],
            nodes=_strs(d.get("nodes")),
        )


@dataclass(frozen=True)
class AutoscaledWorkload:
    """One workload an HPA scales, or the trace gives demand for, over a simulation
    (``autoscaling`` of the answer): replicas, served demand, scale-up times and GPU cost.
    Demand figures are in the series' units; they are None without ``capacityPerReplica``."""

    workload: str
    peak_replicas: int
    rescales: int
    replica_hours: float
    ready_replica_hours: float
    seconds_below_desired: int
    readiness_delay_seconds: int
    gpu_hours: float
    gpu_cost_usd: float
    #: The HPA, ``namespace/name``; None when the trace's scale events drive the workload.
    hpa: Optional[str] = None
    min_replicas: Optional[int] = None
    max_replicas: Optional[int] = None
    capacity_per_replica: Optional[float] = None
    demand_unit_hours: Optional[float] = None
    served_unit_hours: Optional[float] = None
    unserved_unit_hours: Optional[float] = None
    served_percent: Optional[float] = None
    seconds_short: Optional[int] = None
    #: p50, p95 and max seconds from a demand rise to ready capacity covering it.
    scale_up_seconds: FrozenMap[str, int] = field(default_factory=FrozenMap)
    rises_covered: Optional[int] = None
    rises_uncovered: Optional[int] = None
    #: The KEDA object behind the workload, ``Kind/namespace/name``: the ScaledObject that
    #: generated the HPA, or the ScaledJob (then replicas count its unfinished Jobs).
    keda: Optional[str] = None
    keda_activations: Optional[int] = None
    keda_deactivations: Optional[int] = None
    #: A ScaledJob's Jobs: created, completed, failed (backoffLimit exceeded).
    jobs_created: Optional[int] = None
    jobs_succeeded: Optional[int] = None
    jobs_failed: Optional[int] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> AutoscaledWorkload:
        return cls(
            workload=d["workload"],
            peak_replicas=d["peakReplicas"],
            rescales=d["rescales"],
            replica_hours=d["replicaHours"],
            ready_replica_hours=d["readyReplicaHours"],
            seconds_below_desired=d["secondsBelowDesired"],
            readiness_delay_seconds=d["readinessDelaySeconds"],
            gpu_hours=d["gpuHours"],
            gpu_cost_usd=d["gpuCostUsd"],
            hpa=d.get("hpa"),
            min_replicas=d.get("minReplicas"),
            max_replicas=d.get("maxReplicas"),
            capacity_per_replica=d.get("capacityPerReplica"),
            demand_unit_hours=d.get("demandUnitHours"),
            served_unit_hours=d.get("servedUnitHours"),
            unserved_unit_hours=d.get("unservedUnitHours"),
            served_percent=d.get("servedPercent"),
            seconds_short=d.get("secondsShort"),
            scale_up_seconds=_map(d.get("scaleUpSeconds")),
            rises_covered=d.get("risesCovered"),
            rises_uncovered=d.get("risesUncovered"),
            keda=d.get("keda"),
            keda_activations=d.get("kedaActivations"),
            keda_deactivations=d.get("kedaDeactivations"),
            jobs_created=d.get("jobsCreated"),
            jobs_succeeded=d.get("jobsSucceeded"),
            jobs_failed=d.get("jobsFailed"),
        )


@dataclass(frozen=True)
class SimulatedReservation:
    """One capacity reservation over a simulation (``reservations`` of the answer): seconds
    since the start; ``committed_cost_usd`` is None when unknown (a capacity block without
    ``capacityBlockPrices``)."""

    id: str
    instance_type: str
    zone: str
    reservation_type: str
    total: int
    launches: int
    used_instance_hours: float
    utilization: float
    peak_used: int
    nodes_deleted: int
    nodes_on_demand: int
    nodes_interrupted: int = 0
    active_from_seconds: Optional[int] = None
    active_until_seconds: Optional[int] = None
    committed_price_per_hour_usd: Optional[float] = None
    committed_cost_usd: Optional[float] = None
    note: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> SimulatedReservation:
        return cls(
            id=d["id"],
            instance_type=d["instanceType"],
            zone=d["zone"],
            reservation_type=d["reservationType"],
            total=d["total"],
            launches=d["launches"],
            used_instance_hours=d["usedInstanceHours"],
            utilization=d["utilization"],
            peak_used=d["peakUsed"],
            nodes_deleted=d["nodesDeleted"],
            nodes_on_demand=d["nodesOnDemand"],
            nodes_interrupted=d.get("nodesInterrupted", 0),
            active_from_seconds=d.get("activeFromSeconds"),
            active_until_seconds=d.get("activeUntilSeconds"),
            committed_price_per_hour_usd=d.get("committedPricePerHourUsd"),
            committed_cost_usd=d.get("committedCostUsd"),
            note=d.get("note"),
        )


@dataclass(frozen=True)
class TimelineEntry:
    """One event of the timeline (``pod-pending``, ``nodeclaim-launched``, ...)."""

    time_seconds: int
    event: str
    object: str
    #: RFC 3339, when the trace gave ``start``.
    time: Optional[str] = None
    node: Optional[str] = None
    reason: Optional[str] = None
    detail: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> TimelineEntry:
        return cls(
            time_seconds=d["timeSeconds"],
            event=d["event"],
            object=d["object"],
            time=d.get("time"),
            node=d.get("node"),
            reason=d.get("reason"),
            detail=d.get("detail"),
        )


@dataclass(frozen=True)
class MetricSeries:
    """One Karpenter-named metric sampled at ``Simulation.series_times_seconds``."""

    name: str
    labels: FrozenMap[str, str]
    values: Tuple[float, ...]

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> MetricSeries:
        return cls(name=d["name"], labels=_map(d.get("labels")), values=tuple(d.get("values") or ()))


@dataclass(frozen=True, repr=False)
class Simulation(Answer):
    """A workload trace replayed over simulated time (``nodecast simulate``): every NodeClaim
    launched and terminated, every pod's life, the timeline, the cost and the static-cluster
    comparison, and Karpenter-named metric series."""

    _request: str = field(default="", repr=False, compare=False)
    #: RFC 3339 start, when the trace gave one.
    start: Optional[str] = None
    seed: int = 0
    #: Every resolved setting (camelCase keys, as in ``request.simulation``).
    settings: FrozenMap[str, Any] = field(default_factory=FrozenMap)
    summary: Optional[SimulationSummary] = None
    nodes: Tuple[SimulatedNode, ...] = ()
    pods: Tuple[SimulatedPod, ...] = ()
    timeline: Tuple[TimelineEntry, ...] = ()
    series_interval_seconds: int = 0
    series_times_seconds: Tuple[int, ...] = ()
    series: Tuple[MetricSeries, ...] = ()
    warnings: Tuple[AnswerWarning, ...] = ()
    skipped: Tuple[Skipped, ...] = ()
    #: Per capacity reservation: its use over the run and what it commits.
    reservations: Tuple[SimulatedReservation, ...] = ()
    #: Per workload an HPA scales or the trace gives demand for (docs/simulate.md).
    autoscaling: Tuple[AutoscaledWorkload, ...] = ()
    _renders: Dict[str, str] = field(default_factory=dict, repr=False, compare=False, hash=False)

    @classmethod
    def _from(cls, text: str, d: Mapping[str, Any], request: str = "") -> Simulation:
        series = d.get("series") or {}
        return cls(
            _json=text,
            _request=request,
            start=d.get("start"),
            seed=d["seed"],
            settings=_freeze(d.get("settings") or {}),
            summary=SimulationSummary._from(d["summary"]),
            nodes=_seq(d.get("nodes"), SimulatedNode._from),
            pods=_seq(d.get("pods"), SimulatedPod._from),
            timeline=_seq(d.get("timeline"), TimelineEntry._from),
            series_interval_seconds=series.get("intervalSeconds", 0),
            series_times_seconds=tuple(series.get("timesSeconds") or ()),
            series=_seq(series.get("metrics"), MetricSeries._from),
            warnings=_seq(d.get("warnings"), AnswerWarning._from),
            skipped=_seq(d.get("skipped"), Skipped._from),
            reservations=_seq(d.get("reservations"), SimulatedReservation._from),
            autoscaling=_seq(d.get("autoscaling"), AutoscaledWorkload._from),
        )

    @property
    def kind(self) -> str:
        return "Simulation"

    @property
    def cost_usd(self) -> float:
        """Total $ spent on NodeClaims (``summary.cost_usd``)."""
        return self.summary.cost_usd if self.summary is not None else 0.0

    def summary_line(self) -> str:
        """The CLI's first line without the dates, e.g. ``$59.92 with Karpenter, $253.44 for a
        static cluster sized for the peak (76.4% saved)``."""
        s = self.summary
        if s is None:  # pragma: no cover - a success answer always has one
            return ""
        return (
            f"${s.cost_usd:.2f} with Karpenter, ${s.static_cost_usd:.2f} for a static cluster sized for the peak "
            f"({s.savings_percent:.1f}% saved)"
        )

    def metric(self, name: str, **labels: str) -> Tuple[MetricSeries, ...]:
        """The series of metric ``name`` whose labels include ``labels`` (``resource_type`` for
        ``resource_type=...``)."""
        return tuple(m for m in self.series if m.name == name and all(m.labels.get(k) == v for k, v in labels.items()))

    def _render(self, function: str) -> str:
        cached = self._renders.get(function)
        if cached is not None:
            return cached
        from . import _native

        text = _native.call(function, self._request)
        if text.startswith("{"):  # pragma: no cover - the same request succeeded before
            raise RuntimeError(f"nodecast: {function} failed for a request that simulated: {text}")
        self._renders[function] = text
        return text

    def to_csv(self) -> str:
        """The metric series as long CSV (``timeSeconds,metric,labels,value``): the bytes of
        ``nodecast simulate ... -o csv``, rendered by the core. The simulation is deterministic, so
        the core re-runs the same request (once; the text is kept)."""
        return self._render("simulate-csv")

    def to_prometheus(self) -> str:
        """The metric series in the Prometheus text exposition format (millisecond timestamps from
        the trace start): the bytes of ``nodecast simulate ... -o prom``."""
        return self._render("simulate-prom")

    def to_pandas(self) -> pandas.DataFrame:
        """One row per node (``nodes_frame()``)."""
        return self.nodes_frame()

    def nodes_frame(self) -> pandas.DataFrame:
        """One row per NodeClaim: type, price, lifecycle times (seconds), cost, termination."""
        from ._frames import sim_nodes_frame

        return sim_nodes_frame(self)

    def pods_frame(self) -> pandas.DataFrame:
        """One row per pod: submitted/started/finished (seconds), state, pending and running time."""
        from ._frames import sim_pods_frame

        return sim_pods_frame(self)

    def timeline_frame(self) -> pandas.DataFrame:
        """One row per timeline event, in order."""
        from ._frames import sim_timeline_frame

        return sim_timeline_frame(self)

    def summary_frame(self) -> pandas.DataFrame:
        """One row: the totals (cost, static cost, savings, GPU hours, pending percentiles, counts)."""
        from ._frames import sim_summary_frame

        return sim_summary_frame(self)

    def series_frame(self) -> pandas.DataFrame:
        """The metric series, long: one row per (time, metric, labels), as ``to_csv()``."""
        from ._frames import sim_series_frame

        return sim_series_frame(self)

    def autoscaling_frame(self) -> pandas.DataFrame:
        """One row per workload an HPA, a KEDA ScaledObject or ScaledJob scales, or the trace gives
        demand for (``autoscaling``): bounds, peak, rescales, served demand, scale-up p50/p95/max,
        KEDA activations and Jobs, GPU hours and cost."""
        from ._autoscaling import autoscaling_frame

        return autoscaling_frame(self)

    def autoscaling_series_frame(self) -> pandas.DataFrame:
        """The autoscaling over time: one row per (sample time, workload) with ``replicas``,
        ``ready_replicas``, ``desired_replicas`` (the HPA's), ``jobs`` (a ScaledJob's) and one
        ``demand_<metric>`` column per demand metric."""
        from ._autoscaling import autoscaling_series_frame

        return autoscaling_series_frame(self)

    def plot_autoscaling(self, workload: Optional[str] = None, ax: Any = None) -> Any:
        """Demand, replicas (asked and Ready) and nodes on one time axis for one workload of
        ``autoscaling`` (the first by default; matplotlib, needed only here). Returns the Axes."""
        from ._plots import plot_autoscaling

        return plot_autoscaling(self, workload, ax)

    def plot_cost(self, ax: Any = None) -> Any:
        """Cumulative cost over time with Karpenter against the static cluster (matplotlib, needed
        only here). Draws on ``ax`` or a new figure; returns the Axes."""
        from ._plots import plot_cost

        return plot_cost(self, ax)

    def plot_nodes(self, ax: Any = None, max_rows: Optional[int] = None) -> Any:
        """Node Gantt chart: a bar per NodeClaim (all of them, or the first ``max_rows``) from
        launch to termination, coloured by capacity type, labels thinned so they never overlap
        (matplotlib, needed only here). Returns the Axes."""
        from ._plots import plot_nodes

        return plot_nodes(self, ax, max_rows)

    def _repr_html_(self) -> str:
        from ._html import simulation_html

        return simulation_html(self)

    def __str__(self) -> str:
        return self.summary_line()

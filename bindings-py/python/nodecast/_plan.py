"""The ``plan`` answer: NodeClaims, existing nodes, pending pods, NodePools and reservations."""

from __future__ import annotations

from decimal import Decimal
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Optional, Tuple

from ._answer import Answer, AnswerWarning, DomainTie, FrozenMap, Hint, Reason, Skipped, _map, _seq, _strs, quantity
from ._renderers import renderer

if TYPE_CHECKING:  # pragma: no cover
    import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]

__all__ = [
    "Accelerator",
    "CapacityBuffer",
    "ExistingNode",
    "Limit",
    "NodeClaim",
    "NodeClassReservations",
    "NodePoolUsage",
    "OverlayStatus",
    "Plan",
    "Reservation",
    "ReservationChange",
    "ReservationSkip",
    "StaticDeprovision",
    "StaticNodeClaim",
    "UnschedulablePod",
]


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
        rendered: pandas.DataFrame = renderer("plan_frame")(self)
        return rendered

    def pods_frame(self) -> pandas.DataFrame:
        """One row per pending pod: where it goes (new NodeClaim, existing node) or why it stays
        Pending."""
        rendered: pandas.DataFrame = renderer("plan_pods_frame")(self)
        return rendered

    def _repr_html_(self) -> str:
        rendered: str = renderer("plan_html")(self)
        return rendered

    def __str__(self) -> str:
        return self.summary()

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

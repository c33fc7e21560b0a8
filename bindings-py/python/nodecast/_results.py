"""Typed, frozen answers (``apiVersion: nodecast/v1``): every result class, by one name.

The answers live by concern: the shared base in ``_answer``, ``plan`` in ``_plan``, ``consolidate``
in ``_decision``, ``simulate`` in ``_simulation``, and ``explain``, ``validate`` and ``catalog``
here. This module re-exports them all, so ``nodecast._results.Plan`` and the package's own imports
keep one home to name. Their tables, HTML and plots are the renderer modules' (``_renderers``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, List, Mapping, Optional, Tuple

from ._answer import (  # noqa: F401 - re-exported
    Answer,
    AnswerWarning,
    DomainTie,
    FrozenMap,
    Hint,
    Reason,
    Skipped,
    _map,
    _price,
    _seq,
    _strs,
)
from ._decision import (  # noqa: F401 - re-exported
    BalancedScore,
    ConsolidationSequence,
    ConsolidationStep,
    Decision,
    Drift,
    NodeVerdict,
    PoolBudget,
    Repair,
    Replacement,
    Tie,
)
from ._plan import (  # noqa: F401 - re-exported
    Accelerator,
    CapacityBuffer,
    ExistingNode,
    Limit,
    NodeClaim,
    NodeClassReservations,
    NodePoolUsage,
    OverlayStatus,
    Plan,
    Reservation,
    ReservationChange,
    ReservationSkip,
    StaticDeprovision,
    StaticNodeClaim,
    UnschedulablePod,
)
from ._simulation import (  # noqa: F401 - re-exported
    AutoscaledWorkload,
    MetricSeries,
    SimulatedNode,
    SimulatedPod,
    SimulatedReservation,
    Simulation,
    SimulationSummary,
    StaticNodeGroup,
    TimelineEntry,
)
from ._renderers import renderer

if TYPE_CHECKING:  # pragma: no cover
    import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]

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
        rendered: pandas.DataFrame = renderer("explanation_frame")(self)
        return rendered

    def _repr_html_(self) -> str:
        rendered: str = renderer("explanation_html")(self)
        return rendered

    def __str__(self) -> str:
        return self.summary()


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
        rendered: pandas.DataFrame = renderer("validation_frame")(self)
        return rendered

    def _repr_html_(self) -> str:
        rendered: str = renderer("validation_html")(self)
        return rendered

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
        rendered: pandas.DataFrame = renderer("catalog_frame")(self)
        return rendered

    def _repr_html_(self) -> str:
        rendered: str = renderer("catalog_html")(self)
        return rendered

    def __str__(self) -> str:
        return f"{self.count} instance types ({self.source})"

"""Type stubs of the nodecast facade (checked against the installed package by mypy.stubtest)."""

import datetime
import os
from typing import Any, Mapping, Optional, Sequence, Union

from nodecast._errors import InputError as InputError
from nodecast._errors import ValidationError as ValidationError
from nodecast._answer import AnswerWarning as AnswerWarning
from nodecast._results import CatalogResult as CatalogResult
from nodecast._decision import Decision as Decision
from nodecast._plan import ExistingNode as ExistingNode
from nodecast._plan import StaticNodeClaim as StaticNodeClaim
from nodecast._plan import StaticDeprovision as StaticDeprovision
from nodecast._plan import CapacityBuffer as CapacityBuffer
from nodecast._plan import OverlayStatus as OverlayStatus
from nodecast._plan import Reservation as Reservation
from nodecast._plan import ReservationSkip as ReservationSkip
from nodecast._plan import NodeClassReservations as NodeClassReservations
from nodecast._plan import ReservationChange as ReservationChange
from nodecast._simulation import SimulatedReservation as SimulatedReservation
from nodecast._simulation import AutoscaledWorkload as AutoscaledWorkload
from nodecast._decision import Drift as Drift
from nodecast._decision import Repair as Repair
from nodecast._results import Explanation as Explanation
from nodecast._answer import FrozenMap as FrozenMap
from nodecast._results import InstanceTypeRow as InstanceTypeRow
from nodecast._plan import Limit as Limit
from nodecast._plan import Accelerator as Accelerator
from nodecast._plan import NodeClaim as NodeClaim
from nodecast._decision import BalancedScore as BalancedScore
from nodecast._results import NodeExplanation as NodeExplanation
from nodecast._plan import NodePoolUsage as NodePoolUsage
from nodecast._decision import NodeVerdict as NodeVerdict
from nodecast._plan import Plan as Plan
from nodecast._results import PodExplanation as PodExplanation
from nodecast._decision import PoolBudget as PoolBudget
from nodecast._decision import ConsolidationSequence as ConsolidationSequence
from nodecast._decision import ConsolidationStep as ConsolidationStep
from nodecast._simulation import MetricSeries as MetricSeries
from nodecast._answer import Reason as Reason
from nodecast._decision import Replacement as Replacement
from nodecast._answer import DomainTie as DomainTie
from nodecast._simulation import SimulatedNode as SimulatedNode
from nodecast._simulation import SimulatedPod as SimulatedPod
from nodecast._simulation import Simulation as Simulation
from nodecast._simulation import SimulationSummary as SimulationSummary
from nodecast._answer import Skipped as Skipped
from nodecast._decision import Tie as Tie
from nodecast._simulation import StaticNodeGroup as StaticNodeGroup
from nodecast._simulation import TimelineEntry as TimelineEntry
from nodecast._results import TypeExplanation as TypeExplanation
from nodecast._plan import UnschedulablePod as UnschedulablePod
from nodecast._answer import Hint as Hint
from nodecast._results import ValidationReport as ValidationReport
from nodecast._results import Verdict as Verdict
from nodecast._sweep import SweepResult as SweepResult
from nodecast._sweep import sweep as sweep
from nodecast._optimize import Optimization as Optimization
from nodecast._optimize import OptimizedClaim as OptimizedClaim
from nodecast._optimize import OptimizationStats as OptimizationStats
from nodecast._optimize import PodMove as PodMove
from nodecast._optimize import RunningCluster as RunningCluster
from nodecast._optimize import RunningNode as RunningNode
from nodecast._optimize import KarpenterConsolidation as KarpenterConsolidation
from nodecast._node_groups import NodeGroupPlan as NodeGroupPlan
from nodecast._node_groups import NodeGroup as NodeGroup
from nodecast._node_groups import ScaleUp as ScaleUp
from nodecast._node_groups import ScaleUpOption as ScaleUpOption
from nodecast._node_groups import NodeGroupNode as NodeGroupNode
from nodecast._node_groups import NodeGroupPendingPod as NodeGroupPendingPod
from nodecast._node_groups import NodeGroupReason as NodeGroupReason
from nodecast._node_groups import ClusterAutoscalerSettings as ClusterAutoscalerSettings
from nodecast._node_groups import NodeGroupScaleDown as NodeGroupScaleDown
from nodecast._node_groups import ScaleDownNode as ScaleDownNode
from nodecast._node_groups import ScaleDownMove as ScaleDownMove
from nodecast._node_groups import ScaleDownSettings as ScaleDownSettings
from nodecast._migrate import Migration as Migration
from nodecast._migrate import MigratedNodePool as MigratedNodePool
from nodecast._migrate import PlanSide as PlanSide
from nodecast._migrate import TypeCount as TypeCount
from nodecast._compare import CaScaleUp as CaScaleUp
from nodecast._compare import Comparison as Comparison
from nodecast._compare import ComparisonSeries as ComparisonSeries
from nodecast._compare import ComparisonSide as ComparisonSide
from nodecast._advise import Advice as Advice
from nodecast._advise import Advised as Advised
from nodecast._advise import AdviceEdit as AdviceEdit
from nodecast._advise import AdvisedPlan as AdvisedPlan
from nodecast._advise import AdviceStats as AdviceStats
from nodecast._advise import AdviceRisk as AdviceRisk
from nodecast._advise import AppliedEdit as AppliedEdit
from nodecast._advise import EditedFile as EditedFile

__version__: str
__all__ = [
    "__version__",
    "plan",
    "plan_node_groups",
    "consolidate_node_groups",
    "migrate",
    "compare",
    "consolidate",
    "validate",
    "explain",
    "catalog",
    "simulate",
    "sweep",
    "optimize",
    "advise",
    "request_json",
    "InputError",
    "ValidationError",
    "Plan",
    "Accelerator",
    "NodeClaim",
    "ExistingNode",
    "StaticDeprovision",
    "StaticNodeClaim",
    "CapacityBuffer",
    "OverlayStatus",
    "Reservation",
    "ReservationSkip",
    "NodeClassReservations",
    "ReservationChange",
    "SimulatedReservation",
    "AutoscaledWorkload",
    "UnschedulablePod",
    "Reason",
    "Hint",
    "NodePoolUsage",
    "Limit",
    "Skipped",
    "DomainTie",
    "AnswerWarning",
    "Decision",
    "Replacement",
    "BalancedScore",
    "Tie",
    "NodeVerdict",
    "Drift",
    "Repair",
    "PoolBudget",
    "ConsolidationSequence",
    "ConsolidationStep",
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
    "MetricSeries",
    "FrozenMap",
    "SweepResult",
    "Optimization",
    "Advice",
    "Advised",
    "AdviceEdit",
    "AdvisedPlan",
    "AdviceStats",
    "AdviceRisk",
    "AppliedEdit",
    "EditedFile",
    "OptimizedClaim",
    "PodMove",
    "OptimizationStats",
    "RunningCluster",
    "RunningNode",
    "KarpenterConsolidation",
    "NodeGroupPlan",
    "NodeGroup",
    "ScaleUp",
    "ScaleUpOption",
    "NodeGroupNode",
    "NodeGroupPendingPod",
    "NodeGroupReason",
    "ClusterAutoscalerSettings",
    "NodeGroupScaleDown",
    "ScaleDownNode",
    "ScaleDownMove",
    "ScaleDownSettings",
    "Migration",
    "Comparison",
    "ComparisonSide",
    "ComparisonSeries",
    "CaScaleUp",
    "MigratedNodePool",
    "PlanSide",
    "TypeCount",
]

# A source: YAML/JSON text, a file path (str or os.PathLike), bytes, a Kubernetes object (dict,
# also a kubernetes client to_dict()), a kubernetes client model, or an iterable of those.
Source = Any
CatalogSpec = Union[str, os.PathLike[str], Mapping[str, Any]]
Zones = Union[str, Sequence[str]]
Now = Union[datetime.datetime, str]
# A trace: a file path, YAML/JSON/CSV text (str or bytes), a Trace dict, or a list of its events.
Trace = Any
Seconds = Union[int, datetime.timedelta]
SecondsRange = Union[int, datetime.timedelta, Sequence[Union[int, datetime.timedelta]], Mapping[str, Union[int, datetime.timedelta]]]
SimSettings = Union[Mapping[str, Any], str, os.PathLike[str]]
# The output of `aws ec2 describe-capacity-reservations`: the parsed dict (with
# CapacityReservations), a path to the JSON/YAML file, or a list of those.
Reservations = Union[str, os.PathLike[str], Mapping[str, Any], Sequence[Any]]

def request_json(
    *sources: Source,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    min_values_policy: Optional[str] = None,
    preference_policy: Optional[str] = None,
    spot_to_spot_consolidation: Optional[bool] = None,
    feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    ignore_dra_requests: Optional[bool] = None,
    aws_feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    max_instance_types: Optional[int] = None,
    repair_policies: Optional[Sequence[Mapping[str, Any]]] = None,
    scheduler_config: Optional[Mapping[str, Any]] = None,
    now: Optional[Now] = None,
    pod: Optional[str] = None,
    node: Optional[str] = None,
    instance_type: Optional[str] = None,
    reservations: Optional[Reservations] = None,
) -> str: ...
def plan(
    *sources: Source,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    min_values_policy: Optional[str] = None,
    preference_policy: Optional[str] = None,
    spot_to_spot_consolidation: Optional[bool] = None,
    feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    ignore_dra_requests: Optional[bool] = None,
    aws_feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    max_instance_types: Optional[int] = None,
    repair_policies: Optional[Sequence[Mapping[str, Any]]] = None,
    scheduler_config: Optional[Mapping[str, Any]] = None,
    now: Optional[Now] = None,
    reservations: Optional[Reservations] = None,
) -> Plan: ...
def plan_node_groups(
    *sources: Source,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    ignore_dra_requests: Optional[bool] = None,
    now: Optional[Now] = None,
) -> NodeGroupPlan: ...
def consolidate_node_groups(
    *sources: Source,
    now: Now,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    ignore_dra_requests: Optional[bool] = None,
) -> NodeGroupScaleDown: ...
def migrate(
    *sources: Source,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
) -> Migration: ...
def compare(
    *sources: Source,
    trace: Trace,
    seed: Optional[int] = None,
    settings: Optional[SimSettings] = None,
    end: Optional[Seconds] = None,
    metrics_interval_seconds: Optional[Seconds] = None,
    trace_format: Optional[str] = None,
    trace_name: Optional[str] = None,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
) -> Comparison: ...
def consolidate(
    *sources: Source,
    now: Now,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    min_values_policy: Optional[str] = None,
    preference_policy: Optional[str] = None,
    spot_to_spot_consolidation: Optional[bool] = None,
    feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    ignore_dra_requests: Optional[bool] = None,
    aws_feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    max_instance_types: Optional[int] = None,
    repair_policies: Optional[Sequence[Mapping[str, Any]]] = None,
    scheduler_config: Optional[Mapping[str, Any]] = None,
    until: Optional[Now] = None,
    simulation: Optional[SimSettings] = None,
    reservations: Optional[Reservations] = None,
) -> Decision: ...
def validate(
    *sources: Source,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    min_values_policy: Optional[str] = None,
    preference_policy: Optional[str] = None,
    spot_to_spot_consolidation: Optional[bool] = None,
    feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    ignore_dra_requests: Optional[bool] = None,
    aws_feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    max_instance_types: Optional[int] = None,
    repair_policies: Optional[Sequence[Mapping[str, Any]]] = None,
    scheduler_config: Optional[Mapping[str, Any]] = None,
) -> ValidationReport: ...
def explain(
    *sources: Source,
    pod: Optional[str] = None,
    node: Optional[str] = None,
    now: Optional[Now] = None,
    instance_type: Optional[str] = None,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    min_values_policy: Optional[str] = None,
    preference_policy: Optional[str] = None,
    spot_to_spot_consolidation: Optional[bool] = None,
    feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    ignore_dra_requests: Optional[bool] = None,
    aws_feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    max_instance_types: Optional[int] = None,
    repair_policies: Optional[Sequence[Mapping[str, Any]]] = None,
    scheduler_config: Optional[Mapping[str, Any]] = None,
    reservations: Optional[Reservations] = None,
) -> Explanation: ...
def catalog(
    gpu: bool = False,
    requirements: Union[str, Sequence[str]] = (),
    limit: int = 0,
    *,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
) -> CatalogResult: ...
def simulate(
    *sources: Source,
    trace: Trace,
    seed: Optional[int] = None,
    settings: Optional[SimSettings] = None,
    end: Optional[Seconds] = None,
    gpu_startup_seconds: Optional[SecondsRange] = None,
    startup_seconds: Optional[SecondsRange] = None,
    device_plugin_seconds: Optional[SecondsRange] = None,
    batch_idle_seconds: Optional[Seconds] = None,
    batch_max_seconds: Optional[Seconds] = None,
    disruption_poll_seconds: Optional[Seconds] = None,
    spot_interruption_rate_per_hour: Optional[float] = None,
    interruption_notice_seconds: Optional[Seconds] = None,
    termination_grace_period_seconds: Optional[Seconds] = None,
    metrics_interval_seconds: Optional[Seconds] = None,
    max_events: Optional[int] = None,
    max_pod_attempts: Optional[int] = None,
    trace_format: Optional[str] = None,
    trace_name: Optional[str] = None,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    min_values_policy: Optional[str] = None,
    preference_policy: Optional[str] = None,
    spot_to_spot_consolidation: Optional[bool] = None,
    feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    ignore_dra_requests: Optional[bool] = None,
    aws_feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    max_instance_types: Optional[int] = None,
    repair_policies: Optional[Sequence[Mapping[str, Any]]] = None,
    scheduler_config: Optional[Mapping[str, Any]] = None,
    reservations: Optional[Reservations] = None,
) -> Simulation: ...
def optimize(
    *sources: Source,
    time_budget_seconds: Optional[float] = None,
    running: bool = False,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    min_values_policy: Optional[str] = None,
    preference_policy: Optional[str] = None,
    spot_to_spot_consolidation: Optional[bool] = None,
    feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    ignore_dra_requests: Optional[bool] = None,
    aws_feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    max_instance_types: Optional[int] = None,
    repair_policies: Optional[Sequence[Mapping[str, Any]]] = None,
    scheduler_config: Optional[Mapping[str, Any]] = None,
    now: Optional[Now] = None,
    reservations: Optional[Reservations] = None,
) -> Optimization: ...
def advise(
    *sources: Source,
    top: Optional[int] = None,
    time_budget_seconds: Optional[float] = None,
    exclude_kinds: Sequence[str] = (),
    exclude_node_pools: Sequence[str] = (),
    max_risk: Optional[str] = None,
    apply: Optional[int] = None,
    running: bool = False,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    min_values_policy: Optional[str] = None,
    preference_policy: Optional[str] = None,
    spot_to_spot_consolidation: Optional[bool] = None,
    feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    ignore_dra_requests: Optional[bool] = None,
    aws_feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    max_instance_types: Optional[int] = None,
    repair_policies: Optional[Sequence[Mapping[str, Any]]] = None,
    scheduler_config: Optional[Mapping[str, Any]] = None,
    now: Optional[Now] = None,
    reservations: Optional[Reservations] = None,
) -> Advice: ...

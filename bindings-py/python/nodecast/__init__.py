"""nodecast: predict what Karpenter v1 provisions and consolidates, offline and deterministically.

    >>> import nodecast
    >>> plan = nodecast.plan("examples/nodepools/gpu-training.yaml", "examples/workloads/training-job-4gpu.yaml")
    >>> plan.node_claims[0].instance_type
    'g5.12xlarge'

Sources are YAML/JSON strings, file paths (``str`` or ``os.PathLike``), dicts (Kubernetes
objects, also the kubernetes client's snake_case ``to_dict()``), or lists/generators of those:
see :mod:`nodecast._sources` for the exact rules. Every function returns a frozen, typed result
with ``to_dict()``, ``to_json()`` (the core's answer unchanged, byte-identical to
``nodecast <fn> -o json``) and ``to_pandas()`` (pandas optional). Failures raise
:class:`InputError` or its subclass :class:`ValidationError`, both ``ValueError``.

The computation runs in Rust (``nodecast._native``) with the GIL released.
"""

from __future__ import annotations

import datetime as _dt
import json as _json
import os
from typing import Any, Dict, Mapping, Optional, Sequence, Type, TypeVar, Union

from . import _native
from ._errors import InputError, ValidationError, error_from_answer, user_errors
from ._answer import (
    AnswerWarning,
    DomainTie,
    FrozenMap,
    Hint,
    Reason,
    Skipped,
)
from ._plan import (
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
from ._decision import (
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
from ._results import (
    CatalogResult,
    Explanation,
    InstanceTypeRow,
    NodeExplanation,
    PodExplanation,
    TypeExplanation,
    ValidationReport,
    Verdict,
)
from ._simulation import (
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
# The renderers (tables, HTML, plots) register themselves with _renderers on import; results
# look them up there, never importing them (one direction: renderers -> results).
from . import _autoscaling, _frames, _html, _html_more, _plots  # noqa: F401
from ._optimize import KarpenterConsolidation, OptimizationStats, OptimizedClaim, Optimization, PodMove, RunningCluster, RunningNode
from ._optimize import add_optimize_options as _add_optimize_options
from ._advise import Advice, AdviceEdit, AdviceRisk, AdviceStats, Advised, AdvisedPlan, AppliedEdit, EditedFile
from ._advise import add_advise_options as _add_advise_options
from ._node_groups import (
    NodeGroupPlan,
    NodeGroup,
    ScaleUp,
    ScaleUpOption,
    NodeGroupNode,
    NodeGroupPendingPod,
    NodeGroupReason,
    ClusterAutoscalerSettings,
    NodeGroupScaleDown,
    ScaleDownNode,
    ScaleDownMove,
    ScaleDownSettings,
)
from ._node_groups import add_autoscaler as _add_autoscaler
from ._migrate import Migration, MigratedNodePool, PlanSide, TypeCount
from ._compare import CaScaleUp, Comparison, ComparisonSeries, ComparisonSide
from ._sources import SIMULATION_OPTIONS as _SIMULATION_OPTIONS
from ._sources import build_request as _build_request
from ._sources import simulation_value as _simulation_value
from ._sources import trace_value as _trace_value
from ._sweep import SweepResult, sweep

__version__: str = _native.__version__

__all__ = [
    "__version__",
    # functions
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
    # errors
    "InputError",
    "ValidationError",
    # results
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
    "MigratedNodePool",
    "PlanSide",
    "TypeCount",
    "Comparison",
    "ComparisonSide",
    "ComparisonSeries",
    "CaScaleUp",
]

Source = Any
CatalogSpec = Union[str, "os.PathLike[str]", Mapping[str, Any]]
Zones = Union[str, Sequence[str]]
Now = Union[_dt.datetime, str]
Trace = Any
Seconds = Union[int, _dt.timedelta]
SecondsRange = Union[int, _dt.timedelta, Sequence[Union[int, _dt.timedelta]], Mapping[str, Union[int, _dt.timedelta]]]
SimSettings = Union[Mapping[str, Any], str, "os.PathLike[str]"]
Reservations = Union[str, "os.PathLike[str]", Mapping[str, Any], Sequence[Any]]

_A = TypeVar(
    "_A", Plan, Decision, Explanation, ValidationReport, CatalogResult, Optimization, NodeGroupPlan, NodeGroupScaleDown, Migration, Comparison
)


def _run(function: str, cls: Type[_A], request: str) -> _A:
    text = _native.call(function, request)
    answer = _json.loads(text)
    if answer.get("status") != "success":
        raise error_from_answer(text, answer)
    result: _A = cls._from(text, answer)
    return result


@user_errors
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
) -> str:
    """The ``nodecast/v1`` request JSON the functions below send to the core for these sources
    and options (for bug reports, or to call ``nodecast._native.call`` directly)."""
    return _build_request(
        sources,
        catalog=catalog,
        zones=zones,
        spot_price_factor=spot_price_factor,
        min_values_policy=min_values_policy,
        preference_policy=preference_policy,
        spot_to_spot_consolidation=spot_to_spot_consolidation,
        feature_gates=feature_gates,
        ignore_dra_requests=ignore_dra_requests,
        aws_feature_gates=aws_feature_gates,
        max_instance_types=max_instance_types,
        repair_policies=repair_policies,
        scheduler_config=scheduler_config,
        now=now,
        pod=pod,
        node=node,
        instance_type=instance_type,
        reservations=reservations,
    )


@user_errors
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
) -> Plan:
    """What one Karpenter provisioning pass does with the pending pods (``nodecast plan``).

    ``catalog``: ``"aws-us-east-1"`` (default), a catalog mapping, or a YAML/JSON file holding
    one; ``zones`` and ``spot_price_factor`` are merged into it like ``--zones`` and
    ``--spot-price-factor``. ``min_values_policy``: ``"Strict"``/``"BestEffort"``;
    ``preference_policy``: ``"Respect"``/``"Ignore"``. ``feature_gates``: Karpenter's
    ``--feature-gates`` string (``"NodeOverlay=true"``) or a mapping (``{"NodeOverlay": True}``);
    ``ignore_dra_requests``: Karpenter's ``--ignore-dra-requests`` (default True; False runs its DRA
    allocator); ``aws_feature_gates``: the AWS provider's ``--aws-feature-gates`` (``"DRANVIDIAGPU=true"``
    or ``{"DRANVIDIAGPU": True}``: new GPU nodes offer their GPUs to the allocator). Unschedulable
    pods are part of the answer, not an error. ``now``: the time of the pass (an aware datetime or
    RFC 3339; a capacity block is not launched into from 40 minutes before its end).
    ``reservations``: the output of ``aws ec2 describe-capacity-reservations`` — the parsed dict or
    a path to the JSON/YAML file (the other functions take it too; docs/reservations.md). Raises
    InputError (ValidationError for rule violations)."""
    req = _build_request(
        sources,
        catalog=catalog,
        zones=zones,
        spot_price_factor=spot_price_factor,
        min_values_policy=min_values_policy,
        preference_policy=preference_policy,
        spot_to_spot_consolidation=spot_to_spot_consolidation,
        feature_gates=feature_gates,
        ignore_dra_requests=ignore_dra_requests,
        aws_feature_gates=aws_feature_gates,
        max_instance_types=max_instance_types,
        repair_policies=repair_policies,
        scheduler_config=scheduler_config,
        now=now,
        reservations=reservations,
    )
    return _run("plan", Plan, req)


@user_errors
def plan_node_groups(
    *sources: Source,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    ignore_dra_requests: Optional[bool] = None,
    now: Optional[Now] = None,
) -> NodeGroupPlan:
    """What the Kubernetes Cluster Autoscaler's scale-up does with the pending pods over the node
    groups of the sources (an eksctl ``ClusterConfig``, ``terraform show -json`` output, a
    ``ClusterAutoscalerSettings`` document and the priority-expander ConfigMap), as
    ``nodecast plan --autoscaler cluster-autoscaler`` answers it (docs/cluster-autoscaler.md).
    Raises InputError (ValidationError for rule violations)."""
    req = _build_request(
        sources,
        catalog=catalog,
        zones=zones,
        spot_price_factor=spot_price_factor,
        ignore_dra_requests=ignore_dra_requests,
        now=now,
    )
    return _run("plan", NodeGroupPlan, _add_autoscaler(req))


@user_errors
def consolidate_node_groups(
    *sources: Source,
    now: Now,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
    ignore_dra_requests: Optional[bool] = None,
) -> NodeGroupScaleDown:
    """What the Kubernetes Cluster Autoscaler's scale-down does at ``now`` with the nodes of the
    node groups (``nodecast consolidate --autoscaler cluster-autoscaler``): per node, removed,
    unneeded until a time, or kept, with the reason and where its pods go. Raises InputError."""
    req = _build_request(
        sources,
        catalog=catalog,
        zones=zones,
        spot_price_factor=spot_price_factor,
        ignore_dra_requests=ignore_dra_requests,
        now=now,
    )
    return _run("consolidate", NodeGroupScaleDown, _add_autoscaler(req))


@user_errors
def migrate(
    *sources: Source,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
) -> Migration:
    """NodePools and EC2NodeClass skeletons equivalent to the node groups of the sources (an
    eksctl ``ClusterConfig``, ``terraform show -json`` output, the Cluster Autoscaler's settings
    and priority ConfigMap), and what the Cluster Autoscaler and Karpenter each do with the
    pending pods (``nodecast migrate``; ``Migration.manifests`` is the YAML to apply). Raises
    InputError."""
    req = _build_request(sources, catalog=catalog, zones=zones, spot_price_factor=spot_price_factor)
    return _run("migrate", Migration, req)


@user_errors
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
) -> Comparison:
    """The workload ``trace`` simulated twice over the same cluster ``sources``: under their node
    groups (eksctl ``ClusterConfig``, ``terraform show -json``) and the Cluster Autoscaler, and
    under NodePools and Karpenter (the sources' NodePools, else ``migrate``'s proposal), side by
    side (``nodecast simulate --compare cluster-autoscaler``; docs/cluster-autoscaler.md). The
    trace and settings are as ``simulate`` takes them. Raises InputError."""
    options: Dict[str, Any] = {k: None for k in _SIMULATION_OPTIONS}
    options.update(seed=seed, end=end, metrics_interval_seconds=metrics_interval_seconds)
    req = _build_request(
        sources,
        catalog=catalog,
        zones=zones,
        spot_price_factor=spot_price_factor,
        trace=_trace_value(trace, trace_name, trace_format),
        simulation=_simulation_value(settings, options),
    )
    request = _json.loads(req)
    request["compare"] = "cluster-autoscaler"
    return _run("simulate", Comparison, _json.dumps(request))


@user_errors
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
) -> Decision:
    """What Karpenter's disruption controller does at ``now`` (an aware datetime or an RFC 3339
    string; a naive datetime is an InputError), and why every other node stays
    (``nodecast consolidate``). With ``until``, also ``Decision.sequence``: every command it
    carries out until then, pass after pass (``nodecast consolidate --until``); ``simulation``
    settings (latencies, seed) as for :func:`simulate`."""
    req = _build_request(
        sources,
        catalog=catalog,
        zones=zones,
        spot_price_factor=spot_price_factor,
        min_values_policy=min_values_policy,
        preference_policy=preference_policy,
        spot_to_spot_consolidation=spot_to_spot_consolidation,
        feature_gates=feature_gates,
        ignore_dra_requests=ignore_dra_requests,
        aws_feature_gates=aws_feature_gates,
        max_instance_types=max_instance_types,
        repair_policies=repair_policies,
        scheduler_config=scheduler_config,
        now=now,
        until=until,
        simulation=None if simulation is None else _simulation_value(simulation, {}),
        reservations=reservations,
    )
    return _run("consolidate", Decision, req)


@user_errors
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
) -> ValidationReport:
    """Check every NodePool/EC2NodeClass rule (admission and runtime) and every object
    (``nodecast validate``). Returns the report when all is valid; raises ValidationError listing
    every located violation, or InputError when the input cannot be decoded or the catalog is
    unusable (the CLI's exit 1 and 2)."""
    req = _build_request(
        sources,
        catalog=catalog,
        zones=zones,
        spot_price_factor=spot_price_factor,
        min_values_policy=min_values_policy,
        preference_policy=preference_policy,
        spot_to_spot_consolidation=spot_to_spot_consolidation,
        feature_gates=feature_gates,
        ignore_dra_requests=ignore_dra_requests,
        aws_feature_gates=aws_feature_gates,
        max_instance_types=max_instance_types,
        repair_policies=repair_policies,
        scheduler_config=scheduler_config,
    )
    return _run("validate", ValidationReport, req)


@user_errors
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
) -> Explanation:
    """Why ``pod`` (``name`` or ``namespace/name``) goes where it goes and why not elsewhere —
    with ``instance_type``, also why that type was (not) chosen — or, with ``node`` and ``now``,
    why a node is (not) disrupted (``nodecast explain``)."""
    req = _build_request(
        sources,
        catalog=catalog,
        zones=zones,
        spot_price_factor=spot_price_factor,
        min_values_policy=min_values_policy,
        preference_policy=preference_policy,
        spot_to_spot_consolidation=spot_to_spot_consolidation,
        feature_gates=feature_gates,
        ignore_dra_requests=ignore_dra_requests,
        aws_feature_gates=aws_feature_gates,
        max_instance_types=max_instance_types,
        repair_policies=repair_policies,
        scheduler_config=scheduler_config,
        now=now,
        pod=pod,
        node=node,
        instance_type=instance_type,
        reservations=reservations,
    )
    return _run("explain", Explanation, req)


@user_errors
def catalog(
    gpu: bool = False,
    requirements: Union[str, Sequence[str]] = (),
    limit: int = 0,
    *,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Zones] = None,
    spot_price_factor: Optional[float] = None,
) -> CatalogResult:
    """Query the instance-type catalog, cheapest first (``nodecast catalog``): ``gpu`` keeps types
    with a GPU or accelerator; ``requirements`` are ``"key Op values"`` strings such as
    ``"karpenter.k8s.aws/instance-gpu-name In a100,h100"``; ``limit`` caps the rows (0 = all)."""
    reqs = [requirements] if isinstance(requirements, str) else [str(r) for r in requirements]
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise TypeError(f"limit must be a non-negative int, not {limit!r}")
    req = _build_request(
        (),
        catalog=catalog,
        zones=zones,
        spot_price_factor=spot_price_factor,
        query={"gpu": bool(gpu), "requirements": reqs, "limit": limit},
    )
    return _run("catalog", CatalogResult, req)


@user_errors
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
) -> Simulation:
    """Replay a workload ``trace`` against the cluster ``sources`` over simulated time
    (``nodecast simulate``, docs/simulate.md): every NodeClaim launched and terminated, every pod,
    the timeline, the cost vs a static cluster sized for the peak, and metric series.

    ``trace``: a file path, YAML/JSON/CSV text, a dict (a ``kind: Trace`` document) or a list (its
    events); ``trace_format`` forces ``yaml``/``json``/``csv``. The workload documents among the
    sources are templates the trace submits by reference. Settings (defaults in docs/simulate.md):
    ``settings`` is a mapping with the camelCase fields or a YAML/JSON file (the CLI's
    ``--settings``); the keyword options override it: ``seed``, ``end`` (seconds or a timedelta
    from the start), ranges such as ``gpu_startup_seconds=(180, 300)`` (or one value to fix it),
    seconds as ints or timedeltas. Deterministic: the same inputs and seed give the same bytes as
    the CLI and the wasm build. Raises InputError (ValidationError for rule violations)."""
    options = {
        "seed": seed,
        "gpu_startup_seconds": gpu_startup_seconds,
        "startup_seconds": startup_seconds,
        "device_plugin_seconds": device_plugin_seconds,
        "batch_idle_seconds": batch_idle_seconds,
        "batch_max_seconds": batch_max_seconds,
        "disruption_poll_seconds": disruption_poll_seconds,
        "spot_interruption_rate_per_hour": spot_interruption_rate_per_hour,
        "interruption_notice_seconds": interruption_notice_seconds,
        "termination_grace_period_seconds": termination_grace_period_seconds,
        "metrics_interval_seconds": metrics_interval_seconds,
        "end": end,
        "max_events": max_events,
        "max_pod_attempts": max_pod_attempts,
    }
    assert set(options) == set(_SIMULATION_OPTIONS)
    req = _build_request(
        sources,
        catalog=catalog,
        zones=zones,
        spot_price_factor=spot_price_factor,
        min_values_policy=min_values_policy,
        preference_policy=preference_policy,
        spot_to_spot_consolidation=spot_to_spot_consolidation,
        feature_gates=feature_gates,
        ignore_dra_requests=ignore_dra_requests,
        aws_feature_gates=aws_feature_gates,
        max_instance_types=max_instance_types,
        repair_policies=repair_policies,
        scheduler_config=scheduler_config,
        trace=_trace_value(trace, trace_name, trace_format),
        simulation=_simulation_value(settings, options),
        reservations=reservations,
    )
    text = _native.call("simulate", req)
    answer = _json.loads(text)
    if answer.get("status") != "success":
        raise error_from_answer(text, answer)
    return Simulation._from(text, answer, req)


@user_errors
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
) -> Optimization:
    """The cheapest NodeClaims for the pods Karpenter's plan places, under the same constraints,
    beside Karpenter's plan (``nodecast optimize``): both plans' $/h, a lower bound and the
    certificate (``"optimal"`` or ``"within x % of optimal"``), the savings per month, the pods
    placed differently, and the constraints not optimised. ``time_budget_seconds`` bounds the
    whole call (default 10 s; every phase takes from what is left, the LP bound at most a
    quarter; when it binds, the best packing so far is answered, ``stats.timed_out`` set).
    ``running=True`` (with ``now``) optimises the running cluster instead: the cheapest set of
    nodes for the pods that run now beside Karpenter's consolidation (``Optimization.running``)."""
    req = _build_request(
        sources,
        catalog=catalog,
        zones=zones,
        spot_price_factor=spot_price_factor,
        min_values_policy=min_values_policy,
        preference_policy=preference_policy,
        spot_to_spot_consolidation=spot_to_spot_consolidation,
        feature_gates=feature_gates,
        ignore_dra_requests=ignore_dra_requests,
        aws_feature_gates=aws_feature_gates,
        max_instance_types=max_instance_types,
        repair_policies=repair_policies,
        scheduler_config=scheduler_config,
        now=now,
        reservations=reservations,
    )
    return _run("optimize", Optimization, _add_optimize_options(req, time_budget_seconds, running))


@user_errors
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
) -> Advice:
    """NodePool edits that make Karpenter's own plan cheaper (``nodecast advise``): bounds on GPU
    count / vCPU, excluded sizes, families and types, generations, spot, weights — each applied
    to the manifests and planned again by the same engine, answered only when strictly cheaper
    with no further pod pending; most saving first (at most ``top``, default 5), each with the
    YAML diff, Karpenter's new plan, $/h and $/month saved and the share of ``optimize``'s gap
    recovered. ``time_budget_seconds`` bounds the whole call: half for the optimize call that
    measures the gap, then edits are verified while time is left (``stats.unverified`` counts
    the rest).
    Ranked lowest ``risk`` first (spot for ``do-not-disrupt`` pods or Jobs is ``high``), then
    most saving; ``exclude_kinds`` / ``exclude_node_pools`` leave edit kinds or NodePools out,
    ``max_risk`` drops riskier edits, and ``apply=RANK`` fills ``applied`` with the input files
    edited (comments kept) and the patch (docs/advise.md)."""
    req = _build_request(
        sources,
        catalog=catalog,
        zones=zones,
        spot_price_factor=spot_price_factor,
        min_values_policy=min_values_policy,
        preference_policy=preference_policy,
        spot_to_spot_consolidation=spot_to_spot_consolidation,
        feature_gates=feature_gates,
        ignore_dra_requests=ignore_dra_requests,
        aws_feature_gates=aws_feature_gates,
        max_instance_types=max_instance_types,
        repair_policies=repair_policies,
        scheduler_config=scheduler_config,
        now=now,
        reservations=reservations,
    )
    return _run("advise", Advice, _add_advise_options(req, top, time_budget_seconds, exclude_kinds, exclude_node_pools, max_risk, apply, running))


# The names imported above for annotations are not part of nodecast's API: `nodecast.Any`,
# `nodecast.os` and the like would read as if nodecast defined them (the annotations are strings,
# `from __future__ import annotations`, so nothing reads these names after import; type checkers
# read __init__.pyi).
del Any, Mapping, Optional, Sequence, Type, TypeVar, Union, os

"""The ``simulate`` answer (docs/simulate.md): a workload trace replayed over time."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Tuple

from ._answer import Answer, AnswerWarning, FrozenMap, Skipped, _freeze, _map, _seq, _strs
from ._plan import NodeClaim
from ._renderers import renderer

if TYPE_CHECKING:  # pragma: no cover
    import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]

__all__ = [
    "AutoscaledWorkload",
    "MetricSeries",
    "SimulatedNode",
    "SimulatedPod",
    "SimulatedReservation",
    "Simulation",
    "SimulationSummary",
    "StaticNodeGroup",
    "TimelineEntry",
]


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
        rendered: pandas.DataFrame = renderer("sim_nodes_frame")(self)
        return rendered

    def pods_frame(self) -> pandas.DataFrame:
        """One row per pod: submitted/started/finished (seconds), state, pending and running time."""
        rendered: pandas.DataFrame = renderer("sim_pods_frame")(self)
        return rendered

    def timeline_frame(self) -> pandas.DataFrame:
        """One row per timeline event, in order."""
        rendered: pandas.DataFrame = renderer("sim_timeline_frame")(self)
        return rendered

    def summary_frame(self) -> pandas.DataFrame:
        """One row: the totals (cost, static cost, savings, GPU hours, pending percentiles, counts)."""
        rendered: pandas.DataFrame = renderer("sim_summary_frame")(self)
        return rendered

    def series_frame(self) -> pandas.DataFrame:
        """The metric series, long: one row per (time, metric, labels), as ``to_csv()``."""
        rendered: pandas.DataFrame = renderer("sim_series_frame")(self)
        return rendered

    def autoscaling_frame(self) -> pandas.DataFrame:
        """One row per workload an HPA, a KEDA ScaledObject or ScaledJob scales, or the trace gives
        demand for (``autoscaling``): bounds, peak, rescales, served demand, scale-up p50/p95/max,
        KEDA activations and Jobs, GPU hours and cost."""
        rendered: pandas.DataFrame = renderer("autoscaling_frame")(self)
        return rendered

    def autoscaling_series_frame(self) -> pandas.DataFrame:
        """The autoscaling over time: one row per (sample time, workload) with ``replicas``,
        ``ready_replicas``, ``desired_replicas`` (the HPA's), ``jobs`` (a ScaledJob's) and one
        ``demand_<metric>`` column per demand metric."""
        rendered: pandas.DataFrame = renderer("autoscaling_series_frame")(self)
        return rendered

    def plot_autoscaling(self, workload: Optional[str] = None, ax: Any = None) -> Any:
        """Demand, replicas (asked and Ready) and nodes on one time axis for one workload of
        ``autoscaling`` (the first by default; matplotlib, needed only here). Returns the Axes."""
        return renderer("plot_autoscaling")(self, workload, ax)

    def plot_cost(self, ax: Any = None) -> Any:
        """Cumulative cost over time with Karpenter against the static cluster (matplotlib, needed
        only here). Draws on ``ax`` or a new figure; returns the Axes."""
        return renderer("plot_cost")(self, ax)

    def plot_nodes(self, ax: Any = None, max_rows: Optional[int] = None) -> Any:
        """Node Gantt chart: a bar per NodeClaim (all of them, or the first ``max_rows``) from
        launch to termination, coloured by capacity type, labels thinned so they never overlap
        (matplotlib, needed only here). Returns the Axes."""
        return renderer("plot_nodes")(self, ax, max_rows)

    def _repr_html_(self) -> str:
        rendered: str = renderer("simulation_html")(self)
        return rendered

    def __str__(self) -> str:
        return self.summary_line()

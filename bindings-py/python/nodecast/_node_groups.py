"""``nodecast.plan_node_groups``: what the Kubernetes Cluster Autoscaler's scale-up does with the
pending pods over EKS node groups (eksctl ``ClusterConfig``, ``terraform show -json``), beside
Karpenter's :func:`nodecast.plan` (``nodecast plan --autoscaler cluster-autoscaler``;
docs/cluster-autoscaler.md)."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Optional, Tuple

from ._answer import Answer, AnswerWarning, FrozenMap, _map, _seq, _strs

if TYPE_CHECKING:  # pragma: no cover
    import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]

__all__ = [
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
    "add_autoscaler",
]


@dataclass(frozen=True)
class NodeGroup:
    """One node group and the template node the Cluster Autoscaler builds for it (scale from zero)."""

    name: str
    managed: bool
    instance_type: str
    instance_types: Tuple[str, ...]
    capacity_type: str
    zone: str
    min_size: int
    max_size: int
    current_size: int
    new_nodes: int
    target_size: int
    price_per_hour: float
    #: The template's capacity (= allocatable) as Kubernetes quantities, before DaemonSets.
    capacity: FrozenMap[str, str]
    daemon_sets: Tuple[str, ...]
    labels: FrozenMap[str, str]
    taints: Tuple[str, ...]

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> NodeGroup:
        return cls(
            name=d["name"],
            managed=bool(d["managed"]),
            instance_type=d["instanceType"],
            instance_types=_strs(d.get("instanceTypes")),
            capacity_type=d["capacityType"],
            zone=d["zone"],
            min_size=d["minSize"],
            max_size=d["maxSize"],
            current_size=d["currentSize"],
            new_nodes=d["newNodes"],
            target_size=d["targetSize"],
            price_per_hour=d["pricePerHour"],
            capacity=_map(d.get("capacity")),
            daemon_sets=_strs(d.get("daemonSets")),
            labels=_map(d.get("labels")),
            taints=_strs(d.get("taints")),
        )


@dataclass(frozen=True)
class ScaleUpOption:
    """One option of a scan loop: a node group and what its binpacking estimate places;
    ``waste`` is least-waste's score (unused CPU fraction + unused memory fraction)."""

    node_group: str
    nodes: int
    pods: int
    waste: float
    limited: bool

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> ScaleUpOption:
        return cls(node_group=d["nodeGroup"], nodes=d["nodes"], pods=d["pods"], waste=d["waste"], limited=bool(d["limited"]))


@dataclass(frozen=True)
class ScaleUp:
    """One scale-up: the option the expanders chose in scan loop ``loop``. ``tied_with``: the
    options the Cluster Autoscaler would choose among at random (nodecast takes the first by name)."""

    loop: int
    node_group: str
    nodes: int
    pods: Tuple[str, ...]
    decided_by: str
    options: Tuple[ScaleUpOption, ...]
    tied_with: Tuple[str, ...] = ()

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> ScaleUp:
        return cls(
            loop=d["loop"],
            node_group=d["nodeGroup"],
            nodes=d["nodes"],
            pods=_strs(d.get("pods")),
            decided_by=d["decidedBy"],
            options=_seq(d.get("options"), ScaleUpOption._from),
            tied_with=_strs(d.get("tiedWith")),
        )


@dataclass(frozen=True)
class NodeGroupNode:
    """A node that receives pending pods: one of a group's current nodes or a new one
    (``new``, added by scan loop ``loop``)."""

    name: str
    node_group: str
    instance_type: str
    new: bool
    pods: Tuple[str, ...]
    loop: Optional[int] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> NodeGroupNode:
        return cls(
            name=d["name"],
            node_group=d["nodeGroup"],
            instance_type=d["instanceType"],
            new=bool(d["new"]),
            pods=_strs(d.get("pods")),
            loop=d.get("loop"),
        )


@dataclass(frozen=True)
class NodeGroupReason:
    """Why a node group cannot take a pod (``code`` is stable: ``max-size-reached``,
    ``insufficient-resources``, ``untolerated-taint``, ...)."""

    code: str
    message: str
    node_group: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> NodeGroupReason:
        return cls(code=d["code"], message=d["message"], node_group=d.get("nodeGroup"))


@dataclass(frozen=True)
class NodeGroupPendingPod:
    """A pod no node group can take, with one reason per node group."""

    pod: str
    reasons: Tuple[NodeGroupReason, ...]

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> NodeGroupPendingPod:
        return cls(pod=d["pod"], reasons=_seq(d.get("reasons"), NodeGroupReason._from))


@dataclass(frozen=True)
class ClusterAutoscalerSettings:
    """The settings the decisions were made with: the ``--expander`` chain, the limits, and the
    priority ConfigMap's rules as (priority, patterns), highest first."""

    expander: Tuple[str, ...]
    max_nodes_per_scale_up: int
    max_nodes_total: int
    #: ``--expendable-pods-priority-cutoff``: pending pods of a lower priority get no scale-up.
    expendable_pods_priority_cutoff: int = -10
    priorities: Tuple[Tuple[int, Tuple[str, ...]], ...] = ()

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> ClusterAutoscalerSettings:
        return cls(
            expander=_strs(d.get("expander")),
            max_nodes_per_scale_up=d["maxNodesPerScaleUp"],
            max_nodes_total=d["maxNodesTotal"],
            expendable_pods_priority_cutoff=d["expendablePodsPriorityCutoff"],
            priorities=tuple((int(p), _strs(pats)) for p, pats in d.get("priorities") or ()),
        )


@dataclass(frozen=True, repr=False)
class NodeGroupPlan(Answer):
    """What the Cluster Autoscaler's scale-up does with the pending pods over the node groups."""

    node_groups: Tuple[NodeGroup, ...] = ()
    scale_ups: Tuple[ScaleUp, ...] = ()
    nodes: Tuple[NodeGroupNode, ...] = ()
    unschedulable: Tuple[NodeGroupPendingPod, ...] = ()
    #: Pending pods below the expendable-pods priority cutoff: no scale-up is made for them.
    expendable: Tuple[str, ...] = ()
    new_price_per_hour: float = 0.0
    settings: Optional[ClusterAutoscalerSettings] = None
    #: Where the Cluster Autoscaler is random or timing-dependent, and what nodecast does then.
    disclosures: Tuple[str, ...] = ()
    warnings: Tuple[AnswerWarning, ...] = ()

    @classmethod
    def _from(cls, text: str, d: Mapping[str, Any]) -> NodeGroupPlan:
        return cls(
            _json=text,
            node_groups=_seq(d.get("nodeGroups"), NodeGroup._from),
            scale_ups=_seq(d.get("scaleUps"), ScaleUp._from),
            nodes=_seq(d.get("nodes"), NodeGroupNode._from),
            unschedulable=_seq(d.get("unschedulable"), NodeGroupPendingPod._from),
            expendable=_strs(d.get("expendable")),
            new_price_per_hour=d.get("newPricePerHour", 0.0),
            settings=ClusterAutoscalerSettings._from(d["settings"]) if d.get("settings") is not None else None,
            disclosures=_strs(d.get("disclosures")),
            warnings=_seq(d.get("warnings"), AnswerWarning._from),
        )

    @property
    def kind(self) -> str:
        return "NodeGroupPlan"

    @property
    def new_nodes(self) -> int:
        """Nodes the scale-ups add."""
        return sum(s.nodes for s in self.scale_ups)

    @property
    def pods_placed(self) -> int:
        """Pending pods placed on the groups' current or new nodes."""
        return sum(len(n.pods) for n in self.nodes)

    def __str__(self) -> str:
        # The CLI's first line.
        return (
            f"Cluster Autoscaler: {len(self.scale_ups)} scale-up(s), {self.new_nodes} new node(s): "
            f"${self.new_price_per_hour:.3f}/h; {self.pods_placed} pod(s) placed; {len(self.unschedulable)} pod(s) unschedulable"
        )

    def to_pandas(self) -> pandas.DataFrame:
        """One row per node that receives pods (``new``: added by a scale-up)."""
        import pandas as pd  # type: ignore[import-untyped,import-not-found,unused-ignore]

        columns = ["name", "node_group", "instance_type", "new", "loop", "pods", "pod_names"]
        rows = [
            {
                "name": n.name,
                "node_group": n.node_group,
                "instance_type": n.instance_type,
                "new": n.new,
                "loop": n.loop,
                "pods": len(n.pods),
                "pod_names": ", ".join(n.pods),
            }
            for n in self.nodes
        ]
        return pd.DataFrame(rows, columns=columns)

    def _repr_html_(self) -> str:
        e = html.escape
        ups = "".join(
            f"<tr><td>{u.loop}</td><td>{e(u.node_group)}</td><td style='text-align:right'>{u.nodes}</td>"
            f"<td style='text-align:right'>{len(u.pods)}</td><td>{e(u.decided_by)}</td></tr>"
            for u in self.scale_ups
        )
        pending = "".join(f"<li>{e(p.pod)}: {e('; '.join(r.message for r in p.reasons))}</li>" for p in self.unschedulable)
        return (
            f"<div class='nodecast-node-groups'><p><b>{e(str(self))}</b></p>"
            "<table><thead><tr><th>loop</th><th>node group</th><th>nodes</th><th>pods</th><th>decided by</th></tr></thead>"
            f"<tbody>{ups}</tbody></table>"
            + (f"<h4>Unschedulable</h4><ul>{pending}</ul>" if pending else "")
            + "</div>"
        )


@dataclass(frozen=True)
class ScaleDownMove:
    """A pod of a removed node and the node the Cluster Autoscaler's simulation re-places it on."""

    pod: str
    to: str

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> ScaleDownMove:
        return cls(pod=d["pod"], to=d["to"])


@dataclass(frozen=True)
class ScaleDownNode:
    """One node and what scale-down does with it: ``verdict`` is ``remove``, ``unneeded``
    (removable at ``removable_at``) or ``keep``; ``code`` says why (``empty``, ``underutilized``,
    ``not-underutilized``, ``min-size-reached``, ``not-replicated``, ``no-place-to-move-pods``, ...)."""

    name: str
    verdict: str
    code: str
    message: str
    node_group: Optional[str] = None
    instance_type: Optional[str] = None
    utilization: Optional[float] = None
    utilization_resource: Optional[str] = None
    moves: Tuple[ScaleDownMove, ...] = ()
    removable_at: Optional[str] = None
    loop: Optional[int] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> ScaleDownNode:
        return cls(
            name=d["name"],
            verdict=d["verdict"],
            code=d["code"],
            message=d["message"],
            node_group=d.get("nodeGroup"),
            instance_type=d.get("instanceType"),
            utilization=d.get("utilization"),
            utilization_resource=d.get("utilizationResource"),
            moves=_seq(d.get("moves"), ScaleDownMove._from),
            removable_at=d.get("removableAt"),
            loop=d.get("loop"),
        )


@dataclass(frozen=True)
class ScaleDownSettings:
    utilization_threshold: float
    gpu_utilization_threshold: float
    unneeded_time_seconds: int
    delay_after_add_seconds: int

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> ScaleDownSettings:
        return cls(
            utilization_threshold=d["utilizationThreshold"],
            gpu_utilization_threshold=d["gpuUtilizationThreshold"],
            unneeded_time_seconds=d["unneededTimeSeconds"],
            delay_after_add_seconds=d["delayAfterAddSeconds"],
        )


@dataclass(frozen=True, repr=False)
class NodeGroupScaleDown(Answer):
    """What the Cluster Autoscaler's scale-down does at ``now`` with the nodes of the node groups."""

    now: str = ""
    nodes: Tuple[ScaleDownNode, ...] = ()
    removed_price_per_hour: float = 0.0
    settings: Optional[ScaleDownSettings] = None
    cooldown_until: Optional[str] = None
    disclosures: Tuple[str, ...] = ()
    warnings: Tuple[AnswerWarning, ...] = ()

    @classmethod
    def _from(cls, text: str, d: Mapping[str, Any]) -> NodeGroupScaleDown:
        return cls(
            _json=text,
            now=d["now"],
            nodes=_seq(d.get("nodes"), ScaleDownNode._from),
            removed_price_per_hour=d.get("removedPricePerHour", 0.0),
            settings=ScaleDownSettings._from(d["settings"]) if d.get("settings") is not None else None,
            cooldown_until=d.get("cooldownUntil"),
            disclosures=_strs(d.get("disclosures")),
            warnings=_seq(d.get("warnings"), AnswerWarning._from),
        )

    @property
    def kind(self) -> str:
        return "NodeGroupScaleDown"

    @property
    def removed(self) -> Tuple[ScaleDownNode, ...]:
        """The nodes removed now."""
        return tuple(n for n in self.nodes if n.verdict == "remove")

    def __str__(self) -> str:
        # The CLI's first line.
        def count(verdict: str) -> int:
            return sum(1 for n in self.nodes if n.verdict == verdict)

        return (
            f"Cluster Autoscaler scale-down at {self.now}: {count('remove')} node(s) removed (${self.removed_price_per_hour:.3f}/h), "
            f"{count('unneeded')} unneeded (removed later), {count('keep')} kept"
        )

    def to_pandas(self) -> pandas.DataFrame:
        """One row per node with its verdict."""
        import pandas as pd  # type: ignore[import-untyped,import-not-found,unused-ignore]

        columns = ["name", "node_group", "instance_type", "utilization", "utilization_resource", "verdict", "code", "loop", "removable_at", "moves"]
        rows = [
            {
                "name": n.name,
                "node_group": n.node_group,
                "instance_type": n.instance_type,
                "utilization": n.utilization,
                "utilization_resource": n.utilization_resource,
                "verdict": n.verdict,
                "code": n.code,
                "loop": n.loop,
                "removable_at": n.removable_at,
                "moves": ", ".join(f"{m.pod} -> {m.to}" for m in n.moves),
            }
            for n in self.nodes
        ]
        return pd.DataFrame(rows, columns=columns)

    def _repr_html_(self) -> str:
        e = html.escape
        rows = "".join(
            f"<tr><td>{e(n.name)}</td><td>{e(n.node_group or '')}</td><td>{e(n.instance_type or '')}</td>"
            f"<td style='text-align:right'>{'' if n.utilization is None else f'{n.utilization:.2f}'}</td>"
            f"<td>{e(n.verdict)}</td><td>{e(n.message)}</td></tr>"
            for n in self.nodes
        )
        return (
            f"<div class='nodecast-node-groups'><p><b>{e(str(self))}</b></p>"
            "<table><thead><tr><th>node</th><th>node group</th><th>type</th><th>utilisation</th><th>verdict</th><th>why</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></div>"
        )


def add_autoscaler(request: str) -> str:
    """The request asking the Cluster Autoscaler (the same compact JSON as the other functions)."""
    r = json.loads(request)
    r["autoscaler"] = "cluster-autoscaler"
    return json.dumps(r, allow_nan=True, ensure_ascii=False, separators=(",", ":"))

"""``nodecast.migrate``: the NodePools and EC2NodeClass skeletons that replace EKS node groups
(eksctl ``ClusterConfig``, ``terraform show -json``), and what the Cluster Autoscaler and
Karpenter do with the pending pods (``nodecast migrate``; docs/cluster-autoscaler.md,
"Migration")."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Optional, Tuple

from ._answer import Answer, AnswerWarning, FrozenMap, _map, _seq, _strs

if TYPE_CHECKING:  # pragma: no cover
    import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]

__all__ = ["Migration", "MigratedNodePool", "PlanSide", "TypeCount"]


@dataclass(frozen=True)
class MigratedNodePool:
    """The NodePool proposed for one node group."""

    node_group: str
    node_pool: str
    node_class: str
    instance_types: Tuple[str, ...]
    capacity_type: str
    zones: Tuple[str, ...]
    #: ``spec.limits``: the group's max size of its largest type.
    limits: FrozenMap[str, str]
    #: ``spec.weight`` from the priority expander (None without one).
    weight: Optional[int] = None
    priority: Optional[int] = None
    notes: Tuple[str, ...] = ()

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> MigratedNodePool:
        return cls(
            node_group=d["nodeGroup"],
            node_pool=d["nodePool"],
            node_class=d["nodeClass"],
            instance_types=_strs(d.get("instanceTypes")),
            capacity_type=d["capacityType"],
            zones=_strs(d.get("zones")),
            limits=_map(d.get("limits")),
            weight=d.get("weight"),
            priority=d.get("priority"),
            notes=_strs(d.get("notes")),
        )


@dataclass(frozen=True)
class TypeCount:
    """New nodes of one instance type and capacity type."""

    instance_type: str
    capacity_type: str
    count: int

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> TypeCount:
        return cls(instance_type=d["instanceType"], capacity_type=d["capacityType"], count=d["count"])


@dataclass(frozen=True)
class PlanSide:
    """What one autoscaler does with the pending pods."""

    nodes: int
    instance_types: Tuple[TypeCount, ...]
    pods_placed: int
    pending: Tuple[str, ...]
    price_per_hour: float
    price_per_month: float

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> PlanSide:
        return cls(
            nodes=d["nodes"],
            instance_types=_seq(d.get("instanceTypes"), TypeCount._from),
            pods_placed=d["podsPlaced"],
            pending=_strs(d.get("pending")),
            price_per_hour=d["pricePerHour"],
            price_per_month=d["pricePerMonth"],
        )


@dataclass(frozen=True, repr=False)
class Migration(Answer):
    """The proposal (``manifests``: YAML to apply) and both autoscalers' plans."""

    node_pools: Tuple[MigratedNodePool, ...] = ()
    node_classes: Tuple[str, ...] = ()
    manifests: str = ""
    cluster_autoscaler: Optional[PlanSide] = None
    karpenter: Optional[PlanSide] = None
    #: Karpenter's $/h less the Cluster Autoscaler's (negative: Karpenter is cheaper).
    price_difference_per_hour: float = 0.0
    price_difference_per_month: float = 0.0
    notes: Tuple[str, ...] = ()
    warnings: Tuple[AnswerWarning, ...] = ()

    @classmethod
    def _from(cls, text: str, d: Mapping[str, Any]) -> Migration:
        return cls(
            _json=text,
            node_pools=_seq(d.get("nodePools"), MigratedNodePool._from),
            node_classes=_strs(d.get("nodeClasses")),
            manifests=d.get("manifests", ""),
            cluster_autoscaler=PlanSide._from(d["clusterAutoscaler"]) if d.get("clusterAutoscaler") is not None else None,
            karpenter=PlanSide._from(d["karpenter"]) if d.get("karpenter") is not None else None,
            price_difference_per_hour=d.get("priceDifferencePerHour", 0.0),
            price_difference_per_month=d.get("priceDifferencePerMonth", 0.0),
            notes=_strs(d.get("notes")),
            warnings=_seq(d.get("warnings"), AnswerWarning._from),
        )

    @property
    def kind(self) -> str:
        return "Migration"

    def __str__(self) -> str:
        # The CLI's first line.
        k = self.karpenter.price_per_hour if self.karpenter else 0.0
        ca = self.cluster_autoscaler.price_per_hour if self.cluster_autoscaler else 0.0
        n = len(self.node_pools)
        return (
            f"Migration: {n} node group(s) -> {n} NodePool(s), {len(self.node_classes)} EC2NodeClass(es); "
            f"Karpenter ${k + 0.0:.3f}/h vs Cluster Autoscaler ${ca + 0.0:.3f}/h "
            f"({self.price_difference_per_hour + 0.0:+.3f}/h, {self.price_difference_per_month + 0.0:+.2f}/month)"
        )

    def to_pandas(self) -> pandas.DataFrame:
        """One row per autoscaler: nodes, pods placed, pending pods, $/h and $/month."""
        import pandas as pd  # type: ignore[import-untyped,import-not-found,unused-ignore]

        columns = ["autoscaler", "nodes", "pods_placed", "pending", "price_per_hour", "price_per_month"]
        rows = [
            {
                "autoscaler": name,
                "nodes": s.nodes,
                "pods_placed": s.pods_placed,
                "pending": len(s.pending),
                "price_per_hour": s.price_per_hour,
                "price_per_month": s.price_per_month,
            }
            for name, s in (("cluster-autoscaler", self.cluster_autoscaler), ("karpenter", self.karpenter))
            if s is not None
        ]
        return pd.DataFrame(rows, columns=columns)

    def _repr_html_(self) -> str:
        e = html.escape
        pools = "".join(
            f"<tr><td>{e(p.node_group)}</td><td>{e(p.node_pool)}</td><td>{'' if p.weight is None else p.weight}</td>"
            f"<td>{e(p.capacity_type)}</td><td>{e(', '.join(p.instance_types))}</td></tr>"
            for p in self.node_pools
        )
        sides = "".join(
            f"<tr><td>{name}</td><td style='text-align:right'>{s.nodes}</td><td style='text-align:right'>{s.pods_placed}</td>"
            f"<td style='text-align:right'>{len(s.pending)}</td><td style='text-align:right'>{s.price_per_hour:.3f}</td></tr>"
            for name, s in (("cluster-autoscaler", self.cluster_autoscaler), ("karpenter", self.karpenter))
            if s is not None
        )
        return (
            f"<div class='nodecast-migration'><p><b>{e(str(self))}</b></p>"
            "<table><thead><tr><th>node group</th><th>NodePool</th><th>weight</th><th>capacity</th><th>instance types</th></tr></thead>"
            f"<tbody>{pools}</tbody></table>"
            "<table><thead><tr><th>autoscaler</th><th>nodes</th><th>pods placed</th><th>pending</th><th>$/h</th></tr></thead>"
            f"<tbody>{sides}</tbody></table>"
            f"<details><summary>manifests</summary><pre>{e(self.manifests)}</pre></details></div>"
        )

"""The result classes against the shipped JSON Schema of the answers (generated from the Rust
answer types by `make schema`): every property of every answer object is a field of the matching
dataclass, so a field added in Rust that Python lacks fails here."""

from __future__ import annotations

import dataclasses
import json
import re
from importlib import resources
from typing import Any, Dict, List, Set, Tuple

import nodecast
from nodecast import _advise, _compare, _errors, _migrate, _node_groups, _optimize, _results

SCHEMA: Dict[str, Any] = json.loads(resources.files("nodecast").joinpath("answers.schema.json").read_text())
DEFS: Dict[str, Any] = SCHEMA["$defs"]

# Schema definition -> the dataclass that carries its fields in Python.
CLASSES: Dict[str, type] = {
    "Plan": _results.Plan,
    "NodeClaimFields": _results.NodeClaim,
    "NodeClaimLaunch": _results.NodeClaim,
    "RepairOut": _results.Repair,
    "NodeClaimNoLaunch": _results.NodeClaim,
    "DomainTie": _results.DomainTie,
    "ExistingNode": _results.ExistingNode,
    "StaticNodeClaim": _results.StaticNodeClaim,
    "StaticDeprovision": _results.StaticDeprovision,
    "CapacityBuffer": _results.CapacityBuffer,
    "OverlayStatus": _results.OverlayStatus,
    "ReservationOut": _results.Reservation,
    "ReservationSkipOut": _results.ReservationSkip,
    "NodeClassReservationsOut": _results.NodeClassReservations,
    "ReservationChangeOut": _results.ReservationChange,
    "ReservationUse": _results.SimulatedReservation,
    "AutoscaledWorkload": _results.AutoscaledWorkload,
    "Unschedulable": _results.UnschedulablePod,
    "NodePoolUsage": _results.NodePoolUsage,
    "LimitUsage": _results.Limit,
    "Reason": _results.Reason,
    "Skipped": _results.Skipped,
    "Warning": _results.AnswerWarning,
    "Decision": _results.Decision,
    "ReplacementFields": _results.Replacement,
    "ReplacementLaunch": _results.Replacement,
    "ReplacementNoLaunch": _results.Replacement,
    "NodeVerdict": _results.NodeVerdict,
    "DriftOut": _results.Drift,
    "BalancedScore": _results.BalancedScore,
    "Tie": _results.Tie,
    "PoolBudget": _results.PoolBudget,
    "ConsolidationSequence": _results.ConsolidationSequence,
    "ConsolidationStep": _results.ConsolidationStep,
    "Explanation": _results.Explanation,
    "PodExplanation": _results.PodExplanation,
    "TypeExplanation": _results.TypeExplanation,
    "NodeExplanation": _results.NodeExplanation,
    "Verdict": _results.Verdict,
    "ValidationReport": _results.ValidationReport,
    "CatalogAnswer": _results.CatalogResult,
    "CatalogRow": _results.InstanceTypeRow,
    "Simulation": _results.Simulation,
    "SimulationSummary": _results.SimulationSummary,
    "StaticNodes": _results.StaticNodeGroup,
    "SimulatedNode": _results.SimulatedNode,
    "SimulatedPod": _results.SimulatedPod,
    "TimelineEntry": _results.TimelineEntry,
    "Metric": _results.MetricSeries,
    "Optimization": _optimize.Optimization,
    "OptimizedClaim": _optimize.OptimizedClaim,
    "PodMove": _optimize.PodMove,
    "Stats": _optimize.OptimizationStats,
    "RunningCluster": _optimize.RunningCluster,
    "RunningNode": _optimize.RunningNode,
    "KarpenterConsolidation": _optimize.KarpenterConsolidation,
    "Accelerator": _results.Accelerator,
    "Hint": _results.Hint,
    "Advice": _advise.Advice,
    "Advised": _advise.Advised,
    "EditOut": _advise.AdviceEdit,
    "PlanSummary": _advise.AdvisedPlan,
    "AdviseStats": _advise.AdviceStats,
    "Risk": _advise.AdviceRisk,
    "Applied": _advise.AppliedEdit,
    "EditedFile": _advise.EditedFile,
    "NodeGroupPlan": _node_groups.NodeGroupPlan,
    "NodeGroup": _node_groups.NodeGroup,
    "ScaleUp": _node_groups.ScaleUp,
    "ScaleUpOption": _node_groups.ScaleUpOption,
    "NodeGroupNode": _node_groups.NodeGroupNode,
    "NodeGroupPendingPod": _node_groups.NodeGroupPendingPod,
    "NodeGroupReason": _node_groups.NodeGroupReason,
    "ClusterAutoscalerSettings": _node_groups.ClusterAutoscalerSettings,
    "NodeGroupScaleDown": _node_groups.NodeGroupScaleDown,
    "ScaleDownNode": _node_groups.ScaleDownNode,
    "ScaleDownMove": _node_groups.ScaleDownMove,
    "ScaleDownSettings": _node_groups.ScaleDownSettings,
    "Migration": _migrate.Migration,
    "MigratedNodePool": _migrate.MigratedNodePool,
    "PlanSide": _migrate.PlanSide,
    "TypeCount": _migrate.TypeCount,
    "Comparison": _compare.Comparison,
    "ComparisonSide": _compare.ComparisonSide,
    "ComparisonSeries": _compare.ComparisonSeries,
    "CaScaleUp": _compare.CaScaleUp,
}

# Objects Python flattens into their parent: (definition, property) -> the parent's field names.
FLATTENED: Dict[Tuple[str, str], Tuple[type, Tuple[str, ...]]] = {
    ("Series", "intervalSeconds"): (_results.Simulation, ("series_interval_seconds",)),
    ("Series", "timesSeconds"): (_results.Simulation, ("series_times_seconds",)),
    ("Series", "metrics"): (_results.Simulation, ("series",)),
    ("Launches", "total"): (_results.SimulationSummary, ("launches",)),
    ("Launches", "byNodePool"): (_results.SimulationSummary, ("launches_by_node_pool",)),
    ("Disruptions", "total"): (_results.SimulationSummary, ("disruptions",)),
    ("Disruptions", "byReason"): (_results.SimulationSummary, ("disruptions_by_reason",)),
}

# Objects Python keeps as read-only mappings of the JSON (their keys are the schema's).
AS_MAPPING: Set[str] = {"Percentiles", "PodCounts", "ResolvedSimulationSettings", "SecondsRange"}


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def fields_of(cls: type) -> Set[str]:
    """Dataclass fields; `_x` counts as `x` when the class reads it through a method `x()`
    (Plan.summary(), Decision.summary(): methods since before the field existed)."""
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    return names | {n[1:] for n in names if n.startswith("_") and callable(getattr(cls, n[1:], None))}


def objects() -> List[str]:
    """Answer objects with fields; failures and their errors become exceptions (checked below)."""
    return [n for n, d in DEFS.items() if "properties" in d and not n.endswith("Failure") and n != "InputError"]


def test_the_schema_is_shipped_with_the_package() -> None:
    assert SCHEMA["title"] == "nodecast/v1 answers"
    assert {"PlanAnswer", "DecisionAnswer", "SimulationAnswer", "OptimizationAnswer"} <= set(DEFS)


def test_every_answer_object_has_a_python_home() -> None:
    homeless = [n for n in objects() if n not in CLASSES and n not in AS_MAPPING and not any(d == n for d, _ in FLATTENED)]
    assert homeless == [], f"answer objects without a Python class (add one to _results.py and to CLASSES): {homeless}"


def test_every_property_is_a_dataclass_field() -> None:
    missing: List[str] = []
    for name in objects():
        for prop in DEFS[name]["properties"]:
            if name in CLASSES:
                if snake(prop) not in fields_of(CLASSES[name]):
                    missing.append(f"{name}.{prop} -> {CLASSES[name].__name__}.{snake(prop)}")
            elif (name, prop) in FLATTENED:
                cls, names = FLATTENED[(name, prop)]
                missing.extend(f"{name}.{prop} -> {cls.__name__}.{n}" for n in names if n not in fields_of(cls))
            elif name not in AS_MAPPING:
                missing.append(f"{name}.{prop}: no Python home")
    assert missing == [], "fields in the Rust answers that Python lacks:\n" + "\n".join(missing)


def test_every_error_field_is_kept_by_the_exceptions() -> None:
    assert set(DEFS["InputError"]["properties"]) <= set(_errors._LOCATION_KEYS)


def test_the_check_fails_on_a_field_python_lacks() -> None:
    # The check above is not vacuous: a property no dataclass has is reported.
    assert "launched_at" not in fields_of(_results.NodeClaim)
    assert snake("launchedAt") == "launched_at"
    assert all(snake(p) in fields_of(_results.NodeClaim) for p in DEFS["NodeClaimFields"]["properties"])


def test_closed_sets_match_the_answers() -> None:
    # Literal unions of the schema hold for what the installed package answers.
    capacity = set(DEFS["CapacityType"]["enum"]) if "enum" in DEFS["CapacityType"] else {o["const"] for o in DEFS["CapacityType"]["oneOf"]}
    assert capacity == {"spot", "on-demand", "reserved"}
    from helpers import TRAINING

    plan = nodecast.plan(*TRAINING)
    assert plan.node_claims and all(c.capacity_type in capacity for c in plan.node_claims)

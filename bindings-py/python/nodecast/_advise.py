"""``nodecast.advise``: NodePool edits that make Karpenter's own plan cheaper, each verified by
planning again with the edit applied (``nodecast advise``)."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Sequence, Tuple

from ._answer import Answer, AnswerWarning, _seq, _strs

if TYPE_CHECKING:  # pragma: no cover
    import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]

__all__ = ["Advice", "Advised", "AdviceEdit", "AdvisedPlan", "AdviceStats", "AdviceRisk", "AppliedEdit", "EditedFile", "add_advise_options"]


@dataclass(frozen=True)
class AdviceRisk:
    """The risk an edit adds: ``level`` (``none``, ``low``, ``medium``, ``high``) and why."""

    level: str
    reasons: Tuple[str, ...]

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> AdviceRisk:
        return cls(level=d["level"], reasons=_strs(d.get("reasons")))


@dataclass(frozen=True)
class EditedFile:
    """One edited input file: its ``name`` as given (a file path for the CLI) and its whole
    ``text`` with the edit applied (everything else as written)."""

    name: str
    text: str

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> EditedFile:
        return cls(name=d["name"], text=d["text"])


@dataclass(frozen=True)
class AppliedEdit:
    """The edit of rank ``rank`` written into the input files: ``files`` holds each edited
    input file, whole (comments kept); ``patch`` is the same as a unified patch
    (``patch -p0``)."""

    rank: int
    files: Tuple[EditedFile, ...]
    patch: str

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> AppliedEdit:
        return cls(rank=d["rank"], files=_seq(d.get("files"), EditedFile._from), patch=d["patch"])


@dataclass(frozen=True)
class AdviceEdit:
    """One field edit: ``value`` put at ``path`` of NodePool ``node_pool`` (a requirement at
    ``spec.template.spec.requirements`` replaces one with the same key and operator), or of
    EC2NodeClass ``node_class`` (``select-reservation``; ``node_pool`` is then empty)."""

    node_pool: str
    path: str
    value: Any
    node_class: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> AdviceEdit:
        return cls(node_pool=d["nodePool"], path=d["path"], value=d["value"], node_class=d.get("nodeClass"))


@dataclass(frozen=True)
class AdvisedPlan:
    """Karpenter's plan with an edit applied, in a few numbers."""

    price_per_hour: float
    node_claims: int
    #: ``count × type capacity-type (NodePool)``, most first.
    launches: Tuple[str, ...]
    unschedulable: int

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> AdvisedPlan:
        return cls(
            price_per_hour=d["pricePerHour"],
            node_claims=d["nodeClaims"],
            launches=_strs(d.get("launches")),
            unschedulable=d["unschedulable"],
        )


@dataclass(frozen=True)
class Advised:
    """One verified edit (or pair of edits): its diff, Karpenter's new plan and the savings."""

    rank: int
    risk: AdviceRisk
    kind: str
    title: str
    edits: Tuple[AdviceEdit, ...]
    #: A unified diff of each edited NodePool manifest (as YAML).
    diff: str
    plan: AdvisedPlan
    savings_per_hour: float
    savings_per_month: float
    #: Share of the gap to the optimum recovered, percent (None without a gap).
    gap_recovered_percent: Optional[float]
    also_changes: Tuple[str, ...]
    #: A unified patch against the input files themselves (``patch -p0``); None when an edited
    #: NodePool has no YAML text of its own.
    patch: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Advised:
        return cls(
            rank=d["rank"],
            risk=AdviceRisk._from(d["risk"]),
            patch=d.get("patch"),
            kind=d["kind"],
            title=d["title"],
            edits=_seq(d.get("edits"), AdviceEdit._from),
            diff=d["diff"],
            plan=AdvisedPlan._from(d["plan"]),
            savings_per_hour=d["savingsPerHour"],
            savings_per_month=d["savingsPerMonth"],
            gap_recovered_percent=d.get("gapRecoveredPercent"),
            also_changes=_strs(d.get("alsoChanges")),
        )


@dataclass(frozen=True)
class AdviceStats:
    candidate_limit: int
    candidates: int
    combinations: int
    cheaper: int
    leave_pods_pending: int
    not_cheaper: int
    invalid: int
    duplicates: int
    # Edits left unverified when ``time_budget_seconds`` ran out (0: every edit was verified).
    unverified: int = 0

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> AdviceStats:
        return cls(
            candidate_limit=d["candidateLimit"],
            candidates=d["candidates"],
            combinations=d["combinations"],
            cheaper=d["cheaper"],
            leave_pods_pending=d["leavePodsPending"],
            not_cheaper=d["notCheaper"],
            invalid=d["invalid"],
            duplicates=d["duplicates"],
            unverified=d.get("unverified", 0),
        )


@dataclass(frozen=True, repr=False)
class Advice(Answer):
    """The verified NodePool edits, most saving first, beside the gap ``optimize`` measures."""

    karpenter_price_per_hour: float = 0.0
    optimum_price_per_hour: float = 0.0
    optimum_certificate: str = ""
    gap_per_hour: float = 0.0
    advice: Tuple[Advised, ...] = ()
    stats: Optional[AdviceStats] = None
    notes: Tuple[str, ...] = ()
    warnings: Tuple[AnswerWarning, ...] = ()
    #: The edit asked for with ``apply=RANK``, written into the input files.
    applied: Optional[AppliedEdit] = None

    @classmethod
    def _from(cls, text: str, d: Mapping[str, Any]) -> Advice:
        return cls(
            _json=text,
            karpenter_price_per_hour=d["karpenterPricePerHour"],
            optimum_price_per_hour=d["optimumPricePerHour"],
            optimum_certificate=d["optimumCertificate"],
            gap_per_hour=d["gapPerHour"],
            advice=_seq(d.get("advice"), Advised._from),
            stats=AdviceStats._from(d["stats"]),
            notes=_strs(d.get("notes")),
            warnings=_seq(d.get("warnings"), AnswerWarning._from),
            applied=AppliedEdit._from(d["applied"]) if d.get("applied") else None,
        )

    @property
    def kind(self) -> str:
        return "Advice"

    def __str__(self) -> str:
        best = f"; best: {self.advice[0].title} saves ${self.advice[0].savings_per_month:.2f}/month" if self.advice else "; no edit is cheaper"
        return f"Karpenter ${self.karpenter_price_per_hour:.4f}/h, optimum ${self.optimum_price_per_hour:.4f}/h{best}"

    def to_pandas(self) -> pandas.DataFrame:
        """One row per advised edit, most saving first."""
        import pandas as pd  # type: ignore[import-untyped,import-not-found,unused-ignore]

        columns = ["rank", "risk", "kind", "title", "price_per_hour", "savings_per_hour", "savings_per_month", "gap_recovered_percent", "node_claims", "launches", "also_changes"]
        rows = [
            {
                "rank": a.rank,
                "risk": a.risk.level,
                "kind": a.kind,
                "title": a.title,
                "price_per_hour": a.plan.price_per_hour,
                "savings_per_hour": a.savings_per_hour,
                "savings_per_month": a.savings_per_month,
                "gap_recovered_percent": a.gap_recovered_percent,
                "node_claims": a.plan.node_claims,
                "launches": ", ".join(a.plan.launches),
                "also_changes": "; ".join(a.also_changes),
            }
            for a in self.advice
        ]
        return pd.DataFrame(rows, columns=columns)

    def _repr_html_(self) -> str:
        e = html.escape
        items = "".join(
            f"<li><b>{e(a.title)}</b> (risk {e(a.risk.level)}): ${a.plan.price_per_hour:.4f}/h, saves ${a.savings_per_hour:.4f}/h "
            f"(${a.savings_per_month:.2f}/month"
            + (f", {a.gap_recovered_percent:.1f} % of the gap" if a.gap_recovered_percent is not None else "")
            + f")<br>{e(', '.join(a.plan.launches))}"
            + "".join(f"<br><i>risk: {e(r)}</i>" for r in a.risk.reasons)
            + "".join(f"<br><i>also: {e(c)}</i>" for c in a.also_changes)
            + f"<pre>{e(a.diff)}</pre></li>"
            for a in self.advice
        )
        return (
            f"<div class='nodecast-advice'><p><b>Karpenter ${self.karpenter_price_per_hour:.4f}/h; optimum "
            f"${self.optimum_price_per_hour:.4f}/h</b> ({e(self.optimum_certificate)}; gap ${self.gap_per_hour:.4f}/h)</p>"
            + (f"<ol>{items}</ol>" if items else "<p>No NodePool edit makes Karpenter's plan cheaper.</p>")
            + "</div>"
        )


def add_advise_options(
    request: str,
    top: Optional[int],
    time_budget_seconds: Optional[float],
    exclude_kinds: Sequence[str] = (),
    exclude_node_pools: Sequence[str] = (),
    max_risk: Optional[str] = None,
    apply: Optional[int] = None,
    running: bool = False,
) -> str:
    """The request with its ``advise`` options (the same compact JSON as the other functions)."""
    opts: Dict[str, Any] = {}
    if not isinstance(running, bool):
        raise TypeError(f"running must be a bool, not {running!r}")
    if running:
        opts["running"] = True
    for name, names in (("excludeKinds", exclude_kinds), ("excludeNodePools", exclude_node_pools)):
        if isinstance(names, str) or not all(isinstance(n, str) for n in names):
            raise TypeError(f"{name} must be a list of strings, not {names!r}")
        if names:
            opts[name] = list(names)
    if max_risk is not None:
        if not isinstance(max_risk, str):
            raise TypeError(f"max_risk must be a string (none, low, medium, high), not {max_risk!r}")
        opts["maxRisk"] = max_risk
    if apply is not None:
        if isinstance(apply, bool) or not isinstance(apply, int):
            raise TypeError(f"apply must be an int (the rank of an answered edit), not {apply!r}")
        opts["apply"] = apply
    if top is not None:
        if isinstance(top, bool) or not isinstance(top, int):
            raise TypeError(f"top must be an int, not {top!r}")
        opts["top"] = top
    if time_budget_seconds is not None:
        if isinstance(time_budget_seconds, bool) or not isinstance(time_budget_seconds, (int, float)):
            raise TypeError(f"time_budget_seconds must be a number, not {time_budget_seconds!r}")
        opts["timeBudgetSeconds"] = float(time_budget_seconds)
    if not opts:
        return request
    r = json.loads(request)
    r["advise"] = opts
    return json.dumps(r, allow_nan=True, ensure_ascii=False, separators=(",", ":"))

"""Jupyter renderings (``_repr_html_``) of the smaller answers: Explanation, ValidationReport and
CatalogResult. Same rules as ``_html``: inline styles only, no JavaScript, every text escaped,
long lists cut to ``MAX_ROWS`` rows with a note pointing at ``to_pandas()``."""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Sequence

from ._html import _BOX, _MUTED, MAX_ROWS, _e, _money, _more, _plural, _section, _table, _unschedulable_rows
from ._renderers import renders

if TYPE_CHECKING:  # pragma: no cover
    from ._results import CatalogResult, Explanation, Skipped, ValidationReport, Verdict

_OK = '<span style="color:#2e7d32">✓</span>'
_NO = '<span style="color:#c62828">✗</span>'


def _verdict_rows(verdicts: Sequence[Verdict]) -> List[List[str]]:
    return [[_OK if v.ok else _NO, _e(v.name), _e(v.reason)] for v in verdicts[:MAX_ROWS]]


def _skipped(items: Sequence[Skipped]) -> str:
    if not items:
        return ""
    rows = [[_e(s.source or ""), str(s.document), _e(s.kind), _e(s.name), _e(s.reason)] for s in items[:MAX_ROWS]]
    return (
        _section(f"Skipped ({len(items)})")
        + _table(["source", "doc", "kind", "name", "reason"], rows, numeric=[1])
        + _more(MAX_ROWS, len(items), "objects", "see .skipped")
    )


@renders
def explanation_html(x: Explanation) -> str:
    parts = [f'<div style="{_BOX}">']
    if x.pod is not None:
        p = x.pod
        parts.append(f"<div><b>{_e(p.pod)}</b>: {_e(p.summary)} <span style=\"{_MUTED}\">({_e(p.outcome)})</span></div>")
        c = p.node_claim
        if c is not None:
            parts.append(
                f"<div>NodeClaim <b>{_e(c.name)}</b> ({_e(c.node_pool)}): {_e(c.instance_type)} "
                f"{_e(c.capacity_type)} {_e(c.zone)}, {_money(c.price_per_hour)}/h</div>"
            )
        if p.unschedulable is not None:
            parts.append(_section("Why it stays Pending"))
            parts.append(_table(["pod", "code", "reasons and fixes"], _unschedulable_rows([p.unschedulable])))
        if p.node_pools:
            parts.append(_section(f"NodePools ({len(p.node_pools)})"))
            parts.append(_table(["", "NodePool", "reason"], _verdict_rows(p.node_pools)))
            parts.append(_more(MAX_ROWS, len(p.node_pools), "NodePools", "see to_pandas()"))
        if p.existing_nodes:
            parts.append(_section(f"Existing nodes ({len(p.existing_nodes)})"))
            parts.append(_table(["", "node", "reason"], _verdict_rows(p.existing_nodes)))
            parts.append(_more(MAX_ROWS, len(p.existing_nodes), "nodes", "see to_pandas()"))
        if p.relaxations:
            parts.append(_section("Preferences relaxed"))
            parts.append("".join(f"<div>{_e(r)}</div>" for r in p.relaxations))
    if x.instance_type is not None:
        it = x.instance_type
        parts.append(_section(f"Instance type {it.instance_type}: {it.verdict}"))
        parts.append("".join(f"<div>{_e(r)}</div>" for r in it.reasons[:MAX_ROWS]))
        parts.append(_more(MAX_ROWS, len(it.reasons), "reasons", "see .instance_type.reasons"))
    if x.node is not None:
        n = x.node
        parts.append(f"<div><b>{_e(n.node.name)}</b>: {_e(n.summary)}</div>")
        reasons = [[_e(r.code), _e(r.message)] for r in n.node.reasons[:MAX_ROWS]]
        if reasons:
            parts.append(_table(["code", "reason"], reasons))
        parts.append(f'<div style="{_MUTED}">{_e(n.command)}</div>')
    parts.append("</div>")
    return "".join(parts)


@renders
def validation_html(v: ValidationReport) -> str:
    pools = ", ".join(v.node_pools) if v.node_pools else "none"
    return (
        f'<div style="{_BOX}"><div><b>valid</b>: {_plural(v.objects, "object", "objects")}, '
        f"{_plural(v.pods, 'pod', 'pods')}; NodePools: {_e(pools)}</div>{_skipped(v.skipped)}</div>"
    )


def _gib(memory: str) -> str:
    """``"1179648Mi"`` -> ``"1152 GiB"`` (the catalog's memory, as the CLI's table shows it)."""
    from ._frames import gib

    value = gib(memory)
    return memory if value is None else f"{value:g} GiB"


@renders
def catalog_html(c: CatalogResult) -> str:
    rows = []
    for r in c.instance_types[:MAX_ROWS]:
        accel = ""
        if r.gpu_name or r.gpu_count:
            accel = f"{_e(r.gpu_count or '')} × {_e(r.gpu_name or 'gpu')}" + (f" {_e(r.gpu_memory_mib)} MiB" if r.gpu_memory_mib else "")
        elif r.accelerator_name or r.accelerator_count:
            accel = f"{_e(r.accelerator_count or '')} × {_e(r.accelerator_name or 'accelerator')}"
        rows.append(
            [
                _e(r.name),
                _e(r.vcpu),
                _e(_gib(r.memory)),
                _e(r.arch),
                accel,
                _money(r.on_demand_price_per_hour),
                _money(r.spot_price_per_hour),
            ]
        )
    head = f"<div><b>{_plural(c.count, 'instance type', 'instance types')}</b> <span style=\"{_MUTED}\">({_e(c.source)}, cheapest first)</span></div>"
    table = _table(["name", "vcpu", "memory", "arch", "accelerators", "on-demand/h", "spot/h"], rows, numeric=[1, 2, 5, 6])
    return f'<div style="{_BOX}">{head}{table}{_more(MAX_ROWS, len(c.instance_types), "instance types", "see to_pandas()")}</div>'

"""Jupyter renderings (``_repr_html_``) of Plan and Decision.

Self-contained inline HTML: inline ``style`` attributes only (no ``<style>`` block, which
untrusted notebooks strip), no JavaScript, every text escaped. Long answers are cut to
``MAX_ROWS`` rows with a note pointing at ``to_pandas()``.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Iterable, List, Optional, Sequence

from ._results import _price

if TYPE_CHECKING:  # pragma: no cover
    from ._results import Decision, NodeClaim, Plan, UnschedulablePod

MAX_ROWS = 50
PODS_SHOWN = 3

_BOX = "font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Helvetica,Arial,sans-serif;font-size:12px;line-height:1.4;color:inherit"
_TABLE = "border-collapse:collapse;margin:4px 0 8px 0;font-size:12px"
_TH = "text-align:left;padding:2px 10px 2px 0;border-bottom:1px solid #999;font-weight:600;white-space:nowrap"
_TD = "text-align:left;padding:2px 10px 2px 0;border-bottom:1px solid #ddd;vertical-align:top"
_NUM = "text-align:right;padding:2px 10px 2px 0;border-bottom:1px solid #ddd;vertical-align:top;white-space:nowrap"
_H = "font-weight:600;margin:8px 0 2px 0"
_MUTED = "color:#777"
_COLORS = {"cpu": "#4c78a8", "mem": "#59a14f", "disk": "#b07aa1"}
_ACCEL_COLOR = "#f28e2b"


def _e(x: object) -> str:
    return escape("" if x is None else str(x), quote=True)


def _money(p: Optional[float]) -> str:
    return "-" if p is None else f"${_price(p)}"


def _short(resource: str) -> str:
    if resource == "memory":
        return "mem"
    if resource == "ephemeral-storage":
        return "disk"
    if resource in ("nvidia.com/gpu", "amd.com/gpu", "habana.ai/gaudi"):
        return "gpu"
    return resource.rsplit("/", 1)[-1]


def bar(label: str, fraction: float, color: str, title: str = "") -> str:
    """One labelled packing bar: ``cpu [#####-----] 67%``."""
    pct = max(0.0, min(1.0, float(fraction))) * 100.0
    return (
        f'<div style="white-space:nowrap" title="{_e(title)}">'
        f'<span style="display:inline-block;width:3.2em;{_MUTED}">{_e(label)}</span>'
        f'<span style="display:inline-block;width:90px;height:9px;background:#e3e3e3;border-radius:2px;'
        f'vertical-align:middle;overflow:hidden">'
        f'<span style="display:block;width:{pct:.1f}%;height:100%;background:{color}"></span></span>'
        f'<span style="display:inline-block;width:3.2em;text-align:right">{pct:.0f}%</span></div>'
    )


def _packing(c: NodeClaim) -> str:
    bars: List[str] = []
    for res, frac in c.utilization.items():
        if res == "pods":
            continue
        short = _short(res)
        color = _COLORS.get(short, _ACCEL_COLOR)
        title = f"{res}: {c.requests.get(res, '?')} of {c.allocatable.get(res, '?')} allocatable"
        bars.append(bar(short, frac, color, title))
    return "".join(bars)


def _pods(pods: Sequence[str]) -> str:
    if len(pods) <= PODS_SHOWN + 1:
        return _e(", ".join(pods))
    return f"{_e(', '.join(pods[:PODS_SHOWN]))} <span style=\"{_MUTED}\">+{len(pods) - PODS_SHOWN} more</span>"


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[int] = ()) -> str:
    head = "".join(f'<th style="{_TH}">{_e(h)}</th>' for h in headers)
    body = []
    for row in rows:
        cells = "".join(f'<td style="{_NUM if i in numeric else _TD}">{cell}</td>' for i, cell in enumerate(row))
        body.append(f"<tr>{cells}</tr>")
    return f'<table style="{_TABLE}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _more(shown: int, total: int, what: str, hint: str) -> str:
    if total <= shown:
        return ""
    return f'<div style="{_MUTED}">… and {total - shown} more {_e(what)} ({_e(hint)})</div>'


def _section(title: str) -> str:
    return f'<div style="{_H}">{_e(title)}</div>'


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _unschedulable_rows(items: Sequence[UnschedulablePod]) -> List[List[str]]:
    rows = []
    for u in items:
        reasons = "<br>".join(
            f"{_e(r.node_pool) + ': ' if r.node_pool else ''}{_e(r.message)} <span style=\"{_MUTED}\">[{_e(r.code)}]</span>"
            for r in u.reasons
        )
        rows.append([_e(u.pod), f"<code>{_e(u.code)}</code>", reasons])
    return rows


def plan_html(p: Plan) -> str:
    placed_new = sum(len(c.pods) for c in p.node_claims)
    placed_existing = sum(len(n.pods) for n in p.existing_nodes)
    total = p.total_price_per_hour + 0.0
    head = (
        f"<b>nodecast plan</b>: {_plural(len(p.node_claims), 'new NodeClaim', 'new NodeClaims')} · "
        f"<b>{_e(_money(total))}/h</b> (${total * 730.0:.2f}/month) for {_plural(placed_new, 'pod', 'pods')} · "
        f"{_plural(placed_existing, 'pod', 'pods')} on existing nodes · "
        f"{_plural(len(p.unschedulable), 'pod', 'pods')} unschedulable"
    )
    out = [f'<div style="{_BOX}">', f"<div>{head}</div>"]
    if p.node_claims:
        out.append(_section("NodeClaims"))
        rows = [
            [
                _e(c.name),
                _e(c.node_pool),
                f"<b>{_e(c.instance_type or '-')}</b>",
                _e(c.capacity_type or "-"),
                _e(c.zone or "-"),
                _e(_money(c.price_per_hour)),
                _e(len(c.instance_type_options)),
                _packing(c),
                _pods(c.pods),
            ]
            for c in p.node_claims[:MAX_ROWS]
        ]
        out.append(_table(["name", "nodepool", "instance type", "capacity", "zone", "$/h", "options", "packing", "pods"], rows, (5, 6)))
        out.append(_more(MAX_ROWS, len(p.node_claims), "NodeClaims", "plan.to_pandas() has them all"))
    if p.existing_nodes:
        out.append(_section("Pods on existing nodes"))
        rows = [[_e(n.name), _e(n.node_pool or "-"), _e(n.instance_type or "-"), _pods(n.pods)] for n in p.existing_nodes[:MAX_ROWS]]
        out.append(_table(["node", "nodepool", "instance type", "pods"], rows))
        out.append(_more(MAX_ROWS, len(p.existing_nodes), "nodes", "plan.pods_frame() has every pod"))
    if p.unschedulable:
        out.append(_section("Unschedulable pods"))
        out.append(_table(["pod", "code", "why, per NodePool"], _unschedulable_rows(p.unschedulable[:MAX_ROWS])))
        out.append(_more(MAX_ROWS, len(p.unschedulable), "unschedulable pods", "plan.pods_frame() has them all"))
    limited = [(np, res, lim) for np in p.node_pools for res, lim in np.limits.items()]
    if limited:
        out.append(_section("NodePool limits"))
        rows = []
        for np, res, lim in limited:
            rows.append([_e(np.name), _e(res), _e(lim.limit), _e(lim.used), _e(lim.remaining)])
        out.append(_table(["nodepool", "resource", "limit", "used", "remaining"], rows, (2, 3, 4)))
    if p.warnings:
        out.append(_section("Warnings"))
        items = "".join(f"<li>{_e(w.object) + ': ' if w.object else ''}{_e(w.message)} [{_e(w.code)}]</li>" for w in p.warnings)
        out.append(f'<ul style="margin:0;padding-left:1.5em">{items}</ul>')
    if p.skipped:
        kinds = sorted({s.kind for s in p.skipped})
        out.append(f'<div style="{_MUTED};margin-top:4px">skipped {len(p.skipped)} objects not used for planning ({_e(", ".join(kinds))})</div>')
    out.append("</div>")
    return "".join(out)


def decision_html(d: Decision) -> str:
    before, after = d.price_per_hour_before + 0.0, d.price_per_hour_after + 0.0
    saved = (before - after) * 730.0
    out = [f'<div style="{_BOX}">', f"<div><b>nodecast consolidate</b> at {_e(d.now)}: <b>{_e(d.command)}</b></div>"]
    scale = max(before, after, 1e-9)
    out.append(
        '<div style="margin:4px 0">'
        + bar("before", before / scale, "#9e9e9e", f"{_money(before)}/h")
        + bar("after", after / scale, "#59a14f", f"{_money(after)}/h")
        + f"managed nodes {_e(_money(before))}/h → <b>{_e(_money(after))}/h</b> (${saved:.2f}/month saved)</div>"
    )
    if d.replacement is not None:
        r = d.replacement
        opts = ", ".join(r.instance_type_options[:8]) + (" …" if len(r.instance_type_options) > 8 else "")
        out.append(_section("Replacement"))
        out.append(
            f"<div>{_e(r.node_pool)} {_e(r.capacity_type or '?')} <b>{_e(r.instance_type or '?')}</b> in {_e(r.zone or '?')} "
            f"at {_e(_money(r.price_per_hour))}/h <span style=\"{_MUTED}\">({len(r.instance_type_options)} options: {_e(opts)})</span></div>"
        )
    if d.nodes:
        out.append(_section("Nodes"))
        rows = []
        for n in d.nodes[:MAX_ROWS]:
            if n.disrupted:
                verdict = '<b style="color:#c0392b">disrupted</b>'
                why = _e(d.reason or "")
            else:
                first = n.reasons[0] if n.reasons else None
                verdict = f"<code>{_e(first.code)}</code>" if first else "stays"
                why = _e(first.message) if first else ""
            rows.append(
                [
                    _e(n.name),
                    _e(n.node_pool or "-"),
                    _e(n.instance_type or "-"),
                    _e(n.capacity_type or "-"),
                    _e(_money(n.price_per_hour) if n.price_per_hour is not None else ""),
                    _e(n.pods),
                    verdict,
                    why,
                ]
            )
        out.append(_table(["node", "nodepool", "instance type", "capacity", "$/h", "pods", "verdict", "why"], rows, (4, 5)))
        out.append(_more(MAX_ROWS, len(d.nodes), "nodes", "decision.to_pandas() has them all"))
    if d.node_pools:
        out.append(_section("Disruption budgets now (allowed disruptions per reason)"))
        rows = []
        for b in d.node_pools:
            allowed = ", ".join(f"{k} {'unlimited' if v is None else v}" for k, v in b.allowed.items())
            rows.append([_e(b.name), _e(b.nodes), _e(allowed)])
        out.append(_table(["nodepool", "nodes", "allowed"], rows, (1,)))
    if d.warnings:
        out.append(_section("Warnings"))
        items = "".join(f"<li>{_e(w.object) + ': ' if w.object else ''}{_e(w.message)} [{_e(w.code)}]</li>" for w in d.warnings)
        out.append(f'<ul style="margin:0;padding-left:1.5em">{items}</ul>')
    out.append("</div>")
    return "".join(out)


__all__ = ["plan_html", "decision_html", "bar", "MAX_ROWS"]

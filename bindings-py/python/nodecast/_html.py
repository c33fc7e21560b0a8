"""Jupyter renderings (``_repr_html_``) of Plan, Decision and Simulation.

Self-contained inline HTML: inline ``style`` attributes only (no ``<style>`` block, which
untrusted notebooks strip), no JavaScript, every text escaped. Long answers are cut to
``MAX_ROWS`` rows with a note pointing at ``to_pandas()``.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Iterable, List, Optional, Sequence

from ._answer import _price
from ._renderers import renders

if TYPE_CHECKING:  # pragma: no cover
    from ._results import Decision, NodeClaim, Plan, SimulatedNode, Simulation, UnschedulablePod

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
        fixes = "".join(
            f"<br><b>fix ({h.outcome.replace('-', ' ')})</b> for {_e(h.node_pool)}: {_e(h.change)}"
            f" <span style=\"{_MUTED}\">{_e(h.check)}</span>"
            for h in u.hints
        )
        rows.append([_e(u.pod), f"<code>{_e(u.code)}</code>", reasons + fixes])
    return rows


@renders
def plan_html(p: Plan) -> str:
    placed_new = sum(len(c.pods) for c in p.node_claims)
    placed_existing = sum(len(n.pods) for n in p.existing_nodes)
    total = p.total_price_per_hour + 0.0
    head = (
        f"<b>nodecast plan</b>: {_plural(len(p.node_claims), 'new NodeClaim', 'new NodeClaims')} · "
        f"<b>{_e(_money(total))}/h</b> (${p.total_price_per_month:.2f}/month) for {_plural(placed_new, 'pod', 'pods')} · "
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
        for c in p.node_claims[:MAX_ROWS]:
            for t in c.ties:
                out.append(f"<div>{_e(c.name)}: note: {_e(t.message)}</div>")
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
            rows.append([_e(np.name), _e(res), *(_e(q) for q in lim.text)])
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


@renders
def decision_html(d: Decision) -> str:
    before, after = d.price_per_hour_before + 0.0, d.price_per_hour_after + 0.0
    saved = d.savings_per_month
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
        n_opts = len(r.instance_type_options)
        opts = ", ".join(r.instance_type_options[:8])
        counted = f"8 of {n_opts} options" if n_opts > 8 else f"{n_opts} option{'' if n_opts == 1 else 's'}"
        out.append(_section("Replacement"))
        out.append(
            f"<div>{_e(r.node_pool)} {_e(r.capacity_type or '?')} <b>{_e(r.instance_type or '?')}</b> in {_e(r.zone or '?')} "
            f"at {_e(_money(r.price_per_hour))}/h <span style=\"{_MUTED}\">({counted}: {_e(opts)})</span></div>"
        )
    if d.scores:
        out.append(_section("Balanced score"))
        for sc in d.scores:
            cmp = "≥" if sc.approved else "<"
            out.append(
                f"<div>{_e(sc.node_pool)}: {_e(sc.move)} scores <b>{sc.score:.2f}</b> {cmp} threshold {sc.threshold:.2f} "
                f"(saves {sc.savings_fraction * 100:.1f}% of the pool's cost for {sc.disruption_fraction * 100:.1f}% of its disruption) "
                f'<span style="{_MUTED}">pool cost: {_e(sc.pool_cost_source)}</span></div>'
            )
    if d.ties:
        out.append(_section("Ties"))
        for t in d.ties:
            out.append(f"<div>{_e(t.message)}</div>")
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


# ----------------------------------------------------------------------------------------------
# Simulation: summary, node Gantt chart coloured by cost (inline SVG), nodes table

#: Sequential colour stops (light = cheap, dark = expensive); bars are interpolated between them.
COST_STOPS = ((0xFE, 0xE0, 0xB6), (0xFD, 0xB8, 0x63), (0xF0, 0x7F, 0x3C), (0xD7, 0x30, 0x1F), (0x7F, 0x00, 0x00))
GANTT_ROWS = 60


def cost_color(fraction: float) -> str:
    """The colour of a node costing ``fraction`` (0..1) of the most expensive node's cost."""
    f = max(0.0, min(1.0, float(fraction))) * (len(COST_STOPS) - 1)
    i = min(int(f), len(COST_STOPS) - 2)
    t = f - i
    a, b = COST_STOPS[i], COST_STOPS[i + 1]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b))


def duration(seconds: int) -> str:
    """``1d 2h03m``, ``5h00m``, ``12m30s``, ``45s``, as the CLI prints durations."""
    s = int(seconds)
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    if d:
        return f"{d}d {h}h{m:02d}m"
    if h:
        return f"{h}h{m:02d}m"
    if m:
        return f"{m}m{s:02d}s"
    return f"{s}s"


def _tick_step(total: int) -> int:
    for step in (60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400):
        if total / step <= 12:
            return step
    return 30 * 86400


def _tick_label(t: int) -> str:
    if t % 86400 == 0 and t:
        return f"{t // 86400}d"
    if t >= 86400:
        return f"{t // 86400}d{(t % 86400) // 3600}h"
    if t % 3600 == 0:
        return f"{t // 3600}h"
    return f"{t // 3600}h{(t % 3600) // 60:02d}" if t >= 3600 else f"{t // 60}m"


def _node_title(n: SimulatedNode, end: int) -> str:
    until = "alive at the end" if n.terminated_seconds is None else f"terminated at {duration(n.terminated_seconds)} ({n.termination_reason or '?'})"
    ready = "" if n.initialized_seconds is None else f", initialized at {duration(n.initialized_seconds)}"
    return (
        f"{n.name}: {n.node_pool or '-'} {n.capacity_type or '?'} {n.instance_type or '?'} in {n.zone or '?'} at ${_price(n.price_per_hour_usd)}/h; "
        f"launched at {duration(n.launched_seconds)}{ready}, {until}; lifetime {duration(n.lifetime_seconds)}, "
        f"cost ${n.cost_usd:.2f} (empty ${n.empty_cost_usd:.2f}), {_plural(n.pods, 'pod', 'pods')}"
    )


def gantt_svg(s: Simulation, max_rows: int = GANTT_ROWS) -> str:
    """The node timeline: one row per NodeClaim (launch order), a bar from launch to termination
    coloured by the node's total cost; the start-up part (launch → initialized) is paler."""
    m = s.summary
    end = max(1, m.duration_seconds if m is not None else 1)
    nodes = list(s.nodes[:max_rows])
    label_w, chart_w, row_h, top, bottom = 150, 560, 16, 6, 34
    width = label_w + chart_w + 10
    height = top + row_h * max(1, len(nodes)) + bottom
    max_cost = max((n.cost_usd for n in s.nodes), default=0.0) or 1.0

    def x(t: int) -> float:
        return label_w + chart_w * max(0, min(end, t)) / end

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{_e(f"Node timeline: {len(s.nodes)} NodeClaims over {duration(end)}, coloured by cost")}" '
        'style="font-family:inherit;font-size:11px">'
    ]
    step = _tick_step(end)
    axis_y = top + row_h * max(1, len(nodes))
    for t in range(0, end + 1, step):
        xt = x(t)
        parts.append(f'<line x1="{xt:.1f}" y1="{top}" x2="{xt:.1f}" y2="{axis_y}" stroke="#ddd" stroke-width="1"/>')
        parts.append(f'<text x="{xt:.1f}" y="{axis_y + 12}" text-anchor="middle" fill="#666">{_e(_tick_label(t))}</text>')
    for i, n in enumerate(nodes):
        y = top + i * row_h
        end_t = n.terminated_seconds if n.terminated_seconds is not None else end
        color = cost_color(n.cost_usd / max_cost)
        ready = n.initialized_seconds if n.initialized_seconds is not None else end_t
        title = _e(_node_title(n, end))
        parts.append(f'<g><title>{title}</title>')
        parts.append(f'<text x="{label_w - 6}" y="{y + row_h - 4}" text-anchor="end" fill="currentColor">{_e(n.name)}</text>')
        x0, x1, xr = x(n.launched_seconds), x(end_t), x(min(ready, end_t))
        parts.append(f'<rect x="{x0:.1f}" y="{y + 2}" width="{max(1.0, x1 - x0):.1f}" height="{row_h - 4}" fill="{color}" fill-opacity="0.45"/>')
        if x1 > xr:
            parts.append(f'<rect x="{xr:.1f}" y="{y + 2}" width="{x1 - xr:.1f}" height="{row_h - 4}" fill="{color}"/>')
        if n.termination_reason == "interrupted":
            parts.append(f'<text x="{x1 + 2:.1f}" y="{y + row_h - 4}" fill="#c0392b">⚡</text>')
        parts.append("</g>")
    # Legend: five swatches from the cheapest to the most expensive node.
    ly = axis_y + 20
    parts.append(f'<text x="{label_w - 6}" y="{ly + 9}" text-anchor="end" fill="#666">node cost</text>')
    for k in range(5):
        frac = k / 4
        parts.append(f'<rect x="{label_w + k * 40}" y="{ly}" width="40" height="10" fill="{cost_color(frac)}"/>')
    parts.append(f'<text x="{label_w + 206}" y="{ly + 9}" fill="#666">$0 → ${max_cost:.2f}; pale: starting up (billed, not ready)</text>')
    parts.append("</svg>")
    return "".join(parts)


@renders
def simulation_html(s: Simulation) -> str:
    m = s.summary
    assert m is not None
    start = f" from {_e(s.start)}" if s.start else ""
    head = (
        f"<b>nodecast simulate</b>: {_e(duration(m.duration_seconds))}{start}, seed {_e(s.seed)} · "
        f"<b>${m.cost_usd:.2f}</b> with Karpenter vs ${m.static_cost_usd:.2f} for a static cluster sized for the peak "
        f"(<b>{m.savings_percent:.1f}% saved</b>, ${m.savings_usd:.2f})"
    )
    out = [f'<div style="{_BOX}">', f"<div>{head}</div>"]
    pend = m.pending_seconds
    rows = [
        ["GPU hours", _e(f"{m.gpu_hours_paid:.1f} paid, {m.gpu_hours_used:.1f} used ({m.gpu_utilization * 100:.1f}% utilisation)")],
        ["empty nodes", _e(f"${m.empty_node_cost_usd:.2f} over {duration(m.empty_node_seconds)} (waiting for consolidateAfter)")],
        [
            "pending p50 / p95 / max",
            _e(f"{duration(pend.get('p50', 0))} / {duration(pend.get('p95', 0))} / {duration(pend.get('max', 0))}"),
        ],
        ["work lost", _e(duration(m.work_lost_seconds))],
        ["pods", _e(", ".join(f"{v} {k}" for k, v in m.pods.items()))],
        ["launches", _e(f"{m.launches} ({', '.join(f'{k} {v}' for k, v in m.launches_by_node_pool.items())})")],
        ["disruptions", _e(f"{m.disruptions} ({', '.join(f'{k} {v}' for k, v in m.disruptions_by_reason.items())})")],
        [
            "static cluster",
            _e(", ".join(f"{g.count} × {g.instance_type} ({g.node_pool}, ${_price(g.price_per_hour_usd)}/h)" for g in m.static_cluster) or "-"),
        ],
    ]
    out.append(_table(["", ""], [[f"<b>{_e(k)}</b>", v] for k, v in rows]))
    if s.nodes:
        out.append(_section(f"Node timeline ({_plural(len(s.nodes), 'NodeClaim', 'NodeClaims')}, colour = cost)"))
        out.append(gantt_svg(s))
        out.append(_more(GANTT_ROWS, len(s.nodes), "NodeClaims", "simulation.nodes_frame() has them all"))
        out.append(_section("Nodes, most expensive first"))
        ranked = sorted(s.nodes, key=lambda n: (-n.cost_usd, n.name))[:MAX_ROWS]
        trows = [
            [
                _e(n.name),
                _e(n.node_pool or "-"),
                _e(n.instance_type or "-"),
                _e(n.capacity_type or "-"),
                _e(_money(n.price_per_hour_usd)),
                _e(duration(n.lifetime_seconds)),
                _e(f"${n.cost_usd:.2f}"),
                _e(f"${n.empty_cost_usd:.2f}"),
                _e(n.pods),
                _e(n.termination_reason or "alive"),
            ]
            for n in ranked
        ]
        out.append(_table(["node", "nodepool", "instance type", "capacity", "$/h", "lifetime", "cost", "empty", "pods", "end"], trows, (4, 5, 6, 7, 8)))
        out.append(_more(MAX_ROWS, len(s.nodes), "nodes", "simulation.nodes_frame() has them all"))
    if s.warnings:
        out.append(_section("Warnings"))
        items = "".join(f"<li>{_e(w.object) + ': ' if w.object else ''}{_e(w.message)} [{_e(w.code)}]</li>" for w in s.warnings)
        out.append(f'<ul style="margin:0;padding-left:1.5em">{items}</ul>')
    out.append("</div>")
    return "".join(out)


__all__ = ["plan_html", "decision_html", "simulation_html", "gantt_svg", "cost_color", "duration", "bar", "MAX_ROWS"]

"""Simulation.plot_cost() / plot_nodes(): matplotlib pictures, drawn with the Agg backend.
matplotlib is imported only when a plot is asked for (skipped when it is not installed)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import nodecast
from helpers import ONE_JOB, REPO


def test_import_nodecast_does_not_import_matplotlib() -> None:
    code = "import sys, nodecast; assert 'matplotlib' not in sys.modules, 'imported'; print('ok')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO / "examples", check=True)
    assert out.stdout.strip() == "ok"


def test_plot_cost_against_static(day: nodecast.Simulation) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.dates as mdates
    import matplotlib.pyplot as plt

    ax = day.plot_cost()
    try:
        karpenter, static = ax.get_lines()
        (cost,) = day.metric("nodecast_cost_usd_total")
        assert list(karpenter.get_ydata()) == list(cost.values)
        assert len(karpenter.get_xdata()) == len(day.series_times_seconds)
        assert day.summary is not None
        assert list(static.get_ydata()) == [0.0, day.summary.static_cost_usd]
        # The trace has a start: the x axis is UTC datetimes from it.
        first = mdates.num2date(mdates.date2num(karpenter.get_xdata()[0]))
        assert first.isoformat().startswith("2025-03-04T00:00:00")
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert labels == [f"Karpenter (${day.summary.cost_usd:.2f})", f"static cluster (${day.summary.static_cost_usd:.2f})"]
        assert f"{day.summary.savings_percent:.1f}% saved" in ax.get_title()
        ax.figure.canvas.draw()  # renders without error
    finally:
        plt.close("all")


def test_plot_nodes_is_a_gantt(day: nodecast.Simulation) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    try:
        assert day.plot_nodes(ax=ax) is ax
        bars = ax.patches
        assert len(bars) == len(day.nodes)
        labels = [t.get_text() for t in ax.get_yticklabels()]
        names = [f"{n.name} ({n.instance_type})" for n in day.nodes]
        assert any(labels == names[::k] for k in range(1, len(names) + 1)), labels  # every k-th row
        # Bar widths are the lifetimes (days on a date axis).
        assert day.summary is not None
        for bar, n in zip(bars, day.nodes):
            stop = n.terminated_seconds if n.terminated_seconds is not None else day.summary.duration_seconds
            assert bar.get_width() == pytest.approx((stop - n.launched_seconds) / 86400.0, abs=1e-6)
        spot = [b for b, n in zip(bars, day.nodes) if n.capacity_type == "spot"]
        assert spot and all(matplotlib.colors.to_hex(b.get_facecolor()) == "#f28e2b" for b in spot)
        fig.canvas.draw()
        few = plt.subplots()[1]
        day.plot_nodes(ax=few, max_rows=2)
        assert len(few.patches) == 2 and f"first 2 of {len(day.nodes)}" in few.get_title()
    finally:
        plt.close("all")


def test_plot_nodes_draws_every_node_and_labels_never_overlap() -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from types import SimpleNamespace
    from typing import cast

    from nodecast._plots import plot_nodes

    # 2,000 NodeClaims: beyond what the chart used to draw (60 rows) and, at the 60-inch cap on the
    # figure's height, beyond what fits one label per row.
    nodes = [
        SimpleNamespace(name=f"gpu-{i}", instance_type="g5.xlarge", capacity_type="spot" if i % 3 else "on-demand",
                        launched_seconds=60 * i, terminated_seconds=None if i % 2 else 60 * i + 3600)
        for i in range(2000)
    ]
    fake = cast(nodecast.Simulation, SimpleNamespace(nodes=nodes, start=None, summary=SimpleNamespace(duration_seconds=86400)))
    try:
        ax = plot_nodes(fake)
        assert len(ax.patches) == 2000
        ax.figure.canvas.draw()
        boxes = [t.get_window_extent() for t in ax.get_yticklabels() if t.get_text()]
        assert 1 < len(boxes) < 2000
        ordered = sorted(boxes, key=lambda b: b.y0)
        assert all(a.y1 <= b.y0 + 0.5 for a, b in zip(ordered, ordered[1:])), "tick labels overlap"
        assert "every" in ax.get_title()
        # A small simulation keeps one label per row.
        small = plot_nodes(cast(nodecast.Simulation, SimpleNamespace(nodes=nodes[:5], start=None, summary=SimpleNamespace(duration_seconds=86400))))
        assert [t.get_text() for t in small.get_yticklabels()] == [f"gpu-{i} (g5.xlarge)" for i in range(5)]
    finally:
        plt.close("all")


def test_without_a_start_the_axis_is_hours() -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = nodecast.simulate("examples/nodepools/gpu-training.yaml", "examples/workloads/training-job-4gpu.yaml", trace=ONE_JOB, seed=1)
    try:
        ax = s.plot_cost()
        assert ax.get_xlabel() == "hours since start" and ax.get_lines()[0].get_xdata()[0] == 0.0
    finally:
        plt.close("all")


def test_without_matplotlib_the_error_says_what_to_install(day: nodecast.Simulation, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib...` fail
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match="pip install matplotlib") as info:
        day.plot_nodes()
    assert info.value.__suppress_context__

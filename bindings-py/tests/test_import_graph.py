"""The package's modules import each other in one direction: results, their tables, their HTML
and their plots are layers (renderers -> results -> _answer), with no import circle anywhere,
counting lazy imports inside functions and imports under TYPE_CHECKING (issue 37)."""

from __future__ import annotations

import importlib.util
import os
import textwrap
from pathlib import Path
from types import ModuleType

import nodecast

from helpers import REPO


def _checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_circles", REPO / "tools" / "import_circles.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_installed_package_has_no_import_circle() -> None:
    check = _checker()
    package = os.path.dirname(os.path.abspath(nodecast.__file__))
    g = check.graph(package)
    assert check.circle(g) is None, check.circle(g)
    # The layers the package is built on: results know no renderer, renderers take results.
    renderers = {"_frames", "_html", "_html_more", "_plots", "_autoscaling"}
    for result in ("_answer", "_plan", "_decision", "_results", "_simulation"):
        assert not g[result] & renderers, (result, g[result] & renderers)
    assert g["_renderers"] == set(), g["_renderers"]


def test_a_lazy_import_back_is_a_circle(tmp_path: Path) -> None:
    """The checker sees a circle closed by an import inside a function or under TYPE_CHECKING
    (the shape of the circle the package had: _results -> _frames -> _results)."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from ._results import Plan\n")
    (pkg / "_results.py").write_text(
        textwrap.dedent(
            """
            class Plan:
                def to_pandas(self):
                    from ._frames import plan_frame
                    return plan_frame(self)
            """
        )
    )
    (pkg / "_frames.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ._results import Plan\n")
    check = _checker()
    assert check.circle(check.graph(str(pkg))) == ["_results", "_frames", "_results"]
    (pkg / "_frames.py").write_text("def plan_frame(plan):\n    return plan\n")
    assert check.circle(check.graph(str(pkg))) is None

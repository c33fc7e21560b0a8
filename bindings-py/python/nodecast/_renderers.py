"""Where a result's methods find their tables, HTML and plots.

The result types (``_plan``, ``_decision``, ``_results``, ``_simulation``) know nothing of pandas,
HTML or matplotlib: ``to_pandas()``, ``_repr_html_()``, ``plot_cost()`` and the like look their
renderer up here by name. The renderer modules (``_frames``, ``_autoscaling``, ``_html``,
``_html_more``, ``_plots``) take results and register their functions with :func:`renders`; the
package's ``__init__`` imports them, so every renderer is registered before any result exists.
Imports point one way: renderers → results → ``_answer``, and both → this module, which imports
nothing of the package (``tests/test_import_graph.py`` fails on any circle).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_RENDERERS: Dict[str, Callable[..., Any]] = {}


def renders(fn: F) -> F:
    """Register ``fn`` under its name (a decorator of the renderer modules)."""
    _RENDERERS[fn.__name__] = fn
    return fn


def renderer(name: str) -> Callable[..., Any]:
    """The renderer registered as ``name``."""
    try:
        return _RENDERERS[name]
    except KeyError:
        raise RuntimeError(f"nodecast: no renderer {name!r} is registered (the package's __init__ imports them all)") from None

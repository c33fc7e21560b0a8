#!/usr/bin/env python3
"""Fail on an import circle among the Python package's modules (bindings-py/python/nodecast).

Every import counts, wherever it stands: at the top, inside a function (a lazy import is still
an arrow between layers) or under ``if TYPE_CHECKING:``. ``from . import x`` is an arrow to
module ``x`` when the package has one, else to the package's ``__init__``. The Rust core's files
are checked by core/tests/module_graph.rs; bindings-py/tests/test_import_graph.py runs this same
check on the installed package.

    python3 tools/import_circles.py [PACKAGE_DIR]     # exit 1 and name the circle if there is one
"""
import ast
import os
import sys
from typing import Dict, List, Optional, Set


def graph(package_dir: str) -> Dict[str, Set[str]]:
    """Module name (file stem; ``__init__`` for the package) → the package's modules it imports."""
    package = os.path.basename(os.path.normpath(package_dir))
    modules = {f[:-3] for f in os.listdir(package_dir) if f.endswith(".py")}
    # A compiled extension (``_native``: its ``.pyi`` in the source tree, its ``.so`` once
    # installed) is a module of the package too, and a leaf.
    modules |= {f.split(".")[0] for f in os.listdir(package_dir) if f.endswith((".pyi", ".so", ".pyd"))}
    g: Dict[str, Set[str]] = {}
    for name in sorted(m for m in modules if os.path.exists(os.path.join(package_dir, m + ".py"))):
        with open(os.path.join(package_dir, name + ".py"), encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename=name + ".py")
        deps: Set[str] = set()
        for node in ast.walk(tree):
            targets: List[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level == 1 or (node.level == 0 and (node.module or "").split(".")[0] == package):
                    path = (node.module or "").split(".")
                    head = path[1] if node.level == 0 and len(path) > 1 else (path[0] if node.level == 1 else "")
                    if head:
                        targets.append(head if head in modules else "__init__")
                    else:  # from . import a, b  /  from nodecast import a
                        targets += [a.name if a.name in modules else "__init__" for a in node.names]
            elif isinstance(node, ast.Import):
                for a in node.names:
                    parts = a.name.split(".")
                    if parts[0] == package:
                        targets.append(parts[1] if len(parts) > 1 and parts[1] in modules else "__init__")
            deps.update(t for t in targets if t != name)
        g[name] = deps
    return g


def circle(g: Dict[str, Set[str]]) -> Optional[List[str]]:
    """One import circle as a path (first module repeated at the end), or None."""
    state: Dict[str, int] = {}  # 1: on the stack, 2: done
    stack: List[str] = []

    def visit(m: str) -> Optional[List[str]]:
        state[m] = 1
        stack.append(m)
        for d in sorted(g.get(m, ())):
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if d not in state:
                found = visit(d)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(g):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def main(argv: List[str]) -> int:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    package_dir = argv[1] if len(argv) > 1 else os.path.join(root, "bindings-py", "python", "nodecast")
    found = circle(graph(package_dir))
    if found:
        print(f"{package_dir}: import circle: {' -> '.join(found)}", file=sys.stderr)
        return 1
    print(f"{package_dir}: {len(graph(package_dir))} modules, no import circle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

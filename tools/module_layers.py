#!/usr/bin/env python3
"""Print the core crate's top-level modules in layers: each module's layer is one more than the
highest layer it imports (`crate::x` outside comments and `#[cfg(test)]` code, read as text the
way core/tests/module_graph.rs reads it). docs/architecture.md's layer table is this output.
Exit 1 on an import circle (module_graph.rs is the test that forbids them; this names the path).

    python3 tools/module_layers.py                 # print the table
    python3 tools/module_layers.py --check FILE    # exit 1 if FILE's table (between the
                                                   # `<!-- module-layers -->` markers) differs
"""
import os
import re
import sys


def strip_tests(text: str) -> str:
    """The text without line comments and without `#[cfg(test)]` items (brace-matched)."""
    text = "\n".join(line.split("//")[0] for line in text.splitlines())
    out, rest = [], text
    while "#[cfg(test)]" in rest:
        at = rest.find("#[cfg(test)]")
        out.append(rest[:at])
        after = rest[at:]
        semi, brace = after.find(";"), after.find("{")
        semi = len(after) if semi < 0 else semi
        brace = len(after) if brace < 0 else brace
        if semi < brace:  # `#[cfg(test)] mod tests;`
            rest = after[semi + 1:]
            continue
        depth, end = 0, len(after)
        for i in range(brace, len(after)):
            if after[i] == "{":
                depth += 1
            elif after[i] == "}":
                depth -= 1
                if depth == 0:
                    end = i + 1
                    break
        rest = after[end:]
    out.append(rest)
    return "".join(out)


def graph(src: str) -> dict:
    g: dict = {}
    for root, _dirs, files in os.walk(src):
        if os.path.basename(root) == "tests":
            continue
        for name in files:
            if not name.endswith(".rs") or name == "tests.rs":
                continue
            rel = os.path.relpath(os.path.join(root, name), src)
            module = rel.split(os.sep)[0].removesuffix(".rs")
            if module == "lib":
                continue
            with open(os.path.join(root, name), encoding="utf-8") as f:
                text = strip_tests(f.read())
            deps = set(re.findall(r"crate::([a-z_][a-z0-9_]*)", text)) - {module}
            g.setdefault(module, set()).update(deps)
    return {m: {d for d in deps if d in g} for m, deps in g.items()}


def layers(g: dict) -> dict:
    memo: dict = {}

    def layer(m: str, stack: tuple) -> int:
        if m in memo:
            return memo[m]
        if m in stack:
            raise SystemExit("import circle: " + " -> ".join(stack[stack.index(m):] + (m,)))
        memo[m] = 1 + max((layer(d, stack + (m,)) for d in g[m]), default=0)
        return memo[m]

    return {m: layer(m, ()) for m in g}


MARK = "<!-- module-layers -->"


def table(g: dict) -> str:
    by_layer: dict = {}
    for m, n in layers(g).items():
        by_layer.setdefault(n, []).append(m)
    rows = ["| layer | module | imports |", "|--:|---|---|"]
    for n in sorted(by_layer):
        for m in sorted(by_layer[n]):
            rows.append(f"| {n} | `{m}` | {', '.join(sorted(g[m])) or '—'} |")
    return "\n".join(rows) + "\n"


def main() -> None:
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "core", "src")
    current = table(graph(src))
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        with open(sys.argv[2], encoding="utf-8") as f:
            parts = f.read().split(MARK)
        if len(parts) != 3:
            raise SystemExit(f"{sys.argv[2]}: expected the table between two {MARK} lines")
        if parts[1].strip() != current.strip():
            raise SystemExit(f"{sys.argv[2]}: the module layer table is stale; "
                             "paste the output of `python3 tools/module_layers.py` between the markers")
        return
    if len(sys.argv) != 1:
        raise SystemExit("usage: module_layers.py [--check FILE]")
    sys.stdout.write(current)


if __name__ == "__main__":
    main()

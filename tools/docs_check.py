#!/usr/bin/env python3
"""Every `$ nodecast ...` example in README.md and docs/*.md is real output of the current binary.

A fenced block whose first line is `$ nodecast ...` (continued with trailing backslashes) is run
from the repository root with `nodecast` resolved to the release binary, stdout and stderr
merged, and its output compared with the rest of the block. A line that is `...` (or starts with
`... ` after indentation, e.g. `  ... (ml/eval-1 to ml/eval-4 the same)`) stands for any number of
lines, so long answers can be shown in part. A block may end its command with `; echo "exit $?"`.

    python3 tools/docs_check.py [--nodecast PATH] [--update] [FILE...]

A block may hold several `$ ` commands, run in order in one scratch directory; `...` inside a
line stands for any text (a time taken). Commands starting with `python` are not run here.
`--update` rewrites the commands whose documented output has no `...` with the output of this
run (for the others, copy what you want from the printed difference). Exit 1 on any mismatch or
any example that names a file that does not exist.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^(\s*)```")


def blocks(text: str):
    """(start line index of the block's first content line, content lines) of every fenced block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start = i + 1
        j = start
        while j < len(lines) and not FENCE.match(lines[j]):
            j += 1
        yield start, lines[start:j]
        i = j + 1


def segments(content: list[str]) -> list[tuple[str, list[str]]] | None:
    """The block's commands with their documented output: a line `$ cmd` (continued by trailing
    backslashes) starts a command, the lines up to the next `$ ` line are its output. None when
    the block does not start with `$ nodecast`."""
    if not content or not content[0].startswith("$ nodecast"):
        return None
    out: list[tuple[str, list[str]]] = []
    k = 0
    while k < len(content):
        cmd_lines = [content[k][2:]]
        k += 1
        while cmd_lines[-1].endswith("\\") and k < len(content):
            cmd_lines.append(content[k])
            k += 1
        expected = []
        while k < len(content) and not content[k].startswith("$ "):
            expected.append(content[k])
            k += 1
        out.append(("\n".join(cmd_lines), expected))
    return out


def is_elision(line: str) -> bool:
    s = line.strip()
    return s == "..." or s.startswith("... ")


def line_matches(expected: str, actual: str) -> bool:
    """Equal, or equal with each `...` inside the line standing for any text (a time taken, say)."""
    e, a = expected.rstrip(), actual.rstrip()
    if e == a:
        return True
    if "..." not in e:
        return False
    pattern = ".*".join(re.escape(part) for part in e.split("..."))
    return re.fullmatch(pattern, a) is not None


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether `actual` matches `expected`, elision lines matching any run of lines."""
    memo: dict[tuple[int, int], bool] = {}

    def go(i: int, j: int) -> bool:
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(expected):
            r = j == len(actual)
        elif is_elision(expected[i]):
            r = any(go(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            r = j < len(actual) and line_matches(expected[i], actual[j]) and go(i + 1, j + 1)
        memo[key] = r
        return r

    sys.setrecursionlimit(max(10000, 4 * (len(expected) + len(actual))))
    return go(0, 0)


def scratch(nodecast: Path) -> Path:
    """A directory that looks like the repository root (a symlink per top-level entry) with
    `bin/nodecast`, so examples read the repository's files and anything they write
    (`--out week.csv`) lands outside the checkout."""
    d = Path(tempfile.mkdtemp(prefix="nodecast-docs-"))
    for entry in ROOT.iterdir():
        if entry.name not in (".git", "target"):
            (d / entry.name).symlink_to(entry)
    (d / "bin").mkdir()
    (d / "bin" / "nodecast").symlink_to(nodecast.resolve())
    return d


def run(cmd: str, where: Path) -> list[str]:
    env = dict(os.environ)
    env["PATH"] = f"{where / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "200"
    # One stream, in the order a terminal shows it.
    p = subprocess.run(["bash", "-c", f"{{ {cmd}\n}} 2>&1"], cwd=where, env=env, stdout=subprocess.PIPE, text=True, timeout=300)
    out = p.stdout.rstrip("\n")
    return out.split("\n") if out else []


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodecast", default=str(ROOT / "target" / "release" / "nodecast"))
    ap.add_argument("--update", action="store_true")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    nodecast = Path(a.nodecast)
    if not nodecast.exists():
        print(f"docs_check: {nodecast} not built (make build)", file=sys.stderr)
        return 2
    files = [Path(f).resolve() for f in a.files] or [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    checked = failed = 0
    where = scratch(nodecast)
    for f in files:
        text = f.read_text()
        lines = text.split("\n")
        changed = False
        # Bottom-up, so rewriting a block leaves the line numbers of the ones above it valid.
        for start, content in reversed(list(blocks(text))):
            segs = segments(content)
            if segs is None:
                continue
            at = f"{f.relative_to(ROOT)}:{start}"
            rewritten: list[str] = []
            block_ok = True
            for cmd, expected in segs:
                cmd_text = ["$ " + cmd.split("\n")[0], *cmd.split("\n")[1:]]
                if cmd.startswith("python"):
                    # Needs the Python package; bindings-py/tests runs the README's Python example.
                    rewritten += cmd_text + expected
                    continue
                checked += 1
                actual = run(cmd, where)
                if matches(expected, actual):
                    rewritten += cmd_text + expected
                    continue
                block_ok = False
                if a.update and not any(is_elision(x) or "..." in x for x in expected):
                    rewritten += cmd_text + actual
                    print(f"updated {at}: {cmd.splitlines()[0]}")
                    continue
                rewritten += cmd_text + expected
                failed += 1
                print(f"MISMATCH {at}: {cmd.splitlines()[0]}")
                for d in difflib.unified_diff(expected, actual, "documented", "actual", lineterm="", n=2):
                    print("  " + d)
            if not block_ok and rewritten != content:
                lines[start : start + len(content)] = rewritten
                changed = True
        if changed:
            f.write_text("\n".join(lines))
    shutil.rmtree(where, ignore_errors=True)
    print(f"docs_check: {checked} examples, {failed} differ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

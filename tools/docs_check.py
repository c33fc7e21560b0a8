#!/usr/bin/env python3
"""Every `$ nodecast ...` example in README.md and docs/*.md is real output of the current binary.

A fenced block whose first line is `$ nodecast ...` (continued with trailing backslashes) is run
from the repository root with `nodecast` resolved to the release binary, stdout and stderr
merged, and its output compared with the rest of the block. A line that is `...` (or starts with
`... ` after indentation, e.g. `  ... (ml/eval-1 to ml/eval-4 the same)`) stands for any number of
lines, so long answers can be shown in part. A block may end its command with `; echo "exit $?"`.

    python3 tools/docs_check.py [--nodecast PATH] [--update] [FILE...]

`--update` rewrites the blocks that have no elided lines with the output of this run (for
blocks with `...`, copy what you want from the printed difference). Exit 1 on any mismatch or
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


def split_command(content: list[str]) -> tuple[str, list[str]] | None:
    if not content or not content[0].startswith("$ nodecast"):
        return None
    cmd_lines = [content[0][2:]]
    k = 1
    while cmd_lines[-1].endswith("\\") and k < len(content):
        cmd_lines.append(content[k])
        k += 1
    return "\n".join(cmd_lines), content[k:]


def is_elision(line: str) -> bool:
    s = line.strip()
    return s == "..." or s.startswith("... ")


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
            r = j < len(actual) and expected[i].rstrip() == actual[j].rstrip() and go(i + 1, j + 1)
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
    p = subprocess.run(["bash", "-c", cmd], cwd=where, env=env, capture_output=True, text=True, timeout=300)
    out = (p.stdout + p.stderr).rstrip("\n")
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
    files = [Path(f) for f in a.files] or [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    checked = failed = 0
    where = scratch(nodecast)
    for f in files:
        text = f.read_text()
        lines = text.split("\n")
        changed = False
        # Bottom-up, so rewriting a block leaves the line numbers of the ones above it valid.
        for start, content in reversed(list(blocks(text))):
            sc = split_command(content)
            if sc is None:
                continue
            cmd, expected = sc
            checked += 1
            actual = run(cmd, where)
            at = f"{f.relative_to(ROOT)}:{start}"
            if matches(expected, actual):
                continue
            if a.update and not any(is_elision(x) for x in expected):
                n_cmd = len(content) - len(expected)
                lines[start + n_cmd : start + len(content)] = actual
                changed = True
                print(f"updated {at}: {cmd.splitlines()[0]}")
                continue
            failed += 1
            print(f"MISMATCH {at}: {cmd.splitlines()[0]}")
            for d in difflib.unified_diff(expected, actual, "documented", "actual", lineterm="", n=2):
                print("  " + d)
        if changed:
            f.write_text("\n".join(lines))
    shutil.rmtree(where, ignore_errors=True)
    print(f"docs_check: {checked} examples, {failed} differ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Fails when bindings-py/Cargo.lock resolves a crate the root Cargo.lock also has to another
version. bindings-py is its own workspace but builds in the root's target/ (scripts/test.sh):
only equal versions (and profiles) let it reuse what `make build` compiled, HiGHS above all.
Fix a difference with `cargo update -p NAME --precise VERSION` in bindings-py/."""
import sys
import tomllib
from pathlib import Path

root = Path(__file__).resolve().parent.parent


def versions(lock: Path) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for pkg in tomllib.loads(lock.read_text())["package"]:
        out.setdefault(pkg["name"], set()).add(pkg["version"])
    return out


main = versions(root / "Cargo.lock")
py = versions(root / "bindings-py" / "Cargo.lock")
diff = sorted(
    f"{name}: root {sorted(main[name])}, bindings-py {sorted(vs)}"
    for name, vs in py.items()
    if name in main and vs != main[name] and not vs <= main[name]
)
if diff:
    print("bindings-py/Cargo.lock differs from Cargo.lock (HiGHS and the core would compile twice):")
    print("\n".join("  " + d for d in diff))
    sys.exit(1)
print(f"bindings-py/Cargo.lock: the {sum(1 for n in py if n in main)} crates it shares with Cargo.lock resolve alike")

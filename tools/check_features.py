#!/usr/bin/env python3
"""Fails when a build that contains the core resolves other features below it than `make build`.

Cargo compiles a crate again when the features of anything below it differ. `make test` builds the
core for the CLI (`make build`, reused by `cargo test`), for the Python wheel (bindings-py, a
workspace member no default build selects) and for the schema check; tools/workspace-hack pins the union of
their features so that all three reuse one compiled core. This compares, for every crate the core
depends on, the features `cargo tree` resolves in each of those builds, and names the crate and
the features that differ (add them to tools/workspace-hack/Cargo.toml, under [build-dependencies]
when build scripts or proc-macros use the crate)."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINE = re.compile(r"(\S+ v\S+)(?: \(.*?\))?(?: \(proc-macro\))? \[(.*)\]$")


def features(args: list[str], cwd: Path) -> dict[str, set[str]]:
    """Package (name and version) -> the feature sets it is resolved with, for the build `args`
    selects (two when build scripts or proc-macros use it with other features than the target)."""
    p = subprocess.run(
        ["cargo", "tree", *args, "-e", "normal,build", "-f", "{p} [{f}]", "--prefix", "none"],
        cwd=cwd, capture_output=True, text=True,
    )
    if p.returncode != 0:
        sys.exit(f"check_features: cargo tree {' '.join(args)} in {cwd} failed:\n{p.stderr}")
    out: dict[str, set[str]] = {}
    for line in p.stdout.splitlines():
        m = LINE.match(line.replace(" (*)", ""))
        if m:
            out.setdefault(m.group(1), set()).add(m.group(2))
    return out


build = features(["-p", "nodecast-cli", "-p", "nodecast-conformance"], ROOT)
core = [k for k in features(["-p", "nodecast"], ROOT) if not k.startswith("nodecast v")]
others = {
    "the CLI alone (-p nodecast-cli: the Python and wasm tests build it for their byte checks)": features(["-p", "nodecast-cli"], ROOT),
    "bindings-py (the Python wheel)": features([], ROOT / "bindings-py"),
    "the core with HiGHS (make schema, oracle-hpa, oracle-keda)": features(["-p", "nodecast", "--features", "highs"], ROOT),
}
bad = []
# Every copy the other build compiles must be one `make build` compiled. Limit: `cargo tree` does
# not say which copy is a build script's and which the target's, so a crate whose two copies
# swap features between builds passes here and still compiles again (the Python wheel's log
# shows it: `Compiling highs-sys` there means HiGHS's bindgen stack differed).
for name, other in others.items():
    for pkg in core:
        missing = other.get(pkg, set()) - build.get(pkg, set())
        if missing:
            have = " / ".join(f"[{f}]" for f in sorted(build.get(pkg, set())))
            bad.append(f"  {name}: {pkg}: here [{'] / ['.join(sorted(missing))}], make build {have}")
if bad:
    print("features below the core differ between builds (the core would compile again):")
    print("\n".join(bad))
    sys.exit(1)
print(f"the {len(core)} crates below the core resolve the same features in make build, bindings-py and the core with HiGHS")

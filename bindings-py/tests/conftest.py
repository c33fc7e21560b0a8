"""Shared fixtures. The tests import the INSTALLED nodecast (scripts/test.sh installs the wheel and
runs pytest outside the source tree); they read the repository's examples/ and compare with the
CLI built from the same core (target/release/nodecast)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any, Iterator, List

import pytest

from helpers import DAY, DAY_TRACE, REPO, cli_path


def pytest_report_header(config: Any) -> List[str]:
    import nodecast

    return [f"nodecast {nodecast.__version__} from {nodecast.__file__}", f"repository: {REPO}"]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Run every test in the repository root, so relative example paths (as the README and the
    CLI use them) name the same files, and error/skipped `source` fields match the CLI's."""
    monkeypatch.chdir(REPO)
    yield


@pytest.fixture(scope="session")
def cli() -> Path:
    """The nodecast CLI, built with `cargo build --release -p nodecast-cli` if it is missing."""
    path = cli_path()
    if not path.exists():
        subprocess.run(["cargo", "build", "--release", "-p", "nodecast-cli"], cwd=REPO, check=True)
    assert path.exists(), path
    return path


@pytest.fixture(scope="module")
def day() -> "nodecast.Simulation":
    """The simulated day (seed 7), once per test module. Module-scoped fixtures run before the
    per-test chdir to the repository root, so it changes directory itself (the input names,
    relative paths as the CLI is given them, appear in `skipped`)."""
    import nodecast

    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO)
        return nodecast.simulate(*DAY, trace=DAY_TRACE, seed=7)

"""Helpers shared by the tests (importable because pytest puts tests/ on sys.path)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

REPO = Path(os.environ.get("NODECAST_REPO", Path(__file__).resolve().parents[2])).resolve()
EXAMPLES = REPO / "examples"

TRAINING = ["examples/nodepools/gpu-general.yaml", "examples/nodepools/gpu-training.yaml", "examples/workloads/training-job-4gpu.yaml"]
INFERENCE = ["examples/nodepools/gpu-general.yaml", "examples/nodepools/gpu-inference.yaml", "examples/workloads/vllm-inference.yaml"]
UNDERUTILIZED = ["examples/disruption/pool-underutilized.yaml", "examples/disruption/cluster-state.yaml"]
NOW = "2025-03-05T12:00:00Z"

# The simulation tests' day: two GPU NodePools, a training Job and an inference Deployment, with
# the trace of examples/simulate/day.yaml; and a trace submitting only the training Job.
DAY = [
    "examples/nodepools/gpu-training.yaml",
    "examples/nodepools/gpu-inference.yaml",
    "examples/workloads/training-job-4gpu.yaml",
    "examples/workloads/vllm-inference.yaml",
]
DAY_TRACE = "examples/simulate/day.yaml"
ONE_JOB = "apiVersion: nodecast/v1\nkind: Trace\nevents:\n  - {at: 0s, submit: {ref: Job/ml/train-llm, runTime: 1h}}\n"



def cli_path() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    if not target.is_absolute():
        target = REPO / target
    return target / "release" / "nodecast"


def run_cli(cli: Path, *args: str, stdin: Optional[str] = None) -> "subprocess.CompletedProcess[str]":
    return subprocess.run([str(cli), *args], cwd=REPO, capture_output=True, text=True, input=stdin)


def cli_json(cli: Path, *args: str) -> str:
    """`nodecast ARGS -o json` stdout minus the final newline (for failures too)."""
    p = run_cli(cli, *args, "-o", "json")
    assert p.stdout.endswith("\n"), (p.returncode, p.stdout, p.stderr)
    return p.stdout[:-1]


def load_all(path: str) -> List[Dict[str, Any]]:
    """yaml.safe_load_all of a repository file, empty documents dropped."""
    yaml = pytest.importorskip("yaml")
    with open(REPO / path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def run_python(code: str) -> "subprocess.CompletedProcess[str]":
    """Run code in a fresh interpreter (the same venv), in the repository root."""
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)

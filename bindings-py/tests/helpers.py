"""Helpers shared by the tests (importable because pytest puts tests/ on sys.path)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

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


# The optimize differentials against OR-Tools CP-SAT (test_optimize*.py) share one small GPU
# catalog, the way a pod's workload is read from its name, the solve, and the CLI driver.
# (name, GPUs, vCPU, memory GiB, on-demand $/h): prices per GPU not linear in size.
GPU_TYPES = [
    ("gpu-1x", 1, 4, 16, 1.00),
    ("gpu-1x-big", 1, 16, 64, 1.60),
    ("gpu-2x", 2, 16, 64, 2.10),
    ("gpu-4x", 4, 48, 192, 4.40),
    ("gpu-8x", 8, 96, 768, 9.80),
]
SPOT = 0.35


def gpu_allocatable(g: int, c: int, m: int) -> Dict[str, str]:
    return {"cpu": f"{c * 1000 - 100}m", "memory": f"{m * 1024 - 512}Mi", "pods": "110", "nvidia.com/gpu": str(g)}


def gpu_catalog(zones: List[str]) -> Dict[str, Any]:
    """GPU_TYPES as a nodecast catalog over `zones`, spot at SPOT of on-demand."""
    return {
        "zones": zones,
        "instanceTypes": [
            {"name": n, "allocatable": gpu_allocatable(g, c, m), "onDemandPrice": p, "spotPrice": round(p * SPOT, 4)}
            for n, g, c, m, p in GPU_TYPES
        ],
    }


def workload_of(pod: str) -> int:
    """The generators name pods `NAMESPACE/w<W>-<i>`: W is the workload's index."""
    return int(pod.split("/")[1].split("-")[0][1:])


def solve_cp_sat(model: Any, seconds: float) -> Optional[float]:
    """Minimise `model` on one worker: its optimum in $/h (costs are micro-dollars), -1.0 when
    infeasible, None when CP-SAT does not prove its optimum within `seconds`."""
    from ortools.sat.python import cp_model  # type: ignore[import-untyped,import-not-found,unused-ignore]

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.catch_sigint_signal = False
    solver.parameters.max_time_in_seconds = seconds
    status = solver.Solve(model)
    if status == cp_model.INFEASIBLE:
        return -1.0
    if status != cp_model.OPTIMAL:
        return None
    return float(solver.ObjectiveValue()) / 1_000_000


def cli_optimizer(cli: str, catalog: Dict[str, Any], *flags: str) -> Callable[[List[Dict[str, Any]]], Dict[str, Any]]:
    """`nodecast optimize FLAGS` through a CLI binary, the objects as one List file."""

    def optimize(objects: List[Dict[str, Any]]) -> Dict[str, Any]:
        with tempfile.TemporaryDirectory() as d:
            path, cat = f"{d}/in.json", f"{d}/catalog.json"
            with open(path, "w", encoding="utf-8") as f:
                json.dump({"apiVersion": "v1", "kind": "List", "items": objects}, f)
            with open(cat, "w", encoding="utf-8") as f:
                json.dump(catalog, f)
            p = subprocess.run([cli, "optimize", *flags, path, "--catalog", cat, "-o", "json"], capture_output=True, text=True)
            assert p.returncode == 0, p.stdout + p.stderr
            return json.loads(p.stdout)  # type: ignore[no-any-return]

    return optimize

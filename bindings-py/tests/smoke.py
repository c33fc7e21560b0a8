"""Smoke test of the installed wheel on another interpreter (scripts/test.sh runs it with
CPython 3.9, the oldest the abi3 wheel supports): python smoke.py EXAMPLES_DIR"""

import datetime as dt
import os
import sys

import nodecast

examples = sys.argv[1]
os.chdir(os.path.dirname(os.path.abspath(examples)))
plan = nodecast.plan("examples/nodepools/gpu-general.yaml", "examples/nodepools/gpu-training.yaml", "examples/workloads/training-job-4gpu.yaml")
assert plan.node_claims[0].instance_type == "g5.12xlarge", plan
d = nodecast.consolidate(
    "examples/disruption/pool-underutilized.yaml",
    "examples/disruption/cluster-state.yaml",
    now=dt.datetime(2025, 3, 5, 12, tzinfo=dt.timezone.utc),
)
assert d.replacement is not None and d.replacement.instance_type == "g5.2xlarge", d
try:
    nodecast.validate("kind: Pod\n  bad: [\n")
except nodecast.InputError as e:
    assert e.codes == ["yaml-syntax"], e.errors()
else:
    raise AssertionError("no InputError")
html = plan._repr_html_()
assert "g5.12xlarge" in html
sim = nodecast.simulate(
    "examples/nodepools/gpu-training.yaml",
    "examples/workloads/training-job-4gpu.yaml",
    trace=[{"at": "0s", "submit": {"ref": "Job/ml/train-llm", "runTime": "1h"}}],
    seed=1,
    gpu_startup_seconds=(200, 200),
    end=dt.timedelta(minutes=30),
)
assert sim.summary is not None and sim.summary.duration_seconds == 1800, sim
assert [p.state for p in sim.pods] == ["running"], sim.pods
assert sim.nodes[0].registered_seconds == sim.nodes[0].launched_seconds + 200, sim.nodes
assert "<svg" in sim._repr_html_() and sim.to_csv().startswith("timeSeconds,")
print(f"smoke ok on Python {sys.version.split()[0]}: {plan.summary()}")

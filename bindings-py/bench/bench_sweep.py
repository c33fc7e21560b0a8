"""Sweep engines compared (benches/README.md, "Sweeps"): the week of examples/simulate over 36
NodePool layouts x 6 seeds = 216 simulations, in-process, on a process pool and on a local Ray,
from the repository root:

    .venv-py/bin/python bindings-py/bench/bench_sweep.py [--workers 2] [--seeds 6]

Prints, per engine: wall time, simulations per second, the core's own seconds, tasks, batch size,
and the overhead per task ((workers x wall - core seconds) / tasks: scheduling, pickling, reading
the spec again, idle workers at the end). Checks that every engine gave the same bytes."""

from __future__ import annotations

import argparse
import json
import time

import nodecast


def spec(seeds: int) -> dict:
    import yaml  # the spec file, with more seeds

    with open("examples/sweeps/week-capacity.yaml") as f:
        doc = yaml.safe_load(f)
    doc["seeds"] = {"from": 1, "count": seeds}
    base = "examples/sweeps/"
    doc["inputs"] = [base + p for p in doc["inputs"]]
    doc["traces"] = [base + p for p in doc["traces"]]
    return doc


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--engines", default="local,process,ray")
    ap.add_argument("--overhead", action="store_true", help="also: 200 one-pod plans, one per task (the fixed cost of a task)")
    a = ap.parse_args()
    s = spec(a.seeds)
    # Paths in a mapping spec are read relative to the working directory: write it out.
    path = "target/bench-sweep.yaml"
    with open(path, "w") as f:
        json.dump(s, f)
    s_abs = {**s, "inputs": ["../" + p for p in s["inputs"]], "traces": ["../" + p for p in s["traces"]]}
    with open(path, "w") as f:
        json.dump(s_abs, f)
    csv = None
    for engine in a.engines.split(","):
        if engine == "ray":
            import ray

            t0 = time.perf_counter()
            ray.init(num_cpus=a.workers, _node_ip_address="127.0.0.1", include_dashboard=False, log_to_driver=False)
            print(f"ray.init: {time.perf_counter() - t0:.1f} s (not counted below)")
        if a.overhead:
            tiny = nodecast.sweep("examples/nodepools/gpu-training.yaml", "examples/workloads/training-job-4gpu.yaml", operation="plan",
                                  grid=[{"name": "w", "target": "NodePool/gpu-training", "path": "spec.weight", "values": list(range(1, 201))}],
                                  engine=engine, workers=a.workers, batch_size=1, progress=False)
            ts = tiny.stats
            fixed = (ts["workers"] * ts["wall_seconds"] - ts["core_seconds"]) / ts["tasks"]
            print(f"{engine:8s} one-plan tasks: {ts['tasks']} in {ts['wall_seconds']:.2f}s, core {ts['core_seconds'] / ts['tasks'] * 1000:.2f} ms/task, "
                  f"fixed cost {fixed * 1000:.2f} ms/task")
        r = nodecast.sweep(spec=path, engine=engine, workers=a.workers, progress=False)
        st = r.stats
        workers = st["workers"]
        wall, core, tasks = st["wall_seconds"], st["core_seconds"], st["tasks"]
        overhead = (workers * wall - core) / tasks
        print(f"{engine:8s} workers={workers} runs={r.completed} wall={wall:.2f}s runs/s={r.completed / wall:.1f} "
              f"core={core:.2f}s ({core / r.completed * 1000:.1f} ms/run) tasks={tasks} batch={st['batch_size']} "
              f"overhead/task={overhead * 1000:.1f} ms ({overhead / (core / tasks) * 100:.1f} % of a task's work)")
        out = r.to_csv()
        assert csv is None or out == csv, f"{engine} differs"
        csv = out
    print("same bytes from every engine")


if __name__ == "__main__":
    main()

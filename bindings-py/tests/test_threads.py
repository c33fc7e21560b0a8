"""The GIL is released while the core computes: threads plan concurrently, and Python code keeps
running while a long native call is in progress."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List

import nodecast
from helpers import INFERENCE, NOW, TRAINING, UNDERUTILIZED
from nodecast import _native


def test_two_threads_plan_concurrently() -> None:
    expected = {
        "training": nodecast.plan(*TRAINING).to_json(),
        "inference": nodecast.plan(*INFERENCE).to_json(),
        "decision": nodecast.consolidate(*UNDERUTILIZED, now=NOW).to_json(),
    }
    barrier = threading.Barrier(2)

    def work(name: str) -> List[str]:
        barrier.wait()
        out = []
        for _ in range(10):
            if name == "training":
                out.append(nodecast.plan(*TRAINING).to_json())
            else:
                out.append(nodecast.plan(*INFERENCE).to_json())
                out.append(nodecast.consolidate(*UNDERUTILIZED, now=NOW).to_json())
        return out

    with ThreadPoolExecutor(max_workers=2) as pool:
        a = pool.submit(work, "training")
        b = pool.submit(work, "inference")
        got_a, got_b = a.result(timeout=120), b.result(timeout=120)
    assert got_a == [expected["training"]] * 10
    assert got_b == [expected["inference"], expected["decision"]] * 10


def _big_request(pods: int) -> str:
    objs: List[Dict[str, Any]] = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"p{i}", "namespace": "d", "labels": {"app": f"a{i % 40}"}},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": ["250m", "500m", "1", "2"][i % 4], "memory": ["512Mi", "1Gi", "2Gi"][i % 3]}}}]},
        }
        for i in range(pods)
    ]
    return nodecast.request_json("examples/nodepools/gpu-general.yaml", objs)


def test_python_runs_while_the_core_computes() -> None:
    pods = 3000
    while True:  # a request that takes at least 0.1 s on this machine
        request = _big_request(pods)
        t0 = time.perf_counter()
        _native.call("plan", request)
        alone = time.perf_counter() - t0
        if alone >= 0.1 or pods >= 48000:
            break
        pods *= 2

    done = threading.Event()
    started = threading.Event()

    def native() -> None:
        started.set()
        _native.call("plan", request)
        done.set()

    th = threading.Thread(target=native)
    stamps: List[float] = []
    th.start()
    started.wait()
    while not done.is_set():
        stamps.append(time.perf_counter())
    th.join()
    gaps = [b - a for a, b in zip(stamps, stamps[1:])]
    # Holding the GIL for the whole call would stop this loop for about `alone` seconds.
    assert len(stamps) > 1000
    assert max(gaps) < alone / 2, f"longest pause {max(gaps):.3f} s during a {alone:.3f} s native call"

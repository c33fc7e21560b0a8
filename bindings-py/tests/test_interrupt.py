"""Ctrl-C stops a long native call: the core polls a cancellation hook in its long loops, and the
binding runs Python's signal handlers there every 20 ms, so ``KeyboardInterrupt`` arrives while
the call runs (before: only after it returned, seconds or minutes later)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

# A plan that takes seconds from small text: 40 NodePools and Deployments of 100 replicas, each
# Deployment a distinct pod shape (decoding text is not interruptible, so the time must go into
# scheduling, which polls). The child prints READY and the calibrated call's seconds right before the call, then either
# INTERRUPTED <monotonic time> or FINISHED <seconds>.
CHILD = textwrap.dedent(
    """
    import signal, sys, time
    import nodecast
    # Python's own Ctrl-C handler, even when this test runs in the background: a shell starts
    # background jobs with SIGINT ignored, the child inherits that, and Python then keeps it
    # ignored (no KeyboardInterrupt at all, whatever the binding does).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    pools = "".join(
        "---\\napiVersion: karpenter.sh/v1\\nkind: NodePool\\nmetadata: {name: np%d}\\nspec:\\n  template:\\n    spec:\\n"
        "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\\n      requirements: []\\n" % i
        for i in range(int(sys.argv[2]))
    )
    def deployments(replicas):
        return "".join(
            "---\\napiVersion: apps/v1\\nkind: Deployment\\nmetadata: {name: d%d}\\nspec:\\n  replicas: %d\\n"
            "  selector: {matchLabels: {app: d%d}}\\n  template:\\n    metadata: {labels: {app: d%d}}\\n"
            "    spec: {containers: [{name: c, resources: {requests: {cpu: %dm, memory: %dMi}}}]}\\n"
            % (i, replicas, i, i, 100 + i * 7, 128 + i * 13)
            for i in range(int(sys.argv[1]))
        )
    # Calibrate: double the replicas until one call takes >= 2.5 s on this machine (the engine
    # got faster more than once; a fixed size stopped being "long").
    replicas = 25
    while True:
        text = deployments(replicas)
        start = time.monotonic()
        nodecast.plan(pools, text)
        took = time.monotonic() - start
        if took >= 2.5 or replicas >= 800:
            break
        replicas *= 2
    print("READY %.3f" % took, flush=True)
    start = time.monotonic()
    try:
        nodecast.plan(pools, text)
    except KeyboardInterrupt:
        print("INTERRUPTED %.6f" % time.monotonic(), flush=True)
        sys.exit(0)
    print("FINISHED %.3f" % (time.monotonic() - start), flush=True)
    """
)

DEPLOYMENTS = int(os.environ.get("NODECAST_INTERRUPT_DEPLOYMENTS", "2000"))
POOLS = int(os.environ.get("NODECAST_INTERRUPT_POOLS", "40"))


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_interrupts_a_long_call_within_about_100_ms() -> None:
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(DEPLOYMENTS), str(POOLS)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        ready = child.stdout.readline().split()
        assert ready[0] == "READY", ready
        # 40 % in, the call is scheduling (3.6 s in all on an idle 2-core VM). Decoding and
        # lowering the text (the first ~0.9 s there, 2026-11-28) poll only between documents,
        # and the end of lowering not at all: a signal there takes up to ~0.5 s. A fixed 1 s
        # landed there on a slower run, so the moment follows the calibrated call's length.
        after = os.environ.get("NODECAST_INTERRUPT_AFTER")
        time.sleep(float(after) if after else max(1.0, 0.4 * float(ready[1])))
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        line = child.stdout.readline().strip()
        child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert line.startswith("INTERRUPTED"), f"the call was not interrupted: {line!r} (make it longer: NODECAST_INTERRUPT_DEPLOYMENTS)"
    latency = float(line.split()[1]) - sent
    print(f"KeyboardInterrupt {latency * 1000:.1f} ms after SIGINT")
    # ~100 ms is the goal (20 ms polling + one loop step); the bound leaves room for a loaded
    # 2-core CI machine.
    assert latency < 0.25, f"KeyboardInterrupt came {latency:.3f} s after SIGINT"


def test_an_uninterrupted_call_is_unchanged() -> None:
    # The hook runs in every call: a plan without a signal answers as always (determinism is
    # covered by test_determinism; here only that nothing is raised).
    import nodecast
    from helpers import TRAINING, REPO

    p = nodecast.plan(*[REPO / f for f in TRAINING])
    assert p.node_claims

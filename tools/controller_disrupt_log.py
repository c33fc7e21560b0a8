#!/usr/bin/env python3
"""Karpenter's first disruption decisions of an `oracle controller` run, read back from disk.

`oracle controller` compares its disruption phases with nodecast only when a process ends. When a
run is stopped early (the 2026-11-29 re-run, oracle/README.md), this rebuilds the comparison from
what each process left in its -out directory: the phases' inputs (`ctl-<seed>-d.yaml`, whose
clock.now is when the cluster was read, just before the budgets opened) and Karpenter's own
`disrupting node(s)` log lines in karpenter.log (the first within 50 s of the reading is the
decision). nodecast answers the inputs through nodecast-conformance --oracle. Compared: decision,
reason, the exact set of Nodes and the number of replacements (the oracle's CompareDisrupt without
the replacement's options and launch, and without the in-process Karpenter's tie rule).

usage: tools/controller_disrupt_log.py NODECAST_CONFORMANCE OUT_DIR...
"""
import collections
import datetime
import glob
import json
import os
import re
import statistics
import subprocess
import sys


def when(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))


def main(conformance, dirs):
    rows, delays = [], []
    for d in dirs:
        files = sorted(glob.glob(os.path.join(d, "*-d.yaml")))
        if not files:
            continue
        commands = []
        with open(os.path.join(d, "karpenter.log")) as log:
            for line in log:
                if '"disrupting node(s)"' in line:
                    j = json.loads(line)
                    commands.append((when(j["time"]), j))
        out = subprocess.run([conformance, "--oracle"] + files, capture_output=True, text=True, check=True).stdout
        nodecast = {}
        for line in out.splitlines():
            j = json.loads(line)
            if j.get("record") == "scenario":
                nodecast[j["name"]] = j.get("nodecast") or {}
        for f in files:
            name = os.path.basename(f)[: -len(".yaml")]
            with open(f) as fh:
                now = when(re.search(r'now: "([^"]+)"', fh.read()).group(1))
            k = [j for t, j in commands if now - datetime.timedelta(seconds=2) <= t <= now + datetime.timedelta(seconds=50)]
            if k:
                delays.append((when(k[0]["time"]) - now).total_seconds())
                kd, kr = k[0]["decision"], k[0]["command"].split("/")[0].lower()
                kn = sorted(x["Node"]["name"] for x in k[0]["disrupted-nodes"])
                krep = k[0]["replacement-node-count"]
            else:
                kd, kr, kn, krep = "none", "", [], 0
            n = nodecast.get(name, {})
            nd, nr, nn, nrep = n.get("decision", "error"), n.get("reason", ""), sorted(n.get("nodes") or []), n.get("replacements", 0)
            if nd != kd:
                cls = f"decision differs (nodecast {nd}, karpenter {kd})"
            elif nd == "none":
                cls = ""
            elif nr != kr:
                cls = f"reason differs (nodecast {nr}, karpenter {kr})"
            elif nn != kn:
                cls = "disrupted nodes differ" + (" (same count)" if len(nn) == len(kn) else "")
            elif nrep != krep:
                cls = "replacement count differs"
            else:
                cls = ""
            rows.append((name, cls, f"{kd}/{kr}" if kr else kd, nn, kn))
    agree = sum(1 for r in rows if not r[1])
    print(f"{agree} of {len(rows)} first decisions agree")
    print("karpenter:", dict(collections.Counter(r[2] for r in rows)))
    if delays:
        print(f"reading -> log line: median {statistics.median(delays):.0f} s, {min(delays):.0f}-{max(delays):.0f} s")
    for r in rows:
        if r[1]:
            print(f"{r[0]}: {r[1]}: nodecast {r[3]}, karpenter {r[4]}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])

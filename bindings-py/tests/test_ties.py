"""Karpenter's own nondeterminism is disclosed on the NodeClaim (``NodeClaim.ties``)."""

from __future__ import annotations

from pathlib import Path

import nodecast

MANIFEST = """
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}
      containers:
      - {name: web, image: pause, resources: {requests: {cpu: "1", memory: 1Gi}}}
"""


def test_zone_spread_ties_are_disclosed(tmp_path: Path) -> None:
    f = tmp_path / "spread.yaml"
    f.write_text(MANIFEST)
    plan = nodecast.plan(f)
    first, second = plan.node_claims
    (tie,) = first.ties
    assert isinstance(tie, nodecast.DomainTie)
    assert tie.key == "topology.kubernetes.io/zone"
    assert tie.candidates == ("us-east-1a", "us-east-1b", "us-east-1c")
    assert tie.value == first.zone and tie.value in tie.candidates
    assert tie.message.startswith("the zone is a tie among us-east-1a, us-east-1b, us-east-1c in Karpenter")
    assert second.ties[0].candidates == ("us-east-1b", "us-east-1c")
    assert "note: the zone is a tie" in plan._repr_html_()


def test_no_tie_no_entries() -> None:
    plan = nodecast.plan("examples/nodepools/gpu-general.yaml", "examples/nodepools/gpu-training.yaml", "examples/workloads/training-job-4gpu.yaml")
    assert all(c.ties == () for c in plan.node_claims)

"""Results: frozen, hashable, typed; pandas frames; Jupyter HTML."""

from __future__ import annotations

import dataclasses
import json
from html.parser import HTMLParser
from typing import List, Tuple

import pytest

import nodecast
from helpers import INFERENCE, NOW, REPO, TRAINING, UNDERUTILIZED, run_python


def test_results_are_frozen() -> None:
    plan = nodecast.plan(*TRAINING)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.total_price_per_hour = 0.0  # type: ignore[misc]
    c = plan.node_claims[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.instance_type = "t3.micro"  # type: ignore[misc]
    with pytest.raises(TypeError):
        c.labels["workload-type"] = "x"  # type: ignore[index]
    with pytest.raises(AttributeError):
        c.pods.append("x")  # type: ignore[attr-defined]
    assert isinstance(plan.node_claims, tuple)
    # to_dict() is a fresh copy: changing it changes nothing.
    d = plan.to_dict()
    d["nodeClaims"][0]["instanceType"] = "changed"
    assert plan.to_dict()["nodeClaims"][0]["instanceType"] == "g5.12xlarge"
    assert json.loads(plan.to_json())["nodeClaims"][0]["instanceType"] == "g5.12xlarge"


def test_results_are_hashable_and_compare_by_value() -> None:
    a, b = nodecast.plan(*TRAINING), nodecast.plan(*TRAINING)
    assert a == b and hash(a) == hash(b)
    assert a != nodecast.plan(*INFERENCE)
    assert len({a, b}) == 1
    d = nodecast.consolidate(*UNDERUTILIZED, now=NOW)
    assert hash(d) == hash(nodecast.consolidate(*UNDERUTILIZED, now=NOW))
    assert a.node_claims[0].labels == a.to_dict()["nodeClaims"][0]["labels"]  # FrozenMap == dict
    assert repr(a) == "<nodecast.Plan: 1 new NodeClaim: $5.672/h for 1 pod; 0 pods on existing nodes; 0 pods unschedulable>"
    assert repr(a.node_claims[0]).startswith("NodeClaim(name='gpu-training-1', node_pool='gpu-training', instance_type='g5.12xlarge'")


def test_every_result_has_the_conversions() -> None:
    results = [
        nodecast.plan(*TRAINING),
        nodecast.consolidate(*UNDERUTILIZED, now=NOW),
        nodecast.explain(*TRAINING, pod="ml/train-llm-0"),
        nodecast.validate(*TRAINING),
        nodecast.catalog(gpu=True, limit=5),
    ]
    for r in results:
        assert json.loads(r.to_json()) == r.to_dict()
        assert r.to_dict()["kind"] == r.kind
        assert r.api_version == "nodecast/v1"
        frame = r.to_pandas()
        assert len(frame) >= 1, type(r)
        assert str(r)


def test_plan_to_pandas() -> None:
    pd = pytest.importorskip("pandas")
    plan = nodecast.plan(*INFERENCE)
    df = plan.to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert list(df["name"]) == ["gpu-inference-1", "gpu-inference-2"]
    assert list(df["instance_type"]) == ["g6.2xlarge", "g6.2xlarge"]
    assert list(df["pods"]) == [1, 1]
    assert list(df["pod_names"]) == ["inference/vllm-mistral-7b-0", "inference/vllm-mistral-7b-1"]
    assert list(df["gpu_utilization"]) == [1.0, 1.0]
    assert list(df["gpu_resource"]) == ["nvidia.com/gpu"] * 2
    assert df["price_per_hour"].sum() == pytest.approx(plan.total_price_per_hour)
    pods = plan.pods_frame()
    assert list(pods["placement"]) == ["new-node-claim"] * 2
    assert list(pods["namespace"]) == ["inference"] * 2


def test_pods_frame_has_unschedulable_pods() -> None:
    pytest.importorskip("pandas")
    plan = nodecast.plan("examples/nodepools/gpu-inference.yaml", "examples/workloads/gpu-notebook.yaml")
    pods = plan.pods_frame()
    row = pods.iloc[0]
    assert (row["pod"], row["placement"], row["code"]) == ("research/notebook-gpu", "unschedulable", "taint-not-tolerated")
    assert plan.to_pandas().empty and list(plan.to_pandas().columns)[:3] == ["name", "node_pool", "instance_type"]


def test_decision_and_catalog_to_pandas() -> None:
    pytest.importorskip("pandas")
    df = nodecast.consolidate(*UNDERUTILIZED, now=NOW).to_pandas()
    assert list(df["name"]) == ["ip-10-0-3-41.ec2.internal"]
    assert bool(df["disrupted"].iloc[0]) and df["verdict"].iloc[0] == "disrupted"
    kept = nodecast.consolidate("examples/disruption/pool-when-empty.yaml", "examples/disruption/cluster-state.yaml", now=NOW).to_pandas()
    assert kept["verdict"].iloc[0] == "policy-when-empty"
    cat = nodecast.catalog(gpu=True, requirements="karpenter.k8s.aws/instance-gpu-name In h100").to_pandas()
    assert list(cat["name"]) == ["p5.4xlarge", "p5.48xlarge"]


def test_import_and_to_pandas_without_pandas() -> None:
    p = run_python(
        "import sys; sys.modules['pandas'] = None\n"
        "import nodecast\n"
        f"plan = nodecast.plan(*{TRAINING!r})\n"
        "assert plan.node_claims[0].instance_type == 'g5.12xlarge'\n"
        "assert '<table' in plan._repr_html_()\n"
        "try:\n"
        "    plan.to_pandas()\n"
        "except ImportError as e:\n"
        "    print('ImportError:', e)\n"
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("ImportError: to_pandas() needs pandas, which is not installed: pip install pandas")


class _Checker(HTMLParser):
    """Well-formedness of the fragment: every opened tag closed, in order; no script."""

    VOID = {"br", "hr", "img", "meta", "input"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: List[str] = []
        self.tags: List[str] = []
        self.text: List[str] = []

    def handle_starttag(self, tag: str, attrs: List[Tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, _ in attrs:
            assert not name.startswith("on"), name
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, (self.stack, tag)
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _check(html: str) -> _Checker:
    c = _Checker()
    c.feed(html)
    c.close()
    assert c.stack == []
    assert "script" not in c.tags and "style" not in c.tags
    return c


def test_plan_html_has_a_table_and_packing_bars() -> None:
    plan = nodecast.plan(*TRAINING)
    html = plan._repr_html_()
    c = _check(html)
    text = " ".join(c.text)
    assert "g5.12xlarge" in text and "$5.672" in text and "ml/train-llm-0" in text
    assert "table" in c.tags
    # bars: cpu 67%, memory 76%, gpu 100% (from utilization)
    assert "width:66.9%" in html and "width:75.6%" in html and "width:100.0%" in html
    assert "gpu" in text and "100%" in text


def test_plan_html_shows_unschedulable_pods() -> None:
    plan = nodecast.plan("examples/nodepools/gpu-training.yaml", "examples/workloads/training-job-16gpu.yaml")
    text = " ".join(_check(plan._repr_html_()).text)
    assert "ml/train-70b-0" in text and "no-instance-type-fits" in text


def test_html_escapes_text() -> None:
    evil = "apiVersion: v1\nkind: '<script>alert(1)</script>'\nmetadata: {name: '<b>x</b>'}\n"
    plan = nodecast.plan(*TRAINING, evil)
    assert any(s.kind == "<script>alert(1)</script>" for s in plan.skipped)
    html = plan._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    _check(html)


def test_decision_html() -> None:
    d = nodecast.consolidate(*UNDERUTILIZED, now=NOW)
    html = d._repr_html_()
    text = " ".join(_check(html).text)
    assert "g5.2xlarge" in text and "ip-10-0-3-41.ec2.internal" in text and "disrupted" in text
    assert "$3255.80/month saved" in text
    kept = nodecast.consolidate("examples/disruption/pool-business-hours.yaml", "examples/disruption/cluster-state.yaml", now=NOW)
    text = " ".join(_check(kept._repr_html_()).text)
    assert "budget" in text and "no action" in text


def test_big_plans_are_cut_in_html() -> None:
    pods = [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "d"},
         "spec": {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
             {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "a"}}}]}},
             "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}
        for i in range(60)
    ]
    for p in pods:
        p["metadata"]["labels"] = {"app": "a"}
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
            "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                                           "requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["m5"]}]}}}}
    plan = nodecast.plan(pool, pods)
    assert len(plan.node_claims) == 60
    html = plan._repr_html_()
    assert html.count("<tr>") == 51  # header + 50 rows
    assert "… and 10 more NodeClaims" in html
    assert len(plan.to_pandas()) == 60


BALANCED = ("examples/disruption/pool-balanced.yaml", "examples/disruption/cluster-state.yaml")
SPOT = ("examples/disruption/pool-spot.yaml", "examples/disruption/cluster-state-spot.yaml")


def test_balanced_score_in_decision_and_node_verdict() -> None:
    d = nodecast.consolidate(*BALANCED, now=NOW)
    assert d.decision == "replace"
    (score,) = d.scores
    assert isinstance(score, nodecast.BalancedScore)
    assert score.node_pool == "gpu-training" and score.move == "replace"
    assert score.approved and score.threshold == 0.5 and score.k == 2
    assert 0.786 <= score.score <= 0.787
    assert "cluster-cost tracker" in score.pool_cost_source
    (node,) = d.nodes
    assert node.disrupted and node.score == score
    ex = nodecast.explain(*BALANCED, node="ip-10-0-3-41.ec2.internal", now=NOW)
    assert ex.node is not None and ex.node.node.score == score
    assert "Balanced score of the replace 0.79 >= threshold 0.50" in ex.node.summary
    assert "Balanced score" in d._repr_html_()


def test_spot_to_spot_consolidation_option() -> None:
    off = nodecast.consolidate(*SPOT, now=NOW)
    assert off.decision == "none"
    assert off.nodes[0].reasons[0].code == "spot-to-spot-disabled"
    on = nodecast.consolidate(*SPOT, now=NOW, spot_to_spot_consolidation=True)
    assert on.decision == "replace"
    assert on.replacement is not None and on.replacement.capacity_type == "spot"
    assert len(on.replacement.instance_type_options) == 15
    # Karpenter's --feature-gates spelling and a mapping give the same answer.
    flag = nodecast.consolidate(*SPOT, now=NOW, feature_gates="SpotToSpotConsolidation=true")
    mapping = nodecast.consolidate(*SPOT, now=NOW, feature_gates={"SpotToSpotConsolidation": True})
    assert flag.to_json() == on.to_json() == mapping.to_json()
    # Every Karpenter v1.15 gate is modelled; an AWS provider gate nodecast does not model,
    # moved from its default, is refused (located).
    nodecast.consolidate(*SPOT, now=NOW, feature_gates={"NodeRepair": True})
    with pytest.raises(nodecast.InputError) as e:
        nodecast.consolidate(*SPOT, now=NOW, aws_feature_gates={"RebootForRepair": True})
    assert e.value.errors()[0]["path"] == "settings.awsFeatureGates.RebootForRepair"


def test_ties_are_disclosed() -> None:
    nodes = "\n---\n".join(
        f"""apiVersion: v1
kind: Node
metadata:
  name: {n}
  creationTimestamp: "2025-03-05T08:00:00Z"
  labels: {{karpenter.sh/nodepool: gpu-training, node.kubernetes.io/instance-type: g5.12xlarge,
    karpenter.sh/capacity-type: on-demand, topology.kubernetes.io/zone: us-east-1a}}
status:
  allocatable: {{cpu: 47810m, memory: 173400Mi, pods: "234", nvidia.com/gpu: "4"}}"""
        for n in ("gpu-a", "gpu-b", "gpu-c")
    )
    pool = (REPO / "examples/disruption/pool-when-empty.yaml").read_text()
    d = nodecast.consolidate(pool, nodes, now=NOW)
    assert d.method == "emptiness" and len(d.disrupted_nodes) == 1
    (tie,) = d.ties
    assert isinstance(tie, nodecast.Tie)
    assert tie.count == 1 and tie.nodes == ("gpu-a", "gpu-b", "gpu-c")
    assert tie.message.startswith("Karpenter may pick any of: gpu-a, gpu-b, gpu-c")
    ex = nodecast.explain(pool, nodes, node="gpu-c", now=NOW)
    assert ex.node is not None and ex.node.ties == (tie,)
    assert "Karpenter may pick" in d._repr_html_()

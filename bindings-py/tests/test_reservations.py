"""reservations=: the output of `aws ec2 describe-capacity-reservations`, as a parsed dict or a
path, on every function that takes documents. The binding only appends the document to the
request (a dict to `objects`, a file to `inputs`), so the answers equal those of the same
document passed as a source, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict

import pytest

import nodecast

CLUSTER = "examples/reservations/cluster.yaml"
RESERVATIONS = "examples/reservations/reservations.json"
NOW = "2026-12-01T12:00:00Z"


def parsed() -> Dict[str, Any]:
    with open(RESERVATIONS, encoding="utf-8") as f:
        data: Dict[str, Any] = json.load(f)
    return data


def test_plan_takes_the_parsed_dict_and_a_path() -> None:
    as_source = nodecast.plan(CLUSTER, RESERVATIONS, now=NOW)
    from_dict = nodecast.plan(CLUSTER, reservations=parsed(), now=NOW)
    from_str = nodecast.plan(CLUSTER, reservations=RESERVATIONS, now=NOW)
    from_path = nodecast.plan(CLUSTER, reservations=Path(RESERVATIONS), now=NOW)
    assert from_str.to_json() == as_source.to_json() == from_path.to_json()
    # A dict goes to the request's objects: the same answer, except where the input is named.
    assert from_dict.node_claims == as_source.node_claims
    claim = from_dict.node_claims[0]
    assert (claim.capacity_type, claim.reservation_id) == ("reserved", "cr-0a1b2c3d4e5f60001")
    used = {r.id: (r.used, r.offered) for r in from_dict.reservations}
    assert used == {"cr-0a1b2c3d4e5f60001": (1, True), "cr-0a1b2c3d4e5f60002": (0, False)}


def test_the_request_carries_the_document_unchanged() -> None:
    req = json.loads(nodecast.request_json(CLUSTER, reservations=parsed()))
    assert req["objects"] == [parsed()]
    req = json.loads(nodecast.request_json(CLUSTER, reservations=[RESERVATIONS]))
    assert [i["name"] for i in req["inputs"]] == [CLUSTER, RESERVATIONS]


def test_without_the_time_the_answer_says_the_use_depends_on_it() -> None:
    p = nodecast.plan(CLUSTER, reservations=parsed())
    assert any(w.code == "reservation-time-unknown" for w in p.warnings)


def test_explain_consolidate_optimize_advise_take_it() -> None:
    e = nodecast.explain(CLUSTER, pod="train-llm-0", now=NOW, reservations=parsed())
    assert e.pod is not None
    d = nodecast.consolidate(CLUSTER, now=NOW, reservations=RESERVATIONS)
    assert isinstance(d, nodecast.Decision)
    o = nodecast.optimize(CLUSTER, now=NOW, reservations=parsed())
    assert [c.reservation_id for c in o.node_claims] == ["cr-0a1b2c3d4e5f60001"]
    a = nodecast.advise(CLUSTER, now=NOW, reservations=parsed())
    assert isinstance(a, nodecast.Advice) and a.karpenter_price_per_hour == o.karpenter_price_per_hour


def test_advise_proposes_reserved_where_a_block_is_idle() -> None:
    # The on-demand NodePool alone, its EC2NodeClass selecting two idle blocks.
    import yaml

    docs = [
        d
        for d in yaml.safe_load_all(Path(CLUSTER).read_text())
        if d and not (d["kind"] == "NodePool" and d["metadata"]["name"] == "p5-reserved")
    ]
    job = next(d for d in docs if d["kind"] == "Job")
    job["spec"]["parallelism"] = job["spec"]["completions"] = 1
    a = nodecast.advise(docs, now="2026-12-01T11:00:00Z", reservations=parsed())
    kinds = [x.kind for x in a.advice]
    assert "allow-reserved" in kinds, kinds
    adv = a.advice[kinds.index("allow-reserved")]
    assert adv.edits[0].node_pool == "p5-on-demand"
    assert adv.plan.launches == ("1 × p5.48xlarge reserved (p5-on-demand)",)


def test_simulate_takes_it() -> None:
    trace = {"apiVersion": "nodecast/v1", "kind": "Trace", "events": []}
    s = nodecast.simulate(CLUSTER, trace=trace, reservations=parsed())
    assert isinstance(s, nodecast.Simulation)


def test_bad_reservations_are_clear_errors() -> None:
    with pytest.raises(TypeError, match="describe-capacity-reservations"):
        nodecast.plan(CLUSTER, reservations=42)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        nodecast.plan(CLUSTER, reservations="no/such/reservations.json")
    bad = parsed()
    del bad["CapacityReservations"][0]["InstanceType"]
    with pytest.raises(nodecast.InputError) as e:
        nodecast.plan(CLUSTER, reservations=bad)
    assert "InstanceType" in str(e.value)


def test_price_documents_and_the_auto_mode_fee_table_are_documents_like_any_other() -> None:
    """Issue 31: a fee table (a dict or a file) reaches the core unchanged from Python."""
    cluster = {"computeConfig": {"enabled": True, "nodePools": ["general-purpose"]}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
           "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}
    base = nodecast.plan(cluster, pod)
    claim = base.node_claims[0]
    assert claim.auto_mode_fee_per_hour is None and base.auto_mode_fee_per_hour is None
    fees = {"region": "us-east-1", "autoModeFee": {claim.instance_type: 0.02}}
    with_fee = nodecast.plan(cluster, pod, fees)
    assert with_fee.node_claims[0].instance_type == claim.instance_type
    assert with_fee.node_claims[0].auto_mode_fee_per_hour == 0.02
    assert with_fee.auto_mode_fee_per_hour == 0.02
    assert abs(with_fee.total_price_per_hour - (base.total_price_per_hour + 0.02)) < 1e-9
    with pytest.raises(nodecast.InputError):
        nodecast.plan(cluster, pod, {"region": "us-east-1", "autoModeFee": {claim.instance_type: "cheap"}})

"""nodecast.advise: the result class on the README's worked GPU example, its byte identity with
`nodecast advise -o json`, every advised edit re-planned by the user's route (edit the manifest,
call plan) to the stated price, and located errors."""

from __future__ import annotations

import copy
from typing import Any, Dict, List

import pytest

import nodecast
from helpers import EXAMPLES, cli_json, cli_path, load_all

POOL = "examples/nodepools/gpu-training.yaml"
PODS = "examples/workloads/eval-jobs-1gpu.yaml"


def apply(objects: List[Dict[str, Any]], edit: nodecast.AdviceEdit) -> None:
    pool = next(o for o in objects if o.get("kind") == "NodePool" and o["metadata"]["name"] == edit.node_pool)
    if edit.path == "spec.template.spec.requirements":
        reqs = pool["spec"]["template"]["spec"].setdefault("requirements", [])
        same = [i for i, r in enumerate(reqs) if r["key"] == edit.value["key"] and r["operator"] == edit.value["operator"]]
        if same:
            reqs[same[0]] = edit.value
        else:
            reqs.append(edit.value)
    elif edit.path.startswith("spec.template.spec.requirements[key="):
        key = edit.path.split("[key=", 1)[1].rstrip("]")
        reqs = pool["spec"]["template"]["spec"]["requirements"]
        idx = [i for i, r in enumerate(reqs) if r["key"] == key]
        if idx:
            reqs[idx[0]] = edit.value
        else:
            reqs.append(edit.value)
    elif edit.path == "spec.weight":
        pool["spec"]["weight"] = edit.value
    else:
        raise AssertionError(f"unexpected path {edit.path}")


def test_worked_example_every_advice_replans_cheaper(tmp_path: Any) -> None:
    a = nodecast.advise(str(EXAMPLES / "nodepools/gpu-training.yaml"), str(EXAMPLES / "workloads/eval-jobs-1gpu.yaml"))
    assert isinstance(a, nodecast.Advice) and a.kind == "Advice"
    assert (a.karpenter_price_per_hour, a.optimum_price_per_hour, a.optimum_certificate) == (16.288, 6.06, "optimal")
    assert a.stats is not None and a.stats.candidates <= a.stats.candidate_limit
    kinds = [x.kind for x in a.advice]
    assert "gpu-count-bound" in kinds
    base = load_all(POOL) + load_all(PODS)
    for x in a.advice:
        objects = copy.deepcopy(base)
        for e in x.edits:
            apply(objects, e)
        p = nodecast.plan(*objects)
        assert p.total_price_per_hour == pytest.approx(x.plan.price_per_hour)
        assert p.total_price_per_hour < a.karpenter_price_per_hour
        assert x.savings_per_hour == pytest.approx(a.karpenter_price_per_hour - p.total_price_per_hour)
        assert x.diff.startswith("--- nodepool/")
    bound = a.advice[kinds.index("gpu-count-bound")]
    assert bound.plan.launches == ("5 × g5.2xlarge on-demand (gpu-training)",)
    assert bound.gap_recovered_percent == 100.0
    df = a.to_pandas()
    assert list(df["rank"]) == list(range(1, len(a.advice) + 1))
    assert "gpu-count" in a._repr_html_()
    # The same bytes as the CLI.
    assert cli_json(cli_path(), "advise", POOL, PODS, "--top", "2") == nodecast.advise(POOL, PODS, top=2).to_json()


def test_bad_top_raises_input_error() -> None:
    with pytest.raises(nodecast.InputError):
        nodecast.advise(str(EXAMPLES / "nodepools/gpu-training.yaml"), top=99)
    with pytest.raises(TypeError):
        nodecast.advise(str(EXAMPLES / "nodepools/gpu-training.yaml"), top="3")  # type: ignore[arg-type]


def test_short_reprs_and_no_reexported_typing_names() -> None:
    a = nodecast.advise(str(EXAMPLES / "nodepools/gpu-training.yaml"), str(EXAMPLES / "workloads/eval-jobs-1gpu.yaml"))
    o = nodecast.optimize(str(EXAMPLES / "nodepools/gpu-training.yaml"), str(EXAMPLES / "workloads/eval-jobs-1gpu.yaml"))
    for answer in (a, o):
        text = repr(answer)
        assert text.startswith(f"<nodecast.{type(answer).__name__}: ") and "\n" not in text and len(text) < 300, text
    for name in ("Any", "os", "Optional", "Mapping", "Union", "TypeVar"):
        assert not hasattr(nodecast, name), name

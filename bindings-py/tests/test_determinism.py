"""to_json() is byte-identical to `nodecast <fn> ... -o json` (minus the final newline), for every
example scenario, for explain/validate/catalog, and for failure answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

import nodecast
from helpers import EXAMPLES, NOW, TRAINING, cli_json, run_cli


def _scenarios() -> List[Dict[str, Any]]:
    yaml = pytest.importorskip("yaml")
    with open(EXAMPLES / "expectations.yaml", encoding="utf-8") as f:
        return list(yaml.safe_load(f))


SCENARIOS = _scenarios()


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
def test_every_example_matches_the_cli(cli: Path, scenario: Dict[str, Any], tmp_path: Path) -> None:
    files = [f"examples/{f}" for f in scenario["files"]]
    args: List[str] = []
    kwargs: Dict[str, Any] = {}
    cat = scenario.get("catalog")
    if isinstance(cat, dict):
        cat_file = tmp_path / "catalog.json"
        cat_file.write_text(json.dumps(cat))
        args += ["--catalog", str(cat_file)]
        kwargs["catalog"] = cat
    if scenario["kind"] == "provision":
        result: nodecast.Plan | nodecast.Decision = nodecast.plan(*files, **kwargs)
        expected = cli_json(cli, "plan", *files, *args)
    else:
        now = scenario["clock"]["now"]
        result = nodecast.consolidate(*files, now=now, **kwargs)
        expected = cli_json(cli, "consolidate", "--now", now, *files, *args)
    assert result.to_json() == expected
    # Deterministic across calls too.
    again = nodecast.plan(*files, **kwargs) if scenario["kind"] == "provision" else nodecast.consolidate(*files, now=scenario["clock"]["now"], **kwargs)
    assert again.to_json() == expected
    assert again == result


def test_options_match_the_cli(cli: Path) -> None:
    files = ["examples/nodepools/gpu-general.yaml", "examples/nodepools/gpu-inference.yaml", "examples/workloads/vllm-inference.yaml"]
    got = nodecast.plan(*files, zones="us-east-1b,us-east-1c", spot_price_factor=0.35, min_values_policy="BestEffort", preference_policy="Ignore")
    expected = cli_json(
        cli, "plan", *files, "--zones", "us-east-1b,us-east-1c", "--spot-price-factor", "0.35",
        "--min-values-policy", "BestEffort", "--preference-policy", "Ignore",
    )
    assert got.to_json() == expected


def test_explain_validate_catalog_match_the_cli(cli: Path) -> None:
    e = nodecast.explain(*TRAINING, pod="ml/train-llm-0", instance_type="p4d.24xlarge")
    assert e.to_json() == cli_json(cli, "explain", *TRAINING, "--pod", "ml/train-llm-0", "--instance-type", "p4d.24xlarge")
    files = ["examples/disruption/pool-underutilized.yaml", "examples/disruption/cluster-state.yaml"]
    n = nodecast.explain(*files, node="ip-10-0-3-41.ec2.internal", now=NOW)
    assert n.to_json() == cli_json(cli, "explain", *files, "--node", "ip-10-0-3-41.ec2.internal", "--now", NOW)
    v = nodecast.validate(*TRAINING)
    assert v.to_json() == cli_json(cli, "validate", *TRAINING)
    c = nodecast.catalog(gpu=True, requirements=["karpenter.k8s.aws/instance-gpu-name In h100,a100"], limit=3)
    assert c.to_json() == cli_json(cli, "catalog", "--gpu", "-r", "karpenter.k8s.aws/instance-gpu-name In h100,a100", "--limit", "3")


BAD_OPERATOR = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: bad}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: Inn, values: [on-demand]}
"""


@pytest.mark.parametrize(
    "function, text",
    [("validate", BAD_OPERATOR), ("plan", BAD_OPERATOR), ("validate", "kind: Pod\n  bad: [\n")],
    ids=["validate-bad-operator", "plan-bad-operator", "validate-yaml-syntax"],
)
def test_failures_match_the_cli(cli: Path, tmp_path: Path, function: str, text: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(nodecast.InputError) as info:
        getattr(nodecast, function)(str(path))
    expected = cli_json(cli, function, str(path))
    assert info.value.to_json() == expected
    # The message is the CLI's stderr, one located error per line ("error: " + message).
    stderr = run_cli(cli, function, str(path)).stderr.splitlines()
    from nodecast._errors import format_error

    assert [f"error: {format_error(e)}" for e in info.value.errors()] == stderr[:-1]
    if len(stderr) == 2:
        assert stderr[0] == f"error: {info.value}"
    # ValidationError <=> the CLI's exit code 1 (2 = unusable input), for every function.
    code = run_cli(cli, function, str(path)).returncode
    assert isinstance(info.value, nodecast.ValidationError) == (code == 1)


def test_to_dict_is_the_parsed_answer() -> None:
    plan = nodecast.plan(*TRAINING)
    d = plan.to_dict()
    assert d == json.loads(plan.to_json())
    assert (d["apiVersion"], d["kind"], d["status"]) == ("nodecast/v1", "Plan", "success")
    assert d["nodeClaims"][0]["instanceType"] == "g5.12xlarge"
    assert d["nodeClaims"][0]["pricePerHour"] == plan.node_claims[0].price_per_hour

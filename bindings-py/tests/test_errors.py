"""InputError / ValidationError: located, typed, never a bare Exception."""

from __future__ import annotations

import datetime as dt
import os
import pickle
from pathlib import Path
from typing import Any, List

import pytest

import nodecast
from helpers import NOW, TRAINING, UNDERUTILIZED

MALFORMED_YAML = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: [a\n"

BAD_QUANTITY = """\
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers:
  - name: a
    image: nginx
    resources: {requests: {cpu: "1.5.0"}}
"""

UNKNOWN_OPERATOR = """\
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


def test_hierarchy() -> None:
    assert issubclass(nodecast.InputError, ValueError)
    assert issubclass(nodecast.ValidationError, nodecast.InputError)
    assert issubclass(nodecast.ValidationError, ValueError)


@pytest.mark.parametrize("function", ["plan", "validate"])
def test_malformed_yaml_is_an_input_error_with_line_and_column(function: str) -> None:
    with pytest.raises(nodecast.InputError) as info:
        getattr(nodecast, function)(MALFORMED_YAML)
    e = info.value
    assert type(e) is nodecast.InputError  # not a ValidationError: the input cannot be decoded
    [err] = e.errors()
    assert err["code"] == "yaml-syntax"
    assert err["source"] == "<string>"
    assert isinstance(err["line"], int) and isinstance(err["column"], int)
    assert err["line"] >= 4
    assert e.codes == ["yaml-syntax"]
    assert "[yaml-syntax]" in str(e) and f"line {err['line']}, column {err['column']}" in str(e)


def test_malformed_yaml_in_a_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(MALFORMED_YAML)
    with pytest.raises(nodecast.InputError) as info:
        nodecast.plan(path)
    assert info.value.errors()[0]["source"] == str(path)


def test_malformed_json() -> None:
    with pytest.raises(nodecast.InputError) as info:
        nodecast.validate('{"kind": }')
    assert info.value.errors()[0]["code"] == "json-syntax"
    assert type(info.value) is nodecast.InputError


@pytest.mark.parametrize("function", ["plan", "validate"])
def test_bad_quantity_is_a_located_validation_error(function: str) -> None:
    with pytest.raises(nodecast.ValidationError) as info:
        getattr(nodecast, function)(BAD_QUANTITY)
    [err] = info.value.errors()
    assert err == {
        "code": "invalid-quantity",
        "message": '"1.5.0" is not a Kubernetes quantity',
        "path": "spec.containers[0].resources.requests.cpu",
        "document": 0,
        "object": "Pod/default/p",
        "source": "<string>",
        "help": "a Kubernetes quantity such as 500m, 2, 1.5, 4Gi, 512Mi, 1G or 1e3",
    }


def test_unknown_operator_is_a_located_validation_error() -> None:
    with pytest.raises(nodecast.ValidationError) as info:
        nodecast.validate(UNKNOWN_OPERATOR)
    err = info.value.errors()[0]
    assert err["code"] == "invalid-operator"
    assert err["path"] == "spec.template.spec.requirements[0].operator"
    assert err["object"] == "NodePool/bad"
    assert err["document"] == 0
    assert "Inn" in err["message"]
    # plan refuses input with admission errors, with the same error.
    with pytest.raises(nodecast.ValidationError) as plan_info:
        nodecast.plan(UNKNOWN_OPERATOR)
    assert plan_info.value.errors()[0]["code"] == "invalid-operator"


def test_errors_in_dicts_are_located_in_objects() -> None:
    yaml = pytest.importorskip("yaml")
    with pytest.raises(nodecast.ValidationError) as info:
        nodecast.plan(list(yaml.safe_load_all(BAD_QUANTITY)))
    err = info.value.errors()[0]
    assert (err["source"], err["document"], err["path"]) == ("objects", 0, "spec.containers[0].resources.requests.cpu")


def test_several_errors_are_all_reported() -> None:
    with pytest.raises(nodecast.ValidationError) as info:
        nodecast.validate(UNKNOWN_OPERATOR, BAD_QUANTITY)
    assert set(info.value.codes) >= {"invalid-operator", "invalid-quantity"}
    assert str(info.value).startswith(f"{len(info.value.codes)} errors:\n")


def test_bad_catalog_is_an_input_error() -> None:
    with pytest.raises(nodecast.InputError) as info:
        nodecast.validate(*TRAINING, catalog="nope")
    assert type(info.value) is nodecast.InputError
    assert info.value.errors()[0]["code"] == "unknown-catalog"


def test_request_errors_are_input_errors() -> None:
    with pytest.raises(nodecast.InputError) as info:
        nodecast.explain(*TRAINING, pod="ml/nope")
    assert type(info.value) is nodecast.InputError and info.value.codes == ["unknown-pod"]
    with pytest.raises(nodecast.InputError) as info:
        nodecast.consolidate(*UNDERUTILIZED, now="yesterday")
    assert info.value.codes == ["invalid-timestamp"] and info.value.errors()[0]["path"] == "now"
    with pytest.raises(nodecast.InputError) as info:
        nodecast.catalog(requirements=["kubernetes.io/arch Inn arm64"])
    assert info.value.errors()[0]["path"] == "query.requirements[0]"
    with pytest.raises(nodecast.InputError) as info:
        nodecast.explain(*TRAINING)
    assert info.value.codes == ["required"]


def test_naive_datetime_is_an_error() -> None:
    with pytest.raises(nodecast.InputError) as info:
        nodecast.consolidate(*UNDERUTILIZED, now=dt.datetime(2025, 3, 5, 12, 0))
    assert info.value.errors()[0]["code"] == "invalid-timestamp"
    assert info.value.errors()[0]["path"] == "now"


def test_python_side_errors() -> None:
    with pytest.raises(FileNotFoundError):
        nodecast.plan("examples/nodepools/no-such-file.yaml")
    with pytest.raises(TypeError):
        nodecast.plan(42)
    with pytest.raises(nodecast.InputError) as info:
        nodecast.plan({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"x": float("nan")}})
    assert info.value.codes == ["invalid-number"]
    with pytest.raises(nodecast.InputError) as info:
        nodecast.plan({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": object()}})
    assert info.value.codes == ["wrong-type"]
    with pytest.raises(nodecast.InputError) as info:
        nodecast.plan(*TRAINING, min_values_policy="Sometimes")
    assert info.value.errors()[0]["path"] == "minValuesPolicy"
    with pytest.raises(nodecast.InputError):
        nodecast.plan(*TRAINING, zones=[])
    with pytest.raises(nodecast.InputError):
        nodecast.plan(*TRAINING, spot_price_factor=float("inf"))


def test_non_mapping_documents() -> None:
    with pytest.raises(nodecast.InputError) as info:
        nodecast.validate("just a string")
    assert type(info.value) is nodecast.InputError
    assert info.value.codes == ["wrong-type"]


def test_errors_returns_copies_and_pickles() -> None:
    with pytest.raises(nodecast.ValidationError) as info:
        nodecast.validate(BAD_QUANTITY)
    e = info.value
    e.errors()[0]["code"] = "changed"
    assert e.errors()[0]["code"] == "invalid-quantity"
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is nodecast.ValidationError
    assert again.errors() == e.errors() and str(again) == str(e) and again.to_json() == e.to_json()
    assert e.to_dict()["status"] == "failure" and e.kind == "Validation"


def test_panic_becomes_runtime_error_not_a_crash() -> None:
    from helpers import run_python

    p = run_python(
        "import nodecast, nodecast._native as n\n"
        "try:\n"
        "    n._panic_for_test('boom')\n"
        "except RuntimeError as e:\n"
        "    assert 'boom' in str(e) and 'panicked' in str(e), e\n"
        "    print('caught')\n"
        f"print(nodecast.plan(*{TRAINING!r}).node_claims[0].instance_type)\n"
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["caught", "g5.12xlarge"]


def test_native_call_never_raises_for_bad_requests() -> None:
    import json

    from nodecast import _native

    for fn, req in [("plan", "{not json"), ("plan", '{"unknown": 1}'), ("nope", "{}")]:
        answer = json.loads(_native.call(fn, req))
        assert answer["status"] == "failure"
    with pytest.raises(nodecast.InputError) as info:
        nodecast._run("plan", nodecast.Plan, '{"unknown": 1}')  # type: ignore[attr-defined]
    assert info.value.codes == ["invalid-request"]
    _ = NOW


def test_a_str_is_a_path_only_with_a_manifest_extension(tmp_path: Path) -> None:
    """A str naming some other file is never read, so its content cannot reach an error message."""
    secret = tmp_path / "credentials"
    secret.write_text("root:x:0:0:secret-token\n", encoding="utf-8")
    with pytest.raises(nodecast.InputError) as info:
        nodecast.plan(str(secret))
    assert info.value.codes == ["invalid-source"]
    assert "secret-token" not in str(info.value)
    with pytest.raises(nodecast.InputError) as info:
        nodecast.simulate(*TRAINING, trace=str(secret))
    assert "secret-token" not in str(info.value)
    # The same file as a Path is read as the user asked (and fails as YAML, naming the file).
    with pytest.raises(nodecast.InputError) as info:
        nodecast.plan(secret)
    assert info.value.errors()[0]["source"] == str(secret)
    # Manifest files given as str keep working.
    pool = tmp_path / "pool.yaml"
    pool.write_text(Path("examples/nodepools/gpu-general.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    assert nodecast.plan(str(pool)).node_claims == ()


@pytest.mark.parametrize(
    "call, error_class",
    [
        (lambda: nodecast.plan(UNKNOWN_OPERATOR), "invalid"),
        (lambda: nodecast.validate(BAD_QUANTITY), "invalid"),
        (lambda: nodecast.plan(MALFORMED_YAML), "unusable"),
        # Syntax next to an invalid object: the input is unusable as a whole.
        (lambda: nodecast.plan(MALFORMED_YAML, UNKNOWN_OPERATOR), "unusable"),
        (lambda: nodecast.explain(*TRAINING, pod="no-such-pod"), "unusable"),
    ],
    ids=["plan-admission", "validate-quantity", "plan-syntax", "syntax-and-admission", "explain-unknown-pod"],
)
def test_exception_class_is_the_answers_error_class(call: object, error_class: str) -> None:
    # The core classes every failure once ("errorClass"); Python maps it, it never guesses.
    with pytest.raises(nodecast.InputError) as info:
        call()  # type: ignore[operator]
    e = info.value
    assert e.to_dict()["errorClass"] == error_class
    assert isinstance(e, nodecast.ValidationError) == (error_class == "invalid")


# ---------------------------------------------------------------------------------------------
# Short tracebacks: a user error shows the user's line, one frame of nodecast and the message.


def _nodecast_frames(e: BaseException) -> List[str]:
    import traceback

    # Frames inside the installed package (not any path with a "nodecast" folder: the checkout
    # itself is often called nodecast).
    package = os.path.dirname(os.path.abspath(nodecast.__file__))
    return [f.filename for f in traceback.extract_tb(e.__traceback__) if os.path.abspath(f.filename).startswith(package + os.sep)]


@pytest.mark.parametrize(
    "call",
    [
        lambda: nodecast.plan("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: i, resources: {requests: {cpu: lots}}}]}\n"),
        lambda: nodecast.plan("kind: [\n"),
        lambda: nodecast.consolidate(*UNDERUTILIZED, now=dt.datetime(2025, 1, 1)),
        lambda: nodecast.plan(*TRAINING, zones=[]),
        lambda: nodecast.explain(*TRAINING, pod="ml/nope"),
        lambda: nodecast.simulate(*TRAINING, trace="apiVersion: nodecast/v1\nkind: Trace\nevents: [\n"),
        lambda: nodecast.request_json({"apiVersion": "v1", "kind": "Pod", "x": float("nan")}),
    ],
)
def test_user_errors_have_a_short_traceback(call: Any) -> None:
    import traceback

    with pytest.raises(nodecast.InputError) as info:
        call()
    e = info.value
    assert len(_nodecast_frames(e)) == 1, traceback.format_exception(type(e), e, e.__traceback__)
    assert e.__suppress_context__ and e.__cause__ is None
    printed = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    assert "During handling" not in printed and "direct cause" not in printed
    # What nodecast adds to the user's own frames: one frame (file line, source line, maybe carets).
    ours = [f for f in traceback.extract_tb(e.__traceback__) if f.filename in _nodecast_frames(e)]
    assert len("".join(traceback.format_list(ours)).splitlines()) <= 3
    assert printed.endswith(f"{type(e).__module__}.{type(e).__qualname__}: {e}\n")


def test_a_bug_keeps_its_full_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    import nodecast._native as native

    def broken(function: str, request: str) -> str:
        raise RuntimeError("boom")

    monkeypatch.setattr(native, "call", broken)
    with pytest.raises(RuntimeError, match="boom") as info:
        nodecast.plan(*TRAINING)
    assert len(_nodecast_frames(info.value)) >= 3


def test_repair_policies_and_scheduler_config_are_settings_with_located_errors() -> None:
    with pytest.raises(nodecast.InputError) as info:
        nodecast.consolidate(UNDERUTILIZED, now=NOW, repair_policies=[{"conditionType": "BadNode", "conditionStatus": "Maybe"}])
    assert [e["path"] for e in info.value.errors()] == ["settings.repairPolicies[0].conditionStatus"]
    with pytest.raises(nodecast.InputError) as info:
        nodecast.plan(TRAINING, scheduler_config={"podTopologySpread": {"defaultConstraints": [{"maxSkew": 0, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule"}]}})
    assert [e["path"] for e in info.value.errors()] == ["settings.schedulerConfig.podTopologySpread.defaultConstraints[0].maxSkew"]
    with pytest.raises(nodecast.InputError):
        nodecast.plan(TRAINING, repair_policies="BadNode")  # type: ignore[arg-type]


MISSPELT = """apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml}
spec:
  containers:
  - name: c
    image: x
    resources: {request: {nvidia.com/gpu: 1}}
"""


def test_an_unknown_field_is_refused_with_what_was_meant() -> None:
    # `request` for `requests`: kubectl refuses it; read as absent it asked for no GPU at all.
    for fn in (nodecast.validate, nodecast.plan):
        with pytest.raises(nodecast.ValidationError) as info:
            fn(MISSPELT)
        err = info.value.errors()[0]
        assert (err["code"], err["object"], err["path"]) == ("unknown-field", "Pod/ml/p", "spec.containers[0].resources.request")
        assert err["message"] == 'strict decoding error: unknown field "spec.containers[0].resources.request" (SF-01)'
        assert 'did you mean "requests"?' in err["help"]

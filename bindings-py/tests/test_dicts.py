"""Dicts as sources: yaml.safe_load_all output gives the same answers as the text, and kubernetes
client style snake_case dicts are converted to the API's camelCase without touching user keys."""

from __future__ import annotations

import copy
import datetime as dt
import re
from typing import Any, Dict, List

import pytest

import nodecast
from helpers import INFERENCE, NOW, TRAINING, UNDERUTILIZED, load_all
from nodecast._sources import from_kubernetes_client, to_camel


def _without_sources(answer: Dict[str, Any]) -> Dict[str, Any]:
    """Text inputs name their file and count documents per file; objects are `objects`,
    counted in one list. Everything else must be equal."""
    a = copy.deepcopy(answer)
    for s in a.get("skipped", []):
        s.pop("source", None)
        s.pop("document", None)
    return a


ALL_SETS = {
    "training": TRAINING,
    "inference": INFERENCE,
    "mixed": ["examples/nodepools/gpu-general.yaml", "examples/workloads/mixed-cluster.yaml"],
    "spot-tiers": ["examples/nodepools/spot-tiers.yaml", "examples/workloads/batch-workers.yaml"],
    "neuron": ["examples/nodepools/inferentia.yaml", "examples/workloads/neuron-inference.yaml"],
    "cronjob": ["examples/nodepools/gpu-general.yaml", "examples/workloads/nightly-report-cronjob.yaml"],
}


@pytest.mark.parametrize("files", list(ALL_SETS.values()), ids=list(ALL_SETS))
def test_safe_load_all_dicts_equal_text(files: List[str]) -> None:
    from_text = nodecast.plan(*files)
    dicts = [d for f in files for d in load_all(f)]
    from_dicts = nodecast.plan(dicts)
    assert _without_sources(from_dicts.to_dict()) == _without_sources(from_text.to_dict())
    assert from_dicts.node_claims == from_text.node_claims


def test_generator_of_safe_load_all() -> None:
    yaml = pytest.importorskip("yaml")
    with open(TRAINING[1]) as pools, open(TRAINING[2]) as job:
        plan = nodecast.plan(yaml.safe_load_all(pools), yaml.safe_load_all(job))
    assert plan.node_claims[0].instance_type == "g5.12xlarge"


def test_consolidation_from_dicts_with_yaml_datetimes() -> None:
    # PyYAML turns unquoted timestamps into datetime objects: they are sent as RFC 3339.
    dicts = [d for f in UNDERUTILIZED for d in load_all(f)]
    text = "\n".join(open(f).read() for f in UNDERUTILIZED)
    unquoted = re.sub(r'(Timestamp|Time|lastTransitionTime): "([0-9T:\-Z]+)"', r"\1: \2", text)
    yaml = pytest.importorskip("yaml")
    with_datetimes = [d for d in yaml.safe_load_all(unquoted) if d is not None]
    assert any(isinstance(v, dt.datetime) for d in with_datetimes for v in _walk(d)), "the test needs datetimes"
    a = nodecast.consolidate(dicts, now=NOW)
    b = nodecast.consolidate(with_datetimes, now=NOW)
    c = nodecast.consolidate(*UNDERUTILIZED, now=NOW)
    assert a.replacement is not None and a.replacement.instance_type == "g5.2xlarge"
    assert _without_sources(a.to_dict()) == _without_sources(b.to_dict()) == _without_sources(c.to_dict())


def _walk(x: Any) -> List[Any]:
    if isinstance(x, dict):
        return [w for v in x.values() for w in _walk(v)]
    if isinstance(x, list):
        return [w for v in x for w in _walk(v)]
    return [x]


# --- kubernetes client style ------------------------------------------------------------------


def _underscore(word: str) -> str:
    """The kubernetes client's (openapi-generator) attribute naming: podIPs -> pod_i_ps."""
    word = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", word)
    word = re.sub(r"([a-z\d])([A-Z])", r"\1_\2", word)
    return word.replace("-", "_").lower()


USER_KEYED = {"labels", "annotations", "nodeSelector", "matchLabels", "limits", "requests", "capacity", "allocatable", "overhead"}


def _snake(obj: Any, key: str = "") -> Any:
    """What `V1Pod.to_dict()` etc. look like: snake_case fields, user-keyed maps verbatim, and
    unset fields as None."""
    if isinstance(obj, dict):
        if key in USER_KEYED:
            return dict(obj)
        return {_underscore(k): _snake(v, k) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_snake(v) for v in obj]
    return obj


def _client_style(d: Dict[str, Any]) -> Dict[str, Any]:
    s = _snake(d)
    s.setdefault("status", None)
    md = s.setdefault("metadata", {})
    md.setdefault("creation_timestamp", None)
    md.setdefault("deletion_grace_period_seconds", None)
    md.setdefault("managed_fields", None)
    return s


WORKLOADS = [
    "examples/workloads/training-job-4gpu.yaml",
    "examples/workloads/vllm-inference.yaml",
    "examples/workloads/mixed-cluster.yaml",
    "examples/workloads/batch-workers.yaml",
    "examples/workloads/nightly-report-cronjob.yaml",
]


@pytest.mark.parametrize("workload", WORKLOADS)
def test_kubernetes_client_snake_case_dicts(workload: str) -> None:
    pools = ["examples/nodepools/gpu-general.yaml", "examples/nodepools/gpu-inference.yaml", "examples/nodepools/gpu-training.yaml", "examples/nodepools/spot-tiers.yaml"]
    # NodePools come from CustomObjectsApi, already camelCase; workloads from the typed client.
    docs = load_all(workload)
    client = [_client_style(d) for d in docs]
    assert all("api_version" in c for c in client)
    from_text = nodecast.plan(*pools, workload)
    from_client = nodecast.plan(*pools, client)
    assert _without_sources(from_client.to_dict()) == _without_sources(from_text.to_dict())
    assert from_client.node_claims  # something was planned


def test_user_keyed_maps_keep_their_keys() -> None:
    pod = {
        "api_version": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "p",
            "namespace": "default",
            "labels": {"my_label": "a", "app.kubernetes.io/name": "x"},
            "annotations": {"some_annotation": "b", "karpenter.sh/do-not-disrupt": "true"},
            "creation_timestamp": dt.datetime(2025, 3, 5, 8, 0, tzinfo=dt.timezone.utc),
            "owner_references": None,
        },
        "spec": {
            "node_selector": {"disk_type": "ssd", "topology.kubernetes.io/zone": "us-east-1a"},
            "containers": [
                {
                    "name": "c",
                    "image_pull_policy": "IfNotPresent",
                    "ports": [{"container_port": 80, "host_port": 8080, "host_ip": "0.0.0.0"}],
                    "resources": {"requests": {"cpu": "1", "example.com/my_device": "1"}, "limits": None},
                    "liveness_probe": {"_exec": {"command": ["true"]}},
                }
            ],
            "topology_spread_constraints": [
                {
                    "max_skew": 1,
                    "topology_key": "topology.kubernetes.io/zone",
                    "when_unsatisfiable": "DoNotSchedule",
                    "label_selector": {"match_labels": {"my_label": "a"}, "match_expressions": None},
                }
            ],
            "host_pid": None,
        },
        "status": None,
    }
    out = from_kubernetes_client(pod)
    assert out["apiVersion"] == "v1" and "api_version" not in out
    assert out["metadata"]["labels"] == {"my_label": "a", "app.kubernetes.io/name": "x"}
    assert out["metadata"]["annotations"]["some_annotation"] == "b"
    assert out["metadata"]["creationTimestamp"] == "2025-03-05T08:00:00Z"
    assert "ownerReferences" not in out["metadata"] and "status" not in out
    spec = out["spec"]
    assert spec["nodeSelector"] == {"disk_type": "ssd", "topology.kubernetes.io/zone": "us-east-1a"}
    c = spec["containers"][0]
    assert c["imagePullPolicy"] == "IfNotPresent"
    assert c["ports"] == [{"containerPort": 80, "hostPort": 8080, "hostIP": "0.0.0.0"}]
    assert c["resources"] == {"requests": {"cpu": "1", "example.com/my_device": "1"}}
    assert c["livenessProbe"] == {"exec": {"command": ["true"]}}
    tsc = spec["topologySpreadConstraints"][0]
    assert tsc["labelSelector"] == {"matchLabels": {"my_label": "a"}}
    assert (tsc["maxSkew"], tsc["topologyKey"], tsc["whenUnsatisfiable"]) == (1, "topology.kubernetes.io/zone", "DoNotSchedule")


def test_service_selector_is_a_label_map_but_label_selectors_are_converted() -> None:
    svc = {"api_version": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"selector": {"app_name": "x"}}}
    assert from_kubernetes_client(svc)["spec"]["selector"] == {"app_name": "x"}
    pdb = {"api_version": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p"}, "spec": {"selector": {"match_labels": {"app_name": "x"}}, "min_available": 1}}
    assert from_kubernetes_client(pdb)["spec"] == {"selector": {"matchLabels": {"app_name": "x"}}, "minAvailable": 1}


def test_client_list_items_get_their_kind() -> None:
    pod_list = {
        "api_version": "v1",
        "kind": "PodList",
        "metadata": {"resource_version": "1"},
        "items": [
            {"api_version": None, "kind": None, "metadata": {"name": "a", "namespace": "ns"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}},
        ],
    }
    out = from_kubernetes_client(pod_list)
    assert out["items"][0]["kind"] == "Pod" and out["items"][0]["apiVersion"] == "v1"
    plan = nodecast.plan("examples/nodepools/gpu-general.yaml", pod_list)
    assert plan.node_claims[0].pods == ("ns/a",)


def test_camel_case_names() -> None:
    assert to_camel("node_selector") == "nodeSelector"
    assert to_camel("required_during_scheduling_ignored_during_execution") == "requiredDuringSchedulingIgnoredDuringExecution"
    assert to_camel("host_ip") == "hostIP"
    assert to_camel("pod_i_ps") == "podIPs"
    assert to_camel("pod_cidr") == "podCIDR"
    assert to_camel("provider_id") == "providerID"
    assert to_camel("_exec") == "exec"
    assert to_camel("apiVersion") == "apiVersion"
    # Every camelCase field name the core reads survives the client's snake_case round trip.
    for name in ["hostIP", "podCIDR", "providerID", "nodeSelectorTerms", "matchLabelKeys", "topologySpreadConstraints",
                 "lastTransitionTime", "creationTimestamp", "ownerReferences", "terminationGracePeriodSeconds",
                 "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution", "initContainers", "timeAdded"]:
        assert to_camel(_underscore(name)) == name, name


class V1Pod:
    """Stand-in for kubernetes.client.V1Pod: to_dict() with snake_case keys and kind/api_version
    None, as list_namespaced_pod().items have."""

    def __init__(self, d: Dict[str, Any]) -> None:
        self._d = d

    def to_dict(self) -> Dict[str, Any]:
        return copy.deepcopy(self._d)


def test_model_objects_with_to_dict() -> None:
    pod = V1Pod({"api_version": None, "kind": None, "metadata": {"name": "web", "namespace": "default"},
                 "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}]}, "status": None})
    plan = nodecast.plan("examples/nodepools/gpu-general.yaml", [pod, None])
    assert plan.node_claims[0].pods == ("default/web",)


def test_real_kubernetes_client_if_installed() -> None:
    k8s = pytest.importorskip("kubernetes.client")
    pod = k8s.V1Pod(
        api_version="v1",
        kind="Pod",
        metadata=k8s.V1ObjectMeta(name="train", namespace="ml", labels={"my_team": "ml"}),
        spec=k8s.V1PodSpec(
            node_selector={"workload-type": "training"},
            tolerations=[k8s.V1Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule")],
            containers=[
                k8s.V1Container(
                    name="t",
                    image="x",
                    resources=k8s.V1ResourceRequirements(requests={"cpu": "32", "memory": "128Gi", "nvidia.com/gpu": "4"}),
                )
            ],
        ),
    )
    for source in (pod, pod.to_dict()):
        plan = nodecast.plan(*TRAINING[:2], source)
        assert plan.node_claims[0].instance_type == "g5.12xlarge"
        assert plan.node_claims[0].pods == ("ml/train",)


def test_real_kubernetes_client_models_for_every_example() -> None:
    """Each example object deserialised into the kubernetes client's models (V1Deployment, V1Job,
    V1Node, ...): the models, and their to_dict(), plan like the YAML text."""
    k8s = pytest.importorskip("kubernetes.client")
    import glob
    import json

    api = k8s.ApiClient()
    pools = ["examples/nodepools/gpu-general.yaml", "examples/nodepools/gpu-inference.yaml", "examples/nodepools/gpu-training.yaml",
             "examples/nodepools/spot-tiers.yaml", "examples/nodepools/inferentia.yaml"]
    for path in sorted(glob.glob("examples/workloads/*.yaml")) + ["examples/disruption/cluster-state.yaml"]:
        models: List[Any] = []
        for d in load_all(path):
            cls = "V1" + d["kind"]
            # Custom resources (NodeClaims, PyTorchJobs, a Volcano `Job`: a dotted API group) stay
            # camelCase dicts, as CustomObjectsApi returns them; built-in kinds become client models.
            builtin = "." not in d["apiVersion"].split("/")[0]
            models.append(api._ApiClient__deserialize(json.loads(json.dumps(d, default=str)), cls) if builtin and hasattr(k8s, cls) else d)
        dicts = [m.to_dict() if hasattr(m, "to_dict") else m for m in models]
        if "disruption" in path:
            run = lambda src: nodecast.consolidate("examples/disruption/pool-underutilized.yaml", src, now=NOW)  # noqa: E731
        else:
            run = lambda src: nodecast.plan(*pools, src)  # noqa: E731
        text, from_models, from_dicts = run(path), run(models), run(dicts)
        assert _without_sources(from_models.to_dict()) == _without_sources(text.to_dict()), path
        assert _without_sources(from_dicts.to_dict()) == _without_sources(text.to_dict()), path

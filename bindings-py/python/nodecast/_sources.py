"""Turning what a Python user has into a nodecast request (JSON).

Sources, in any mix and nesting:

* ``str``: a path when it is one line ending in ``.yaml``/``.yml``/``.json`` (``.csv`` too for a
  trace) and names an existing file (read as UTF-8; the error locations name it as given), or
  else YAML/JSON text (named ``<string>``). Only those extensions make a ``str`` a path, so a
  string that happens to name some other file (``"/etc/passwd"``) is never read, and its content
  can never appear in an error message; pass ``pathlib.Path`` to read any file. A one-line string
  that looks like a path (ends in one of the extensions or contains ``/``, and is not JSON/YAML)
  but names no such file raises ``FileNotFoundError``.
* ``os.PathLike`` (``pathlib.Path``): a file, read as UTF-8.
* ``bytes``: YAML/JSON text in UTF-8.
* a ``Mapping``: one Kubernetes object, already decoded (``yaml.safe_load``, ``json.load``, the
  kubernetes client's ``to_dict()``).
* an object with a ``to_dict()`` method (a kubernetes client model such as ``V1Pod``).
* any other iterable (list, tuple, the generator ``yaml.safe_load_all`` returns): its items, in
  order; ``None`` items (empty YAML documents) are skipped.

Texts and files go to the request's ``inputs``, objects to its ``objects``; the core reads all
inputs first, then all objects, each in the order given.

**kubernetes client dicts.** The kubernetes Python client's ``to_dict()`` names fields in
snake_case (``api_version``, ``node_selector``, ``creation_timestamp``) and includes every unset
field as ``None``. A dict whose top level has ``api_version`` and no ``apiVersion`` (or any
``to_dict()`` result) is converted before it is sent:

* every field name goes to camelCase (``node_selector`` → ``nodeSelector``, ``_exec`` → ``exec``,
  with the API's acronyms: ``host_ip`` → ``hostIP``, ``pod_cidr`` → ``podCIDR``,
  ``provider_id`` → ``providerID`` ...),
* **except the keys of user-keyed maps**, which are kept verbatim: ``labels``, ``annotations``,
  ``nodeSelector``, ``matchLabels``, resource maps (``limits``, ``requests``, ``capacity``,
  ``allocatable``, ``overhead``), ``tags``, kubelet reservation/eviction maps, ``data``,
  ``stringData``, ``binaryData``, ``parameters``, ``volumeAttributes``, ``featureGates``, and a
  ``selector`` that is a plain label map (a Service's) rather than a LabelSelector;
* ``None`` values are dropped and datetimes become RFC 3339 strings (UTC);
* items of a ``...List`` without ``kind``/``apiVersion`` (what ``list_*()`` returns) get the list's
  item kind and apiVersion; a model object whose ``to_dict()`` has no kind gets it from its class
  (``V1Pod`` → ``Pod``, ``V1Deployment`` → ``apps/v1`` ``Deployment``).

Dicts that already use ``apiVersion`` are sent unchanged (datetimes, e.g. from
``yaml.safe_load``, become RFC 3339 strings). A dict of a ``...List`` kind with ``items`` (e.g.
``kubectl get pods -o yaml`` loaded with PyYAML) contributes its items, as a List in text does.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from ._errors import InputError

__all__ = [
    "Source",
    "CatalogSpec",
    "build_request",
    "to_camel",
    "from_kubernetes_client",
    "rfc3339",
    "trace_value",
    "simulation_value",
    "ReservationsSpec",
    "add_reservations",
]

Source = Union[str, bytes, "os.PathLike[str]", Mapping[str, Any], Iterable[Any], Any]
CatalogSpec = Union[str, "os.PathLike[str]", Mapping[str, Any]]
# ``reservations=``: the output of ``aws ec2 describe-capacity-reservations``, parsed (a dict with
# ``CapacityReservations``) or a file holding it (JSON or YAML), or a list of those.
ReservationsSpec = Union[str, "os.PathLike[str]", Mapping[str, Any], Sequence[Any]]

STRING_NAME = "<string>"

# Map keys that belong to the user (label keys, resource names, ...): never renamed. Both the
# snake_case (client) and camelCase spellings.
_USER_KEYED = frozenset(
    {
        "labels",
        "annotations",
        "node_selector",
        "nodeSelector",
        "match_labels",
        "matchLabels",
        "limits",
        "requests",
        "capacity",
        "allocatable",
        "overhead",
        "tags",
        "kube_reserved",
        "kubeReserved",
        "system_reserved",
        "systemReserved",
        "eviction_hard",
        "evictionHard",
        "eviction_soft",
        "evictionSoft",
        "eviction_soft_grace_period",
        "evictionSoftGracePeriod",
        "eviction_minimum_reclaim",
        "evictionMinimumReclaim",
        "data",
        "string_data",
        "stringData",
        "binary_data",
        "binaryData",
        "parameters",
        "volume_attributes",
        "volumeAttributes",
        "feature_gates",
        "featureGates",
        "node_selector_map",
    }
)
_LABEL_SELECTOR_FIELDS = frozenset({"match_labels", "match_expressions", "matchLabels", "matchExpressions"})

# Field names whose JSON spelling is not plain camelCase of the client's snake_case.
_IRREGULAR = {
    "host_ip": "hostIP",
    "host_i_ps": "hostIPs",
    "pod_ip": "podIP",
    "pod_i_ps": "podIPs",
    "host_ipc": "hostIPC",
    "host_pid": "hostPID",
    "cluster_ip": "clusterIP",
    "cluster_i_ps": "clusterIPs",
    "external_i_ps": "externalIPs",
    "load_balancer_ip": "loadBalancerIP",
    "pod_cidr": "podCIDR",
    "pod_cid_rs": "podCIDRs",
    "provider_id": "providerID",
    "external_id": "externalID",
    "machine_id": "machineID",
    "system_uuid": "systemUUID",
    "boot_id": "bootID",
    "target_port": "targetPort",
}

# Kinds nodecast reads, for kubernetes client models whose to_dict() lacks kind/api_version.
_CLIENT_KINDS = {
    "Pod": "v1",
    "Node": "v1",
    "Deployment": "apps/v1",
    "StatefulSet": "apps/v1",
    "ReplicaSet": "apps/v1",
    "DaemonSet": "apps/v1",
    "Job": "batch/v1",
    "CronJob": "batch/v1",
    "PodDisruptionBudget": "policy/v1",
}


def to_camel(name: str) -> str:
    """A kubernetes client attribute name as the API spells it: ``node_selector`` →
    ``nodeSelector``, ``host_ip`` → ``hostIP``, ``_exec`` → ``exec``. camelCase stays as is."""
    if "_" not in name:
        return name
    irregular = _IRREGULAR.get(name)
    if irregular is not None:
        return irregular
    parts = [p for p in name.lstrip("_").split("_") if p]
    if not parts:
        return name
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def rfc3339(t: Union[_dt.datetime, _dt.date]) -> str:
    """``2025-03-05T12:00:00Z``: an aware datetime in UTC (a naive one is taken as UTC, as YAML
    does); a date as ``YYYY-MM-DD``."""
    if not isinstance(t, _dt.datetime):
        return t.isoformat()
    if t.tzinfo is not None:
        t = t.astimezone(_dt.timezone.utc)
    text = t.replace(tzinfo=None).isoformat()
    return text + "Z"


def _convert(value: Any, key: Optional[str]) -> Any:
    if isinstance(value, Mapping):
        if key in _USER_KEYED or (key == "selector" and not set(value) <= _LABEL_SELECTOR_FIELDS):
            return {str(k): _plain(v) for k, v in value.items() if v is not None}
        return {to_camel(str(k)): _convert(v, str(k)) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_convert(v, None) for v in value]
    if isinstance(value, (_dt.datetime, _dt.date)):
        return rfc3339(value)
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, (_dt.datetime, _dt.date)):
        return rfc3339(value)
    return value


def from_kubernetes_client(obj: Mapping[str, Any], kind: Optional[str] = None, api_version: Optional[str] = None) -> Dict[str, Any]:
    """Convert one kubernetes-client ``to_dict()`` result (snake_case) to the API's camelCase
    object, keeping user-keyed maps verbatim (see the module doc). ``kind``/``api_version`` fill
    in a missing kind (for model objects whose class names it)."""
    out: Dict[str, Any] = _convert(obj, None)
    if not out.get("kind") and kind:
        out["kind"] = kind
    if not out.get("apiVersion") and api_version:
        out["apiVersion"] = api_version
    list_kind = out.get("kind")
    items = out.get("items")
    if isinstance(list_kind, str) and list_kind.endswith("List") and isinstance(items, list):
        item_kind = list_kind[: -len("List")]
        for item in items:
            if isinstance(item, dict):
                if not item.get("kind"):
                    item["kind"] = item_kind
                if not item.get("apiVersion") and out.get("apiVersion"):
                    item["apiVersion"] = out["apiVersion"]
    return out


def _is_client_dict(d: Mapping[str, Any]) -> bool:
    return "api_version" in d and "apiVersion" not in d


def _kind_of_model(obj: Any) -> Tuple[Optional[str], Optional[str]]:
    """``V1Pod`` → (Pod, v1); ``V1DeploymentList`` → (DeploymentList, apps/v1)."""
    name = type(obj).__name__
    if not (name.startswith("V1") and len(name) > 2):
        return None, None
    kind = name[2:]
    base = kind[: -len("List")] if kind.endswith("List") else kind
    api_version = _CLIENT_KINDS.get(base)
    return (kind, api_version) if api_version else (None, None)


def _looks_like_path(s: str) -> bool:
    if "\n" in s or not s.strip():
        return False
    t = s.strip()
    if t[0] in "{[" or ": " in t or t.endswith(":") or t.startswith("---"):
        return False
    return t.endswith((".yaml", ".yml", ".json")) or "/" in t or os.sep in t


_MANIFEST_EXTENSIONS = (".yaml", ".yml", ".json")


def _names_file(s: str, extensions: Tuple[str, ...] = _MANIFEST_EXTENSIONS) -> bool:
    """The one rule that makes a ``str`` a path: one line, a manifest extension, an existing file."""
    return "\n" not in s and len(s) < 4096 and s.strip().lower().endswith(extensions) and os.path.isfile(s)


def _not_a_file(s: str, what: str, extensions: Tuple[str, ...] = _MANIFEST_EXTENSIONS) -> Exception:
    if os.path.isfile(s):
        # Never read: a str is a path only with a manifest extension (see the module docstring).
        return InputError([{
            "code": "invalid-source",
            "message": f"{what} {s!r} names a file without a {'/'.join(extensions)} extension; a str is read as a path only with one",
            "help": "pass pathlib.Path(...) to read this file, or the YAML/JSON text itself",
        }])
    return FileNotFoundError(2, f"no such file (a string {what} is a path when it names a {'/'.join(extensions)} file, else text)", s)


def _read(path: "os.PathLike[str] | str") -> Tuple[str, str]:
    name = os.fspath(path)
    with open(name, encoding="utf-8") as f:
        return name, f.read()


def _add_object(obj: Mapping[str, Any], objects: List[Any]) -> None:
    """One object; a ``kind: ...List`` with ``items`` contributes its items, as it does in text."""
    kind = obj.get("kind")
    items = obj.get("items")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
        objects.extend(items)
    else:
        objects.append(obj)


def _collect(source: Any, inputs: List[Dict[str, str]], objects: List[Any], depth: int = 0) -> None:
    if source is None:
        return
    if isinstance(source, str):
        if _names_file(source):
            name, text = _read(source)
            inputs.append({"name": name, "text": text})
            return
        if _looks_like_path(source):
            raise _not_a_file(source, "source")
        inputs.append({"name": STRING_NAME, "text": source})
        return
    if isinstance(source, (bytes, bytearray)):
        inputs.append({"name": STRING_NAME, "text": bytes(source).decode("utf-8")})
        return
    if isinstance(source, os.PathLike):
        name, text = _read(source)
        inputs.append({"name": name, "text": text})
        return
    if isinstance(source, Mapping):
        _add_object(from_kubernetes_client(source) if _is_client_dict(source) else source, objects)
        return
    to_dict = getattr(source, "to_dict", None)
    if callable(to_dict) and not isinstance(source, type):
        d = to_dict()
        if not isinstance(d, Mapping):
            raise TypeError(f"{type(source).__name__}.to_dict() returned {type(d).__name__}, not a mapping")
        kind, api_version = _kind_of_model(source)
        _add_object(from_kubernetes_client(d, kind, api_version), objects)
        return
    if isinstance(source, Iterable) and depth < 8:
        for item in source:
            _collect(item, inputs, objects, depth + 1)
        return
    raise TypeError(
        f"cannot read a {type(source).__name__} as a nodecast source: give YAML/JSON text, a file path, "
        "a dict (a Kubernetes object) or a list of those"
    )


def _json_default(value: Any) -> Any:
    if isinstance(value, (_dt.datetime, _dt.date)):
        return rfc3339(value)
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    raise TypeError(f"a value of type {type(value).__name__} ({value!r:.60}) is not JSON-serialisable")


def _option_error(option: str, message: str, help: str) -> InputError:
    return InputError([{"code": "invalid-option", "message": message, "path": option, "help": help}])


def _catalog_spec(spec: CatalogSpec) -> Any:
    """A catalog name, a mapping, or a file (YAML or JSON) holding one mapping, like ``--catalog``."""
    if isinstance(spec, Mapping):
        return spec
    if isinstance(spec, str) and not _names_file(spec) and _looks_like_path(spec):
        raise _not_a_file(spec, "catalog")
    if isinstance(spec, os.PathLike) or (isinstance(spec, str) and _names_file(spec)):
        name, text = _read(spec)
        stripped = text.lstrip()
        value: Any
        if stripped.startswith("{"):
            value = json.loads(text)
        else:
            try:
                import yaml  # type: ignore[import-untyped,import-not-found,unused-ignore]
            except ImportError as e:  # pragma: no cover - depends on the environment
                raise ImportError(
                    f"catalog={name!r}: reading a YAML catalog file needs PyYAML (pip install pyyaml); "
                    "or pass the catalog as a dict or a JSON file"
                ) from e
            docs = [d for d in yaml.safe_load_all(text) if d is not None]
            if len(docs) != 1:
                raise _option_error(
                    "catalog",
                    f"{name}: expected one catalog mapping, found {len(docs)} documents",
                    "source / zones / instanceTypes ...",
                )
            value = docs[0]
        if not isinstance(value, Mapping):
            raise _option_error("catalog", f"{name}: a catalog file holds one mapping", "source / zones / instanceTypes ...")
        return value
    if isinstance(spec, str):
        return spec
    raise TypeError(f"catalog must be a name, a path or a mapping, not {type(spec).__name__}")


def catalog_value(
    catalog: Optional[CatalogSpec],
    zones: Optional[Union[str, Sequence[str]]],
    spot_price_factor: Optional[float],
) -> Any:
    """The request's catalog: ``catalog`` with ``zones`` and ``spot_price_factor`` merged in, as
    the CLI's ``--catalog``/``--zones``/``--spot-price-factor`` do."""
    overrides: Dict[str, Any] = {}
    if zones is not None:
        items = zones.split(",") if isinstance(zones, str) else list(zones)
        zs = [str(z).strip() for z in items if str(z).strip()]
        if not zs:
            raise _option_error("zones", "give at least one zone", "e.g. zones=['us-east-1a', 'us-east-1b']")
        overrides["zones"] = zs
    if spot_price_factor is not None:
        f = float(spot_price_factor)
        if not math.isfinite(f):
            raise _option_error("spotPriceFactor", f"{spot_price_factor} is not a finite number", "e.g. 0.3")
        overrides["spotPriceFactor"] = f
    base = _catalog_spec(catalog) if catalog is not None else None
    if not overrides:
        return base
    if base is None:
        mapping: Dict[str, Any] = {"source": "aws-us-east-1"}
    elif isinstance(base, str):
        mapping = {"source": base}
    else:
        mapping = dict(base)
    mapping.update(overrides)
    return mapping


_POLICIES = {
    "minValuesPolicy": ("Strict", "BestEffort"),
    "preferencePolicy": ("Respect", "Ignore"),
}


def _policy(option: str, value: str) -> str:
    allowed = _POLICIES[option]
    for a in allowed:
        if str(value).lower() == a.lower():
            return a
    raise _option_error(option, f"unknown value {value!r}", " or ".join(allowed))


def now_value(now: Union[_dt.datetime, str, None], option: str = "now") -> Optional[str]:
    """``now`` (or ``until``) for the request: an aware datetime in UTC RFC 3339, or a string as given."""
    if now is None or isinstance(now, str):
        return now
    if isinstance(now, _dt.datetime):
        if now.tzinfo is None or now.tzinfo.utcoffset(now) is None:
            raise InputError(
                [
                    {
                        "code": "invalid-timestamp",
                        "message": f"{option}={now.isoformat()} is a naive datetime: nodecast never guesses a time zone",
                        "path": option,
                        "help": "an aware datetime, e.g. datetime(2025, 3, 5, 12, tzinfo=timezone.utc), or '2025-03-05T12:00:00Z'",
                    }
                ]
            )
        return rfc3339(now)
    raise TypeError(f"{option} must be an aware datetime or an RFC 3339 string, not {type(now).__name__}")


def add_reservations(reservations: Any, inputs: List[Dict[str, str]], objects: List[Any]) -> None:
    """``reservations=``: one more input document, as the CLI takes the file. A dict (the AWS
    CLI's JSON, ``json.load``-ed) goes to the request's objects, a path (``str`` naming a
    .json/.yaml/.yml file, or ``os.PathLike``) to its inputs (errors name the file), a list or
    tuple contributes each item. The binding only translates: the core reads the document (a
    dict without ``CapacityReservations`` gets the core's located error, like any object)."""
    if isinstance(reservations, Mapping):
        objects.append(dict(reservations))
    elif isinstance(reservations, os.PathLike) or (isinstance(reservations, str) and _names_file(reservations)):
        name, text = _read(reservations)
        inputs.append({"name": name, "text": text})
    elif isinstance(reservations, str):
        raise _not_a_file(reservations, "reservations")
    elif isinstance(reservations, (list, tuple)):
        for item in reservations:
            add_reservations(item, inputs, objects)
    else:
        raise TypeError(
            "reservations must be the parsed output of aws ec2 describe-capacity-reservations (a dict with "
            f"CapacityReservations), a path to a file holding it, or a list of those; not {type(reservations).__name__}"
        )


def build_request(
    sources: Sequence[Any],
    *,
    catalog: Optional[CatalogSpec] = None,
    zones: Optional[Union[str, Sequence[str]]] = None,
    spot_price_factor: Optional[float] = None,
    min_values_policy: Optional[str] = None,
    preference_policy: Optional[str] = None,
    spot_to_spot_consolidation: Optional[bool] = None,
    feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    ignore_dra_requests: Optional[bool] = None,
    aws_feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    max_instance_types: Optional[int] = None,
    repair_policies: Optional[Sequence[Mapping[str, Any]]] = None,
    scheduler_config: Optional[Mapping[str, Any]] = None,
    now: Union[_dt.datetime, str, None] = None,
    until: Union[_dt.datetime, str, None] = None,
    pod: Optional[str] = None,
    node: Optional[str] = None,
    instance_type: Optional[str] = None,
    query: Optional[Mapping[str, Any]] = None,
    trace: Optional[Mapping[str, Any]] = None,
    simulation: Optional[Mapping[str, Any]] = None,
    reservations: Optional[ReservationsSpec] = None,
) -> str:
    """The request JSON (``nodecast/v1``) for these sources and options."""
    inputs: List[Dict[str, str]] = []
    objects: List[Any] = []
    for s in sources:
        _collect(s, inputs, objects)
    if reservations is not None:
        add_reservations(reservations, inputs, objects)
    request: Dict[str, Any] = {}
    if inputs:
        request["inputs"] = inputs
    if objects:
        request["objects"] = objects
    cat = catalog_value(catalog, zones, spot_price_factor)
    if cat is not None:
        request["catalog"] = cat
    settings: Dict[str, Any] = {}
    if min_values_policy is not None:
        settings["minValuesPolicy"] = _policy("minValuesPolicy", min_values_policy)
    if preference_policy is not None:
        settings["preferencePolicy"] = _policy("preferencePolicy", preference_policy)
    if spot_to_spot_consolidation is not None:
        settings["spotToSpotConsolidation"] = bool(spot_to_spot_consolidation)
    if feature_gates is not None:
        # Karpenter's flag string or a mapping of gate names to booleans; the core parses both.
        if isinstance(feature_gates, str):
            settings["featureGates"] = feature_gates
        elif isinstance(feature_gates, Mapping):
            settings["featureGates"] = dict(feature_gates)
        else:
            raise _option_error(
                "featureGates", f"{feature_gates!r} is not a string or mapping", "e.g. 'NodeOverlay=true' or {'NodeOverlay': True}"
            )
    if ignore_dra_requests is not None:
        settings["ignoreDraRequests"] = bool(ignore_dra_requests)
    if aws_feature_gates is not None:
        # The AWS provider's --aws-feature-gates (DRANVIDIAGPU, DRAEFA): flag string or mapping.
        if isinstance(aws_feature_gates, str):
            settings["awsFeatureGates"] = aws_feature_gates
        elif isinstance(aws_feature_gates, Mapping):
            settings["awsFeatureGates"] = dict(aws_feature_gates)
        else:
            raise _option_error(
                "awsFeatureGates", f"{aws_feature_gates!r} is not a string or mapping", "e.g. 'DRANVIDIAGPU=true' or {'DRANVIDIAGPU': True}"
            )
    if max_instance_types is not None:
        if isinstance(max_instance_types, bool) or not isinstance(max_instance_types, int) or max_instance_types < 1:
            raise _option_error("maxInstanceTypes", f"{max_instance_types!r} is not a positive integer", "e.g. 600 (Karpenter's)")
        settings["maxInstanceTypes"] = max_instance_types
    if repair_policies is not None:
        # The cloud provider's node repair policies (Karpenter RepairPolicy fields, camelCase);
        # the core validates them (settings.repairPolicies[i].<field>).
        if isinstance(repair_policies, (str, bytes)) or not isinstance(repair_policies, Sequence):
            raise _option_error("repairPolicies", f"{repair_policies!r} is not a list of mappings", "e.g. [{'conditionType': 'Ready', 'conditionStatus': 'False', 'tolerationDuration': '30m'}]")
        settings["repairPolicies"] = [dict(p) for p in repair_policies]
    if scheduler_config is not None:
        # Karpenter's --scheduler-config document: podTopologySpread.defaultConstraints.
        if not isinstance(scheduler_config, Mapping):
            raise _option_error("schedulerConfig", f"{scheduler_config!r} is not a mapping", "e.g. {'podTopologySpread': {'defaultConstraints': [...]}}")
        settings["schedulerConfig"] = dict(scheduler_config)
    if settings:
        request["settings"] = settings
    n = now_value(now)
    if n is not None:
        request["now"] = n
    u = now_value(until, "until")
    if u is not None:
        request["until"] = u
    for key, value in (("pod", pod), ("node", node), ("instanceType", instance_type)):
        if value is not None:
            request[key] = str(value)
    if query is not None:
        request["query"] = dict(query)
    if trace is not None:
        request["trace"] = dict(trace)
    if simulation is not None:
        request["simulation"] = dict(simulation)
    try:
        return json.dumps(request, default=_json_default, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    except ValueError as e:  # NaN / infinity
        raise InputError(
            [{"code": "invalid-number", "message": f"objects: {e}", "source": "objects", "help": "finite numbers only (JSON)"}]
        ) from None
    except TypeError as e:
        raise InputError(
            [{"code": "wrong-type", "message": f"objects: {e}", "source": "objects", "help": "JSON-compatible values"}]
        ) from None


# ----------------------------------------------------------------------------------------------
# simulate: the trace and the settings

TRACE_NAME = "<trace>"
_TRACE_FORMATS = ("auto", "yaml", "json", "csv")


def trace_value(trace: Any, name: Optional[str] = None, format: Optional[str] = None) -> Dict[str, Any]:
    """The request's ``trace`` (``{name, text, format?}``) for what the user gave:

    * a path (``str`` naming a file, or ``os.PathLike``): the file, named as given;
    * ``str``/``bytes``: YAML, JSON or CSV text (named ``<trace>``);
    * a ``Mapping``: a trace document (``{"kind": "Trace", "events": [...]}``), sent as JSON;
    * a list/tuple: the ``events`` of a trace (``[{"at": "0s", "submit": {...}}, ...]``).

    ``format`` is ``auto`` (default), ``yaml``, ``json`` or ``csv``; ``name`` overrides the name
    errors are located with."""
    if format is not None and format not in _TRACE_FORMATS:
        raise _option_error("trace.format", f"unknown trace format {format!r}", " / ".join(_TRACE_FORMATS))
    text: str
    if isinstance(trace, os.PathLike):
        given, text = _read(trace)
    elif isinstance(trace, str):
        trace_ext = _MANIFEST_EXTENSIONS + (".csv",)
        if _names_file(trace, trace_ext):
            given, text = _read(trace)
        elif _looks_like_path(trace) and not trace.strip().startswith("time,"):
            raise _not_a_file(trace, "trace", trace_ext)
        else:
            given, text = TRACE_NAME, trace
    elif isinstance(trace, (bytes, bytearray)):
        given, text = TRACE_NAME, bytes(trace).decode("utf-8")
    elif isinstance(trace, Mapping) or isinstance(trace, (list, tuple)):
        doc: Any = trace if isinstance(trace, Mapping) else {"apiVersion": "nodecast/v1", "kind": "Trace", "events": list(trace)}
        try:
            text = json.dumps(doc, default=_json_default, allow_nan=False, ensure_ascii=False)
        except (TypeError, ValueError) as e:
            raise InputError([{"code": "wrong-type", "message": f"trace: {e}", "source": TRACE_NAME, "help": "JSON-compatible values"}]) from None
        given = TRACE_NAME
        if format is None:
            format = "json"
    else:
        raise TypeError(
            f"trace must be a file path, YAML/JSON/CSV text, a dict (a Trace) or a list (its events), not {type(trace).__name__}"
        )
    out: Dict[str, Any] = {"name": name if name is not None else given, "text": text}
    if format is not None and format != "auto":
        out["format"] = format
    return out


#: Python keyword → ``simulation`` field, and the kind of value (docs/simulate.md, "Settings").
SIMULATION_OPTIONS = {
    "seed": ("seed", "seed"),
    "gpu_startup_seconds": ("gpuStartupSeconds", "range"),
    "startup_seconds": ("startupSeconds", "range"),
    "device_plugin_seconds": ("devicePluginSeconds", "range"),
    "batch_idle_seconds": ("batchIdleSeconds", "seconds"),
    "batch_max_seconds": ("batchMaxSeconds", "seconds"),
    "disruption_poll_seconds": ("disruptionPollSeconds", "seconds"),
    "spot_interruption_rate_per_hour": ("spotInterruptionRatePerHour", "rate"),
    "interruption_notice_seconds": ("interruptionNoticeSeconds", "seconds"),
    "termination_grace_period_seconds": ("terminationGracePeriodSeconds", "seconds"),
    "metrics_interval_seconds": ("metricsIntervalSeconds", "seconds"),
    "end": ("endSeconds", "seconds"),
    "max_events": ("maxEvents", "count"),
    "max_pod_attempts": ("maxPodAttempts", "count"),
}


def _seconds(field: str, value: Any) -> int:
    if isinstance(value, _dt.timedelta):
        total = value.total_seconds()
        if total != int(total):
            raise _option_error(f"simulation.{field}", f"{value} is not a whole number of seconds", "e.g. timedelta(minutes=5) or 300")
        return int(total)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _option_error(f"simulation.{field}", f"{value!r} is not a whole number of seconds", "an int or a datetime.timedelta")
    return value


def _setting(field: str, kind: str, value: Any) -> Any:
    if kind == "seed" or kind == "count":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value >= 2**64:
            raise _option_error(f"simulation.{field}", f"{value!r} is not an integer in 0..2^64-1", "e.g. 7")
        return value
    if kind == "rate":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _option_error(f"simulation.{field}", f"{value!r} is not a number", "e.g. 0.0001 per spot instance-hour")
        f = float(value)
        if not math.isfinite(f):
            raise _option_error(f"simulation.{field}", f"{value!r} is not a finite number", "e.g. 0.0001 per spot instance-hour")
        return f
    if kind == "range":
        if isinstance(value, Mapping):
            if set(value) != {"min", "max"}:
                raise _option_error(f"simulation.{field}", f"{dict(value)!r} is not a range", "{'min': 60, 'max': 120}, (60, 120) or 90")
            return {"min": _seconds(field, value["min"]), "max": _seconds(field, value["max"])}
        if isinstance(value, (tuple, list)):
            if len(value) != 2:
                raise _option_error(f"simulation.{field}", f"{value!r} is not a (min, max) pair", "(60, 120), or 90 for a fixed time")
            return {"min": _seconds(field, value[0]), "max": _seconds(field, value[1])}
        v = _seconds(field, value)
        return {"min": v, "max": v}
    return _seconds(field, value)


def _settings_mapping(settings: Union[Mapping[str, Any], str, "os.PathLike[str]"]) -> Dict[str, Any]:
    """``settings=``: a mapping with the camelCase fields, or a YAML/JSON file holding one (like
    the CLI's ``--settings``)."""
    if isinstance(settings, Mapping):
        return dict(settings)
    if isinstance(settings, (str, os.PathLike)):
        name, text = _read(settings)
        if text.lstrip().startswith("{"):
            value: Any = json.loads(text)
        else:
            try:
                import yaml  # type: ignore[import-untyped,import-not-found,unused-ignore]
            except ImportError as e:  # pragma: no cover - depends on the environment
                raise ImportError(f"settings={name!r}: reading YAML needs PyYAML (pip install pyyaml); or pass a dict") from e
            docs = [d for d in yaml.safe_load_all(text) if d is not None]
            value = docs[0] if len(docs) == 1 else None
        if not isinstance(value, Mapping):
            raise _option_error("simulation", f"{name}: a settings file holds one mapping", "seed, spotInterruptionRatePerHour, ... (docs/simulate.md)")
        return dict(value)
    raise TypeError(f"settings must be a mapping or a file path, not {type(settings).__name__}")


def simulation_value(settings: Optional[Union[Mapping[str, Any], str, "os.PathLike[str]"]], options: Mapping[str, Any]) -> Optional[Dict[str, Any]]:
    """The request's ``simulation``: ``settings`` (camelCase mapping or file) with the keyword
    options (snake_case, checked and converted: ranges from ``(min, max)`` or a fixed value,
    seconds from ints or timedeltas) merged over it. None when nothing is set (core defaults)."""
    out: Dict[str, Any] = _settings_mapping(settings) if settings is not None else {}
    for key, value in options.items():
        if value is None:
            continue
        field, kind = SIMULATION_OPTIONS[key]
        out[field] = _setting(field, kind, value)
    return out or None

"""Typed, frozen answers (``apiVersion: nodecast/v1``): the base every result shares.

Every answer the core returns is parsed once into frozen dataclasses with snake_case attributes.
Lists become tuples and JSON objects become :class:`FrozenMap` (a read-only, hashable mapping), so
a result can neither be changed nor drift from the JSON it came from. ``to_json()`` returns the
core's string unchanged; ``to_dict()`` parses it afresh (camelCase keys, as in the schema).

This module is the bottom layer of the package's results: :class:`Answer`, the parts several
answers share, and the parsing helpers. The answers themselves live in ``_plan``, ``_decision``,
``_results`` (explain, validate, catalog) and ``_simulation``; their tables, HTML and plots in the
renderer modules, which take results (see ``_renderers``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, Mapping, Optional, Tuple, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")

__all__ = ["Answer", "AnswerWarning", "DomainTie", "FrozenMap", "Hint", "Reason", "Skipped"]


class FrozenMap(Mapping[K, V]):
    """A read-only, hashable mapping (a JSON object of an answer). Compares equal to a ``dict``
    with the same items; keeps the core's key order."""

    __slots__ = ("_data", "_hash")

    def __init__(self, data: Mapping[K, V] | None = None) -> None:
        self._data: Dict[K, V] = dict(data) if data is not None else {}
        self._hash: Optional[int] = None

    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(tuple(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenMap):
            return self._data == other._data
        if isinstance(other, Mapping):
            return self._data == dict(other.items())
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"

    def to_dict(self) -> Dict[K, V]:
        """A plain, mutable copy."""
        return dict(self._data)


def _seq(items: Any, make: Callable[[Any], T]) -> Tuple[T, ...]:
    return tuple(make(x) for x in items or ())


def _strs(items: Any) -> Tuple[str, ...]:
    return tuple(items or ())


def _map(d: Any) -> FrozenMap[str, Any]:
    return FrozenMap(d or {})


def _price(p: float) -> str:
    """$/h as the CLI prints it: up to 5 decimals, trailing zeros dropped, at least 2."""
    whole, _, frac = f"{p + 0.0:.5f}".partition(".")
    return f"{whole}.{frac.rstrip('0').ljust(2, '0')}"


def _freeze(v: Any) -> Any:
    """JSON values made immutable and hashable: objects → FrozenMap, arrays → tuples."""
    if isinstance(v, Mapping):
        return FrozenMap({k: _freeze(x) for k, x in v.items()})
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    return v


# Kubernetes quantity suffixes (binary first: "Mi" must not be read as "M" + "i").
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "k": Decimal(10**3),
            "M": Decimal(10**6), "G": Decimal(10**9), "T": Decimal(10**12), "P": Decimal(10**15), "E": Decimal(10**18)}
_GIB = Decimal(2**30)


def quantity(q: Optional[str]) -> Optional[Decimal]:
    """A Kubernetes quantity ("3500m", "128Gi", "1e3") as an exact Decimal; None stays None.
    The answers only carry quantities the core wrote, so a malformed one is a bug: it raises."""
    if q is None:
        return None
    text = q.strip()
    try:
        if text[-2:] in _BINARY:
            return Decimal(text[:-2]) * _BINARY[text[-2:]]
        if text[-1:] in _DECIMAL:
            return Decimal(text[:-1]) * _DECIMAL[text[-1:]]
        return Decimal(text)
    except (InvalidOperation, IndexError):
        raise ValueError(f"not a Kubernetes quantity: {q!r}") from None


@dataclass(frozen=True)
class Reason:
    """Why a pod did not fit a NodePool, or why a node stays (``code`` is stable, FORMAT §7)."""

    code: str
    message: str
    node_pool: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Reason:
        return cls(code=d["code"], message=d["message"], node_pool=d.get("nodePool"))


@dataclass(frozen=True)
class Hint:
    """A change that may let a pending pod onto a NodePool, checked by re-planning with it
    applied: ``verified`` is True only when the pod then schedules on ``node_pool``;
    ``outcome`` is ``verified``, ``lands-elsewhere`` (it schedules, on another NodePool or node)
    or ``not-enough-alone``; ``check`` says what the re-plan did."""

    code: str
    node_pool: str
    change: str
    verified: bool
    check: str
    outcome: str = "verified"

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Hint:
        return cls(
            code=d["code"], node_pool=d["nodePool"], change=d["change"], verified=bool(d["verified"]), check=d["check"], outcome=d["outcome"]
        )


@dataclass(frozen=True)
class DomainTie:
    """A value real Karpenter picks at random among equal candidates (Go map order), so
    reruns of Karpenter differ; ``value`` (nodecast's) is one of ``candidates``: Karpenter's
    likeliest pick, the one the NodePool lists first (else the first by name)."""

    key: str
    value: str
    candidates: Tuple[str, ...]
    message: str

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> DomainTie:
        return cls(key=d["key"], value=d["value"], candidates=_strs(d.get("candidates")), message=d["message"])


@dataclass(frozen=True)
class Skipped:
    """An input object nodecast does not plan with (a Service, a ConfigMap, ...)."""

    document: int
    kind: str
    name: str
    reason: str
    source: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Skipped:
        return cls(document=d["document"], kind=d["kind"], name=d["name"], reason=d["reason"], source=d.get("source"))


@dataclass(frozen=True)
class AnswerWarning:
    """A warning of the answer (e.g. a NodePool skipped because it fails runtime validation)."""

    code: str
    message: str
    object: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> AnswerWarning:
        return cls(code=d["code"], message=d["message"], object=d.get("object"))


@dataclass(frozen=True)
class Answer:
    """Base of every result: the core's answer JSON, and conversions of it."""

    _json: str = field(repr=False, compare=False)

    @property
    def api_version(self) -> str:
        return "nodecast/v1"

    def to_json(self) -> str:
        """The answer exactly as the core returned it: the bytes ``nodecast <fn> -o json`` prints,
        without the final newline."""
        return self._json

    def to_dict(self) -> Dict[str, Any]:
        """The answer as parsed JSON (a fresh, mutable copy; camelCase keys as in the schema)."""
        result: Dict[str, Any] = json.loads(self._json)
        return result

    def to_pandas(self) -> pandas.DataFrame:
        raise NotImplementedError  # pragma: no cover - every concrete answer overrides it

    def summary_line(self) -> str:
        """The answer in one line, the same as ``str(result)``: one method name on every result
        (``Plan.summary()`` and the like remain; ``Simulation.summary`` is its totals)."""
        return str(self)

    def __repr__(self) -> str:
        return f"<nodecast.{type(self).__name__}: {self}>"

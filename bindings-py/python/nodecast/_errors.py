"""The two exceptions of the facade.

``InputError`` (a ``ValueError``): the input cannot be used — YAML/JSON syntax, a document that is
not a mapping, an unusable catalog, an unknown pod/node for ``explain``, a bad ``now`` or catalog
query. ``ValidationError`` (a subclass of ``InputError``): the input was read, but objects in it
break Karpenter's rules (an unknown operator, a bad quantity, a NodePool that admission rejects).
The split is the CLI's exit codes: 2 for unusable input, 1 for validation errors; both follow the
``errorClass`` the core writes into every failure answer (``"invalid"`` or ``"unusable"``), so
Python never guesses it.

Both carry every located error of the answer: ``.errors()`` is a list of dicts with ``code``,
``message`` and, as present, ``path``, ``document``, ``object``, ``source``, ``help``, ``line``,
``column``.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Type, TypeVar, cast

__all__ = ["InputError", "ValidationError", "error_from_answer", "format_error", "user_errors"]

_F = TypeVar("_F", bound=Callable[..., Any])


def user_errors(function: _F) -> _F:
    """A public function whose ``InputError`` shows as a user error, not as a bug: the traceback
    stops at the public function (none of the facade's internal frames: in a notebook the message
    is what matters, and it carries every location) and no chained exception is printed
    (``from None``). Other exceptions (a bug, ``KeyboardInterrupt``) keep their full traceback."""

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except InputError as e:
            raise e.with_traceback(None) from None

    return cast(_F, call)

_LOCATION_KEYS = ("code", "message", "path", "document", "object", "source", "help", "line", "column")


def format_error(e: Mapping[str, Any]) -> str:
    """One error as the CLI prints it:
    ``src, document 0, NodePool/x, spec.path: message [code] (expected: help)``."""
    loc: List[str] = []
    if e.get("source") is not None:
        loc.append(str(e["source"]))
    if e.get("document") is not None:
        loc.append(f"document {e['document']}")
    if e.get("object") is not None:
        loc.append(str(e["object"]))
    if e.get("path") is not None:
        loc.append(str(e["path"]))
    if e.get("line") is not None and e.get("column") is not None:
        loc.append(f"line {e['line']}, column {e['column']}")
    elif e.get("line") is not None:
        loc.append(f"line {e['line']}")
    text = f"{', '.join(loc)}: " if loc else ""
    text += f"{e.get('message', '')} [{e.get('code', '')}]"
    if e.get("help") is not None:
        text += f" (expected: {e['help']})"
    return text


class InputError(ValueError):
    """The input cannot be used. ``errors()`` lists every located problem."""

    def __init__(self, errors: Sequence[Mapping[str, Any]], *, kind: str = "Error", answer_json: Optional[str] = None) -> None:
        self._errors: Tuple[Dict[str, Any], ...] = tuple(
            {k: e[k] for k in _LOCATION_KEYS if e.get(k) is not None} for e in errors
        )
        self.kind = kind
        self._answer_json = answer_json
        n = len(self._errors)
        lines = [format_error(e) for e in self._errors]
        if n == 1:
            message = lines[0]
        else:
            message = f"{n} errors:\n" + "\n".join(f"  {line}" for line in lines)
        super().__init__(message)

    def errors(self) -> List[Dict[str, Any]]:
        """Every error as a dict (a fresh copy): code, message, path, document, object, source,
        help, line, column — the keys that are present."""
        return [dict(e) for e in self._errors]

    @property
    def codes(self) -> List[str]:
        """The error codes, in order (e.g. ``["yaml-syntax"]``)."""
        return [str(e["code"]) for e in self._errors]

    def to_json(self) -> str:
        """The failure answer as the core returned it (for errors found in Python, the same shape)."""
        if self._answer_json is not None:
            return self._answer_json
        error_class = "invalid" if isinstance(self, ValidationError) else "unusable"
        body = {
            "apiVersion": "nodecast/v1",
            "kind": self.kind,
            "errorClass": error_class,
            "status": "failure",
            "errors": self.errors(),
        }
        return json.dumps(body, indent=2)

    def to_dict(self) -> Dict[str, Any]:
        result: Dict[str, Any] = json.loads(self.to_json())
        return result

    def __reduce__(self) -> Tuple[Any, ...]:
        return (_rebuild, (type(self), self.errors(), self.kind, self._answer_json))


class ValidationError(InputError):
    """The input was read, but objects in it break Karpenter's validation rules."""


# Shown as ``nodecast.InputError`` in tracebacks (the public name), not ``nodecast._errors...``.
InputError.__module__ = "nodecast"
ValidationError.__module__ = "nodecast"


def _rebuild(cls: Type[InputError], errors: List[Dict[str, Any]], kind: str, answer_json: Optional[str]) -> InputError:
    return cls(errors, kind=kind, answer_json=answer_json)


def error_from_answer(answer_json: str, answer: Mapping[str, Any]) -> InputError:
    """The exception for a failure answer: ValidationError when the core classed it ``invalid``
    (every error is a validation error of an input object), InputError otherwise."""
    errors = answer.get("errors") or [{"code": "internal", "message": "failure answer without errors"}]
    cls = ValidationError if answer.get("errorClass") == "invalid" else InputError
    return cls(errors, kind=str(answer.get("kind", "Error")), answer_json=answer_json)

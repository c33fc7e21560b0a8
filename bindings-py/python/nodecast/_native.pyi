"""The private native module: the Rust core behind ``nodecast``. Use the ``nodecast`` facade."""

__all__ = ["__version__", "call", "_panic_for_test", "sweep_call"]

__version__: str

def call(function: str, request_json: str) -> str:
    """Run facade function ``function`` ("plan", "consolidate", "explain", "validate",
    "catalog") on a JSON request and return the answer JSON unchanged (the bytes
    ``nodecast <function> -o json`` prints, without the final newline). Releases the GIL while
    the core computes. A bad request is a failure answer, not an exception; raises RuntimeError
    only if the core panicked (a bug)."""

def _panic_for_test(message: str) -> str:
    """Test hook: panics inside the guard ``call`` uses; always raises RuntimeError."""

def sweep_call(function: str, request_json: str) -> str:
    """The sweep entry points (``sweep-files``, ``sweep-expand``, ``sweep-run``,
    ``sweep-request``, ``sweep-csv``) of ``nodecast::sweep``: JSON in, JSON (or CSV) out, the GIL
    released. Use ``nodecast.sweep``."""

"""Capacity-planning sweeps: ``nodecast.sweep`` (README, "Capacity planning sweeps").

The spec is read, validated and expanded by the Rust core (``nodecast::sweep``), which also turns
every answer into its row, so the rows are those of ``nodecast sweep SWEEP.yaml``. This module
only decides where the combinations run:

* ``engine="local"`` (default): in this process, batch after batch (the GIL is released while
  the core computes);
* ``engine="process"``: a local process pool; the spec is sent once to each worker (the pool's
  initializer), tasks carry only combination numbers;
* ``engine="ray"``: Ray tasks (``ray.init()`` locally, or ``address=`` of a cluster); the spec is
  put in the object store once and every task gets a reference.

Combination ``i`` is a pure function of the spec, so every engine gives the same rows, byte for
byte; rows are always returned in combination order. Tasks are batched so a task's fixed cost
(scheduling, re-reading the spec) stays under a tenth of its work. Nothing here imports pandas,
tqdm or ray until a sweep asks for them.
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._errors import InputError, error_from_answer, user_errors
from ._decision import Decision
from ._plan import Plan
from ._simulation import Simulation
from ._sources import build_request, trace_value

if TYPE_CHECKING:  # pragma: no cover
    import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]

ENGINES = ("local", "process", "ray")

#: A task's fixed cost besides re-reading the spec: measured with one-plan tasks on the 2-core VM
#: (benches/README.md, "Sweeps"), where it is mostly waiting for a CPU.
_TASK_OVERHEAD_SECONDS = {"local": 0.0003, "process": 0.016, "ray": 0.02}


def _call(function: str, payload: Mapping[str, Any]) -> Dict[str, Any]:
    text = _native.sweep_call(function, json.dumps(payload))
    answer: Dict[str, Any] = json.loads(text)
    if answer.get("status") != "success":
        raise error_from_answer(text, answer)
    return answer


def _run_batch(payload_json: str, indices: Sequence[int]) -> Tuple[str, float]:
    """Run combinations ``indices``: the rows JSON and the seconds spent in the core."""
    request = json.loads(payload_json)
    request["indices"] = list(indices)
    t0 = time.perf_counter()
    text = _native.sweep_call("sweep-run", json.dumps(request))
    return text, time.perf_counter() - t0


# Process-pool workers keep the spec from their initializer: it crosses the pipe once per worker.
_WORKER_PAYLOAD: Optional[str] = None


def _init_worker(payload_json: str) -> None:
    global _WORKER_PAYLOAD
    _WORKER_PAYLOAD = payload_json
    # Ctrl-C is the driver's to handle: it stops submitting and returns the rows done so far.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _worker_batch(indices: Sequence[int]) -> Tuple[str, float]:
    assert _WORKER_PAYLOAD is not None, "worker not initialized"
    return _run_batch(_WORKER_PAYLOAD, indices)


@dataclass
class SweepResult:
    """The rows of a sweep, one per combination in combination order (variant, grid values in
    the order given, trace, seed fastest). ``failed`` rows carry their error; ``interrupted`` is
    True when Ctrl-C stopped the sweep (then ``rows`` holds the combinations done so far)."""

    operation: str
    columns: List[str]
    rows: List[List[Any]]
    count: int
    interrupted: bool = False
    stats: Dict[str, Any] = field(default_factory=dict)
    _payload: str = field(default="", repr=False)
    _answers: Dict[int, str] = field(default_factory=dict, repr=False)
    _frame: Any = field(default=None, repr=False)

    @property
    def completed(self) -> int:
        return len(self.rows)

    @property
    def failed(self) -> int:
        k = self.columns.index("status")
        return sum(1 for r in self.rows if r[k] != "success")

    def to_pandas(self) -> "pandas.DataFrame":
        """The tidy table (one row per combination, the grid's values as columns; pandas needed)."""
        import pandas  # type: ignore[import-untyped,import-not-found,unused-ignore]

        if self._frame is None:
            self._frame = pandas.DataFrame(self.rows, columns=self.columns).set_index("index", drop=False)
            self._frame.index.name = None
        return self._frame.copy()

    @property
    def frame(self) -> "pandas.DataFrame":
        return self.to_pandas()

    def to_csv(self, path: Optional[Union[str, "os.PathLike[str]"]] = None) -> str:
        """The table as CSV: the bytes ``nodecast sweep`` prints (also written to ``path``)."""
        text = _native.sweep_call("sweep-csv", json.dumps({"columns": self.columns, "rows": self.rows}))
        if path is not None:
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
        return text

    def request_json(self, index: int) -> str:
        """The request combination ``index`` sends to the core (for ``nodecast._native.call``)."""
        payload = json.loads(self._payload)
        payload["index"] = int(index)
        answer = _call("sweep-request", payload)
        return json.dumps(answer["request"])

    def answer(self, index: int) -> Union[Simulation, Plan, Decision]:
        """The full answer of combination ``index``: kept from the run (``keep_answers=True``) or
        computed again now — the same bytes either way, the core being deterministic. Raises
        InputError for a failed combination."""
        text = self._answers.get(int(index))
        request = self.request_json(index)
        if text is None:
            function = self.operation
            text = _native.call(function, request)
        answer = json.loads(text)
        if answer.get("status") != "success":
            raise error_from_answer(text, answer)
        if self.operation == "simulate":
            return Simulation._from(text, answer, request)
        if self.operation == "plan":
            return Plan._from(text, answer)
        return Decision._from(text, answer)

    def __repr__(self) -> str:
        state = ", interrupted" if self.interrupted else ""
        return f"<nodecast.SweepResult: {self.operation}, {self.completed} of {self.count} combinations, {self.failed} failed{state}>"


def _grid_list(grid: Any) -> List[Dict[str, Any]]:
    if grid is None:
        return []
    if isinstance(grid, Mapping):
        out = []
        for name, axis in grid.items():
            if not isinstance(axis, Mapping):
                raise TypeError(f"grid[{name!r}] must be a mapping with target, path and values")
            out.append({"name": name, **dict(axis)})
        return out
    return [dict(a) for a in grid]


def _variant(v: Mapping[str, Any], options: Mapping[str, Any]) -> Dict[str, Any]:
    out = {k: val for k, val in v.items() if k != "sources"}
    if "sources" in v:
        sources = v["sources"]
        sources = sources if isinstance(sources, (list, tuple)) else [sources]
        req = json.loads(build_request(sources, **options))
        out["inputs"] = list(out.get("inputs", [])) + req.get("inputs", [])
        out["objects"] = list(out.get("objects", [])) + req.get("objects", [])
    return out


def _catalog_entry(entry: Any, options: Mapping[str, Any]) -> Any:
    """One value of a catalog axis: a catalog name or mapping as it is, or ``{catalog, label?,
    sources?}`` whose ``sources`` (the region's price and offering documents) become its
    ``inputs``/``objects``."""
    if not isinstance(entry, Mapping) or "sources" not in entry:
        return entry
    return _variant(entry, options)


def _below(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _lexically_below_cwd(path: str) -> bool:
    """A relative path that stays below the working directory with its ``..`` taken literally
    and is not itself a symbolic link (as the CLI's ``lexically_below_cwd``: the working
    directory may be a tree of links to a checkout)."""
    if os.path.isabs(path):
        return False
    depth = 0
    for part in path.split(os.sep):
        if part in ("", "."):
            continue
        if part == "..":
            if depth == 0:
                return False
            depth -= 1
        else:
            depth += 1
    return depth > 0 and not os.path.islink(path)


def _confined(name: str, path: str, base: str, allow_any_file: bool) -> str:
    """``path`` (named by the spec ``name``, relative to ``base``) if it lies in the spec's
    directory or the working directory, as the CLI checks; refused before it is opened
    otherwise, so a spec handed over by someone else cannot read any file of the machine into
    a row's error message (``allow_any_file=True`` reads it anyway)."""
    full = path if os.path.isabs(path) else os.path.join(base, path)
    if allow_any_file:
        return full
    real = os.path.realpath(full)
    home, cwd = os.path.realpath(base or "."), os.path.realpath(".")
    if _below(real, home) or _below(real, cwd) or _lexically_below_cwd(full):
        return full
    raise PermissionError(
        f"{name}: the file {path!r} it names is outside the spec's directory ({home}) and the working "
        "directory; it was not read (allow_any_file=True to read it anyway)"
    )


def _payload(text: str, name: str, base: str, allow_any_file: bool = False) -> Dict[str, Any]:
    """The spec with the texts of the files it names (read relative to ``base``, confined to it
    and the working directory unless ``allow_any_file``)."""
    listed = _call("sweep-files", {"name": name, "text": text})["files"]
    files = {}
    for path in listed:
        with open(_confined(name, path, base, allow_any_file), encoding="utf-8") as f:
            files[path] = f.read()
    return {"name": name, "text": text, "files": files}


def _payload_from_file(spec: Union[str, "os.PathLike[str]"], allow_any_file: bool = False) -> Dict[str, Any]:
    path = os.fspath(spec)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return _payload(text, path, os.path.dirname(path), allow_any_file)


def _progress_bar(progress: Optional[bool], total: int, initial: int) -> Any:
    if progress is False:
        return None
    try:
        from tqdm.auto import tqdm  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        if progress:
            raise ImportError("progress=True needs tqdm: pip install 'nodecast[sweep]'") from None
        return None
    if progress is None and not (sys.stderr.isatty() or "ipykernel" in sys.modules):
        return None
    return tqdm(total=total, initial=initial, unit="run", desc="nodecast sweep", postfix={"failed": 0})


def _batches(indices: Sequence[int], size: int) -> Iterator[List[int]]:
    for k in range(0, len(indices), size):
        yield list(indices[k : k + size])


@user_errors
def sweep(
    *sources: Any,
    spec: Optional[Union[str, "os.PathLike[str]", Mapping[str, Any]]] = None,
    operation: str = "simulate",
    traces: Optional[Sequence[Any]] = None,
    trace: Any = None,
    seeds: Optional[Union[Sequence[int], Mapping[str, int]]] = None,
    grid: Optional[Union[Sequence[Mapping[str, Any]], Mapping[str, Mapping[str, Any]]]] = None,
    variants: Optional[Sequence[Mapping[str, Any]]] = None,
    simulation: Optional[Mapping[str, Any]] = None,
    now: Optional[str] = None,
    catalog: Optional[Any] = None,
    zones: Optional[Union[str, Sequence[str]]] = None,
    spot_price_factor: Optional[float] = None,
    min_values_policy: Optional[str] = None,
    preference_policy: Optional[str] = None,
    spot_to_spot_consolidation: Optional[bool] = None,
    feature_gates: Optional[Union[str, Mapping[str, bool]]] = None,
    ignore_dra_requests: Optional[bool] = None,
    engine: str = "local",
    workers: Optional[int] = None,
    address: Optional[str] = None,
    batch_size: Optional[int] = None,
    progress: Optional[bool] = None,
    keep_answers: bool = False,
    allow_any_file: bool = False,
) -> SweepResult:
    """Run ``operation`` (``simulate``, ``plan`` or ``consolidate``) for every combination of
    variants × grid values × traces × seeds over the base ``sources`` and return the rows.

    Either ``spec=`` (a ``kind: Sweep`` YAML/JSON file, exactly what ``nodecast sweep`` reads,
    or that mapping) or the keyword form: ``sources`` as for ``nodecast.plan``; ``grid`` a list
    of ``{name, target, path, values, labels?}`` (or ``{name: {target, path, values}}``) where
    ``target`` is ``Kind/name`` or ``simulation`` and ``path`` a field path such as
    ``spec.template.spec.requirements[key=karpenter.sh/capacity-type].values``; ``variants`` a
    list of ``{name, sources?, edits?}`` (``sources`` replace the base documents of the same
    kind and name); ``traces`` (or one ``trace``) as for ``nodecast.simulate``; ``seeds`` a list
    or ``{"from": 1, "count": 20}``; ``simulation`` the camelCase settings mapping.
    ``catalog`` a list is an axis of its own (the ``catalog`` column): each entry a catalog
    name, a catalog mapping, or ``{catalog, label?, sources?}`` whose ``sources`` (that region's
    price and offering documents) are added to that catalog's combinations only.

    ``engine``: ``local`` (default), ``process`` (``workers`` processes, default the CPU count)
    or ``ray`` (connects with ``ray.init(address=address)`` when Ray is not initialized yet).
    ``progress``: a tqdm bar (None: when tqdm is installed and stderr is a terminal or a notebook
    runs). Ctrl-C stops the sweep and returns the rows done so far (``interrupted=True``).
    ``keep_answers`` keeps every full answer (memory!); ``answer(i)`` otherwise recomputes one.
    The files a spec names must lie in its directory (a mapping's: the working directory) or
    the working directory; any other is refused unread with PermissionError unless
    ``allow_any_file=True`` (the CLI's ``--allow-any-file``).
    Raises InputError (located at the spec's field paths) for a bad spec."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a positive int, not {workers!r}")
    if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1):
        raise ValueError(f"batch_size must be a positive int, not {batch_size!r}")
    axis = catalog if isinstance(catalog, (list, tuple)) else None
    if axis is not None and (zones is not None or spot_price_factor is not None):
        raise ValueError("catalog is a list (a sweep axis): give zones and spotPriceFactor in each entry's catalog mapping")
    if spec is not None:
        if axis is not None:
            raise ValueError("give the catalog axis in the spec (catalog: [...]), not as catalog=")
        if sources or traces is not None or trace is not None or grid is not None or variants is not None or seeds is not None:
            raise ValueError("give either spec= or sources with grid/variants/traces/seeds, not both")
        # A mapping's file paths are relative to the working directory, a file's to its directory.
        if isinstance(spec, Mapping):
            payload = _payload(json.dumps(dict(spec)), "<sweep>", ".", allow_any_file)
        else:
            payload = _payload_from_file(spec, allow_any_file)
    else:
        options: Dict[str, Any] = dict(
            catalog=None if axis is not None else catalog, zones=zones, spot_price_factor=spot_price_factor, min_values_policy=min_values_policy,
            preference_policy=preference_policy, spot_to_spot_consolidation=spot_to_spot_consolidation,
            feature_gates=feature_gates, ignore_dra_requests=ignore_dra_requests,
        )
        base = json.loads(build_request(sources, **options))
        doc: Dict[str, Any] = {"apiVersion": "nodecast/v1", "kind": "Sweep", "operation": operation}
        doc.update({k: base[k] for k in ("inputs", "objects", "catalog", "settings") if k in base})
        if axis is not None:
            doc["catalog"] = [_catalog_entry(e, options) for e in axis]
        if trace is not None:
            traces = [trace] if traces is None else [*traces, trace]
        if traces is not None:
            doc["traces"] = [trace_value(t) for t in traces]
        for key, value in (("seeds", seeds), ("simulation", simulation), ("now", now)):
            if value is not None:
                doc[key] = value if isinstance(value, (str, Mapping)) else list(value)
        if grid is not None:
            doc["grid"] = _grid_list(grid)
        if variants is not None:
            doc["variants"] = [_variant(v, options) for v in variants]
        payload = {"name": "<sweep>", "text": json.dumps(doc), "files": {}}
    t_expand = time.perf_counter()
    expanded = _call("sweep-expand", payload)
    parse_seconds = time.perf_counter() - t_expand
    payload_json = json.dumps(payload)
    result = SweepResult(operation=expanded["operation"], columns=list(expanded["columns"]), rows=[], count=int(expanded["count"]), _payload=payload_json)
    _execute(result, payload_json, engine, workers, address, batch_size, progress, keep_answers, parse_seconds)
    return result


def _execute(
    result: SweepResult,
    payload_json: str,
    engine: str,
    workers: Optional[int],
    address: Optional[str],
    batch_size: Optional[int],
    progress: Optional[bool],
    keep_answers: bool,
    parse_seconds: float,
) -> None:
    n = result.count
    status = result.columns.index("status")
    done: Dict[int, List[Any]] = {}
    started = time.perf_counter()
    core_seconds = 0.0
    tasks = 0
    bar = None

    def take(text: str, seconds: float) -> None:
        nonlocal core_seconds, tasks
        answer = json.loads(text)
        if answer.get("status") != "success":
            raise error_from_answer(text, answer)
        core_seconds += seconds
        tasks += 1
        for k, row in enumerate(answer["rows"]):
            done[row[0]] = row
            if keep_answers and answer.get("answers") and answer["answers"][k] is not None:
                result._answers[row[0]] = answer["answers"][k]
        if bar is not None:
            bar.update(len(answer["rows"]))
            bar.set_postfix(failed=sum(1 for r in done.values() if r[status] != "success"), refresh=False)

    if keep_answers:
        payload_json = json.dumps({**json.loads(payload_json), "answers": True})
    n_workers = 1 if engine == "local" else (workers or os.cpu_count() or 1)
    try:
        # Combination 0 runs here first: its time sizes the batches, and its row is kept.
        if n > 0:
            take(*_run_batch(payload_json, [0]))
        bar = _progress_bar(progress, n, len(done))
        rest = list(range(1, n))
        per_run = max(core_seconds, 1e-6)
        overhead = _TASK_OVERHEAD_SECONDS[engine] + parse_seconds
        size = batch_size or max(1, math.ceil(10 * overhead / per_run))
        if engine != "local" and batch_size is None:
            # Enough tasks to keep every worker busy to the end.
            size = max(1, min(size, math.ceil(len(rest) / (4 * n_workers))))
        batches = list(_batches(rest, size))
        result.stats.update(engine=engine, workers=n_workers, batch_size=size, tasks=len(batches) + (1 if n else 0))
        if engine == "local":
            for b in batches:
                take(*_run_batch(payload_json, b))
        elif engine == "process":
            _run_process_pool(payload_json, batches, n_workers, take)
        else:
            _run_ray(payload_json, batches, address, n_workers, take)
    except KeyboardInterrupt:
        result.interrupted = True
    finally:
        if bar is not None:
            bar.close()
    result.rows = [done[i] for i in sorted(done)]
    wall = time.perf_counter() - started
    result.stats.update(wall_seconds=wall, core_seconds=core_seconds, completed=len(done))


def _run_process_pool(payload_json: str, batches: List[List[int]], workers: int, take: Callable[[str, float], None]) -> None:
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    pool = ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(payload_json,))
    pending = set()
    try:
        pending = {pool.submit(_worker_batch, b) for b in batches}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in finished:
                take(*f.result())
    finally:
        for f in pending:
            f.cancel()
        pool.shutdown(wait=not pending, cancel_futures=True)


_RAY_TASK: Any = None


def _run_ray(payload_json: str, batches: List[List[int]], address: Optional[str], workers: int, take: Callable[[str, float], None]) -> None:
    global _RAY_TASK
    try:
        import ray  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        raise ImportError("engine='ray' needs Ray: pip install 'nodecast[ray]'") from None
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    if _RAY_TASK is None:
        _RAY_TASK = ray.remote(_run_batch)
    # The spec (manifests and traces) goes to the object store once; tasks get a reference.
    payload_ref = ray.put(payload_json)
    pending = [_RAY_TASK.remote(payload_ref, b) for b in batches]
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                take(*ray.get(ref))
    finally:
        for ref in pending:
            ray.cancel(ref)

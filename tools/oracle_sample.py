#!/usr/bin/env python3
"""The oracle's cached sample: nodecast's answers that the real Karpenter agreed with.

`make oracle-test` builds Karpenter v1.15.0 (Go) and runs it beside nodecast on ~800 scenarios;
on a fresh 2-core machine that is ten minutes of `make test`'s budget. So `make test` replays a
recording instead (`make oracle-sample`), and the live run is its own target:

  record  (make oracle-sample-update, after `oracle run -record FILE`): FILE holds nodecast's
          record of every scenario Karpenter agreed with, as the oracle compared it. The
          generated scenarios are copied into the sample; the repository's and ../shared's
          scenario files are referred to where they are. nodecast is run again on them, every
          record must be byte-equal to the one Karpenter was compared with, and the records are
          written to expected.jsonl with a digest of the catalog each scenario resolved.
  check   (make oracle-sample, in make test): runs nodecast on the sample and fails when a record
          differs from the recorded one: nodecast's answer then differs from one Karpenter gave.
          A change that is right (Karpenter agrees) is re-recorded with make oracle-sample-update.

Records are compared as canonical JSON (sorted keys); the catalog a scenario resolved is compared
by the SHA-256 of its canonical JSON, since the scenario records name it by a per-run number.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

EXPECTED = "expected.jsonl.gz"
GENERATED = "generated"
GENERATED_FILES = "generated.jsonl.gz"  # the generated scenario files, {"file", "text"} per line


def write_gz(path: Path, lines: list[str]) -> None:
    """gzip with no name and no time in its header, so the same lines give the same bytes."""
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
        gz.write(("\n".join(lines) + "\n").encode())


def read_gz(path: Path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return f.read().splitlines()


def unpack_generated(sample: Path, into: Path) -> None:
    """The generated scenarios as files under INTO/generated/ (nodecast reads files)."""
    (into / GENERATED).mkdir(parents=True, exist_ok=True)
    for line in read_gz(sample / GENERATED_FILES):
        e = json.loads(line)
        name = Path(e["file"]).name
        if e["file"] != f"{GENERATED}/{name}":
            sys.exit(f"oracle_sample: {sample / GENERATED_FILES}: unexpected file name {e['file']!r}")
        (into / GENERATED / name).write_text(e["text"])


def canonical(v: object) -> str:
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def run_nodecast(conformance: str, files: list[str]) -> Iterator[tuple[dict, str]]:
    """nodecast-conformance --oracle over FILES: each scenario record with its catalog's digest."""
    digests: dict[int, str] = {}
    proc = subprocess.Popen([conformance, "--oracle", *files], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        rec = json.loads(line)
        if rec.get("record") == "catalog":
            digests[rec["id"]] = hashlib.sha256(canonical(rec["catalog"]).encode()).hexdigest()
            continue
        cat = rec.pop("catalog", None)
        yield rec, digests.get(cat, "") if isinstance(cat, int) else ""
    if proc.wait() != 0:
        sys.exit(f"oracle_sample: {conformance} --oracle exited with {proc.returncode}")


def key(rec: dict) -> tuple[str, str]:
    return rec["file"], rec["name"]


def sample_ref(path: Path, gen_dir: Path, repo: Path, shared: Path) -> str:
    """Where the sample finds a scenario file: generated ones are copied, the others referred to."""
    p = path.resolve()
    if p.parent == gen_dir.resolve():  # first: the oracle's out/ is inside the repository
        return f"{GENERATED}/{p.name}"
    for prefix, root in (("repo:", repo), ("shared:", shared)):
        try:
            return prefix + p.relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    sys.exit(f"oracle_sample: {path}: neither generated ({gen_dir}) nor under {repo} or {shared}")


def resolve(ref: str, gen_root: Path, repo: Path, shared: Path) -> Path:
    if ref.startswith("repo:"):
        return repo / ref[len("repo:"):]
    if ref.startswith("shared:"):
        return shared / ref[len("shared:"):]
    return gen_root / ref


def record(args: argparse.Namespace) -> int:
    sample, repo, shared, gen_dir = Path(args.sample), Path(args.repo), Path(args.shared), Path(args.gen_dir)
    oracle_dir = Path(args.oracle_dir)
    lines = Path(args.source).read_text().splitlines()
    header = json.loads(lines[0])
    if header.get("record") != "header":
        sys.exit(f"oracle_sample: {args.source}: the first line is not the oracle's header")
    agreed = [json.loads(x) for x in lines[1:]]
    if len(agreed) != header["scenarios"]:
        sys.exit(f"oracle_sample: {args.source}: {len(agreed)} records, the header says {header['scenarios']}")
    refs: dict[str, str] = {}  # the path the oracle gave nodecast -> the sample's reference
    generated: dict[str, str] = {}  # the sample's reference -> the scenario's text
    for rec in agreed:
        f = rec["file"]
        if f not in refs:
            src = Path(f) if os.path.isabs(f) else oracle_dir / f
            refs[f] = sample_ref(src, gen_dir if gen_dir.is_absolute() else oracle_dir / gen_dir, repo, shared)
            if refs[f].startswith(GENERATED + "/"):
                generated[refs[f]] = src.read_text()
    sample.mkdir(parents=True, exist_ok=True)
    write_gz(sample / GENERATED_FILES, [canonical({"file": f, "text": generated[f]}) for f in sorted(generated)])
    want = {}
    for rec in agreed:
        rec = dict(rec)
        rec.pop("catalog", None)
        rec["file"] = refs[rec["file"]]
        want[key(rec)] = rec
    files = list(dict.fromkeys(r["file"] for r in want.values()))
    out = [canonical({"record": "header", "karpenter": header["karpenter"], "scenarios": len(want), "files": len(files)})]
    seen = set()
    with tempfile.TemporaryDirectory() as tmp:
        unpack_generated(sample, Path(tmp))
        by_path = {str(resolve(f, Path(tmp), repo, shared)): f for f in files}
        for rec, digest in run_nodecast(args.conformance, list(by_path)):
            rec["file"] = by_path[rec["file"]]
            k = key(rec)
            if k not in want:
                continue  # a scenario of a shared file that Karpenter did not agree with (or was excluded)
            if canonical(rec) != canonical(want[k]):
                sys.exit(f"oracle_sample: {k[0]} {k[1]}: nodecast's answer now differs from the one Karpenter was compared with")
            seen.add(k)
            out.append(canonical({"file": k[0], "name": k[1], "catalog": digest, "record": rec}))
    if seen != set(want):
        sys.exit(f"oracle_sample: {len(set(want) - seen)} recorded scenarios not answered again, e.g. {sorted(set(want) - seen)[0]}")
    write_gz(sample / EXPECTED, out)
    print(f"oracle sample: {len(seen)} scenarios Karpenter {header['karpenter']} agreed with, from {len(files)} files, written to {sample / EXPECTED}")
    return 0


def check(args: argparse.Namespace) -> int:
    sample = Path(args.sample)
    lines = read_gz(sample / EXPECTED)
    header = json.loads(lines[0])
    want = {}
    for x in lines[1:]:
        e = json.loads(x)
        want[(e["file"], e["name"])] = e
    files = list(dict.fromkeys(f for f, _ in want))
    with tempfile.TemporaryDirectory() as tmp:
        unpack_generated(sample, Path(tmp))
        return compare(args, header, want, files, Path(tmp))


def compare(args: argparse.Namespace, header: dict, want: dict, files: list[str], gen_root: Path) -> int:
    repo, shared = Path(args.repo), Path(args.shared)
    missing = [f for f in files if not resolve(f, gen_root, repo, shared).is_file()]
    if missing:
        print(f"oracle sample: {len(missing)} scenario files are not here (e.g. {missing[0]}): is {shared} beside the checkout?")
        return 1
    by_path = {str(resolve(f, gen_root, repo, shared)): f for f in files}
    same, differ, extra = 0, [], 0
    seen = set()
    for rec, digest in run_nodecast(args.conformance, list(by_path)):
        rec["file"] = by_path[rec["file"]]
        k = key(rec)
        e = want.get(k)
        if e is None:
            extra += 1
            continue
        seen.add(k)
        if canonical(rec) == canonical(e["record"]) and digest == e["catalog"]:
            same += 1
            continue
        what = "its catalog" if canonical(rec) == canonical(e["record"]) else "its answer"
        differ.append(f"  {k[0]} {k[1]}: {what} differs\n    recorded: {canonical(e['record'])[:400]}\n    now:      {canonical(rec)[:400]}")
    unanswered = sorted(set(want) - seen)
    print(
        f"oracle sample (nodecast's answers Karpenter {header['karpenter']} agreed with): {len(want)} scenarios, "
        f"{same} same, {len(differ)} differ, {len(unanswered)} not answered"
        + (f"; {extra} scenarios of these files are not in the sample" if extra else "")
    )
    for d in differ[:20]:
        print(d)
    for k in unanswered[:20]:
        print(f"  {k[0]} {k[1]}: not answered")
    if differ or unanswered:
        print("A change Karpenter agrees with is re-recorded by `make oracle-sample-update` (runs the real Karpenter).")
        return 1
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("record", "check"):
        p = sub.add_parser(name)
        p.add_argument("--conformance", required=True, help="the nodecast-conformance binary")
        p.add_argument("--sample", default="tests/oracle-sample")
        p.add_argument("--repo", default=".")
        p.add_argument("--shared", default="../shared")
        if name == "record":
            p.add_argument("--source", required=True, help="the file `oracle run -record` wrote")
            p.add_argument("--oracle-dir", default="oracle", help="where the oracle ran (its relative paths start there)")
            p.add_argument("--gen-dir", default="out/scenarios", help="the oracle's -dir, relative to --oracle-dir")
    args = ap.parse_args()
    return record(args) if args.cmd == "record" else check(args)


if __name__ == "__main__":
    sys.exit(main())

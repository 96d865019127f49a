"""Grading on the class's Dask cluster: each submission's sandbox runs on a worker.

    python -m gamekit.course grade SUBMISSIONS --scheduler tls://HOST:8786 --tls CERTS/

The cluster is the tournament's (`gamekit.tournament.cluster`): TLS with the class's own
certificate authority, this process connecting in the client role; a scheduler without TLS is
refused. A worker runs exactly what the teacher's machine runs locally, `grade.run_in_sandbox`
(bubblewrap's namespaces, the same limits), on the notebook's text, and sends back the
sandbox's result as JSON text. The teacher's side parses it with size and depth limits and
rebuilds the `SandboxRun` from checked built-in types only, keeping only the answers, probes and
checks the grading spec asked for; then the judge runs here, as locally. So the CSV is the
local one, byte for byte. Nothing a worker sends is unpickled here (`cluster.connect` reads plain
data only): a result or an exception a worker pickled is refused unread, and that submission's run
says its worker failed (`NotPlainData`).
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import nbformat

from ..jsonio import JSONLoadError, parse_json
from .runresult import ERROR_NAME, SandboxRun

__all__ = ["check_scheduler", "parse_sandbox_run", "run_on_cluster", "sandbox_run_json"]

#: Most bytes of one sandbox result accepted from a worker.
RESULT_BYTES = 16 << 20


def check_scheduler(scheduler: str, tls: str | Path | None) -> None:
    """Refuse a scheduler without TLS (it runs code for anyone who reaches it) or without certificates."""
    if not scheduler.startswith("tls://") or tls is None:
        raise ValueError(
            f"refusing the Dask scheduler {scheduler!r}: a scheduler without TLS runs code for anyone who reaches "
            "it; make certificates with `python -m gamekit.tournament certs CERTS/`, start the scheduler and "
            "workers as it prints, and pass --scheduler tls://HOST:8786 --tls CERTS/"
        )


def sandbox_run_json(
    run_in_sandbox: Callable[..., SandboxRun],
    notebook: str,
    spec: dict[str, Any],
    cell_timeout: float,
    trusted: bool,
    submission_seconds: float | None = None,
) -> str:
    """What a worker runs: the submission (notebook JSON text) in the sandbox; the result as JSON text.
    A failure here (no bubblewrap on this worker, say) is a result with only its `error`, naming the
    exception's type: an exception would travel pickled, and the teacher's side reads no pickle."""
    from ..sandbox import require_bwrap

    try:
        if not trusted:
            require_bwrap()  # a worker without bubblewrap refuses, as the teacher's machine would
        nb = nbformat.reads(notebook, as_version=4)
        run = run_in_sandbox(nb, spec, cell_timeout, trusted, submission_seconds)
    except Exception as exc:
        return json.dumps({"error": f"the worker that ran this notebook failed: {type(exc).__name__}"})
    return json.dumps(dataclasses.asdict(run), allow_nan=False)


def _str(value: Any, limit: int = 4000) -> str:
    if type(value) is not str:
        raise ValueError("a text that is not a string")
    return value[:limit]


def _items(value: Any, allowed: set[str]) -> dict[str, dict[str, str]]:
    if type(value) is not dict:
        raise ValueError("a table that is not an object")
    out = {}
    for key, item in value.items():
        if key not in allowed or type(item) is not dict or len(item) != 1:
            continue
        ((kind, text),) = item.items()
        if kind in ("value", "why"):
            out[key] = {kind: _str(text, 1 << 22)}
    return out


def parse_sandbox_run(text: Any, spec: dict[str, Any], cells: int) -> Any:
    """A worker's answer, checked: bounded JSON rebuilt as a `SandboxRun` of built-in types, keeping
    only the names, probes and checks `spec` asks for and the cell indices the notebook has."""
    if type(text) is not str:
        raise ValueError(f"a worker sent a {type(text).__name__}, not JSON text")
    try:
        data = parse_json(text, max_bytes=RESULT_BYTES, max_depth=8, source="a worker's sandbox result")
    except JSONLoadError as exc:
        raise ValueError(str(exc)) from None
    if type(data) is not dict:
        raise ValueError("a worker's sandbox result is not an object")
    cases = [c for q in spec["questions"] for c in q["cases"]]
    names = {n for c in cases for n in c["names"]}
    probes = {c["id"] for c in cases if c["probe"] is not None}
    checks = {c["id"] for c in cases if not c["hidden"] and c["probe"] is None}
    stopped = {}
    raw_stopped = data.get("stopped")
    for key, why in (raw_stopped if type(raw_stopped) is dict else {}).items():
        if key.isdigit() and int(key) < cells:
            stopped[int(key)] = _str(why)
    failed = {}  # cell index -> the type of the error it raised: a short identifier, else "an exception"
    raw_failed = data.get("failed")
    for key, kind in (raw_failed if type(raw_failed) is dict else {}).items():
        if key.isdigit() and int(key) < cells:
            failed[int(key)] = kind if type(kind) is str and ERROR_NAME.fullmatch(kind) else "an exception"
    raw_checks: dict = data["checks"] if type(data.get("checks")) is dict else {}
    error, rounds = data.get("error"), data.get("rounds")
    return SandboxRun(
        stopped=stopped,
        names=_items(data.get("names") or {}, names),
        probes=_items(data.get("probes") or {}, probes),
        checks={k: v for k, v in raw_checks.items() if k in checks and type(v) is bool},
        failed=failed,
        error=None if error is None else _str(error),
        rounds=rounds if type(rounds) is int else 0,
    )


def run_on_cluster(
    todo: Sequence[tuple[Any, Any]],
    cell_timeout: float,
    trusted: bool,
    scheduler: str,
    tls: str | Path,
    submission_seconds: float | None,
    read_submission: Callable[[Any], tuple[nbformat.NotebookNode | None, SandboxRun]],
    run_in_sandbox: Callable[..., SandboxRun],
) -> list[tuple[nbformat.NotebookNode | None, Any, float]]:
    """(notebook, SandboxRun, seconds) for every (Submission, Autograder) of `todo`, in its order,
    each submission's sandbox run on a worker of the cluster at `scheduler`."""
    check_scheduler(scheduler, tls)
    try:
        from dask.distributed import as_completed
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("grading on a cluster needs dask.distributed: pip install 'gamekit-course[cluster]'") from exc
    from ..tournament.cluster import connect

    results: list[tuple[nbformat.NotebookNode | None, Any, float] | None] = [None] * len(todo)
    sent: dict[str, tuple[int, float]] = {}
    notebooks: dict[int, nbformat.NotebookNode] = {}
    with connect(scheduler, tls) as client:
        futures = []
        for i, (sub, grader) in enumerate(todo):
            nb, failed = read_submission(sub)
            if nb is None:
                results[i] = (None, failed, 0.0)
                continue
            notebooks[i] = nb
            future = client.submit(
                sandbox_run_json,
                run_in_sandbox,
                nbformat.writes(nb),
                grader.spec,
                cell_timeout,
                trusted,
                submission_seconds,
                pure=False,
            )
            sent[future.key] = (i, time.monotonic())
            futures.append(future)
        done = 0
        try:
            for future in as_completed(futures):
                i, start = sent[future.key]
                sub, grader = todo[i]
                nb = notebooks[i]
                try:
                    run = parse_sandbox_run(future.result(), grader.spec, len(nb.cells))
                except Exception as exc:  # a worker that failed or lied costs this submission only
                    run = SandboxRun(error=f"the worker that ran this notebook failed: {type(exc).__name__}")
                seconds = time.monotonic() - start
                results[i] = (nb, run, seconds)
                done += 1
                print(
                    f"[{done}/{len(futures)}] {sub.student} ({grader.name}): ran on the cluster"
                    + (f", {len(run.stopped)} cell(s) stopped" if run.stopped else ""),
                    file=sys.stderr,
                    flush=True,
                )
        finally:
            client.cancel(futures)
    missing = [todo[i][0].student for i, r in enumerate(results) if r is None]
    if missing:
        raise RuntimeError(f"the cluster returned nothing for {missing}")
    return [r for r in results if r is not None]

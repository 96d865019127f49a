"""The grader's helper inside the sandbox: runs a submission's cells, then answers the probes.

This module runs in the student's process, inside bubblewrap's namespaces (see
`gamekit.sandbox`), so nothing it reports is believed: the student's code can replace any of
it. It is a convenience that speaks a simple protocol; the boundary is the operating system
around it and the teacher's side (`gamekit.course.gradesandbox`, reading through `channel`), which
bounds every message, keeps the clock, and rebuilds answers only as plain data (`gamekit.sandbox.plain`).

Protocol (one JSON object per line; requests on stdin, reports on the file descriptor given):

    request 1  {"cells": [source, ...], "limits": {"memory_mb": ..., "file_mb": ...}}
    reports    {"cell": i}  (started)   {"done": i, "ok": bool[, "error": type name]}   ...   {"ready": true}
    request 2  {"names": [...], "probes": [{"id": k, "code": source}], "checks": [{"id": k, "code": source}]}
    reports    {"name": n, "value": tagged JSON} | {"name": n, "missing": true} | {"name": n, "refused": why}
               {"probe": k}  {"probe_done": k, "value": ...} | {"probe_done": k, "error": why}
               {"check": k}  {"check_done": k, "passed": bool}
               {"end": true}

The second request comes only after every cell ran: the grader's probes (the code that calls a
student's function on the hidden inputs) are not in the process while the student's code runs.
`otter` is a stub here (`stub_otter`): the student's own `grader.check` calls show nothing, since
the grader runs the public checks itself in request 2.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from typing import Any

from . import plain

__all__ = ["BOOT", "main"]

#: `python -I -c BOOT <folder holding gamekit> <fd> <mode>` starts the runner (no cwd, no user site
#: on sys.path). mode "open": the runner itself (a trusted run, no jail); "jailed": `init` first.
BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); from gamekit.sandbox.sandboxrun import boot; "
    "boot(int(sys.argv[2]), sys.argv[3])"
)


def boot(fd: int, mode: str) -> None:
    """Start the runner; in a jail ("jailed", or "jailed:N" for a jail without control groups whose
    processes are bounded by RLIMIT_NPROC = N) as the child of `init`."""
    if mode == "open":
        main(fd)
    if not mode.startswith("jailed"):
        raise SystemExit(f"sandboxrun: unknown mode {mode!r}")
    _, _, processes = mode.partition(":")
    init(fd, int(processes) if processes else None)


def init(fd: int, processes: int | None) -> None:
    """The jail's pid 1 (bubblewrap runs `--as-pid-1`): non-dumpable before anything else, so no
    process of the jail can open its memory or attach to it; then the runner as its child, and every
    orphan reaped until the runner ends, whose exit status it ends with (its namespace dies with it).

    Signals from inside the namespace cannot reach it (the kernel protects a namespace's init)."""
    from . import seccomp

    seccomp.not_dumpable()
    if processes is not None:  # no pids control group: the kernel counts the jail's uid's processes
        _limit(resource.RLIMIT_NPROC, processes)
    child = os.fork()
    if child == 0:
        main(fd)
        os._exit(0)
    os.close(fd)  # the report pipe's end belongs to the runner: when it ends, the grader reads EOF
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)  # nor does init keep the request pipe
    os.close(null)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(0)
        except InterruptedError:
            continue
        if pid == child:
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF if os.WIFEXITED(status) else 1)


def _limit(kind: int, value: int) -> None:
    """Lower soft and hard limit (never raise them): without privileges nothing can undo it."""
    soft, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, value))


def apply_limits(limits: dict[str, Any]) -> None:
    mb = 1 << 20
    if limits.get("memory_mb"):
        _limit(resource.RLIMIT_AS, int(limits["memory_mb"]) * mb)
    if limits.get("file_mb"):
        _limit(resource.RLIMIT_FSIZE, int(limits["file_mb"]) * mb)
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_NOFILE, int(limits.get("files", 256)))


class _NoChecks:
    """What `otter.Notebook` is in the grader's sandbox: the student's own `grader.check(...)` calls
    run and show nothing. The grader runs the public checks itself (request 2), so importing otter
    (nbconvert and more: 5-20 s per submission, most of a run) would buy nothing here."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def check(self, *args: Any, **kwargs: Any) -> None:
        return None

    check_all = export = to_pdf = run_plugin = add_plugin_files = check

    def __getattr__(self, name: str) -> Any:
        return self.check


def stub_otter() -> None:
    """Make `import otter` in this process give a module whose `Notebook` checks nothing (see `_NoChecks`)."""
    import types

    module = types.ModuleType("otter", "otter-grader's checks are not run in the grader's sandbox")
    module.Notebook = _NoChecks  # type: ignore[attr-defined]
    sys.modules["otter"] = module


def make_shell() -> Any:
    """An IPython shell without history or terminal (magics and `display` work as in a notebook)."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    config.InteractiveShell.colors = "NoColor"
    config.InteractiveShell.xmode = "Plain"
    return InteractiveShell.instance(config=config)


def cell_error(shell: Any, source: str) -> str | None:
    """Run one cell; None if it ended without an exception, else the exception's type name (for the
    feedback page: which cell failed and how, e.g. "SyntaxError")."""
    try:
        result = shell.run_cell(source, store_history=False, silent=True)
    except BaseException as exc:
        return type(exc).__name__[:80]
    if result.success:
        return None
    error = result.error_before_exec or result.error_in_exec
    return type(error).__name__[:80] if error is not None else "Exception"


def run_cell(shell: Any, source: str) -> bool:
    """Run one cell; True if it ended without an exception."""
    return cell_error(shell, source) is None


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:300]


def main(fd: int) -> None:
    out = os.fdopen(fd, "w", buffering=1, encoding="utf-8")

    def send(message: dict[str, Any]) -> None:
        out.write(json.dumps(message, separators=(",", ":"), allow_nan=False) + "\n")
        out.flush()

    request = json.loads(sys.stdin.readline())
    apply_limits(request.get("limits", {}))
    stub_otter()
    shell = make_shell()
    for i, source in enumerate(request["cells"]):
        send({"cell": i})
        error = cell_error(shell, source)
        send({"done": i, "ok": error is None} | ({"error": error} if error else {}))
    send({"ready": True})
    job = json.loads(sys.stdin.readline())
    namespace = shell.user_ns
    for name in job.get("names", []):
        if name not in namespace:
            send({"name": name, "missing": True})
            continue
        try:
            send({"name": name, "value": plain.encode(namespace[name])})
        except plain.PlainDataError as exc:
            send({"name": name, "refused": str(exc)[:300]})
        except Exception as exc:
            send({"name": name, "refused": _describe(exc)})
    for probe in job.get("probes", []):
        send({"probe": probe["id"]})
        try:
            exec(compile(probe["code"], f"<probe {probe['id']}>", "exec"), namespace)
            value = plain.encode(namespace["probe"]())
        except BaseException as exc:
            send({"probe_done": probe["id"], "error": _describe(exc)})
        else:
            send({"probe_done": probe["id"], "value": value})
    for check in job.get("checks", []):
        send({"check": check["id"]})
        send({"check_done": check["id"], "passed": run_cell(shell, check["code"])})
    send({"end": True})
    out.close()
    os._exit(0)  # no clean-up code of the student's (atexit, threads) runs after the report

"""Grading 30 submissions locally and on a Dask cluster on loopback (TLS, as the class's cluster).

    python benchmarks/grading_cluster.py [--students 30] [--workers 2]

The submissions are the fixture lesson's (tests/fixtures/99-fixture.ipynb: all correct, blank,
wrong, too many nodes, a syntax error, a crash, a deleted check cell, in turn). Locally they are
graded two at a time; on the cluster each of `--workers` one-thread workers (on this same
machine) runs one sandbox at a time; a cell may run 120 s (none of these loops, so a busy machine
stops no cell and both runs grade the same). The script prints both times, their ratio, and whether the
two CSVs are byte for byte the same. On one machine the cluster cannot be faster than the local
run: the figure is what the cluster's round trips cost; a real class's cluster adds machines.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

from gamekit.course import grade
from gamekit.course.assign import assign_notebook
from gamekit.tournament.cluster import make_certificates, security, tls_arguments

KINDS = ["all-correct", "all-blank", "wrong-answers", "too-many-nodes", "syntax-error", "kernel-crash",
         "deleted-check-cell"]  # fmt: skip


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cluster(folder: Path, workers: int) -> tuple[str, Path, list[subprocess.Popen]]:
    from dask.distributed import Client

    certs = folder / "certs"
    make_certificates(certs)
    port = _port()
    address = f"tls://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "start_new_session": True, "env": env}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--protocol", "tls", "--host", "127.0.0.1",
             "--port", str(port), "--no-dashboard", *tls_arguments(certs, "scheduler")],
            cwd=folder, **quiet,
        )
    ]  # fmt: skip
    for k in range(workers):
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-dashboard",
                 *tls_arguments(certs, "worker"), "--local-directory", str(folder / f"w{k}"),
                 "--listen-address", f"tls://127.0.0.1:{_port()}"],
                cwd=folder, **quiet,
            )
        )  # fmt: skip
    with Client(address, security=security(certs, "client"), timeout=120) as client:
        client.wait_for_workers(workers, timeout=300)
    return address, certs, procs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    from make_fixture import FIXTURE
    from submissions import make_submission

    with tempfile.TemporaryDirectory(prefix="grading-cluster-") as tmp:
        folder = Path(tmp)
        done = assign_notebook(FIXTURE, folder / "assign", run_tests=False)
        student = nbformat.read(done.student, as_version=4)
        subs = folder / "submissions"
        subs.mkdir()
        for k in range(args.students):
            nbformat.write(make_submission(student, KINDS[k % len(KINDS)]), subs / f"{100001 + k}.ipynb")
        start = time.monotonic()
        _, [local] = grade.grade(subs, [done.autograder], folder / "local", cell_timeout=120, jobs=2)
        local_s = time.monotonic() - start
        address, certs, procs = _cluster(folder, args.workers)
        try:
            start = time.monotonic()
            _, [remote] = grade.grade(
                subs, [done.autograder], folder / "remote", cell_timeout=120, scheduler=address, tls=certs
            )
            remote_s = time.monotonic() - start
        finally:
            for p in procs:
                os.killpg(p.pid, signal.SIGTERM)
            for p in procs:
                p.wait(30)
        same = local.read_bytes() == remote.read_bytes()
        print(f"{args.students} submissions, load {os.getloadavg()[0]:.1f}")
        print(f"  local, two at a time:              {local_s:6.1f} s")
        print(
            f"  Dask on loopback, {args.workers} workers (TLS): {remote_s:6.1f} s"
            f"  ({remote_s / local_s:.2f}x the local)"
        )
        print(f"  the two CSVs are {'byte for byte the same' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main()

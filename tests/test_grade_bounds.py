"""A graded notebook's jail is bounded as a whole, as a tournament's is: processes, memory and disk.

The attack is one submitted cell, as a determined student would write it: hundreds of sleeping
children, several children that each hold 900 MB, and files written until the disk says no. In
the grader's jail the kernel stops each of them (a pids and a memory control group as root, the
jail's tmpfs for files); the same cell run without the jail (`trusted=True`, the teacher's own
code) gets all of it, so the bounds are what stops it.
"""

from __future__ import annotations

import nbformat
import pytest

from gamekit.course import grade
from gamekit.sandbox import cgroup, plain
from gamekit.sandbox.bwrap import bwrap_path
from gamekit.sandbox.limits import GRADING

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bwrap_path() is None, reason="needs bubblewrap (apt-get install bubblewrap)"),
]

ATTACK = r"""
import os, time
report = {}
kids = []
try:
    for _ in range(300):
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        kids.append(pid)
except OSError as exc:
    report["fork_refused"] = type(exc).__name__
report["sleepers"] = len(kids)
for pid in kids:
    os.kill(pid, 9)
    os.waitpid(pid, 0)

r, w = os.pipe()
hogs = []
for _ in range(HOGS):
    pid = os.fork()
    if pid == 0:
        os.close(r)
        block = b"x" * (900 << 20)          # 900 MB, every page touched
        os.write(w, b"+")
        time.sleep(4)
        os._exit(len(block) & 0)
    hogs.append(pid)
os.close(w)
held = b""
while chunk := os.read(r, 64):              # until every hog has ended (EOF)
    held += chunk
report["held_900mb"] = held.count(b"+")     # how many got their 900 MB at all
report["hogs_killed"] = sum(os.WIFSIGNALED(os.waitpid(pid, 0)[1]) for pid in hogs)

written = 0
try:
    for i in range(8):
        with open(f"fill-{i}", "wb") as f:
            for _ in range(48):
                f.write(b"y" * (1 << 20))
                written += 1 << 20
except OSError as exc:
    report["disk_refused"] = type(exc).__name__
report["written_mb"] = written >> 20
for i in range(8):
    if os.path.exists(f"fill-{i}"):
        os.remove(f"fill-{i}")
"""
SPEC = {"questions": [{"cases": [{"id": "bounds", "names": ["report"], "probe": None, "judge": "", "hidden": True}]}]}


def _run(trusted: bool, hogs: int) -> dict:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(ATTACK.replace("HOGS", str(hogs)))]
    run = grade.run_in_sandbox(nb, SPEC, cell_timeout=90, trusted=trusted, submission_seconds=200)
    assert run.error is None, run.error
    assert "value" in run.names.get("report", {}), run.names
    return plain.loads(run.names["report"]["value"])


def test_a_graded_notebook_cannot_fork_allocate_or_write_past_its_jails_bounds():
    report = _run(trusted=False, hogs=3)
    # processes: the jail's pids group (or, without control groups, RLIMIT_NPROC) refuses the 300
    assert report["sleepers"] < GRADING.processes, report
    assert report.get("fork_refused") in {"BlockingIOError", "OSError", "PermissionError"}, report
    # disk: the jail's tmpfs (256 MB) is full long before 8 x 48 MB, and nothing reaches the host
    assert report["written_mb"] <= GRADING.disk_mb, report
    assert report.get("disk_refused") == "OSError", report
    if cgroup.mechanism() == "cgroup-v1":  # memory for the jail as a whole: 2 GB, so 3 x 900 MB cannot all stay
        assert report["hogs_killed"] >= 1, report


def test_without_the_jail_the_same_cell_gets_everything():
    """The control: the same cell as trusted code (no jail, no groups) forks all 300 and writes all
    384 MB (in the grader's own temporary folder, removed after), so the refusals above are the jail's.
    Two hogs, not three: the point is shown without taking 2.7 GB of the machine."""
    report = _run(trusted=True, hogs=2)
    assert report["sleepers"] == 300 and "fork_refused" not in report, report
    assert report["written_mb"] == 8 * 48 and "disk_refused" not in report, report
    assert report["held_900mb"] == 2 and report["hogs_killed"] == 0, report

"""The hostile zoo again, as a teacher runs it: without root.

CI runs as root, and root's sandbox is not a teacher's (a root bubblewrap could do what an
unprivileged one cannot; files root can read are not a teacher's). So, where the tests run as
root, this runs the grading attacks and the tournament attacks once more in a pytest child as the
unprivileged user `nobody` (`setpriv --reuid --regid --clear-groups`), with a home and temporary
folder of its own, and asserts they pass there too. Where the tests do not run as root they
already run unprivileged, and this is skipped.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gamekit.sandbox import bwrap_path

ROOT = Path(__file__).resolve().parent.parent
ZOO = [
    "tests/test_grade_attacks.py::test_cheating_submissions_cost_only_the_cheater",
    "tests/test_tournament_attacks.py",
    "tests/test_jail_kernel.py",
    "tests/test_grade_bounds.py",
]

pytestmark = [
    pytest.mark.notebook,
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="not root: the suite itself already runs as an unprivileged user"),
    pytest.mark.skipif(
        shutil.which("setpriv") is None or shutil.which("unshare") is None,
        reason="needs setpriv and unshare (util-linux) to drop root",
    ),
    pytest.mark.skipif(bwrap_path() is None, reason="needs bubblewrap"),
]


def _nobody() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user `nobody` on this machine")


def _hidden(path: str) -> tuple[str, str] | None:
    """(the first folder above `path` that others cannot enter, its child towards `path`), or None."""
    parts = Path(path).resolve().parts
    for k in range(1, len(parts) - 1):
        folder = Path(*parts[: k + 1])
        if not os.stat(folder).st_mode & 0o001:
            return str(folder), str(Path(*parts[: k + 2]))
    return None


def _as(user: pwd.struct_passwd, home: Path, argv: list[str], timeout: float) -> subprocess.CompletedProcess:
    """Run `argv` as `user`. Where this Python lives in a folder only root may enter (CI's pyenv under
    /root), the child gets a mount namespace of its own in which that folder is an empty tmpfs with
    only the Python's own subtree bound back: the teacher's Python readable by the teacher, nothing
    else of root's visible, and nothing changed outside the child."""
    drop = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]
    hidden = _hidden(sys.base_prefix)
    if hidden is not None:
        folder, child = hidden
        keep = home / "hidden-folder"
        keep.mkdir(exist_ok=True)
        script = (
            'set -e; mount --bind "$1" "$2"; mount -t tmpfs -o mode=0755,size=1m tmpfs "$1"; '
            'mkdir -p "$3"; mount --bind "$2/${3#$1/}" "$3"; shift 3; exec "$@"'
        )
        drop = ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                folder, str(keep), child, *drop]  # fmt: skip
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": str(home),
        "TMPDIR": str(home / "tmp"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "GAMEKIT_TEST_ARTIFACTS": str(home / "artifacts"),
        "MPLBACKEND": "Agg",
    }
    return subprocess.run(
        drop + argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, start_new_session=True
    )


def test_the_hostile_zoo_holds_for_an_unprivileged_teacher():
    user = _nobody()
    # not under the suite's own temporary folder (root's, mode 0700): the teacher must be able to reach it
    home = Path(tempfile.mkdtemp(prefix="gamekit-teacher-", dir="/tmp"))
    try:
        (home / "tmp").mkdir()
        for path in (home, home / "tmp"):
            os.chown(path, user.pw_uid, user.pw_gid)
        ids = "import os, subprocess, sys; print(os.geteuid(), os.getegid(), os.getgroups()); "
        ids += "subprocess.run([sys.executable, '-c', 'import IPython, gamekit'], check=True)"
        who = _as(user, home, [sys.executable, "-c", ids], 120)
        assert who.stdout.split() == [str(user.pw_uid), str(user.pw_gid), "[]"], who.stderr
        run = _as(
            user,
            home,
            [
                sys.executable,
                "-m",
                "pytest",
                *ZOO,
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:randomly",
                "--basetemp",
                str(home / "basetemp"),
            ],  # fmt: skip
            timeout=2400,
        )
        tail = (run.stdout + run.stderr)[-4000:]
        assert run.returncode == 0, tail
        passed = re.search(r"(\d+) passed", run.stdout)
        assert passed and int(passed.group(1)) >= 2 and "skipped" not in run.stdout.splitlines()[-1], tail
    finally:
        shutil.rmtree(home, ignore_errors=True)

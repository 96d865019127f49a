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

from gamekit.isolation import bwrap_path

ROOT = Path(__file__).resolve().parent.parent
ZOO = [
    "tests/test_grade_attacks.py::test_cheating_submissions_cost_only_the_cheater",
    "tests/test_tournament_attacks.py",
]

pytestmark = [
    pytest.mark.notebook,
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="not root: the suite itself already runs as an unprivileged user"),
    pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs setpriv (util-linux) to drop root"),
    pytest.mark.skipif(bwrap_path() is None, reason="needs bubblewrap"),
]


def _nobody() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user `nobody` on this machine")


def _as(user: pwd.struct_passwd, home: Path, argv: list[str], timeout: float) -> subprocess.CompletedProcess:
    drop = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]
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
    home = Path(tempfile.mkdtemp(prefix="gamekit-teacher-"))
    try:
        (home / "tmp").mkdir()
        for path in (home, home / "tmp"):
            os.chown(path, user.pw_uid, user.pw_gid)
        ids = "import os; print(os.geteuid(), os.getegid(), os.getgroups())"
        who = _as(user, home, [sys.executable, "-c", ids], 60)
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

"""The hostile zoo again, as a teacher runs it: without root.

CI runs as root, and root's sandbox is not a teacher's (a root bubblewrap could do what an
unprivileged one cannot; files root can read are not a teacher's). So, where the tests run as
root, this runs the grading attacks and the tournament attacks once more in a pytest child as the
unprivileged user `nobody` (`setpriv --reuid --regid --clear-groups`), with a home and temporary
folder of its own, and asserts they pass there too. Where the tests do not run as root they
already run unprivileged, and this is skipped.

It does not depend on where the checkout lies or who may read it (a clone in root's home, or in a
`mktemp -d` folder): what the teacher cannot reach (the checkout, the venv, the Python it was made
from) is made reachable in a mount namespace of the child's own, and the child runs the checkout's
own code, never another copy of gamekit the venv points to.
"""

from __future__ import annotations

import os
import pwd
import re
import shlex
import shutil
import stat
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
    "tests/test_zygote_attacks.py",
    # the tmpfs's bound and its control (the jail's other bounds are control groups: root only)
    "tests/test_tournament_boundary.py::test_each_bound_switched_off_lets_the_same_attack_further[filler]",
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


def _may(user: pwd.struct_passwd, info: os.stat_result, want: int) -> bool:
    """Whether `user` (its own group only, as `setpriv --clear-groups` leaves it) has the permission
    bits `want` (0o1 enter, 0o4 read, as the "others" bits) on a file with status `info`."""
    shift = 6 if info.st_uid == user.pw_uid else 3 if info.st_gid == user.pw_gid else 0
    return (info.st_mode >> shift) & want == want


def _reveal(user: pwd.struct_passwd, paths: list[str], stash: Path) -> list[str]:
    """Shell commands (run as root in a mount namespace of the child's own) after which `user` can
    enter every folder on the way to each of `paths` and enter and read the paths themselves.

    Each folder `user` may not enter (or, for one of `paths`, read) becomes an empty tmpfs of mode
    0755 into which only what leads towards `paths` is bound back (every entry, for one of `paths`
    itself): CI's pyenv under /root stays the only thing of root's home the teacher sees, a checkout
    in a 0700 folder is seen whole, and nothing changes outside the child. [] when all is reachable."""
    wanted = {Path(p).resolve() for p in paths}
    on_the_way = {folder for p in wanted for folder in (p, *p.parents) if folder != Path(folder.anchor)}
    commands: list[str] = []
    outer_first = sorted(on_the_way, key=lambda f: len(f.parts))
    hidden = [f for f in outer_first if not _may(user, os.stat(f), 0o5 if f in wanted else 0o1)]
    for k, folder in enumerate(hidden):
        if folder in wanted:
            keep = sorted(os.listdir(folder))
        else:
            keep = sorted({p.relative_to(folder).parts[0] for p in wanted if folder in p.parents})
        kept = stash / str(k)  # where the folder itself stays reachable for root, to bind from
        kept.mkdir(parents=True, exist_ok=True)
        q = shlex.quote
        commands += [f"mount --bind {q(str(folder))} {q(str(kept))}"]
        commands += [f"mount -t tmpfs -o mode=0755,size=1m tmpfs {q(str(folder))}"]
        for name in keep:
            source, target = q(str(kept / name)), q(str(folder / name))
            mode = os.lstat(folder / name).st_mode
            if stat.S_ISLNK(mode):
                commands.append(f"ln -s {q(os.readlink(folder / name))} {target}")
            elif stat.S_ISDIR(mode):
                commands += [f"mkdir {target}", f"mount --bind {source} {target}"]
            elif stat.S_ISREG(mode):
                commands += [f": > {target}", f"mount --bind {source} {target}"]
    return commands


def _as(user: pwd.struct_passwd, home: Path, argv: list[str], timeout: float) -> subprocess.CompletedProcess:
    """Run `argv` as `user` in the checkout. Where the checkout, the venv or the Python it was made from
    lies in a folder `user` may not enter (CI's pyenv under /root, a clone in a 0700 folder), the child
    gets a mount namespace of its own in which they are reachable (`_reveal`)."""
    drop = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]
    commands = _reveal(user, [sys.base_prefix, sys.prefix, str(ROOT)], home / "hidden")
    if commands:
        script = f'set -e; {"; ".join(commands)}; cd {shlex.quote(str(ROOT))}; exec "$@"'
        drop = ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", *drop]
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
        ids = "import os, subprocess, sys; print(os.geteuid(), os.getegid(), os.getgroups(), flush=True); "
        ids += "subprocess.run([sys.executable, '-c', 'import IPython, gamekit; print(gamekit.__file__)'], check=True)"
        who = _as(user, home, [sys.executable, "-c", ids], 120)
        # the teacher, with no group of root's, runs this checkout's gamekit (not one the venv points to elsewhere)
        mine = str(ROOT / "gamekit" / "__init__.py")
        assert who.stdout.splitlines() == [f"{user.pw_uid} {user.pw_gid} []", mine], who.stdout + who.stderr
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

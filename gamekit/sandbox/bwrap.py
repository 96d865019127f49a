"""The operating system's boundary around students' code: bubblewrap namespaces.

Students' agents (the class tournament) and submitted notebooks (grading) are untrusted. A check
written in Python inside the student's own interpreter can be switched off by that code, so the
boundary is the kernel's: each piece of student code runs under bubblewrap (Debian's package
`bubblewrap`, the `bwrap` command) in new user, PID, mount, IPC, UTS and network namespaces:

* the file system it sees is built from nothing: the system's libraries and the Python
  installation read-only, the `gamekit` package read-only; a private empty home and an empty
  temporary folder, both tmpfs of bounded size and the only writable places (no folder of the
  host's is ever writable inside); nothing of the teacher's home, the other students' files, the
  master notebooks or the grading folder;
* no network at all (only its own loopback), so no scheduler, no other machine;
* it sees and can signal only its own processes (a new PID namespace), and it dies with its
  parent (`--die-with-parent`): when the referee or the grader goes, everything in it goes;
* a clean environment (nothing of the teacher's variables), no capabilities, a new session (no
  terminal to inject keystrokes into);
* the system-call filter of `gamekit.sandbox.seccomp` (bubblewrap's `--seccomp FD`), loaded before
  the jail's first process runs and inherited by every process it starts;
* no bubblewrap process inside (`--as-pid-1`): the jail's first process is the course's own
  (the zygote, or grading's init), which makes itself non-dumpable before any student code runs,
  so no process of the jail can open another's memory or attach to it.

A box inside a box cannot be made (the filter forbids new namespaces and mounts): inside one,
`bwrap_path()` is None, so a lesson graded in a jail runs its own agents as plain processes of
that jail, which bounds them all.

`Jail` describes one such box and turns a command into the `bwrap` command line that runs it
there. Without `bwrap` (macOS, Windows, a Linux without the package) `require_bwrap` raises
`SandboxUnavailable` with a message that says how to get the real sandbox; callers run untrusted
code without it only when the teacher passes an explicit `--trusted-code`.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "HOME",
    "INSIDE",
    "INSTALL_HINT",
    "SANDBOX_UID",
    "Jail",
    "SandboxUnavailable",
    "bwrap_path",
    "python_paths",
    "require_bwrap",
    "thread_environment",
]

SANDBOX_UID = 65534  # "nobody" inside the namespace
#: Set to "1" inside every box: there no box can be made (see the module docstring). Only code
#: inside a box sees this variable.
INSIDE = "GAMEKIT_IN_SANDBOX"
HOME = "/home/student"  # the private, empty home inside the box
INSTALL_HINT = (
    "Students' code runs only inside bubblewrap's namespaces, and `bwrap` was not found. "
    "On Debian or Ubuntu: `sudo apt-get install bubblewrap`; on Fedora: `sudo dnf install bubblewrap`. "
    "On Windows use WSL 2; on macOS or Windows you can also use the course's container image "
    '(the Dockerfile at the top of the repository; docs/setup.md: "Running in a container"). '
    "Only if you trust every file you run (your own agents, say), pass --trusted-code to run without it."
)
# System folders every Python needs; bound read-only where they exist (symlinks kept as symlinks).
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# The few files of /etc a Python program needs (never the whole /etc: it may hold secrets).
ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/fonts",
    "/etc/alternatives",
    "/etc/mime.types",
)


class SandboxUnavailable(RuntimeError):
    """The operating-system sandbox cannot be used on this machine (no `bwrap`, or it fails)."""


def bwrap_path() -> str | None:
    """Where the `bwrap` command is, or None (only on Linux, and never inside a box: its system-call
    filter forbids the namespaces a second box needs)."""
    if not sys.platform.startswith("linux") or os.environ.get(INSIDE) == "1":
        return None
    return shutil.which("bwrap")


CONTAINER_HINT = (
    "In a container, bubblewrap needs user namespaces and its own /proc: start the container with "
    "`--security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined` "
    '(docs/setup.md: "Running in a container"); on a Linux host, unprivileged user namespaces must be enabled '
    "(`sysctl kernel.unprivileged_userns_clone=1` on older Debian)."
)
_WORKS: dict[str, str | None] = {}  # bwrap path -> None if a trial box started, else bubblewrap's complaint


def _trial(path: str) -> str | None:
    """Start one empty box the way `Jail` does (namespaces, /proc, the filter, no bubblewrap inside);
    None if it works, else why not."""
    import subprocess

    from . import seccomp

    problem = seccomp.available()
    if problem is not None:
        return problem
    fd = seccomp.program_fd()
    argv = [path, "--unshare-all", "--die-with-parent", "--as-pid-1", "--ro-bind", "/", "/", "--dev", "/dev"]
    argv += ["--proc", "/proc", "--seccomp", str(fd)]
    try:
        done = subprocess.run([*argv, "--", "/bin/true"], capture_output=True, text=True, timeout=30, pass_fds=[fd])
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    finally:
        os.close(fd)
    return None if done.returncode == 0 else (done.stderr.strip() or f"exit status {done.returncode}")


def require_bwrap() -> str:
    """The `bwrap` command, or `SandboxUnavailable` saying how to get it (also when bubblewrap is
    installed but cannot make a box here, as in a container started without the right options)."""
    if os.environ.get(INSIDE) == "1":
        raise SandboxUnavailable(
            "this code runs inside a sandbox already, whose system-call filter forbids making another: "
            "run it with trusted_code=True there (the outer sandbox bounds it)"
        )
    path = bwrap_path()
    if path is None:
        raise SandboxUnavailable(INSTALL_HINT)
    if path not in _WORKS:
        _WORKS[path] = _trial(path)
    problem = _WORKS[path]
    if problem is not None:
        raise SandboxUnavailable(f"bubblewrap is installed but cannot make a sandbox here: {problem}. {CONTAINER_HINT}")
    return path


def thread_environment() -> dict[str, str]:
    """One thread for every numeric library, and matplotlib without a screen."""
    return {
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1",
        "VECLIB_MAXIMUM_THREADS": "1",
        "MPLBACKEND": "Agg",
    }


def _existing(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    seen: list[str] = []
    for p in paths:
        text = os.path.abspath(os.fspath(p))
        if os.path.exists(text) and text not in seen:
            seen.append(text)
    return seen


def python_paths() -> list[str]:
    """Everything this Python needs to start and import gamekit with its dependencies, read-only.

    The interpreter's prefixes (a venv and the Python it was made from), its site-packages, and
    the `gamekit` package and its data folder wherever they live (an editable install points
    into the source tree: only those two folders are bound, never the tree's notebooks or tests).
    """
    import gamekit
    import gamekit.data

    candidates: list[str | os.PathLike[str]] = [
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
        *(sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")),
        *site.getsitepackages(),
        *gamekit.__path__,
        *gamekit.data.__path__,
    ]
    usersite = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if usersite and os.path.isdir(usersite):
        candidates.append(usersite)
    found = _existing(candidates)
    # Keep the outermost folders only (a prefix already covers its site-packages).
    found.sort(key=len)
    outer: list[str] = []
    for p in found:
        if not any(p == o or p.startswith(o.rstrip("/") + "/") for o in outer):
            outer.append(p)
    return outer


@dataclass(frozen=True)
class Jail:
    """One bubblewrap box. `popen(argv)` starts `argv` inside it; `command(argv, fd)` is its command line.

    read_only: host paths visible inside, read-only, at the same place (besides the system and
        Python ones, which are always there).
    env: the whole environment inside (nothing is inherited); HOME and TMPDIR are set for you.
    cwd: the working folder inside (the private home by default).
    tmp_mb: the size of the private temporary folder and the home (tmpfs, in memory): the only
        places a jail can write; nothing it writes reaches the host's disk.
    file_kb: the largest file any process of the jail may write (RLIMIT_FSIZE, set before the jail
        starts, so it holds for its first process and everything after it).
    open_files: file descriptors per process (RLIMIT_NOFILE).

    Every jail gets the system-call filter `gamekit.sandbox.seccomp.JAIL`; there is no way to
    leave it out, and no writable folder of the host's can be bound into a jail.
    """

    read_only: Sequence[str] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str = HOME
    tmp_mb: int = 64
    file_kb: int = 64 << 10
    open_files: int = 256

    def command(self, argv: Sequence[str], seccomp_fd: int) -> list[str]:
        """The `bwrap ... -- argv` command line (raises `SandboxUnavailable` without bwrap).

        seccomp_fd: a descriptor reading the filter's program (`gamekit.sandbox.seccomp.program_fd`),
        which the caller passes to the child; `popen` does all of it."""
        bwrap = require_bwrap()
        args = [
            bwrap,
            "--unshare-all",  # user, PID, mount, IPC, UTS, cgroup and network namespaces
            "--unshare-user",
            "--uid",
            str(SANDBOX_UID),
            "--gid",
            str(SANDBOX_UID),
            "--hostname",
            "sandbox",
            "--die-with-parent",
            "--new-session",
            "--as-pid-1",  # no bubblewrap process inside: its pid 1 would be reachable and unfiltered
            "--cap-drop",
            "ALL",
            "--clearenv",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--seccomp",
            str(int(seccomp_fd)),
        ]
        for path in SYSTEM_PATHS:
            if os.path.islink(path):
                args += ["--symlink", os.readlink(path), path]
            elif os.path.isdir(path):
                args += ["--ro-bind", path, path]
        for path in ETC_FILES:
            if os.path.exists(path):
                args += ["--ro-bind", path, path]
        # the private temp folder and home first: what is bound below stays visible even where it
        # lives under /tmp (a clone or a venv there) instead of being hidden by the new, empty /tmp
        size = str(int(self.tmp_mb) << 20)
        args += ["--size", size, "--tmpfs", "/tmp", "--size", size, "--tmpfs", HOME]
        for path in python_paths() + _existing(self.read_only):
            args += ["--ro-bind", path, path]
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": HOME, "TMPDIR": "/tmp"}
        env.update(self.env)
        env[INSIDE] = "1"
        for key, value in env.items():
            args += ["--setenv", key, value]
        args += ["--remount-ro", "/", "--chdir", self.cwd, "--"]  # the box's own root: read-only too
        return args + list(argv)

    def limits_command(self, argv: list[str]) -> list[str]:
        """`argv` started with the jail's resource limits set (util-linux's `prlimit`, before bubblewrap
        starts: the jail's first process and everything after it inherit them, and without
        privileges none of them can raise a hard limit)."""
        prlimit = shutil.which("prlimit") or "/usr/bin/prlimit"
        return [
            prlimit,
            f"--fsize={int(self.file_kb) << 10}",
            f"--nofile={int(self.open_files)}",
            "--core=0",
            "--",
            *argv,
        ]

    def popen(
        self, argv: Sequence[str], *, wrap: Callable[[list[str]], list[str]] | None = None, **kwargs: Any
    ) -> subprocess.Popen:
        """Start `argv` in this jail (`subprocess.Popen` arguments pass through; `pass_fds` are kept).

        wrap: turns the command line into the one to start (a control group's `JailGroup.wrap`)."""
        from . import seccomp

        fd = seccomp.program_fd(seccomp.JAIL)
        try:
            command = self.limits_command(self.command(argv, fd))
            if wrap is not None:
                command = wrap(command)
            kwargs["pass_fds"] = (*kwargs.get("pass_fds", ()), fd)
            return subprocess.Popen(command, **kwargs)
        finally:
            os.close(fd)

    def run(self, argv: Sequence[str], *, timeout: float | None = None, **kwargs: Any) -> subprocess.CompletedProcess:
        """Run `argv` in this jail to its end, like `subprocess.run` (output captured as text unless told)."""
        kwargs.setdefault("capture_output", True)
        kwargs.setdefault("text", True)
        capture = kwargs.pop("capture_output")
        if capture:
            kwargs.setdefault("stdout", subprocess.PIPE)
            kwargs.setdefault("stderr", subprocess.PIPE)
        with self.popen(argv, **kwargs) as proc:
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
                raise
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def python_command(code: str) -> list[str]:
    """`python -c code` with this interpreter (isolated from the user's site and PYTHON* variables)."""
    return [sys.executable, "-I", "-c", code]


def describe(paths: Iterable[str | os.PathLike[str]]) -> str:
    """The paths as one line, for messages."""
    return ", ".join(str(Path(p)) for p in paths)

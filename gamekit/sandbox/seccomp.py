"""The jail's system-call filter: what no process in a jail may ask the kernel, whatever its code.

A Python check inside the student's interpreter can be switched off by that interpreter; a
seccomp filter cannot. It is installed before any student code runs and is irrevocable: it holds
for the process that gets it and for everything that process ever starts, and a later filter can
only add refusals. Two programs, both built with libseccomp (PyPI's `pyseccomp`, a thin ctypes
binding of Debian's `libseccomp2`):

* `JAIL` — every process of every jail, tournament and grading alike (bubblewrap's `--seccomp FD`
  loads it into the jail's first process): no debugging or reading other processes (`ptrace`,
  `process_vm_readv/writev`, `pidfd_getfd`, `kcmp`), no kernel attack surface a game or a notebook
  never needs (`bpf`, `perf_event_open`, `userfaultfd`, `io_uring_*`, `keyctl` and friends,
  modules, `kexec_*`, `personality`), and no new namespaces or mounts (`unshare`, `setns`, `mount`
  and the new mount API, `pivot_root`, `chroot`, `clone` with any `CLONE_NEW*` flag). `clone3`
  answers ENOSYS, so the C library falls back to `clone`, whose flags the filter can read.
* `NO_PROCESSES` — added on top, in a tournament game's process where the jail has no process
  limit of its own (a teacher who is not root has no control groups): `fork`, `vfork` and `clone`
  without `CLONE_THREAD` fail with EPERM. Threads stay possible (the referee refuses a second
  thread after a move), processes do not: such a jail is one process besides its zygote.

Refused calls fail with EPERM (ENOSYS for `clone3`), so the student's code sees an ordinary
`PermissionError`; the process is not killed. Other architectures' system calls (i386, x32) are
killed (libseccomp's default for a foreign architecture).
"""

from __future__ import annotations

import errno
import functools
import os
from typing import Any

__all__ = [
    "DENIED",
    "JAIL",
    "NO_PROCESSES",
    "SeccompUnavailable",
    "available",
    "load",
    "not_dumpable",
    "prepared",
    "program",
    "program_fd",
]

JAIL = "jail"
NO_PROCESSES = "no-processes"

#: System calls no process in a jail may make, with why (what an attacker would use them for).
DENIED: dict[str, str] = {
    "ptrace": "controlling or reading another process",
    "process_vm_readv": "reading another process's memory",
    "process_vm_writev": "writing another process's memory",
    "pidfd_getfd": "taking another process's file descriptors",
    "kcmp": "comparing other processes' kernel objects",
    "perf_event_open": "kernel performance counters",
    "bpf": "loading kernel programs",
    "userfaultfd": "stalling the kernel on page faults",
    "io_uring_setup": "asynchronous I/O outside the filter's view",
    "io_uring_enter": "asynchronous I/O outside the filter's view",
    "io_uring_register": "asynchronous I/O outside the filter's view",
    "keyctl": "the kernel's key store",
    "add_key": "the kernel's key store",
    "request_key": "the kernel's key store",
    "mount": "mounting file systems",
    "umount2": "unmounting file systems",
    "fsopen": "mounting file systems",
    "fsmount": "mounting file systems",
    "fsconfig": "mounting file systems",
    "fspick": "mounting file systems",
    "move_mount": "mounting file systems",
    "open_tree": "mounting file systems",
    "mount_setattr": "mounting file systems",
    "pivot_root": "changing the root file system",
    "chroot": "changing the root file system",
    "unshare": "making new namespaces",
    "setns": "entering other namespaces",
    "kexec_load": "loading a new kernel",
    "kexec_file_load": "loading a new kernel",
    "init_module": "loading kernel modules",
    "finit_module": "loading kernel modules",
    "delete_module": "removing kernel modules",
    "personality": "changing the process's execution domain",
    "open_by_handle_at": "opening files by kernel handle",
    "name_to_handle_at": "opening files by kernel handle",
    "acct": "process accounting",
    "swapon": "swap devices",
    "swapoff": "swap devices",
    "reboot": "rebooting",
    "syslog": "the kernel's log",
    "quotactl": "disk quotas",
    "lookup_dcookie": "kernel directory cookies",
    "iopl": "hardware I/O ports",
    "ioperm": "hardware I/O ports",
    "vhangup": "hanging up terminals",
    "settimeofday": "setting the clock",
    "clock_settime": "setting the clock",
    "clock_adjtime": "setting the clock",
    "adjtimex": "setting the clock",
}
# clone's namespace flags (any one makes a new namespace, like unshare)
CLONE_NEWTIME = 0x00000080
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_THREAD = 0x00010000
NAMESPACE_FLAGS = (
    CLONE_NEWTIME,
    CLONE_NEWNS,
    CLONE_NEWCGROUP,
    CLONE_NEWUTS,
    CLONE_NEWIPC,
    CLONE_NEWUSER,
    CLONE_NEWPID,
    CLONE_NEWNET,
)


class SeccompUnavailable(RuntimeError):
    """libseccomp (Debian's `libseccomp2`, through PyPI's `pyseccomp`) cannot be loaded here."""


def _library() -> Any:
    try:
        import pyseccomp
    except (ImportError, OSError) as exc:  # the binding loads libseccomp.so.2 at import
        raise SeccompUnavailable(
            f"the sandbox's system-call filter needs libseccomp ({exc}): `pip install pyseccomp` (a dependency "
            "of this package) and Debian's `libseccomp2` (`sudo apt-get install libseccomp2`)"
        ) from None
    return pyseccomp


def available() -> str | None:
    """None where the filter can be built here, else why not (a sentence for the teacher)."""
    try:
        _library()
    except SeccompUnavailable as exc:
        return str(exc)
    return None


def _build(kind: str) -> Any:
    if kind not in (JAIL, NO_PROCESSES):
        raise ValueError(f"a seccomp program is {JAIL!r} or {NO_PROCESSES!r}, not {kind!r}")
    sc = _library()
    filt = sc.SyscallFilter(defaction=sc.ALLOW)
    deny = sc.ERRNO(errno.EPERM)
    if kind == JAIL:
        for name in DENIED:
            try:
                filt.add_rule(deny, name)
            except (RuntimeError, ValueError, OSError):  # a call this architecture does not have (iopl on arm64)
                continue
        for flag in NAMESPACE_FLAGS:
            filt.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
        filt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    else:
        for name in ("fork", "vfork"):
            try:
                filt.add_rule(deny, name)
            except (RuntimeError, ValueError, OSError):  # arm64 has neither: clone is the only way
                continue
        filt.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, 0))
        filt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    return filt


@functools.cache
def program(kind: str = JAIL) -> bytes:
    """The BPF program of filter `kind` (`JAIL` or `NO_PROCESSES`) for this machine's architecture.

    Cached by `kind`: the program is a function of the kind and the architecture alone.
    """
    filt = _build(kind)
    read_fd, write_fd = os.pipe()
    try:
        with os.fdopen(write_fd, "wb", closefd=True) as out:
            filt.export_bpf(out)
        chunks = []
        while chunk := os.read(read_fd, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(read_fd)
    data = b"".join(chunks)
    if not data or len(data) % 8:
        raise SeccompUnavailable(f"libseccomp exported a program of {len(data)} bytes (BPF instructions are 8 bytes)")
    return data


def program_fd(kind: str = JAIL) -> int:
    """A new file descriptor (not inherited unless passed) reading the program from its start, for
    bubblewrap's `--seccomp FD`; bubblewrap reads it to the end, so every jail needs its own."""
    data = program(kind)
    fd = os.memfd_create("gamekit-seccomp", os.MFD_CLOEXEC) if hasattr(os, "memfd_create") else -1
    if fd < 0:  # pragma: no cover  (Linux without memfd: a pipe holds the few hundred bytes)
        read_fd, write_fd = os.pipe()
        os.write(write_fd, data)
        os.close(write_fd)
        return read_fd
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


@functools.cache
def prepared(kind: str) -> Any:
    """Filter `kind` built and ready to load (a zygote prepares it once, before it forks)."""
    return _build(kind)


def load(kind: str) -> None:
    """Install filter `kind` in this process, irrevocably (for it and every process it starts).

    Called only where no student code has run yet (a game's process, right after the zygote forked it)."""
    prepared(kind).load()


def not_dumpable() -> None:
    """Make this process non-dumpable: no process of its jail may open its /proc/PID/mem or attach
    to it, even with the same uid (the kernel's check, not a filter). Forked children inherit it;
    `exec` resets it, so every program a jail runs first calls this itself, before any student code."""
    import ctypes

    if ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE, 0
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")

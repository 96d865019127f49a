"""The kernel's part of the boundary, attacked from inside a jail with no Python guard in the way.

Each attack below is raw system calls through ctypes, as a student who has read `gamekit/sandbox/`
would write them once past the courtesy guard (`gamekit.sandbox.inside`), which these probes never
install: only the kernel's protections stand. Each protection is also shown failing when switched
off (the same probe in the same jail without the filter, or with a dumpable pid 1), so no test
passes by accident.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gamekit.sandbox import seccomp
from gamekit.sandbox.bwrap import Jail, bwrap_path, python_command

pytestmark = [
    pytest.mark.slow,  # each starts a jail (a fraction of a second): the fast tier starts none
    pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap (bwrap) is not installed"),
]

# The jail's first process, as the zygote and grading's init are: pid 1 (bubblewrap --as-pid-1),
# non-dumpable unless told, then a child (the game's or the notebook's process) that attacks it.
ATTACKER = r"""
import ctypes, errno, json, os, sys, threading, time
sys.path.insert(0, sys.argv[1])
from gamekit.sandbox import seccomp
mode = json.loads(sys.argv[2])
if mode["nodump"]:
    seccomp.not_dumpable()
if mode.get("one_process"):
    seccomp.prepared(seccomp.NO_PROCESSES)
r, w = os.pipe()
child = os.fork()
if child == 0:
    os.close(r)
    if mode.get("one_process"):
        seccomp.load(seccomp.NO_PROCESSES)
    libc = ctypes.CDLL(None, use_errno=True)
    def call(name, *args):
        nr = {"ptrace": 101, "process_vm_readv": 310, "unshare": 272, "mount": 165, "bpf": 321,
              "perf_event_open": 298, "userfaultfd": 323, "keyctl": 250, "personality": 135,
              "setns": 308, "pidfd_getfd": 438, "clone3": 435, "kcmp": 312}[name]
        ctypes.set_errno(0)
        done = libc.syscall(nr, *args)
        return "ok" if done >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
    report = {"pid": os.getpid()}
    try:
        fd = os.open("/proc/1/mem", os.O_RDWR)
        os.close(fd)
        report["pid1_mem_rdwr"] = "ok"
    except OSError as exc:
        report["pid1_mem_rdwr"] = errno.errorcode[exc.errno]
    report["ptrace_attach_pid1"] = call("ptrace", 16, 1, 0, 0)   # PTRACE_ATTACH
    if report["ptrace_attach_pid1"] == "ok":   # attached (the filter is off): let pid 1 go on
        os.waitpid(1, getattr(os, "__WALL", 0x40000000))
        call("ptrace", 17, 1, 0, 0)   # PTRACE_DETACH
    buf = ctypes.create_string_buffer(8)
    class iovec(ctypes.Structure):
        _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
    local = iovec(ctypes.cast(buf, ctypes.c_void_p), 8)
    remote = iovec(0x400000, 8)
    report["process_vm_readv"] = call("process_vm_readv", 1, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    report["unshare_user"] = call("unshare", 0x10000000)
    report["mount"] = call("mount", b"none", b"/tmp", b"tmpfs", 0, None)
    report["bpf"] = call("bpf", 0, None, 0)
    report["perf_event_open"] = call("perf_event_open", None, 0, -1, -1, 0)
    report["userfaultfd"] = call("userfaultfd", 0)
    report["keyctl"] = call("keyctl", 0, 0)
    report["personality"] = call("personality", 0x0040000)   # ADDR_NO_RANDOMIZE
    report["setns"] = call("setns", 0, 0)
    report["pidfd_getfd"] = call("pidfd_getfd", 0, 0, 0)
    report["clone3"] = call("clone3", None, 0)
    report["kcmp"] = call("kcmp", 1, 1, 0, 0, 0)
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        report["fork"] = "ok"
    except OSError as exc:
        report["fork"] = errno.errorcode[exc.errno]
    t = threading.Thread(target=lambda: None)
    t.start(); t.join()
    report["thread"] = "ok"
    os.write(w, json.dumps(report).encode())
    os._exit(0)
os.close(w)
data = b""
while chunk := os.read(r, 65536):
    data += chunk
os.waitpid(child, 0)
print(data.decode())
"""

DENIED_HERE = (
    "ptrace_attach_pid1",
    "process_vm_readv",
    "unshare_user",
    "mount",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "personality",
    "setns",
    "pidfd_getfd",
    "kcmp",
)


def _attack(mode: dict, filtered: bool = True) -> dict:
    package_parent = str(Path(seccomp.__file__).resolve().parents[2])
    argv = python_command(ATTACKER) + [package_parent, json.dumps(mode)]
    jail = Jail()
    if filtered:
        done = jail.run(argv, timeout=60)
    else:  # the same jail, the filter switched off: the command line without bubblewrap's --seccomp FD
        fd = seccomp.program_fd()
        try:
            command = jail.command(argv, fd)
        finally:
            os.close(fd)
        at = command.index("--seccomp")
        del command[at : at + 2]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_the_filter_refuses_every_dangerous_call_from_every_process_of_a_jail():
    report = _attack({"nodump": True})
    assert report["pid"] != 1  # the attacker is the jail's second process; pid 1 is ours
    for name in DENIED_HERE:
        assert report[name] == "EPERM", (name, report[name])
    assert report["clone3"] == "ENOSYS"  # so the C library falls back to clone, whose flags are read
    assert report["pid1_mem_rdwr"] == "EACCES"  # pid 1 is not dumpable
    assert report["fork"] == "ok" and report["thread"] == "ok"  # a jail with a process limit may fork


def test_without_the_filter_the_same_calls_go_through():
    """The control: the same probe, the same jail, no --seccomp. The calls reach the kernel and
    work (or fail for their own reasons), so the EPERMs above are the filter's."""
    report = _attack({"nodump": False}, filtered=False)
    assert report["ptrace_attach_pid1"] == "ok"  # the child attaches to the jail's pid 1
    assert report["unshare_user"] == "ok"  # a new user namespace, the first step out of a jail
    assert report["personality"] == "ok"
    assert report["pid1_mem_rdwr"] == "ok"  # a dumpable pid 1's memory opens for writing
    assert report["clone3"] != "ENOSYS"


def test_a_dumpable_first_process_is_open_to_its_jail_and_a_non_dumpable_one_is_not():
    """Switched off: without `not_dumpable`, the jail's own first process (the zygote's place) has
    its memory open to every process it forks, filter or not."""
    assert _attack({"nodump": False})["pid1_mem_rdwr"] == "ok"
    assert _attack({"nodump": True})["pid1_mem_rdwr"] == "EACCES"


def test_a_game_process_without_a_process_limit_cannot_start_a_process_but_can_start_a_thread():
    report = _attack({"nodump": True, "one_process": True})
    assert report["fork"] == "EPERM"
    assert report["thread"] == "ok"
    assert report["clone3"] == "ENOSYS"


def test_no_bubblewrap_process_is_inside_the_jail():
    """bubblewrap runs --as-pid-1: its own monitor, which has no filter, is not in the jail to attack."""
    code = "import os; print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))"
    done = Jail().run(python_command(code), timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [1]


def test_the_program_is_a_function_of_its_kind_and_a_new_descriptor_reads_it_from_the_start():
    assert seccomp.program(seccomp.JAIL) == seccomp.program(seccomp.JAIL)
    assert seccomp.program(seccomp.JAIL) != seccomp.program(seccomp.NO_PROCESSES)
    first, second = seccomp.program_fd(), seccomp.program_fd()
    try:
        assert os.read(first, 1 << 16) == os.read(second, 1 << 16) == seccomp.program()
    finally:
        os.close(first)
        os.close(second)
    with pytest.raises(ValueError, match="'jail' or 'no-processes'"):
        seccomp.program("everything")


def test_a_jail_writes_only_to_its_tmpfs_and_its_files_are_bounded(tmp_path):
    code = (
        "import os, sys\n"
        "n = 0\n"
        "try:\n"
        "    with open(os.path.join(os.environ['HOME'], 'big'), 'wb') as f:\n"
        "        for _ in range(64):\n"
        "            f.write(b'x' * (1 << 20)); f.flush(); n += 1\n"
        "except OSError as exc:\n"
        "    print('stopped', n, type(exc).__name__)\n"
    )
    done = Jail(file_kb=4 << 10).run(python_command(code), timeout=60)
    # SIGXFSZ's default ends the process at the limit; Python ignores it and gets EFBIG instead
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:2] == ["stopped", "4"], done.stdout
    assert not any(tmp_path.iterdir())
    assert "writable" not in Jail.__dataclass_fields__  # no folder of the host's can be made writable


@pytest.mark.skipif(sys.platform != "linux", reason="Linux only")
def test_every_call_the_filter_names_is_known_to_libseccomp():
    sc = pytest.importorskip("pyseccomp")
    unknown = []
    for name in seccomp.DENIED:
        try:
            sc.resolve_syscall(sc.system_arch(), name)
        except Exception:
            unknown.append(name)
    assert unknown in ([], ["iopl", "ioperm"]), unknown

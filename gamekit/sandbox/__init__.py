"""The boundary around students' code, used by the tournament and by grading alike.

Threat model. Untrusted are the students' agents, games and notebooks: possibly hostile, possibly
working together, written by someone who has read this package. Protected are the teacher's files
and processes, the other students' code and results, the fairness of the clock, and the
tournament's and the grading's availability (a run finishes, and resumes). The boundary is the
kernel: bubblewrap's namespaces (`bwrap`: no network, no other process, read-only files, a
private tmpfs of bounded size as the only writable place), one set of control groups per jail
where the machine offers them (`cgroup`: memory, processes and threads of the jail as a whole,
frozen outside its turn, its CPU time measured), and bounded data over pipes (`channel`: JSON
objects of bounded size and depth, never pickle; every string cleaned before it is stored or
shown). The teacher's side never opens a path in a jail's writable space by name (`files` is the
only code that reads a file a student could have touched: no-follow, non-blocking, a regular file
of bounded size), never calls a method of an object a student made, and decides every outcome
itself. Nothing that runs inside a jail is part of the boundary: `inside` (rlimits, an audit
hook, a thread check) only turns accidents into clear messages. Kernel exploits are out of
scope: run strangers' code in a virtual machine or a container as well.

Modules, from the jail outwards: `bwrap` (the jail's command line), `limits` (one `BoxLimits`),
`cgroup` (limits per jail, freezing, CPU time), `inside` (what a jailed process does to itself),
`zygote` (the warm fork parent that runs a given entry point), `channel` (the teacher's end of
the pipes, `clean_text`), `files` (reading what a jail left behind), `process` (one jailed
process: start, turn, kill). For grading: `sandboxrun` (runs a notebook's cells in a jail and
answers the grader's requests; a courtesy like `inside`), `plain` (answers as tagged JSON, decoded
strictly and in linear time), `judge` (the clean process that runs the tests on plain answers).
"""

from .bwrap import HOME, INSIDE, SANDBOX_UID, Jail, SandboxUnavailable, bwrap_path, require_bwrap, thread_environment
from .channel import clean_text
from .files import FileRefused, read_regular
from .limits import BoxLimits

__all__ = [
    "HOME",
    "INSIDE",
    "SANDBOX_UID",
    "BoxLimits",
    "FileRefused",
    "Jail",
    "SandboxUnavailable",
    "bwrap_path",
    "clean_text",
    "read_regular",
    "require_bwrap",
    "thread_environment",
]

"""One jail's limits, each named with its unit and checked when made."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class BoxLimits:
    """What one jail gets as a whole, and each of its processes.

    memory_mb: memory the jail may use on top of its warm interpreter (all its processes together,
        where cgroups hold; else per process, as an address-space rlimit).
    cpu_seconds: CPU time of one process (an rlimit: a backstop, the referee's clock decides).
    output_kb: what one process may print (more ends it) and the largest file it may write.
    disk_mb: the size of each of the jail's tmpfs folders (its home, where it works, and /tmp).
    processes: processes and threads of the whole jail together (cgroups only).
    startup_seconds: loading a student's file.
    log_chars: how much of what a process printed is kept.
    """

    memory_mb: float = 256.0
    cpu_seconds: float = 60.0
    output_kb: int = 256
    disk_mb: int = 64
    processes: int = 64
    startup_seconds: float = 5.0
    log_chars: int = 2000

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            bad = not isinstance(value, (int, float)) or isinstance(value, bool) or not value > 0
            if bad and not (name == "log_chars" and value == 0):
                raise ValueError(f"BoxLimits.{name} must be a positive number, got {value!r}")

    def child(self) -> dict[str, Any]:
        """What the process sets as its own rlimits (`gamekit.sandbox.inside.enter_sandbox`)."""
        return {"memory_mb": self.memory_mb, "cpu_seconds": self.cpu_seconds, "output_kb": self.output_kb}

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


#: A graded notebook's jail: the whole notebook (and what its cells start, a lesson's own tournament
#: included) in 2 GB and 128 processes and threads, 256 MB for each of its two tmpfs folders (the
#: runner's rlimits inside stay as backstops: 4 GB of address space per process, 256 open files).
GRADING = BoxLimits(memory_mb=2048.0, cpu_seconds=600.0, output_kb=64 << 10, disk_mb=256, processes=128)

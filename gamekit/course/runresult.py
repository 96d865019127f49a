"""What comes back from a submission's sandbox, as the grader keeps it (local or from a cluster worker)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["ERROR_NAME", "SandboxRun"]

#: what a cell's error type may look like when the sandbox reports it (anything else: "an exception")
ERROR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,79}")


@dataclass
class SandboxRun:
    """What came back from a submission's sandbox: only plain data, every part bounded."""

    stopped: dict[int, str] = field(default_factory=dict)  # cell index -> why it was stopped
    names: dict[str, dict] = field(default_factory=dict)  # answer -> {"value": tagged JSON text} or {"why": ...}
    probes: dict[str, dict] = field(default_factory=dict)  # case id -> {"value": ...} or {"why": ...}
    checks: dict[str, bool] = field(default_factory=dict)  # public case id -> passed in the student's own run
    failed: dict[int, str] = field(default_factory=dict)  # cell index -> the type of the error it raised
    error: str | None = None
    rounds: int = 0

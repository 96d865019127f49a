"""What grading reads and writes, as data: an autograder (its assignment, exercises and spec) and the
grade of one submission. `gamekit.course.grade` makes them, `gamekit.course.feedback` shows them."""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from .cases import SPEC_FILE

__all__ = ["Autograder", "SubmissionResult"]


@dataclass
class Autograder:
    """An autograder zip written by `assign`: its assignment, exercises, and grading spec."""

    name: str
    zip: Path
    questions: list[dict] = field(default_factory=list)
    spec: dict = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Autograder:
        with zipfile.ZipFile(path) as z:
            name = json.loads(z.read("otter_config.json")).get("assignment_name")
            if SPEC_FILE not in z.namelist():
                raise ValueError(
                    f"{path} has no {SPEC_FILE}: it was made by an older `assign`; "
                    "run `python -m gamekit.course assign --rebuild` again"
                )
            spec = json.loads(z.read(SPEC_FILE))
        if not name:
            raise ValueError(f"{path} has no assignment_name in its otter_config.json (not made by `assign`?)")
        questions = [{"name": q["name"], "points": q["points"], "manual": q["manual"]} for q in spec["questions"]]
        return cls(name, path, questions, spec)


@dataclass
class SubmissionResult:
    """The grade of one submission: points per question, notes, flags, and an error if grading failed."""

    student: str
    assignment: str
    path: Path
    questions: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    stopped: dict = field(default_factory=dict)  # question -> why its cell was stopped (time, a crash)
    flags: list[str] = field(default_factory=list)  # for the teacher: signs that the notebook lied about checks
    missing_checks: list[str] = field(default_factory=list)  # questions whose grader.check cell was deleted
    errors: dict = field(default_factory=dict)  # question -> how its cell failed ("... has a syntax error")
    unsent: dict = field(default_factory=dict)  # question -> why its answers could not reach the grader
    by_hand: dict = field(default_factory=dict)  # hand-graded question -> {"prompt", "answer"} (text, for the teacher)
    blank: list[str] = field(default_factory=list)  # questions with an answer still `...` (not answered)

    def score(self, name: str) -> float:
        return float(self.questions.get(name, {}).get("score", 0.0))

    @property
    def total(self) -> float:
        return sum(q["score"] for q in self.questions.values())

"""Self-study checks: "correct" or "not yet" for every exercise with one right answer.

A student working alone reads otter's "passed!" on a wrong answer as "right". The self-study
copies that `python -m gamekit.course assign --self-study` writes replace otter's checker by
`SelfStudy`: `grader.check("q1_1")` first runs the exercise's public checks (a failing one
shows its hint in one line) and then compares each answer variable with the canonical answer
through a salted hash, so the copy holds no answer in any form. Answers written differently but
equal count as correct: `canonical` puts them in the normal form of the course's one answer rule
(`gamekit.course.checks`, which the public checks and hidden tests use too: a list and a tuple
of the same items are the same; a float equal to a simple fraction is that fraction; a word is
compared without case and surrounding spaces; where the master's prompt cell gives
`self_study_decimals`, numbers are compared rounded to that many places, as the hidden tests
accept them within a tolerance). Exercises without a single right answer (a
function to write, a measured rate) get "plausible: your teacher's tests decide" when their public
checks pass; an explanation (an exercise graded by hand) gets "read by your teacher" and a pointer to
the solutions. A wrong answer of the right form gets the exercise's own hint where its master gives
one (`self_study_hint` in the prompt cell's metadata), else a pointer to the method.

This is a study aid, not a grader: the hashes can be tried answer by answer, exactly as a
student could try answers in the check itself.
"""

from __future__ import annotations

import hashlib
import html
import json
import sys
from dataclasses import dataclass

from ..i18n import _, ngettext, pgettext
from ..sandbox.plain import graded_answers
from .checks import canonical, rounded, unordered

__all__ = [
    "answer_digest",
    "canonical",
    "CheckResult",
    "form_digest",
    "rounded",
    "SELF_STUDY_NOTE",
    "SelfStudy",
    "unordered",
    "VERDICTS",
    "verdict_text",
]

#: What the teacher is told whenever self-study copies are published: the hashes are no secret.
SELF_STUDY_NOTE = (
    "note: a self-study copy's answers can be recovered by trying candidates against its salted hashes "
    "(an exercise with few plausible answers, such as a count or a move, in seconds); publish self-study "
    "copies only of lessons that are not graded"
)


def form_digest(salt: str, form: object) -> str:
    """The salted SHA-256 of a canonical form (see `canonical`)."""
    text = json.dumps(form, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{salt}:{text}".encode()).hexdigest()


def answer_digest(salt: str, value) -> str | None:
    """The salted SHA-256 of `value`'s canonical form (None if the value is not plain data)."""
    form = canonical(value)
    return None if form is None else form_digest(salt, form)


#: The verdicts of a self-study check: data that code compares; `verdict_text` gives the word shown.
VERDICTS = ("correct", "not yet", "plausible", "read by your teacher")


def verdict_text(verdict: str) -> str:
    """The word a student reads for `verdict` (one of VERDICTS), in the language in force (`gamekit.i18n`)."""
    words = {
        "correct": pgettext("verdict", "correct"),
        "not yet": pgettext("verdict", "not yet"),
        "plausible": pgettext("verdict", "plausible"),
        "read by your teacher": pgettext("verdict", "read by your teacher"),
    }
    if verdict not in words:
        raise ValueError(f"a verdict is one of {', '.join(map(repr, VERDICTS))}, got {verdict!r}")
    return words[verdict]


@dataclass(frozen=True)
class CheckResult:
    """What a self-study check found: a verdict (one of VERDICTS, in English whatever the language)
    and why. `detail` is written in the language in force when the check ran; the verdict is shown
    (`str`, `_repr_html_`) in the language in force when it is shown."""

    exercise: str
    verdict: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.exercise}: {verdict_text(self.verdict)}" + (f" — {self.detail}" if self.detail else "")

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        colour = {"correct": "#1a7f37", "not yet": "#b35900"}.get(self.verdict, "#444")
        detail = f" — {html.escape(self.detail)}" if self.detail else ""
        return (
            f"<p><strong>{html.escape(self.exercise)}</strong>: "
            f'<strong style="color:{colour}">{html.escape(verdict_text(self.verdict))}</strong>{detail}</p>'
        )


def _doctest_code(code: str) -> str:
    lines = []
    for line in code.splitlines():
        if line.startswith((">>> ", "... ")):
            lines.append(line[4:])
        elif line.strip() in (">>>", "..."):
            lines.append("")
    return "\n".join(lines)


class SelfStudy:
    """The checker of a self-study copy: `grader.check("q1_1")` says "correct" or "not yet".

    `data` is the JSON that `assign --self-study` writes into the copy: a salt and, per
    question, its label, its public checks (code and hint), the salted digests of its answer
    variables, and whether it has a single right answer at all.
    """

    def __init__(self, data: str | dict):
        data = json.loads(data) if isinstance(data, str) else data
        self.salt: str = data["salt"]
        self.questions: dict[str, dict] = data["questions"]

    def _digest(self, value, question: dict) -> str | None:
        form = rounded(canonical(value), question.get("decimals"))
        if form is None:
            return None
        return form_digest(self.salt, unordered(form) if question.get("unordered") else form)

    def check(self, name: str, env: dict | None = None) -> CheckResult:
        """Check exercise `name` against the variables of `env` (default: the caller's globals)."""
        if name not in self.questions:
            known = ", ".join(self.questions) or _("none")
            message = _("no exercise {name} in this notebook; the exercises are: {known}")
            raise ValueError(message.format(name=repr(name), known=known))
        if env is None:
            env = sys._getframe(1).f_globals
        q = self.questions[name]
        label = q.get("label", name)
        if q.get("manual"):  # an explanation: no check can say whether it is right
            return CheckResult(
                label,
                "read by your teacher",
                _(
                    "no automatic check for this exercise: compare your answer with the solutions "
                    "(python -m gamekit.course solutions)"
                ),
            )
        for var in q.get("answers", {}):
            if var not in env or env[var] is Ellipsis:
                return CheckResult(
                    label, "not yet", _("give `{name}` a value (it is still `...` or missing)").format(name=var)
                )
        graded = graded_answers(env)  # the answers as the hidden tests see them (plain.graded_answers)
        for case in q.get("public", []):
            try:
                exec(compile(_doctest_code(case["code"]), f"<check {name}>", "exec"), dict(graded))
            except Exception as exc:  # the student's code may raise anything: that is a hint, not a crash
                hint = _(case["hint"]) if case.get("hint") else f"{type(exc).__name__}: {exc}".strip()
                return CheckResult(label, "not yet", " ".join(hint.split()))
        if q.get("single") and q.get("answers"):
            wrong = [var for var, digest in q["answers"].items() if self._digest(env[var], q) != digest]
            if wrong:
                names = ", ".join(f"`{v}`" for v in wrong)
                hint = q.get("hint") or _(
                    "work through the section above the exercise again: its method, applied step by step, gives it"
                )
                # TRANSLATORS: {names} is one answer variable or several, such as `answer_1_1`, `answer_1_2`.
                # English says "has" for both; a language that tells them apart gives two forms.
                wrong_form = ngettext(
                    "{names} has the right form but is not the right answer yet. Hint: {hint}",
                    "{names} has the right form but is not the right answer yet. Hint: {hint}",
                    len(wrong),
                )
                return CheckResult(label, "not yet", wrong_form.format(names=names, hint=hint))
            if q.get("functions"):
                return CheckResult(label, "correct", _("your code itself is judged by your teacher's tests"))
            return CheckResult(label, "correct")
        return CheckResult(label, "plausible", _("no single right answer to compare with: your teacher's tests decide"))

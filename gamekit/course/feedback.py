"""The student's feedback page: points per exercise, hints of failed public checks, notes.

Every exercise without its points says why, and a hidden test shows only the teacher's failure
message, never its code. `points_summary` and `hidden_messages` are shared with the Moodle
comment (`gamekit.course.lms`). The page's own words are in the language in force
(`gamekit.i18n`); the notes that grading wrote were written in the language in force then, and a
teacher's failure message is shown as the teacher wrote it.
"""

from __future__ import annotations

import html
import re

from ..i18n import _, get_language, ngettext, pgettext
from .gradedata import Autograder, SubmissionResult

__all__ = ["exercise_label", "feedback_html", "hidden_messages", "points_summary"]


def hidden_messages(grader: Autograder, name: str, got: dict) -> list[str]:
    """The teacher's failure messages of the hidden tests `got` failed (never the tests themselves)."""
    spec = next((q for q in grader.spec.get("questions", []) if q["name"] == name), None)
    if spec is None:
        return []
    return list(
        dict.fromkeys(
            c["failure_message"]
            for c, v in zip(spec["cases"], got["cases"])
            if v["hidden"] and not v["passed"] and c.get("failure_message")
        )
    )


def _text(value: str) -> str:
    """`value` as the text of an element (quotes left as they are: they need no escaping there)."""
    return html.escape(value, quote=False)


def _plural(points: float) -> int:
    """The count that chooses the form of "{points} point(s)" (ngettext's n): the number itself when it
    is whole, else 2 (a fraction of a point, 1.5 points, takes the plural)."""
    return int(points) if float(points).is_integer() else 2


def exercise_label(name: str) -> str:
    """How the page names question `name`: "Exercise 1.6" for `q1_6` in the language in force (as
    `handgrade.exercise_label` in English); any other name as it is."""
    found = re.match(r"^q(\d+)_(\d+)$", name)
    return _("Exercise {number}").format(number=f"{found[1]}.{found[2]}") if found else name


def points_summary(res: SubmissionResult, grader: Autograder) -> str:
    """The points line of a student's feedback: the autograder's points, the teacher's once given,
    and what may still come ("up to 2 more points from exercises your teacher grades")."""
    auto = [q for q in grader.questions if not q.get("manual")]
    manual = [q for q in grader.questions if q.get("manual")]
    possible = sum(float(q["points"] or 0) for q in auto)
    from_auto = sum(res.score(q["name"]) for q in auto)
    given = [q for q in manual if res.questions.get(q["name"], {}).get("by_hand")]
    pending = sum(float(q["points"] or 0) for q in manual if q not in given)
    got = sum(res.score(q["name"]) for q in given)
    numbers = {
        "auto": f"{from_auto:g}",
        "possible": f"{possible:g}",
        "got": f"{got:g}",
        "given": f"{sum(float(q['points'] or 0) for q in given):g}",
        "pending": f"{pending:g}",
    }
    if given and pending:
        text = ngettext(
            "{auto} of {possible} points from the autograder, {got} of {given} from your teacher; up to {pending} "
            "more point from exercises your teacher grades (not given yet)",
            "{auto} of {possible} points from the autograder, {got} of {given} from your teacher; up to {pending} "
            "more points from exercises your teacher grades (not given yet)",
            _plural(pending),
        )
    elif given:
        text = _("{auto} of {possible} points from the autograder, {got} of {given} from your teacher")
    elif pending:
        text = ngettext(
            "{auto} of {possible} points from the autograder; up to {pending} more point from exercises your "
            "teacher grades (not given yet)",
            "{auto} of {possible} points from the autograder; up to {pending} more points from exercises your "
            "teacher grades (not given yet)",
            _plural(pending),
        )
    else:
        text = _("{auto} of {possible} points from the autograder")
    return text.format(**numbers)


def feedback_html(res: SubmissionResult, grader: Autograder) -> str:
    """A page for the student: points per exercise, hints of failed public checks, notes; every
    exercise without its points says why."""
    e = html.escape
    label = exercise_label
    rows = []
    for q in grader.questions:
        name = q["name"]
        got = res.questions.get(name)
        if q.get("manual"):
            if got is not None and got.get("by_hand"):
                graded = _("graded by your teacher")
                rows.append(
                    f"<tr><td>{e(label(name))}</td><td>{got['score']:g} / {got['possible']:g}</td>"
                    f"<td>{_text(graded)}</td></tr>"
                )
            else:
                top = float(q["points"] or 0)
                waiting = ngettext(
                    "graded by your teacher: up to {points} point, not given yet",
                    "graded by your teacher: up to {points} points, not given yet",
                    _plural(top),
                ).format(points=f"{top:g}")
                rows.append(f"<tr><td>{e(label(name))}</td><td>–</td><td>{_text(waiting)}</td></tr>")
            continue
        if got is None:
            why = _("not graded (see the notes)")
            rows.append(f"<tr><td>{e(label(name))}</td><td>0</td><td>{_text(why)}</td></tr>")
            continue
        hidden = [c for c in got["cases"] if c["hidden"]]
        public = [c for c in got["cases"] if not c["hidden"]]
        detail = []
        failed_public = [c for c in public if not c["passed"]]
        # a blank answer (still `...`): grading lists it in `blank` (one saved before that field says so in English)
        blank = name in res.blank or "not answered" in res.unsent.get(name, "")
        if name in res.stopped:  # its hints would mislead: the answer never ran to the end
            detail.append(
                e(
                    # TRANSLATORS: {why} says why grading stopped the cell (written by the grader, in English)
                    _("not checked: {why}; make the cell finish, then run the check again").format(
                        why=res.stopped[name]
                    )
                )
            )
        else:
            if name in res.errors:  # first that the code failed (which cell, the error's type)
                detail.append(e(res.errors[name]))
            if name in res.unsent:  # not answered, or an answer that cannot reach the grader and why
                detail.append(e(res.unsent[name]))
            if public and not blank:
                detail.append(
                    _text(
                        _("public checks passed: {passed} of {total}").format(
                            passed=len(public) - len(failed_public), total=len(public)
                        )
                    )
                )
                for c in failed_public:
                    hint = c["hint"] or _("a public check failed; run grader.check in your notebook")
                    detail.append(e(_("hint: {hint}").format(hint=hint)))
        messages = hidden_messages(grader, name, got) if not blank and name not in res.stopped else []
        if hidden:
            detail.append(
                _text(
                    _("hidden tests passed: {passed} of {total}").format(
                        passed=sum(c["passed"] for c in hidden), total=len(hidden)
                    )
                )
            )
            detail += [e(_("hint: {hint}").format(hint=m)) for m in messages]
        explained = failed_public or messages or {name} & (res.errors.keys() | res.unsent.keys() | res.stopped.keys())
        if got["score"] < got["possible"] and not explained:
            # every missing point says why: here only the hidden tests disagree with the answer
            detail.append(
                _text(
                    _(
                        "your answer has the right form, but the teacher's hidden tests do not accept it yet: "
                        "compare it with the solutions when they are released"
                    )
                )
            )
        rows.append(
            f"<tr><td>{e(label(name))}</td><td>{got['score']:g} / {got['possible']:g}</td>"
            f"<td>{'<br>'.join(detail)}</td></tr>"
        )
    notes = list(res.notes)
    if res.error:
        notes.insert(0, res.error)
    missing = res.missing_checks
    if missing:
        notes.append(
            # TRANSLATORS: {exercises} names one exercise or several, such as "Exercise 1.1, Exercise 1.2". English
            # says "these exercises" for both; a language that tells them apart gives two forms
            ngettext(
                "check cells missing for {exercises}: these exercises were graded anyway, by the autograder's copy "
                "of the tests",
                "check cells missing for {exercises}: these exercises were graded anyway, by the autograder's copy "
                "of the tests",
                len(missing),
            ).format(exercises=", ".join(label(m) for m in missing))
        )
    notes_html = "".join(f"<li>{e(n)}</li>" for n in notes or [_("none")])
    title = _("{assignment}: feedback for {student}").format(assignment=e(grader.name), student=e(res.student))
    # TRANSLATORS: the first line of a student's feedback page; keep the HTML tags <b> and </b>
    intro = _("Feedback for <b>{student}</b> ({file}): <b>{points}</b>.").format(
        student=e(res.student), file=e(res.path.name), points=e(points_summary(res, grader))
    )
    notes_heading = _text(pgettext("heading of the feedback page", "Notes"))
    head = "".join(
        f"<th>{_text(word)}</th>"
        for word in (
            pgettext("column heading", "exercise"),
            pgettext("column heading", "points"),
            pgettext("column heading", "details"),
        )
    )
    return f"""<!DOCTYPE html>
<html lang="{get_language()}"><head><meta charset="utf-8"><title>{title}</title>
<style>body {{ font-family: sans-serif; max-width: 52em; margin: 2em auto; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #bbb; padding: 0.4em 0.7em; vertical-align: top; }}
</style></head><body>
<h1>{e(grader.name)}</h1>
<p>{intro}</p>
<table><tr>{head}</tr>
{"".join(rows)}
</table>
<h2>{notes_heading}</h2><ul>{notes_html}</ul>
</body></html>
"""

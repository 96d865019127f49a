"""The student's feedback page: points per exercise, hints of failed public checks, notes.

Every exercise without its points says why, and a hidden test shows only the teacher's failure
message, never its code. `points_summary` and `hidden_messages` are shared with the Moodle
comment (`gamekit.course.lms`).
"""

from __future__ import annotations

import html

from . import handgrade
from .gradedata import Autograder, SubmissionResult

__all__ = ["feedback_html", "hidden_messages", "points_summary"]


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


def points_summary(res: SubmissionResult, grader: Autograder) -> str:
    """The points line of a student's feedback: the autograder's points, the teacher's once given,
    and what may still come ("up to 2 more points from exercises your teacher grades")."""
    auto = [q for q in grader.questions if not q.get("manual")]
    manual = [q for q in grader.questions if q.get("manual")]
    possible = sum(float(q["points"] or 0) for q in auto)
    from_auto = sum(res.score(q["name"]) for q in auto)
    given = [q for q in manual if res.questions.get(q["name"], {}).get("by_hand")]
    pending = sum(float(q["points"] or 0) for q in manual if q not in given)
    text = f"{from_auto:g} of {possible:g} points from the autograder"
    if given:
        got = sum(res.score(q["name"]) for q in given)
        text += f", {got:g} of {sum(float(q['points'] or 0) for q in given):g} from your teacher"
    if pending:
        text += (
            f"; up to {pending:g} more point{'s' if pending != 1 else ''} from exercises your teacher grades "
            "(not given yet)"
        )
    return text


def feedback_html(res: SubmissionResult, grader: Autograder) -> str:
    """A page for the student: points per exercise, hints of failed public checks, notes; every
    exercise without its points says why."""
    e = html.escape
    label = handgrade.exercise_label
    rows = []
    for q in grader.questions:
        name = q["name"]
        got = res.questions.get(name)
        if q.get("manual"):
            if got is not None and got.get("by_hand"):
                rows.append(
                    f"<tr><td>{e(label(name))}</td><td>{got['score']:g} / {got['possible']:g}</td>"
                    "<td>graded by your teacher</td></tr>"
                )
            else:
                rows.append(
                    f"<tr><td>{e(label(name))}</td><td>–</td><td>graded by your teacher: up to "
                    f"{handgrade.points_text(float(q['points'] or 0))}, not given yet</td></tr>"
                )
            continue
        if got is None:
            rows.append(f"<tr><td>{e(label(name))}</td><td>0</td><td>not graded (see the notes)</td></tr>")
            continue
        hidden = [c for c in got["cases"] if c["hidden"]]
        public = [c for c in got["cases"] if not c["hidden"]]
        detail = []
        failed_public = [c for c in public if not c["passed"]]
        blank = "not answered" in res.unsent.get(name, "")
        if name in res.stopped:  # its hints would mislead: the answer never ran to the end
            detail.append(e(f"not checked: {res.stopped[name]}; make the cell finish, then run the check again"))
        else:
            if name in res.errors:  # first that the code failed (which cell, the error's type)
                detail.append(e(res.errors[name]))
            if name in res.unsent:  # not answered, or an answer that cannot reach the grader and why
                detail.append(e(res.unsent[name]))
            if public and not blank:
                detail.append(f"public checks passed: {len(public) - len(failed_public)} of {len(public)}")
                for c in failed_public:
                    detail.append("hint: " + e(c["hint"] or "a public check failed; run grader.check in your notebook"))
        messages = hidden_messages(grader, name, got) if not blank and name not in res.stopped else []
        if hidden:
            detail.append(f"hidden tests passed: {sum(c['passed'] for c in hidden)} of {len(hidden)}")
            detail += ["hint: " + e(m) for m in messages]
        explained = failed_public or messages or {name} & (res.errors.keys() | res.unsent.keys() | res.stopped.keys())
        if got["score"] < got["possible"] and not explained:
            # every missing point says why: here only the hidden tests disagree with the answer
            detail.append(
                "your answer has the right form, but the teacher's hidden tests do not accept it yet: "
                "compare it with the solutions when they are released"
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
            "check cells missing for " + ", ".join(label(m) for m in missing) + ": these exercises were graded "
            "anyway, by the autograder's copy of the tests"
        )
    notes_html = "".join(f"<li>{e(n)}</li>" for n in notes) or "<li>none</li>"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{e(grader.name)}: feedback for {e(res.student)}</title>
<style>body {{ font-family: sans-serif; max-width: 52em; margin: 2em auto; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #bbb; padding: 0.4em 0.7em; vertical-align: top; }}
</style></head><body>
<h1>{e(grader.name)}</h1>
<p>Feedback for <b>{e(res.student)}</b> ({e(res.path.name)}): <b>{e(points_summary(res, grader))}</b>.</p>
<table><tr><th>exercise</th><th>points</th><th>details</th></tr>
{"".join(rows)}
</table>
<h2>Notes</h2><ul>{notes_html}</ul>
</body></html>
"""

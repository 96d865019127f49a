"""The exercises a teacher grades by hand, in the grading round trip.

`grade` collects every hand-graded answer of the class into one page per exercise
(`hand/<assignment>/exercise-1.6.html`: the prompt, each participant's answer, a points field)
and writes `<assignment>-hand-points.csv` with one row per participant and an empty points column
per exercise. The teacher fills in the points (in the CSV, or on the page, whose button saves the
same CSV), and

    python -m gamekit.course merge-points _build/grades/01-subtraction-game-hand-points.csv \
        [--moodle-worksheet WORKSHEET.csv] [--canvas-gradebook GRADES.csv]

merges them into the grades CSV, the feedback pages and the worksheet (`merge_points`). Every point
is checked before anything is written: a number from 0 to the exercise's points (a decimal comma
is fine, an empty cell means "not graded yet"), for a participant of this grading; otherwise the
merge is refused with the row and the column named, and nothing changes.

Students' answers are untrusted text: they are shown escaped, never run, and bounded in length.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ..sandbox.channel import clean_text
from .spreadsheet import csv_line, inert_cell

__all__ = [
    "ANSWER_CHARS",
    "exercise_label",
    "points_text",
    "hand_answers",
    "hand_points_path",
    "HandPoints",
    "apply_points",
    "read_hand_points",
    "results_path",
    "save_results",
    "write_hand_pages",
]

#: Most characters of one student's answer kept for the teacher's page.
ANSWER_CHARS = 20_000
#: An exercise's heading in a submission: `**Exercise N.M**`, or `**Aufgabe N.M**` in the German edition.
_EXERCISE = re.compile(r"^\s*(?:<!--.*?-->\s*)*\*\*(?:Exercise|Aufgabe)\s+([0-9]+\.[0-9]+)", re.S)
_ID = re.compile(r"^q(\d+)_(\d+)$")
_PLACEHOLDERS = {"", "...", "_type your answer here, replacing this text._"}
_POINTS = re.compile(r"^\s*(\d{1,6})(?:[.,](\d{1,6}))?\s*$")


def exercise_label(name: str) -> str:
    """How the notebook names the exercise of question `name`: "Exercise 1.6" for `q1_6` (the
    course's masters name every question so); any other name as it is."""
    m = _ID.match(name)
    return f"Exercise {m.group(1)}.{m.group(2)}" if m else name


def points_text(points: float) -> str:
    return f"{points:g} point" + ("" if points == 1 else "s")


def hand_answers(nb: nbformat.NotebookNode | None, grader) -> dict[str, dict[str, str]]:
    """{question: {"prompt": ..., "answer": ...}} for every hand-graded exercise of `grader` found in
    `nb`: the prompt is the exercise's heading cell, the answer every cell after it up to the next
    exercise or heading (the checker's cells left out), as text."""
    manual = {exercise_label(q["name"]): q["name"] for q in grader.questions if q.get("manual")}
    if nb is None or not manual:
        return {}
    found: dict[str, dict[str, str]] = {}
    cells = nb.cells
    for j, cell in enumerate(cells):
        m = _EXERCISE.match(cell.source) if cell.cell_type == "markdown" else None
        name = manual.get(f"Exercise {m.group(1)}") if m else None
        if name is None or name in found:
            continue
        parts = []
        for later in cells[j + 1 :]:
            src = later.source
            if later.cell_type == "markdown" and (
                _EXERCISE.match(src) or "<!-- END QUESTION -->" in src or re.match(r"^\s*#", src)
            ):
                break
            if later.cell_type == "code" and re.search(r"^\s*grader\.check\(", src, re.M):
                continue
            if src.strip().lower() not in _PLACEHOLDERS:
                parts.append(src.strip())
        prompt = re.sub(r"<!--.*?-->", "", cell.source, flags=re.S).strip()
        found[name] = {
            "prompt": clean_text(prompt, ANSWER_CHARS),
            "answer": clean_text("\n\n".join(parts), ANSWER_CHARS),
        }
    return found


# ---------------------------------------------------------------------------------------
# The results of a grading, kept for the merge
# ---------------------------------------------------------------------------------------


def results_path(out: Path, assignment: str) -> Path:
    return Path(out) / f"{assignment}.json"


def hand_points_path(out: Path, assignment: str) -> Path:
    return Path(out) / f"{assignment}-hand-points.csv"


def save_results(results: Sequence, grader, out: Path) -> Path:
    """`results` of one assignment as JSON (what `merge_points` rebuilds the reports from), with the
    exercises' ids and names."""
    rows = []
    for r in results:
        item = {k: v for k, v in vars(r).items() if k != "path"}
        item["path"] = str(r.path)
        rows.append(item)
    data = {
        "assignment": grader.name,
        "autograder": str(grader.zip),
        "exercises": {q["name"]: exercise_label(q["name"]) for q in grader.questions},
        "results": rows,
    }
    path = results_path(out, grader.name)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------
# Pages for reading, the points file
# ---------------------------------------------------------------------------------------


def _column(q: dict) -> str:
    return f"{exercise_label(q['name'])} (0 to {points_text(float(q['points'] or 0))})"


#: The page loads nothing and runs only its own button's script (a student's answer is text, escaped).
_POLICY = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"
_SAVE_SCRIPT = """<script>
document.getElementById("save").addEventListener("click", function () {
  var rows = [["participant", document.body.dataset.column]];
  document.querySelectorAll("input[data-participant]").forEach(function (f) {
    var who = f.dataset.participant;  // a student's text: inert in a spreadsheet, as grade writes it
    rows.push([/^[=+\\-@\\t\\r]/.test(who) ? "'" + who : who, f.value]);
  });
  var text = rows.map(function (r) { return r.map(function (c) {
    return /[",\\n]/.test(c) ? '"' + c.replace(/"/g, '""') + '"' : c; }).join(","); }).join("\\n") + "\\n";
  var a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], {type: "text/csv"}));
  a.download = document.body.dataset.file;
  a.click();
});
</script>"""


def write_hand_pages(results: Sequence, grader, out: Path) -> list[Path]:
    """One page per hand-graded exercise in `out/hand/<assignment>/` and the empty points file
    `out/<assignment>-hand-points.csv`; nothing for an assignment without such exercises."""
    manual = [q for q in grader.questions if q.get("manual")]
    if not manual:
        return []
    e = html.escape
    folder = Path(out) / "hand" / grader.name
    folder.mkdir(parents=True, exist_ok=True)
    rows = sorted(results, key=lambda r: r.student)
    written = []
    for q in manual:
        label, top = exercise_label(q["name"]), float(q["points"] or 0)
        prompts = [r.by_hand[q["name"]]["prompt"] for r in rows if q["name"] in r.by_hand]
        prompt = max(set(prompts), key=prompts.count) if prompts else "(no submission holds this exercise)"
        sections = []
        for r in rows:
            answer = r.by_hand.get(q["name"], {}).get("answer", "")
            shown = f"<pre>{e(answer)}</pre>" if answer else "<p><i>not answered</i></p>"
            sections.append(
                f"<section><h2>{e(r.student)}</h2>{shown}<label>points (0 to {top:g}): "
                f'<input type="number" min="0" max="{top:g}" step="any" data-participant="{e(r.student)}">'
                "</label></section>"
            )
        file_name = f"{grader.name}-{label.lower().replace(' ', '-')}-points.csv"
        page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_POLICY}">
<title>{e(grader.name)}: {e(label)}, graded by hand</title>
<style>body {{ font-family: sans-serif; max-width: 52em; margin: 2em auto; }}
pre {{ white-space: pre-wrap; background: #f4f4f4; padding: 0.6em; }} section {{ border-top: 1px solid #bbb; }}
</style></head><body data-column="{e(_column(q))}" data-file="{e(file_name)}">
<h1>{e(grader.name)}: {e(label)} (graded by hand, up to {e(points_text(top))})</h1>
<pre>{e(prompt)}</pre>
<p>{len(rows)} submission(s), by participant. Give each a number from 0 to {top:g} here and press
<button id="save" type="button">Save the points as CSV</button>, or write them into
<code>{e(hand_points_path(Path("."), grader.name).name)}</code>; then
<code>python -m gamekit.course merge-points THAT-FILE.csv</code>.</p>
{"".join(sections)}
{_SAVE_SCRIPT}
</body></html>
"""
        path = folder / f"{label.lower().replace(' ', '-')}.html"
        path.write_text(page, encoding="utf-8")
        written.append(path)
    lines = [csv_line(["participant", "file", *[_column(q) for q in manual]])]
    # a participant's name and file name are a student's text: inert in a spreadsheet
    lines += [csv_line([r.student, r.path.name, *["" for _ in manual]], student=(0, 1)) for r in rows]
    points = hand_points_path(out, grader.name)
    points.write_text("".join(lines), encoding="utf-8")
    return [points, *written]


@dataclass
class HandPoints:
    """The teacher's points: {participant: {question: points, or None for "not graded yet"}}."""

    points: dict[str, dict[str, float | None]]

    @property
    def given(self) -> int:
        return sum(v is not None for row in self.points.values() for v in row.values())


def read_hand_points(path: Path, grader, students: Sequence[str]) -> HandPoints:
    """The points in the teacher's file at `path` (as `write_hand_pages` wrote it, or a page's saved
    CSV with one exercise; comma or semicolon separated, as a spreadsheet saves it). Raises
    ValueError naming every bad row (at most 10) and what is allowed; nothing is returned then."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not UTF-8 text: save it as 'CSV UTF-8' from your spreadsheet") from None
    first = text.split("\n", 1)[0]
    delimiter = ";" if first.count(";") > first.count(",") else ","
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    if not rows or not rows[0] or rows[0][0].strip().lower() != "participant":
        raise ValueError(f"{path}: the first column must be 'participant' (as `grade` wrote the file)")
    manual = {q["name"]: q for q in grader.questions if q.get("manual")}
    columns: dict[int, str] = {}
    problems = []
    for k, head in enumerate(rows[0][1:], start=1):
        head = head.strip()
        if head.lower() in ("", "file"):
            continue
        match = [n for n in manual if head == n or re.match(re.escape(exercise_label(n)) + r"(\s*\(.*\))?$", head)]
        if len(match) != 1:
            names = ", ".join(exercise_label(n) for n in manual) or "none"
            problems.append(f"column {head!r} is not an exercise of {grader.name} graded by hand (those are: {names})")
        else:
            columns[k] = match[0]
    known = {inert_cell(s): s for s in students} | {s: s for s in students}  # as written, or as typed
    points: dict[str, dict[str, float | None]] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        who = row[0].strip()
        where = f"row {number} (participant {who!r})"
        if who in known:
            who = known[who]
        else:
            problems.append(f"{where}: no such participant in this grading")
            continue
        if who in points:
            problems.append(f"{where}: a second row for this participant")
            continue
        points[who] = {}
        for k, name in columns.items():
            cell = row[k].strip() if k < len(row) else ""
            top = float(manual[name]["points"] or 0)
            if cell == "":
                points[who][name] = None
                continue
            m = _POINTS.match(cell)
            value = float(m.group(1) + "." + (m.group(2) or "0")) if m else math.nan
            if not 0 <= value <= top:
                problems.append(
                    f"{where}, {exercise_label(name)}: {cell!r} is not a number from 0 to {top:g} "
                    "(leave the cell empty for not graded yet)"
                )
                continue
            points[who][name] = value
    if problems:
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        raise ValueError(f"{path.name}: nothing was merged: " + "; ".join(problems[:10]) + more)
    return HandPoints(points)


def apply_points(results: Sequence, grader, hand: HandPoints) -> int:
    """Put the teacher's points into `results` (in place): a hand-graded exercise with points counts
    in the total; one without ("not graded yet") does not. Returns how many points were given."""
    manual = {q["name"]: float(q["points"] or 0) for q in grader.questions if q.get("manual")}
    for r in results:
        for name, value in hand.points.get(r.student, {}).items():
            if value is None:
                r.questions.pop(name, None)
            else:
                r.questions[name] = {"score": value, "possible": manual[name], "cases": [], "by_hand": True}
    return hand.given


# ---------------------------------------------------------------------------------------
# Reruns: a second grading never mixes with the first
# ---------------------------------------------------------------------------------------


def run_files(out: Path, assignment: str) -> list[Path]:
    """What one grading of `assignment` wrote into `out` (those that exist)."""
    out = Path(out)
    paths = [
        out / f"{assignment}.csv",
        results_path(out, assignment),
        hand_points_path(out, assignment),
        out / "feedback" / assignment,
        out / "hand" / assignment,
    ]
    return [p for p in paths if p.exists()]


def set_aside_earlier_run(out: Path, assignments: Sequence[str], replace: bool) -> dict[str, Path]:
    """Before `grade` writes `assignments` into `out`: an earlier grading of one of them is refused
    (it would be overwritten, its pages mixed with the new ones) unless `replace`, which moves it
    whole into `out/earlier/<assignment>-<k>/` (kept, never deleted). Returns {assignment: where it went}."""
    out = Path(out)
    earlier = {name: run_files(out, name) for name in sorted(set(assignments))}
    earlier = {name: files for name, files in earlier.items() if files}
    if earlier and not replace:
        name, files = next(iter(earlier.items()))
        raise ValueError(
            f"{out} already holds a grading of {name} ({', '.join(str(f.relative_to(out)) for f in files)}): a second "
            "run there would overwrite it and mix the two runs' feedback pages. Give another folder with --grades, "
            f"or add --replace to move the earlier run into {out / 'earlier'}/ first (nothing is deleted; "
            "hand points you entered stay in it)"
        )
    moved = {}
    for name, files in earlier.items():
        k = 1
        while (out / "earlier" / f"{name}-{k}").exists():
            k += 1
        target = out / "earlier" / f"{name}-{k}"
        for path in files:
            rel = path.relative_to(out)
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            path.rename(target / rel)
        moved[name] = target
    return moved

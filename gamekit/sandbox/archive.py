"""Archives of students' files, read as hostile: zip bombs refused early, Moodle's participants.

Grading (`gamekit.course.intake`, `gamekit.course.lms`) and the tournament read the same
archives by the same rules, so the rules live here, below both:

- **a zip bomb is refused before it is read** (`zip_size_problems`): a member that declares more
  than a file may hold, or that would unpack to more than `MAX_RATIO` times its compressed size,
  is skipped for its student; an archive whose members declare more than the class's share
  (`class_bytes`: `STUDENT_BYTES` per student in it) is refused whole;
- **Moodle's participant comes from Moodle's part of a name** (`participant`): Moodle names a
  participant's folder, or in its flat layout each file, `<Full name>_<id>_assignsubmission_<plugin>_`;
  what follows is the student's own file name, which may imitate the mark, so a name that holds
  the mark twice belongs to neither participant it names;
- `moodle_uploads` reads Moodle's "Download all submissions" (the zip, or the folder it unpacks
  to) for files of one kind (the tournament's `.py` agents): no link followed, no path outside,
  every file bounded, a bad entry costing only its participant.
"""

from __future__ import annotations

import os
import re
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .channel import clean_text
from .files import FileRefused, read_regular

__all__ = [
    "MAX_RATIO",
    "PARTICIPANT",
    "STUDENT_BYTES",
    "MoodleUploads",
    "class_bytes",
    "is_moodle_layout",
    "moodle_uploads",
    "participant",
    "zip_size_problems",
]

#: Most bytes an archive may unpack to in all, and per student in it (four large notebooks' worth).
ARCHIVE_BYTES = 2_000_000_000
STUDENT_BYTES = 8_000_000
#: A member larger than RATIO_FROM bytes may unpack to at most MAX_RATIO times its compressed size
#: (the course's notebooks compress 2.8 to 4.1 times; a zip bomb a thousand times and more).
MAX_RATIO = 100
RATIO_FROM = 1_000_000
#: Most members read from one archive.
ARCHIVE_MEMBERS = 20_000
#: Moodle's mark of a participant and submission plugin in a folder's (or a file's) name.
PARTICIPANT = re.compile(r"_(?P<id>\d{1,12})_assignsubmission_(?P<plugin>[a-z]+)_")


def class_bytes(students: int, max_bytes: int = ARCHIVE_BYTES) -> int:
    """The most an archive of `students` students' files may unpack to: `STUDENT_BYTES` each,
    never more than `max_bytes`."""
    return min(max_bytes, max(1, students) * STUDENT_BYTES)


def zip_size_problems(members: list[zipfile.ZipInfo], limit: int, archive: object, file_bytes: int) -> dict[str, str]:
    """{member name: why it is not read} for members that declare more than `file_bytes` or a zip
    bomb's compression ratio, checked on the declared sizes before anything is read (such a member
    costs only its student); raises ValueError if the other members declare more than `limit`
    bytes in all."""
    problems: dict[str, str] = {}
    total = 0
    for info in members:
        if info.is_dir():
            continue
        size, packed = info.file_size, max(1, info.compress_size)
        if size > file_bytes:
            problems[info.filename] = f"it is larger than {file_bytes:,} bytes (it declares {size:,})"
        elif size > RATIO_FROM and size > MAX_RATIO * packed:
            problems[info.filename] = (
                f"it would unpack {packed:,} bytes to {size:,} ({size // packed:,} times; the course's notebooks "
                f"compress 3 to 4 times, a zip bomb a thousand times; at most {MAX_RATIO} is read)"
            )
        else:
            total += size
    if total > limit:
        raise ValueError(
            f"{archive} unpacks to more than {limit:,} bytes (its members declare {total:,}; allowed: "
            f"{STUDENT_BYTES:,} per student with a file in it); nothing was unpacked"
        )
    return problems


def participant(path: str) -> tuple[str, str] | list[str] | None:
    """(participant id, the path inside their submission) for a path in Moodle's archive; None
    outside any participant's folder; the sorted ids if its first part holds Moodle's mark more
    than once: `Bob_1002_assignsubmission_file_x_1001_assignsubmission_file_lesson.ipynb` is Bob's
    upload named `x_1001_...` and could be 1001's, so it is given to neither."""
    first, _, rest = path.partition("/")
    marks = list(PARTICIPANT.finditer(first))
    if not marks:
        return None
    if len(marks) > 1:
        return sorted({m.group("id") for m in marks}, key=int)
    tail = first[marks[0].end() :]
    return marks[0].group("id"), (f"{tail}/{rest}".strip("/") if tail else rest)


def is_moodle_layout(path: str | Path) -> bool:
    """True for a zip file, or a folder with at least one Moodle participant folder or file in it."""
    path = Path(path)
    if path.is_file():
        return zipfile.is_zipfile(path)
    return path.is_dir() and any(participant(e.name) for e in os.scandir(path))


@dataclass
class MoodleUploads:
    """Moodle's archive read for files of one kind: {participant id: [(file name, bytes)]}, and notes."""

    files: dict[str, list[tuple[str, bytes]]] = field(default_factory=dict)
    participants: set[str] = field(default_factory=set)
    problems: dict[str, list[str]] = field(default_factory=dict)  # participant id ("" for the archive) -> notes

    def note(self, who: str, text: str) -> None:
        self.problems.setdefault(who, []).append(text)


def _shown(name: str) -> str:
    return clean_text(name, 120, one_line=True) or "?"


def _unsafe(path: str) -> str | None:
    p = PurePosixPath(path.replace("\\", "/"))
    if path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", path) or p.is_absolute():
        return "an absolute path"
    if ".." in p.parts:
        return "a path that leads outside the archive ('..')"
    return None


def _ambiguous(out: MoodleUploads, ids: list[str], name: str) -> None:
    for pid in ids:
        others = ", ".join(i for i in ids if i != pid) or pid
        out.participants.add(pid)
        out.note(pid, f"{_shown(name)!r} names a participant more than once (yours and {others}): given to neither")


def moodle_uploads(source: str | Path, suffix: str, file_bytes: int = 1_000_000) -> MoodleUploads:
    """Every file ending in `suffix` in Moodle's archive `source` (a zip, or the folder it unpacks
    to), by participant id (see the module's docstring); other files, links, devices, unsafe paths
    and files over `file_bytes` are notes for their participant. Raises ValueError for a zip bomb
    (see `zip_size_problems`) or something that is not Moodle's archive."""
    source = Path(source)
    out = MoodleUploads()
    if source.is_file():
        _uploads_from_zip(source, suffix, file_bytes, out)
    elif source.is_dir():
        _uploads_from_folder(source, suffix, file_bytes, out)
    else:
        raise ValueError(f"{source} is neither a zip archive nor a folder")
    if not out.participants:
        raise ValueError(
            f"{source} holds no folder '<Full name>_<participant id>_assignsubmission_file_': "
            "is it Moodle's 'Download all submissions' archive?"
        )
    return out


def _keep(out: MoodleUploads, pid: str, inner: str, suffix: str) -> bool:
    out.participants.add(pid)
    if not inner.endswith(suffix):
        out.note(pid, f"{_shown(inner)!r} is not a {suffix} file: not taken")
        return False
    return True


def _uploads_from_zip(archive: Path, suffix: str, file_bytes: int, out: MoodleUploads) -> None:
    try:
        z = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ValueError(f"{archive} is not a zip archive ({exc}): give Moodle's 'Download all submissions'") from None
    with z:
        infos = z.infolist()
        if len(infos) > ARCHIVE_MEMBERS:
            raise ValueError(f"{archive} has {len(infos):,} entries; at most {ARCHIVE_MEMBERS:,} are read")
        marks = [participant(i.filename) for i in infos if not i.is_dir()]
        limit = class_bytes(len({m[0] if isinstance(m, tuple) else str(m) for m in marks}))
        too_big = zip_size_problems(infos, limit, archive, file_bytes)
        for info in infos:
            found = participant(info.filename)
            if isinstance(found, list):
                _ambiguous(out, found, info.filename)
                continue
            if found is None:
                out.note("", f"{_shown(info.filename)!r} is in no participant's folder: ignored")
                continue
            pid, inner = found
            out.participants.add(pid)
            mode = info.external_attr >> 16
            bad = _unsafe(info.filename)
            if bad or info.is_dir():
                if bad:
                    out.note(pid, f"an entry with {bad} was not unpacked")
                continue
            if stat.S_IFMT(mode) not in (0, stat.S_IFREG):
                out.note(pid, f"{_shown(inner)!r} is not a regular file (a link?): not taken")
                continue
            if info.filename in too_big:
                out.note(pid, f"{_shown(inner)!r} was not unpacked: {too_big[info.filename]}")
                continue
            if not _keep(out, pid, inner, suffix):
                continue
            try:
                with z.open(info) as f:
                    data = f.read(file_bytes + 1)
            except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError) as exc:
                out.note(pid, f"{_shown(inner)!r} is damaged ({_shown(str(exc))}): not taken")
                continue
            if len(data) > file_bytes:
                out.note(pid, f"{_shown(inner)!r} is larger than {file_bytes:,} bytes: not taken")
                continue
            out.files.setdefault(pid, []).append((_shown(inner), data))


def _uploads_from_folder(folder: Path, suffix: str, file_bytes: int, out: MoodleUploads) -> None:
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        found = participant(entry.name)
        if isinstance(found, list):
            _ambiguous(out, found, entry.name)
            continue
        if found is None:
            out.note("", f"{_shown(entry.name)!r} is in no participant's folder: ignored")
            continue
        pid, inner = found
        out.participants.add(pid)
        if entry.is_symlink():
            out.note(pid, f"{_shown(entry.name)!r} is a symbolic link: not followed")
            continue
        if entry.is_dir(follow_symlinks=False):  # (file name, its name inside the submission)
            where, items = entry.path, [(e.name, e.name) for e in sorted(os.scandir(entry.path), key=lambda e: e.name)]
        else:
            where, items = str(folder), [(entry.name, inner)]
        for name, inside in items:
            shown = _shown(inside)
            if not _keep(out, pid, inside, suffix):
                continue
            try:
                data = read_regular(where, name, file_bytes)
            except (FileRefused, OSError) as exc:
                out.note(pid, f"{shown!r} is not taken: {_shown(str(exc))}")
                continue
            out.files.setdefault(pid, []).append((shown, data))

"""Submissions in: every submitted notebook read once, as bytes, through a descriptor, or refused.

A folder of submissions is written by students (an unpacked archive, a shared drive), so it is
hostile like a jail's folder: `eve.ipynb` may be a symbolic link to the teacher's `~/.ssh/id_rsa`
or to a master notebook, a FIFO that blocks whoever opens it, a device, or a hard link; a
student's folder may be a link to a folder of the teacher's. So nothing here opens a student's
path by name: folders are walked through directory descriptors, every entry is checked with
`lstat` (a device or FIFO is never opened), then read by the sandbox's one file reader
(`gamekit.sandbox.files.read_regular`: `O_NOFOLLOW | O_NONBLOCK` relative to the folder's
descriptor, `fstat`: a regular file with one name, at most `NOTEBOOK_BYTES`). Anything else is
a `Received` with a reason, which costs only that student. Later steps use the bytes and never the path.

A zip archive (`unpack_zip`) is unpacked by the same rules: only regular files and folders,
no links, no absolute or `..` paths, bounded in member count and in the bytes actually written.
A zip bomb is refused before it is read (`zip_size_problems`, the rules of
`gamekit.sandbox.archive` that the tournament uses too): a member that declares more than a
notebook may hold, or that would unpack to more than `MAX_RATIO` times its compressed size, is
skipped (for its student); an archive whose members declare more than the class's share
(`class_bytes`: `STUDENT_BYTES` per student with a notebook in it) is refused whole; and while
unpacking, reading stops at what a member declared and at the bounds.
"""

from __future__ import annotations

import os
import stat
import unicodedata
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..sandbox import archive as archive_rules
from ..sandbox.archive import MAX_RATIO, STUDENT_BYTES, class_bytes
from ..sandbox.channel import clean_text
from ..sandbox.files import FileRefused, read_regular

__all__ = [
    "ARCHIVE_BYTES",
    "ARCHIVE_MEMBERS",
    "NOTEBOOK_BYTES",
    "MAX_RATIO",
    "Received",
    "Refused",
    "STUDENT_BYTES",
    "class_bytes",
    "clean_name",
    "read_notebook",
    "receive_archive",
    "receive_folder",
    "unpack_zip",
    "zip_size_problems",
]

#: Largest submitted notebook read (bytes).
NOTEBOOK_BYTES = 20_000_000
#: Most bytes an archive of submissions may unpack to, and most members it may hold.
ARCHIVE_BYTES = 2_000_000_000
ARCHIVE_MEMBERS = 20_000
#: Longest student name or file name kept for the reports (characters).
NAME_CHARS = 120
_KINDS = [
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
]


class Refused(Exception):
    """A submitted entry that is not read; the message says why (shown to the teacher and the student)."""


def clean_name(name: str) -> str:
    """A file name as text for reports, by one strict rule: valid UTF-8 (undecodable bytes become
    U+FFFD), one line, no control characters, no format characters (bidi overrides, zero-width
    characters: `gamekit.sandbox.channel.clean_text`), composed as Unicode's NFC (so "é" is one
    name however it was typed), at most NAME_CHARS. Two names that differ may clean to one:
    `receive_folder` refuses such names rather than merge two students."""
    return unicodedata.normalize("NFC", clean_text(name, NAME_CHARS, one_line=True)) or "?"


def _raw(name: str) -> str:
    """A name exactly as the file system has it, as printable ASCII (escapes), so two names that
    clean to one can be told apart in a message."""
    return clean_text(ascii(name)[1:-1], 2 * NAME_CHARS, one_line=True)


def _refuse_lookalikes(found: list[tuple[str, str, Received]]) -> list[Received]:
    """Refuse, rather than merge, every entry whose cleaned name (its student, or its file) also
    stands for an entry of another raw name. `found` holds (the student's raw name, the file's raw
    path, what was received), raw as the file system has them."""
    students: dict[str, set[str]] = {}
    files: dict[tuple[str, str], set[str]] = {}
    for student, path, r in found:
        students.setdefault(r.student, set()).add(student)
        files.setdefault((r.student, r.name), set()).add(path)
    out = []
    for _, _, r in found:
        two_students = len(students[r.student]) > 1
        same = sorted(students[r.student] if two_students else files[(r.student, r.name)])
        if len(same) > 1:
            names = " and ".join(f"'{_raw(n)}'" for n in same)
            why = (
                f"{r.name}: the names {names} all read as '{r.student if two_students else r.name}' once cleaned "
                "(control or format characters, "
                "composed letters, or a cut): refused, not merged; each student must hand in under a name of their own"
            )
            out.append(Received(r.student, r.name, refused=why))
        else:
            out.append(r)
    return out


def _kind(mode: int) -> str:
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def read_notebook(dir_fd: int, name: str, shown: str, limit: int = NOTEBOOK_BYTES) -> bytes:
    """The bytes of the regular file `name` in the folder open as `dir_fd`; `Refused` for anything else
    (the message names it as `shown`). `lstat` first, so that a device or a FIFO is never opened; then
    `gamekit.sandbox.files.read_regular` (no-follow, non-blocking, fstat, one link, bounded)."""
    try:
        before = os.lstat(name, dir_fd=dir_fd)
    except OSError as exc:
        raise Refused(f"{shown} cannot be read ({os.strerror(exc.errno or 0)})") from None
    if not stat.S_ISREG(before.st_mode):
        raise Refused(f"{shown} is {_kind(before.st_mode)}, not a notebook file; submit the notebook file itself")
    try:
        return read_regular(dir_fd, name, limit)
    except FileRefused as exc:
        why = str(exc)
        raise Refused(shown + why[len(name) :] if why.startswith(name) else f"{shown}: {clean_name(why)}") from None
    except OSError as exc:
        raise Refused(f"{shown} cannot be read ({os.strerror(exc.errno or 0)})") from None


@dataclass(frozen=True)
class Received:
    """One submitted notebook: its student, its file name (both as clean text), and its bytes or why not.

    With `receive_folder(..., keep=False)` the bytes are not kept (`data` is None): `read()` reads
    them again, through the same checks, when the notebook is graded, so that a class's notebooks
    are never all in memory at once."""

    student: str
    name: str
    data: bytes | None = None
    refused: str | None = None
    reader: Callable[[], bytes] | None = field(default=None, repr=False, compare=False)

    def read(self) -> bytes:
        """The notebook's bytes (kept, or read now); `Refused` if it was refused or cannot be read now."""
        if self.refused is not None:
            raise Refused(self.refused)
        if self.data is not None:
            return self.data
        if self.reader is None:
            raise Refused(f"{self.name} was not read")
        return self.reader()


def _open_folder(name: str, dir_fd: int | None) -> int:
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)


def _reader(folder: str, parts: tuple[str, ...], shown: str) -> Callable[[], bytes]:
    """Read the notebook `folder/parts...` again later: folders opened without following links,
    the file by `read_notebook` (a file that changed into a link or a FIFO since is refused)."""

    def read() -> bytes:
        try:
            fd = _open_folder(folder, None)
        except OSError as exc:
            raise Refused(f"{shown} cannot be read any more ({os.strerror(exc.errno or 0)})") from None
        try:
            for part in parts[:-1]:
                try:
                    inner = _open_folder(part, fd)
                except OSError as exc:
                    raise Refused(f"{shown} cannot be read any more ({os.strerror(exc.errno or 0)})") from None
                os.close(fd)
                fd = inner
            return read_notebook(fd, parts[-1], shown)
        finally:
            os.close(fd)

    return read


def _receive_file(
    dir_fd: int, name: str, student: str, shown: str, later: Callable[[], bytes] | None = None
) -> Received:
    """The file `name` read now; with `later`, only checked now (read, then dropped) and read by `later`."""
    try:
        data = read_notebook(dir_fd, name, shown)
    except Refused as why:
        return Received(student, shown, refused=str(why))
    return Received(student, shown, data=data) if later is None else Received(student, shown, reader=later)


def receive_folder(folder: str | Path, keep: bool = True) -> list[Received]:
    """Every `<student>.ipynb` and `<student>/<file>.ipynb` in `folder` (the teacher's own path), read
    safely (see the module's docstring); links, devices, FIFOs and the like come back refused.
    With `keep=False` each notebook is checked now and read again by `Received.read` when needed."""
    found: list[tuple[str, str, Received]] = []  # (the student's raw name, the file's raw path, what came)
    where = str(folder)

    def later(*parts: str) -> Callable[[], bytes] | None:
        return None if keep else _reader(where, parts, clean_name("/".join(parts)))

    root = _open_folder(str(folder), None)  # the teacher names this folder; what is inside is the students'
    try:
        with os.scandir(root) as entries:
            top = sorted(entries, key=lambda e: e.name)
        for entry in top:
            name = entry.name
            if name == ".ipynb_checkpoints":
                continue
            shown = clean_name(name)
            stem = name[: -len(".ipynb")] if name.endswith(".ipynb") else name
            if entry.is_symlink():
                refused = f"{shown} is a symbolic link; submit files, not links"
                found.append((stem, name, Received(clean_name(stem), shown, refused=refused)))
            elif entry.is_dir(follow_symlinks=False):
                inside = _receive_student_folder(root, name, shown, later)
                found.extend((name, f"{name}/{inner}", r) for inner, r in inside)
            elif name.endswith(".ipynb"):
                found.append((stem, name, _receive_file(root, name, clean_name(stem), shown, later(name))))
    finally:
        os.close(root)
    return _refuse_lookalikes(found)


def _receive_student_folder(
    root: int, name: str, student: str, later: Callable[..., Callable[[], bytes] | None]
) -> list[tuple[str, Received]]:
    """(raw file name, what was received) for every notebook in the student's folder `name`."""
    try:
        fd = _open_folder(name, root)
    except OSError as exc:  # replaced by a link after the scan, say
        why = f"the folder {student} cannot be opened ({os.strerror(exc.errno or 0)})"
        return [("", Received(student, student, refused=why))]
    try:
        with os.scandir(fd) as entries:
            inner = sorted((e.name for e in entries if e.name.endswith(".ipynb")), key=str)
        return [(n, _receive_file(fd, n, student, f"{student}/{clean_name(n)}", later(name, n))) for n in inner]
    finally:
        os.close(fd)


def _member_parts(info: zipfile.ZipInfo) -> tuple[str, ...] | None:
    """The path of a member as safe parts, or None if it is absolute, has `..`, or is empty."""
    name = info.filename.replace("\\", "/")
    path = PurePosixPath(name)
    if path.is_absolute() or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return None
    parts = tuple(p for p in path.parts if p not in ("", "."))
    if not parts or any(p == ".." for p in parts):
        return None
    return parts


def zip_size_problems(members: list[zipfile.ZipInfo], limit: int, archive: object) -> dict[str, str]:
    """`gamekit.sandbox.archive.zip_size_problems` for notebooks (at most `NOTEBOOK_BYTES` each)."""
    return archive_rules.zip_size_problems(members, limit, archive, NOTEBOOK_BYTES)


def _students(members: list[zipfile.ZipInfo]) -> int:
    """How many students (first parts of a path, a notebook's stem at the top) have a notebook in `members`."""
    firsts = set()
    for info in members:
        parts = _member_parts(info)
        if parts and parts[-1].endswith(".ipynb"):
            firsts.add(parts[0].removesuffix(".ipynb"))
    return len(firsts)


def unpack_zip(
    archive: str | Path, folder: str | Path, max_bytes: int = ARCHIVE_BYTES, max_members: int = ARCHIVE_MEMBERS
) -> list[tuple[str, str]]:
    """Unpack the zip `archive` into the new, empty folder `folder`: regular files and folders only.

    Links (symbolic, by their Unix mode), absolute paths, `..` paths, names that already exist,
    and members a zip bomb's sizes (`zip_size_problems`) are skipped; returns them as (member
    name, why). Raises ValueError (nothing is kept) if the archive holds more than `max_members`
    members, or declares or unpacks to more than its class's share (`class_bytes`, at most
    `max_bytes`), counting the bytes actually written as well as what the headers claim."""
    folder = Path(folder)
    folder.mkdir(mode=0o700)
    skipped: list[tuple[str, str]] = []
    written = 0
    with zipfile.ZipFile(archive) as z:
        members = z.infolist()
        if len(members) > max_members:
            raise ValueError(f"{archive}: {len(members):,} members, more than the {max_members:,} allowed")
        max_bytes = class_bytes(_students(members), max_bytes)
        too_big = zip_size_problems(members, max_bytes, archive)
        for info in members:
            shown = clean_name(info.filename)
            if info.filename in too_big:
                skipped.append((shown, too_big[info.filename]))
                continue
            parts = _member_parts(info)
            mode = info.external_attr >> 16
            if parts is None:
                skipped.append((shown, "an absolute path or a path with '..' (outside the archive's folder)"))
                continue
            if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # no type: a plain file
                skipped.append((shown, f"{_kind(mode)}, not a file"))
                continue
            target = folder.joinpath(*parts)
            if info.is_dir():
                target.mkdir(mode=0o700, parents=True, exist_ok=True)
                continue
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            try:  # only folders we made lie on the way: nothing in them can be a link
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            except OSError:
                skipped.append((shown, "a second member of the same name (or a file where a folder is)"))
                continue
            mine, damaged = 0, ""  # zipfile stops at the declared size; this stops at the bounds whatever it declares
            with os.fdopen(fd, "wb") as out:
                try:
                    with z.open(info) as src:
                        while chunk := src.read(1 << 20):
                            written += len(chunk)
                            mine += len(chunk)
                            if written > max_bytes:
                                raise ValueError(f"{archive} unpacks to more than {max_bytes:,} bytes")
                            if mine > NOTEBOOK_BYTES:
                                break
                            out.write(chunk)
                except (zipfile.BadZipFile, EOFError, OSError, NotImplementedError, RuntimeError, zlib.error) as exc:
                    damaged = clean_name(str(exc))  # a damaged member (a header that lies: a bad CRC) costs only it
            if mine > NOTEBOOK_BYTES or damaged:
                target.unlink()
                why = f"it is damaged ({damaged})" if damaged else f"it unpacks to more than {NOTEBOOK_BYTES:,} bytes"
                skipped.append((shown, why))
    return skipped


def receive_archive(archive: str | Path, scratch: str | Path, keep: bool = True) -> list[Received]:
    """The submissions in a zip archive: unpacked into the new folder `scratch` by `unpack_zip`, read
    by `receive_folder` (with `keep=False`, read again from `scratch` when graded); every skipped
    member that names a notebook is a refusal for its student."""
    skipped = unpack_zip(archive, scratch)
    found = receive_folder(scratch, keep)
    for name, why in skipped:
        parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".", "..")]
        if parts and parts[-1].endswith(".ipynb"):
            student = parts[0] if len(parts) > 1 else parts[0][: -len(".ipynb")]
            found.append(Received(clean_name(student), name, refused=f"{name} was not unpacked: {why}"))
    return sorted(found, key=lambda r: (r.student, r.name))

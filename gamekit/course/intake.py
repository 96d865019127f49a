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
"""

from __future__ import annotations

import os
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..sandbox.channel import clean_text
from ..sandbox.files import FileRefused, read_regular

__all__ = [
    "ARCHIVE_BYTES",
    "ARCHIVE_MEMBERS",
    "NOTEBOOK_BYTES",
    "Received",
    "Refused",
    "clean_name",
    "read_notebook",
    "receive_archive",
    "receive_folder",
    "unpack_zip",
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
    """A file name as text for reports: valid UTF-8 (undecodable bytes become U+FFFD), one line, no
    control characters, at most NAME_CHARS (`gamekit.sandbox.channel.clean_text`)."""
    return clean_text(name, NAME_CHARS, one_line=True) or "?"


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
    """One submitted notebook: its student, its file name (both as clean text), and its bytes or why not."""

    student: str
    name: str
    data: bytes | None = None
    refused: str | None = None


def _open_folder(name: str, dir_fd: int | None) -> int:
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)


def _receive_file(dir_fd: int, name: str, student: str, shown: str) -> Received:
    try:
        return Received(student, shown, data=read_notebook(dir_fd, name, shown))
    except Refused as why:
        return Received(student, shown, refused=str(why))


def receive_folder(folder: str | Path) -> list[Received]:
    """Every `<student>.ipynb` and `<student>/<file>.ipynb` in `folder` (the teacher's own path), read
    safely (see the module's docstring); links, devices, FIFOs and the like come back refused."""
    found: list[Received] = []
    root = _open_folder(str(folder), None)  # the teacher names this folder; what is inside is the students'
    try:
        with os.scandir(root) as entries:
            top = sorted(entries, key=lambda e: e.name)
        for entry in top:
            name = entry.name
            if name == ".ipynb_checkpoints":
                continue
            shown = clean_name(name)
            if entry.is_symlink():
                student = clean_name(name[: -len(".ipynb")] if name.endswith(".ipynb") else name)
                found.append(Received(student, shown, refused=f"{shown} is a symbolic link; submit files, not links"))
            elif entry.is_dir(follow_symlinks=False):
                found.extend(_receive_student_folder(root, name, shown))
            elif name.endswith(".ipynb"):
                found.append(_receive_file(root, name, clean_name(name[: -len(".ipynb")]), shown))
    finally:
        os.close(root)
    return found


def _receive_student_folder(root: int, name: str, student: str) -> list[Received]:
    try:
        fd = _open_folder(name, root)
    except OSError as exc:  # replaced by a link after the scan, say
        why = f"the folder {student} cannot be opened ({os.strerror(exc.errno or 0)})"
        return [Received(student, student, refused=why)]
    try:
        with os.scandir(fd) as entries:
            inner = sorted((e.name for e in entries if e.name.endswith(".ipynb")), key=str)
        return [_receive_file(fd, n, student, f"{student}/{clean_name(n)}") for n in inner]
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


def unpack_zip(
    archive: str | Path, folder: str | Path, max_bytes: int = ARCHIVE_BYTES, max_members: int = ARCHIVE_MEMBERS
) -> list[tuple[str, str]]:
    """Unpack the zip `archive` into the new, empty folder `folder`: regular files and folders only.

    Links (symbolic, by their Unix mode), absolute paths, `..` paths and names that already exist
    are skipped; returns them as (member name, why). Raises ValueError (nothing is kept) if the
    archive holds more than `max_members` members or unpacks to more than `max_bytes` bytes,
    counting the bytes actually written, not what the archive's headers claim."""
    folder = Path(folder)
    folder.mkdir(mode=0o700)
    skipped: list[tuple[str, str]] = []
    written = 0
    with zipfile.ZipFile(archive) as z:
        members = z.infolist()
        if len(members) > max_members:
            raise ValueError(f"{archive}: {len(members):,} members, more than the {max_members:,} allowed")
        for info in members:
            shown = clean_name(info.filename)
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
            with os.fdopen(fd, "wb") as out, z.open(info) as src:
                while chunk := src.read(1 << 20):
                    written += len(chunk)
                    if written > max_bytes:
                        raise ValueError(f"{archive} unpacks to more than {max_bytes:,} bytes")
                    out.write(chunk)
    return skipped


def receive_archive(archive: str | Path, scratch: str | Path) -> list[Received]:
    """The submissions in a zip archive: unpacked into the new folder `scratch` by `unpack_zip`, read
    by `receive_folder`; every skipped member that names a notebook is a refusal for its student."""
    skipped = unpack_zip(archive, scratch)
    found = receive_folder(scratch)
    for name, why in skipped:
        parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".", "..")]
        if parts and parts[-1].endswith(".ipynb"):
            student = parts[0] if len(parts) > 1 else parts[0][: -len(".ipynb")]
            found.append(Received(clean_name(student), name, refused=f"{name} was not unpacked: {why}"))
    return sorted(found, key=lambda r: (r.student, r.name))

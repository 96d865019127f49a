"""Reading a file that a jail could have touched: never by following a name.

A student can replace any file in a folder its jail could write by a symbolic link (to a secret
of the teacher's), a FIFO (an `open` that never returns), a device, a hard link to another file,
or a huge file. `read_regular` opens one name relative to a folder's descriptor with
O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC (a link is refused, a FIFO does not block), checks with
`fstat` on the open descriptor that it is a regular file with one link, and reads at most a bound.
"""

from __future__ import annotations

import os
import stat


class FileRefused(ValueError):
    """A file that is not what it must be (a link, a FIFO, a device, too large, ...): says which and why."""


FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def read_regular(folder: str | int, name: str, max_bytes: int) -> bytes:
    """The bytes of the regular file `name` in `folder` (a path the teacher made, or a descriptor of it).

    `name` must be one path component. Refused (`FileRefused`): a symbolic link, anything but a
    regular file, a file with another hard link, a file larger than `max_bytes`."""
    if not name or "/" in name or name in (".", ".."):
        raise FileRefused(f"{name!r} is not a file name in a folder")
    own = isinstance(folder, str)
    if isinstance(folder, str):
        dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    else:
        dir_fd = folder
    try:
        try:
            fd = os.open(name, FLAGS, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno in (40, 20):  # ELOOP: a symbolic link; ENOTDIR
                raise FileRefused(f"{name} is a symbolic link, not a file") from None
            raise
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise FileRefused(f"{name} is not a regular file (a FIFO, a device or a folder)")
            if info.st_nlink != 1:
                raise FileRefused(f"{name} has {info.st_nlink} hard links (a copy of another file)")
            if info.st_size > max_bytes:
                raise FileRefused(f"{name} has {info.st_size} bytes, more than the {max_bytes} allowed")
            chunks, left = [], max_bytes + 1
            while left > 0:
                chunk = os.read(fd, min(left, 1 << 16))
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
            data = b"".join(chunks)
            if len(data) > max_bytes:
                raise FileRefused(f"{name} grew beyond the {max_bytes} bytes allowed while it was read")
            return data
        finally:
            os.close(fd)
    finally:
        if own:
            os.close(dir_fd)

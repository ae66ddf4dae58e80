"""The one way lcnet opens a file that someone else may have put there.

A replay folder is shared ground: a file in it may come from a copy, a
download, another player, or a stranger with write access to the folder. So
a file of it is read only when it is a *regular file*, never by a call that
can block, and never past a size fixed in advance:

1. ``os.stat`` first, so that a device, a FIFO or a socket is not even opened
   (opening a device can have effects of its own, such as a tape rewinding);
2. ``os.open`` with ``O_NONBLOCK`` (a FIFO swapped in after that stat does
   not wait for a writer) and ``O_NOCTTY`` (a terminal does not become ours);
3. ``os.fstat`` on the descriptor just opened: *this* is the check that
   counts, since it is of the very file that will be read (a stat of the
   path alone would leave a race between the stat and the open); anything
   that is not ``S_ISREG`` is refused, and so is a size over the limit;
4. at most the size that fstat gave is read (and never more than the limit),
   so a file that grows meanwhile is read as it was at step 3.

Symbolic links are followed, but only to a regular file (step 3 decides on
what the link leads to). A link is how a player may keep a replay that lives
elsewhere, and the reader only reads: a link to a regular file is read like
a copy of it, while a link to a device, a FIFO, a directory, nothing, or
itself is refused like one of those in the folder.

Every refusal is a :class:`FileRefused` whose one-line message names the file
through :func:`lcnet.textsafe.shown`, so it is safe to print as it is.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from types import TracebackType
from typing import Final

from lcnet.errors import ExitCode, UserError
from lcnet.textsafe import shown

OPEN_FLAGS: Final = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
"""Read only; a FIFO does not wait for a writer; a terminal is not taken as ours."""

READ_CHUNK: Final = 1 << 20
"""Bytes asked of one ``read``: a whole small file at once, a large one in steps."""

_KINDS: Final = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class FileRefused(UserError):
    """A file that is not read: missing, not a regular file, too large, or unreadable.

    The message is one line and names the file escaped; ``reason`` is the
    same without the name, for a list that shows the name beside it.
    """

    exit_code = ExitCode.USAGE

    def __init__(self, message: str, reason: str, *, missing: bool = False) -> None:
        super().__init__(message)
        self.reason = reason
        self.missing = missing
        """Nothing is there by that name (not even a link)."""


def kind_of(mode: int) -> str:
    """What a file of ``mode`` is, in words (``a regular file``, ``a FIFO (named pipe)``…)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    for test, words in _KINDS:
        if test(mode):
            return words
    return "not a regular file"


def _refused(name: str, reason: str) -> FileRefused:
    """``NAME is REASON``."""
    return FileRefused(f"{name} is {reason}", reason)


def _refusal(path: str | os.PathLike[str], exc: OSError, what: str) -> FileRefused:
    """Why ``path`` (a ``what``) cannot be opened, in words, naming it escaped."""
    name = shown(os.fsdecode(path))
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        if exc.errno == errno.ENOENT and os.path.lexists(path):
            return _refused(name, "a symbolic link to nothing (its target does not exist)")
        return FileRefused(
            f"no such {what}: {name}", "gone (removed after it was listed)", missing=True
        )
    if exc.errno == errno.ELOOP:
        return _refused(name, "a symbolic link that leads back to itself (a loop)")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return FileRefused(f"no permission to read {name}", "not readable (no permission)")
    if exc.errno == errno.ENAMETOOLONG:
        return FileRefused(f"the file name is too long: {name}", "a file name too long to open")
    reason = exc.strerror or type(exc).__name__
    return FileRefused(f"cannot read {name}: {reason}", f"unreadable ({reason})")


def _not_regular(name: str, mode: int) -> FileRefused:
    return _refused(name, f"{kind_of(mode)}, not a regular file: not read")


def _too_large(name: str, size: int, limit: int, what: str) -> FileRefused:
    return _refused(name, f"{size} bytes, more than the {limit} bytes a {what} may have: not read")


class RegularFile:
    """A regular file opened for reading, its size known before any read.

    Use :func:`open_regular`; close it (or use it in a ``with`` block).
    """

    def __init__(
        self, path: str | os.PathLike[str], fd: int, size: int, limit: int, what: str
    ) -> None:
        self.path = path
        self.what = what
        self.fd = fd
        self.size = size
        """The size fstat gave when the file was opened (what :meth:`read` reads)."""
        self.limit = limit

    def read(self) -> bytes:
        """The file's first ``size`` bytes (fewer if it shrank meanwhile).

        Bytes appended after it was opened are not read: the file is read as
        it was then, so a file that grows while read takes bounded time.
        """
        chunks: list[bytes] = []
        left = min(self.size, self.limit)
        try:
            while left > 0:
                chunk = os.read(self.fd, min(left, READ_CHUNK))
                if not chunk:
                    break  # it shrank: what there is
                chunks.append(chunk)
                left -= len(chunk)
        except OSError as exc:
            raise _refusal(self.path, exc, self.what) from None
        return b"".join(chunks)

    def locked(self) -> bool:
        """Whether another process holds an exclusive ``flock`` on the file:
        an lcnet program writing it (lcnet.store.writer takes one), so the
        match is being played right now."""
        try:
            fcntl.flock(self.fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        return False

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> RegularFile:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def open_regular(path: str | os.PathLike[str], *, limit: int, what: str = "file") -> RegularFile:
    """Open ``path`` for reading if it is a regular file of at most ``limit`` bytes.

    ``what`` names the kind of file in the messages (``no such replay file``).

    Raises :class:`FileRefused` (one line, the name escaped) for anything
    else: a missing file or dangling link, a link loop, a directory, FIFO,
    device or socket, a file over ``limit`` bytes, or one it has no
    permission to read. Never blocks: see the module's docstring.
    """
    name = shown(os.fsdecode(path))
    try:
        before = os.stat(path)
    except OSError as exc:
        raise _refusal(path, exc, what) from None
    except ValueError:  # a NUL byte in the name
        raise FileRefused(f"not a file name: {name}", "not a file name") from None
    if not stat.S_ISREG(before.st_mode):
        raise _not_regular(name, before.st_mode)
    try:
        fd = os.open(path, OPEN_FLAGS)
    except OSError as exc:
        raise _refusal(path, exc, what) from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise _not_regular(name, status.st_mode)  # swapped in after the stat
        if status.st_size > limit:
            raise _too_large(name, status.st_size, limit, what)
    except BaseException:
        os.close(fd)
        raise
    return RegularFile(path, fd, status.st_size, limit, what)


def read_regular(path: str | os.PathLike[str], *, limit: int, what: str = "file") -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes
    (see :func:`open_regular`)."""
    with open_regular(path, limit=limit, what=what) as file:
        return file.read()

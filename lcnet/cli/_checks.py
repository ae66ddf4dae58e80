"""The checks of option values, made before any socket, file or announcement.

Each raises :class:`~lcnet.errors.UsageError` (exit status 2) naming the
option, so that a bad value never opens a match first, and every command
answers it with the same status. They only look: nothing here creates a
file or a folder, opens a socket or sends a packet.
"""

from __future__ import annotations

import ipaddress
import math
import os
import socket
from pathlib import Path
from typing import Final

from lcnet.errors import UsageError, UserError
from lcnet.store import identity
from lcnet.textsafe import shown

MAX_SECONDS: Final = 86_400.0
"""A day: the longest any timeout or interval may be (a longer one is a typo)."""


def whole(option: str, value: int, low: int, high: int) -> None:
    """``value`` is a whole number from ``low`` to ``high``."""
    if not low <= value <= high:
        raise UsageError(f"{option} must be {low} to {high}, not {value}")


def seconds(option: str, value: float, low: float, high: float = MAX_SECONDS) -> None:
    """``value`` is a number of seconds from ``low`` to ``high`` (never NaN or infinite)."""
    if not (math.isfinite(value) and low <= value <= high):
        raise UsageError(
            f"{option} must be at least {low:g} and at most {high:g} seconds, not {value:g}"
        )


def port(option: str, value: int) -> None:
    """A TCP port to listen on (0: any free port)."""
    whole(option, value, 0, 65535)


def name(value: str, option: str = "--name") -> None:
    """A display name as the wire carries it: printable, at most 64 bytes."""
    try:
        identity.validate_name(value)
    except UserError as exc:
        raise UsageError(f"{option} '{shown(value)}': {exc}") from None


def text(option: str, value: str) -> None:
    """A short printable text (a name or a fingerprint to pick)."""
    if not value.strip() or not value.isprintable() or len(value.encode("utf-8", "replace")) > 64:
        raise UsageError(
            f"{option} '{shown(value)}': give a number, a name or a fingerprint "
            "(printable, at most 64 bytes)"
        )


def pick(value: str, option: str = "--pick") -> None:
    """A game to pick: its number (from 1), a name or a fingerprint."""
    text(option, value)
    if value.strip().isdigit() and int(value) < 1:
        raise UsageError(f"{option} {value}: the games are numbered from 1")


def replays(
    path: Path, option: str = "--replays", *, writes: bool = True, must_exist: bool = False
) -> None:
    """A folder matches are saved in (``writes``) or read from, checked without
    creating it: an existing one must be a folder (this user may write in, if
    it ``writes``); a new one, under a folder this user may write in (if it
    ``writes``: one that is only read may be missing, unless ``must_exist``)."""
    where = shown(str(path))
    if path.exists():
        if not path.is_dir():
            raise UsageError(f"{option} {where}: not a folder")
        if writes and not os.access(path, os.W_OK | os.X_OK):
            raise UsageError(f"{option} {where}: this user may not write in it")
        return
    if must_exist:
        raise UsageError(f"{option} {where}: no such folder")
    parent = path.absolute().parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise UsageError(f"{option} {where}: {shown(str(parent))} is not a folder")
    if writes and not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {where}: cannot be made, {shown(str(parent))} is not writable")


def ready_fd(fd: int | None) -> None:
    """``--ready-fd``: a file descriptor open in this process."""
    if fd is None:
        return
    try:
        os.fstat(fd)
    except (OSError, OverflowError):
        raise UsageError(f"--ready-fd {fd}: no such open file descriptor") from None


def bind(value: str) -> None:
    """``--bind``: every address (``*``), one of this machine's IP addresses (any
    loopback or unspecified one too), an interface's name, or ``localhost``."""
    from lcnet.net.addresses import EVERY_ADDRESS, interface_addresses

    if value in (EVERY_ADDRESS, "localhost"):
        return
    ours = interface_addresses()
    try:
        address = ipaddress.ip_address(value.split("%", 1)[0])
    except ValueError:
        address = None
    if address is not None:
        if address.is_loopback or address.is_unspecified or not ours or address in ours:
            return
        raise UsageError(f"--bind {shown(value)}: not an address of this machine ({_listed(ours)})")
    try:
        interfaces = [name for _, name in socket.if_nameindex()]
    except (AttributeError, OSError):
        return  # no list of interfaces here: binding will tell
    if value not in interfaces:
        raise UsageError(
            f"--bind {shown(value)}: neither one of this machine's IP addresses nor an "
            f"interface's name (its interfaces: {', '.join(interfaces)}; {_listed(ours)})"
        )


def _listed(addresses: list[ipaddress.IPv4Address | ipaddress.IPv6Address]) -> str:
    return "addresses: " + (", ".join(str(a) for a in addresses) or "none found")

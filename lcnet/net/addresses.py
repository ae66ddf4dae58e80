"""Where to connect: parsing ``lcnet join`` addresses, and this machine's addresses.

:func:`parse_address` reads what a player types after ``lcnet join`` (an
IPv4 address, a host name, or an IPv6 address in brackets, each with an
optional ``:PORT``) and refuses every other form with one sentence that says
what is wrong and how to write it. Nothing is guessed: ``127.0.0.1:`` is not
the default port, and ``::1:48151`` is not an IPv6 address with a port.

:func:`interface_addresses` lists the addresses of this machine's interfaces
(``getifaddrs``, read from the kernel; no packet is sent), and
:func:`join_addresses` turns a host's bind address and port into what the
opponent can type: never ``0.0.0.0``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import ipaddress
import os
import re
import socket
from typing import Final

from lcnet.errors import Unreachable, UsageError

DEFAULT_PORT: Final = 48150
"""The TCP port ``lcnet host`` listens on unless told otherwise."""

EVERY_ADDRESS: Final = "*"
"""The bind address meaning every address of the machine, IPv4 and IPv6."""

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_LABEL: Final = re.compile(r"^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$")
_EXAMPLES: Final = "e.g. 192.168.1.20, 192.168.1.20:48150, [fd00::2]:48150 or my-pc.local"


class AddressError(UsageError):
    """An address on the command line that is not one (exit status 2)."""


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``HOST``, ``HOST:PORT``, ``[IPV6]`` or ``[IPV6]:PORT`` into host and port.

    HOST is an IPv4 address or a host name; an IPv6 address goes in brackets
    (it is returned without them). Raises :class:`AddressError`, one sentence
    per malformed form.
    """
    given = text
    text = text.strip()
    if not text:
        raise AddressError(f"no address given: write the host's address, {_EXAMPLES}")
    if "://" in text or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:/", text):
        raise AddressError(
            f"{given!r} is a URL: write only the host's address and port, without "
            f"{text.split(':', 1)[0]}:// ({_EXAMPLES})"
        )
    if any(ch.isspace() or ch in "/@?#" for ch in text):
        raise AddressError(f"{given!r} is not an address: write HOST or HOST:PORT ({_EXAMPLES})")
    if text.startswith("["):
        inside, closed, rest = text[1:].partition("]")
        if not closed:
            raise AddressError(
                f"{given!r} opens a bracket but never closes it: write [IPV6] or [IPV6]:PORT, "
                "e.g. [::1]:48150"
            )
        if not _is_ipv6(inside):
            raise AddressError(
                f"{inside!r} in brackets is not an IPv6 address: brackets hold only IPv6 "
                "addresses, e.g. [::1]:48150 (write an IPv4 address or a name without them)"
            )
        if not rest:
            return inside, default_port
        if not rest.startswith(":"):
            raise AddressError(
                f"{given!r} has {rest!r} after the bracket: write [IPV6]:PORT, e.g. [::1]:48150"
            )
        return inside, _port(rest[1:], given)
    if "]" in text:
        raise AddressError(
            f"{given!r} closes a bracket it never opens: write [IPV6]:PORT, e.g. [::1]:48150"
        )
    colons = text.count(":")
    if colons >= 2:
        if _is_ipv6(text) or _is_ipv6(text.rsplit(":", 1)[0]):
            raise AddressError(
                f"{given!r}: an IPv6 address goes in brackets, with any port after them: "
                f"write [ADDRESS] or [ADDRESS]:PORT, e.g. [::1]:{default_port}"
            )
        raise AddressError(
            f"{given!r} has more than one ':': write HOST or HOST:PORT "
            f"(an IPv6 address goes in brackets, e.g. [::1]:{default_port})"
        )
    host, colon, port_text = text.partition(":")
    if not host:
        raise AddressError(
            f"{given!r} has no host before the ':': write HOST:PORT, e.g. 192.168.1.20{text}"
        )
    _check_host(host, given)
    return host, (_port(port_text, given) if colon else default_port)


def _port(text: str, given: str) -> int:
    if not text:
        raise AddressError(
            f"{given!r} ends with ':' but no port: write the port after it, or leave the "
            f"':' out for the default port {DEFAULT_PORT}"
        )
    if not (text.isascii() and text.isdigit()):
        raise AddressError(f"{given!r}: the port {text!r} is not a number from 1 to 65535")
    port = int(text)
    if not 1 <= port <= 65535:
        raise AddressError(f"{given!r}: the port {port} is not a number from 1 to 65535")
    return port


def _check_host(host: str, given: str) -> None:
    if re.fullmatch(r"[0-9.]+", host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            raise AddressError(
                f"{given!r}: {host!r} is not an IPv4 address (four numbers 0-255 with dots "
                "between, e.g. 192.168.1.20)"
            ) from None
        return
    name = host[:-1] if host.endswith(".") else host
    if len(name) > 253 or not all(_LABEL.match(label) for label in name.split(".")):
        raise AddressError(
            f"{given!r}: {host!r} is neither an IPv4 address nor a host name (letters, digits "
            f"and '-', parts separated by dots; {_EXAMPLES})"
        )


def _is_ipv6(text: str) -> bool:
    try:
        return ipaddress.ip_address(text).version == 6
    except ValueError:
        return False


def format_address(host: str, port: int) -> str:
    """``host:port`` as ``lcnet join`` reads it (an IPv6 address in brackets)."""
    return f"[{host}]:{port}" if _is_ipv6(host) else f"{host}:{port}"


# ------------------------------------------------------------ this machine


def _usable(address: IPAddress) -> bool:
    """An address another machine may reach: not loopback, multicast or unset, and for
    IPv6 not link-local (it needs a zone to be written; IPv4 link-local works as is)."""
    if address.is_loopback or address.is_multicast or address.is_unspecified:
        return False
    return address.version == 4 or not address.is_link_local


def interface_addresses(interface: str | None = None) -> list[IPAddress]:
    """The addresses of this machine's interfaces that are up (of ``interface`` only, if
    given), IPv4 first, in the kernel's order, without duplicates.

    Read with ``getifaddrs``; where that is missing, from the host name's
    addresses. No packet is sent.
    """
    found: list[IPAddress] = []
    entries = _getifaddrs()
    if entries is None:
        entries = [] if interface is not None else _hostname_addresses()
    for name, address in entries:
        if (interface is None or name == interface) and address not in found:
            found.append(address)
    return sorted(found, key=lambda a: a.version)


def join_addresses(bound: str, port: int) -> list[str]:
    """What the opponent can write after ``lcnet join`` to reach a host listening
    on ``bound`` (the address its socket is bound to).

    For ``0.0.0.0`` every usable IPv4 address, for ``::`` (or
    :data:`EVERY_ADDRESS`) every usable IPv4 and IPv6 address (IPv6 other than
    link-local); a machine with none offers its loopback addresses (this
    machine only). Any other address is listed as it is.
    """
    if bound not in (EVERY_ADDRESS, "0.0.0.0", "::"):
        return [format_address(bound, port)]
    versions = (4,) if bound == "0.0.0.0" else (4, 6)
    every = [a for a in interface_addresses() if a.version in versions]
    usable = [a for a in every if _usable(a)] or [a for a in every if a.is_loopback]
    if not usable:
        usable = [ipaddress.IPv4Address("127.0.0.1")]
    return [format_address(str(a), port) for a in usable]


def _hostname_addresses() -> list[tuple[str, IPAddress]]:
    found: list[tuple[str, IPAddress]] = []
    with contextlib.suppress(OSError):
        for info in socket.getaddrinfo(socket.gethostname(), None):
            with contextlib.suppress(ValueError):
                found.append(("", ipaddress.ip_address(str(info[4][0]).split("%")[0])))
    return found


class _SockAddr(ctypes.Structure):
    _fields_ = [("family_bytes", ctypes.c_uint8 * 2), ("data", ctypes.c_uint8 * 26)]


class _IfAddrs(ctypes.Structure):
    pass


_IfAddrs._fields_ = [
    ("ifa_next", ctypes.POINTER(_IfAddrs)),
    ("ifa_name", ctypes.c_char_p),
    ("ifa_flags", ctypes.c_uint),
    ("ifa_addr", ctypes.POINTER(_SockAddr)),
    ("ifa_netmask", ctypes.POINTER(_SockAddr)),
    ("ifa_ifu", ctypes.POINTER(_SockAddr)),
    ("ifa_data", ctypes.c_void_p),
]

_IFF_UP: Final = 0x1


def _family(raw: bytes) -> int:
    """A sockaddr's family: a 16-bit field on Linux, the second byte where a
    length byte comes first (the BSDs and macOS)."""
    if hasattr(socket, "AF_NETLINK"):  # Linux
        return int.from_bytes(raw[:2], "little")
    return raw[1]


def _getifaddrs() -> list[tuple[str, IPAddress]] | None:
    """(interface, address) of every interface that is up, or ``None`` without getifaddrs."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        getifaddrs, freeifaddrs = libc.getifaddrs, libc.freeifaddrs
    except (OSError, AttributeError):
        return None
    getifaddrs.argtypes = [ctypes.POINTER(ctypes.POINTER(_IfAddrs))]
    getifaddrs.restype = ctypes.c_int
    freeifaddrs.argtypes = [ctypes.POINTER(_IfAddrs)]
    head = ctypes.POINTER(_IfAddrs)()
    if getifaddrs(ctypes.byref(head)) != 0:
        return None
    found: list[tuple[str, IPAddress]] = []
    try:
        entry = head
        while entry:
            item = entry.contents
            entry = item.ifa_next
            if not item.ifa_addr or not item.ifa_flags & _IFF_UP:
                continue
            raw = ctypes.string_at(item.ifa_addr, ctypes.sizeof(_SockAddr))
            family = _family(raw)
            name = (item.ifa_name or b"").decode(errors="replace")
            if family == socket.AF_INET:
                found.append((name, ipaddress.IPv4Address(raw[4:8])))
            elif family == socket.AF_INET6:
                found.append((name, ipaddress.IPv6Address(raw[8:24])))
    finally:
        freeifaddrs(head)
    return found


def local_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback (no packet is sent)."""
    return [str(a) for a in interface_addresses() if a.version == 4 and not a.is_loopback]


async def probe_listener(host: str, port: int, timeout: float) -> None:
    """Fail now, in one sentence, if nothing accepts a TCP connection at ``host:port``.

    ZeroMQ retries a refused connection forever without saying why, so a
    joiner first opens a plain TCP connection (and closes it at once): a
    refusal, an unknown name or an unreachable network is reported within
    moments instead of after the connect timeout. A host that accepts is left
    to the protocol (which gives up after the connect timeout if it never answers).
    """
    where = format_address(host, port)
    loop = asyncio.get_running_loop()
    errors: list[OSError] = []
    try:
        async with asyncio.timeout(timeout):
            try:
                infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except socket.gaierror as exc:
                raise Unreachable(
                    f"cannot find the host {host!r} ({exc.strerror}): check the name, or use "
                    "its IP address"
                ) from None
            for family, kind, proto, _, address in infos:
                sock = socket.socket(family, kind, proto)
                sock.setblocking(False)
                try:
                    await loop.sock_connect(sock, address)
                    return  # something listens: the protocol takes it from here
                except OSError as exc:
                    errors.append(exc)
                finally:
                    sock.close()
    except TimeoutError:
        raise Unreachable(
            f"no answer from {where} within {timeout:g} s: check the address, and that a "
            "firewall lets the port through (TCP)"
        ) from None
    if errors and all(isinstance(exc, ConnectionRefusedError) for exc in errors):
        raise Unreachable(
            f"nothing is listening at {where} — is the host running, and is this its "
            "address and port?"
        )
    reason = next((_why(e) for e in errors if not isinstance(e, ConnectionRefusedError)), None)
    if reason is None:
        raise Unreachable(f"cannot reach {where}: no address to connect to")
    raise Unreachable(
        f"cannot reach {where}: {reason} — check the address, and that this machine is on "
        "the host's network"
    )


def _why(exc: OSError) -> str:
    """An OS error in the system's words (asyncio's own text is Python's:
    "Connect call failed ('10.77.0.99', 48150)")."""
    if exc.errno:
        return os.strerror(exc.errno).lower()
    return exc.strerror or type(exc).__name__

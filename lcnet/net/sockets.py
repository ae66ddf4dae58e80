"""The ZeroMQ sockets lcnet listens and connects with, and the options they carry.

The host binds a ROUTER (:func:`bind_host`), a joiner or a spectator connects a
DEALER (:func:`connect_joiner`); both carry :func:`common_options`. Every
option here was tried against a stranger's socket-level attacks
(tests/zmtp.py, ``python bench/stranger.py``): none of them lets a stranger
abort the process.
"""

from __future__ import annotations

import ipaddress
from typing import Final

import zmq
import zmq.asyncio

from lcnet.errors import NetError
from lcnet.net.addresses import EVERY_ADDRESS, format_address

MAX_MESSAGE_BYTES: Final = 64 * 1024
"""ZMQ_MAXMSGSIZE. A frame is at most 4 KiB: anything up to 64 KiB is read and
refused (and counted) by the decoder; a bigger message makes ZeroMQ drop the
connection before it is read into memory (the joiner then dials again, see
:data:`lcnet.link.liveness.REDIAL_GRACE`).

It bounds each *part* of a message, not the number of parts: libzmq holds a
message of many parts whole before lcnet can read any of it, and no option of
libzmq 4.3.5 limits that (bench/README.md, "Strangers on the socket")."""

ZAP_DOMAIN: Final = b"lcnet"
"""Set so that libzmq refuses ZMTP 1.0 and 2.0 peers (see :func:`common_options`)."""

CLOSE_LINGER_MS: Final = 2000
"""On close, up to 2 s to deliver what is still queued (the last frames)."""


def common_options(sock: zmq.asyncio.Socket) -> None:
    """The options every socket of ours has.

    No ZMTP heartbeats (``HEARTBEAT_IVL``/``TIMEOUT``/``TTL``): libzmq 4.3.5,
    the release bundled with pyzmq, aborts the whole process when a heartbeat
    falls due on a connection whose input is stopped (its queue full) and that
    failed meanwhile (``Assertion failed: !_io_error``, stream_engine_base.cpp:
    the timer writes a PING without checking the error). Any stranger makes
    that happen: 30 connections that each send 2,000 messages and close without
    reading killed a host within a second, every time (tests/net/test_stranger_socket.py).
    Liveness is the protocol's own ``ping``/``pong``, and a joiner whose host
    falls silent dials again (:mod:`lcnet.link.liveness`).
    """
    sock.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
    # ZMTP 3 only. libzmq reads a peer whose greeting is not ZMTP 3's as an
    # old ZMTP 1.0/2.0 peer, so random bytes from a stranger became messages
    # (208,444 in 5 s from two threads of TCP garbage, each queued and handed
    # to lcnet). A ZAP domain makes libzmq refuse such peers at the greeting;
    # with no ZAP handler and the NULL mechanism, ZMTP 3 peers are let in as
    # before (ZAP_ENFORCE_DOMAIN stays off).
    sock.setsockopt(zmq.ZAP_DOMAIN, ZAP_DOMAIN)
    sock.setsockopt(zmq.LINGER, CLOSE_LINGER_MS)
    sock.setsockopt(zmq.IPV6, 1)  # IPv6 addresses too; "*" binds both families


def bind_host(
    context: zmq.asyncio.Context, address: str, port: int
) -> tuple[zmq.asyncio.Socket, int]:
    """A ROUTER socket bound to ``address:port`` (port 0: any free port); returns the port.

    ``address`` is an IP address, an interface's name, or :data:`EVERY_ADDRESS`.
    """
    sock = context.socket(zmq.ROUTER)
    common_options(sock)
    sock.setsockopt(zmq.ROUTER_HANDOVER, 1)
    sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
    try:
        sock.bind(endpoint(address, port if port else "*"))
    except zmq.ZMQError as exc:
        sock.close(linger=0)
        where = "this machine" if address == EVERY_ADDRESS else address
        if exc.errno == zmq.EADDRINUSE:
            raise NetError(
                f"port {port} is already in use on {where}: another lcnet (or another "
                "program) listens there; choose another with --port"
            ) from None
        if address == EVERY_ADDRESS:
            raise NetError(f"cannot listen on port {port}: {exc.strerror}") from None
        raise NetError(
            f"cannot listen on {format_address(address, port)}: {exc.strerror} (--bind takes "
            "one of this machine's IP addresses or an interface's name)"
        ) from None
    last = sock.getsockopt(zmq.LAST_ENDPOINT)
    text = last.decode() if isinstance(last, bytes) else str(last)
    return sock, int(text.rsplit(":", 1)[1])


def bound_host(sock: zmq.asyncio.Socket) -> str:
    """The address a bound socket really listens on (``0.0.0.0`` or ``::`` for every
    address of one or both families): an interface's name resolves to one of its
    addresses, and an IPv4 address may come back written as IPv6."""
    last = sock.getsockopt(zmq.LAST_ENDPOINT)
    text = last.decode() if isinstance(last, bytes) else str(last)
    host = text.removeprefix("tcp://").rsplit(":", 1)[0].strip("[]")
    try:
        address = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return host


def connect_joiner(context: zmq.asyncio.Context, host: str, port: int) -> zmq.asyncio.Socket:
    """A DEALER socket connecting (and reconnecting, by itself) to the host."""
    sock = context.socket(zmq.DEALER)
    common_options(sock)
    sock.setsockopt(zmq.RECONNECT_IVL, 200)
    sock.setsockopt(zmq.RECONNECT_IVL_MAX, 2000)
    try:
        sock.connect(endpoint(host, port))
    except zmq.ZMQError as exc:
        sock.close(linger=0)
        raise NetError(f"cannot connect to {format_address(host, port)}: {exc.strerror}") from None
    return sock


def endpoint(host: str, port: int | str) -> str:
    try:
        if ipaddress.ip_address(host).version == 6:
            return f"tcp://[{host}]:{port}"
    except ValueError:
        pass
    return f"tcp://{host}:{port}"

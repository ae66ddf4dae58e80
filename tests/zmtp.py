"""A stranger at the ZMTP level: raw ZeroMQ bytes over plain TCP sockets.

A real peer of lcnet speaks ZMTP 3.x through libzmq; a stranger need not. This
module writes the bytes itself (RFC 23, ZMTP 3.0: a 64-byte greeting, the
NULL mechanism's ``READY`` command, then frames), so a test can do what no
well-behaved library does: send and close without reading (the close then
resets the connection), stop half-way through a greeting, send a frame larger
than announced limits, flood a connection, or listen as a hostile host that
lcnet's DEALER sockets (a joiner, a spectator) connect to.

Nothing here uses ZeroMQ: only :mod:`socket` and :mod:`struct`.
"""

from __future__ import annotations

import contextlib
import random
import socket
import struct
from collections.abc import Iterator
from typing import Final

import nacl.signing

from lcnet import wire
from lcnet.audience import NO_GAME

SIGNATURE: Final = b"\xff" + bytes(7) + b"\x01\x7f"
"""The first ten bytes of every ZMTP 3.x greeting (as libzmq writes them: a
ZMTP 1.0 length of 1, which libzmq requires before it reads on)."""

MORE: Final = 0x01
LONG: Final = 0x02
COMMAND: Final = 0x04


def greeting(*, as_server: bool = False, minor: int = 1) -> bytes:
    """A 64-byte ZMTP 3.``minor`` greeting offering the NULL mechanism."""
    mechanism = b"NULL".ljust(20, b"\x00")
    return SIGNATURE + bytes([3, minor]) + mechanism + bytes([int(as_server)]) + bytes(31)


def frame(body: bytes, *, more: bool = False, command: bool = False) -> bytes:
    """One ZMTP frame (short or long, as its size needs)."""
    flags = (MORE if more else 0) | (COMMAND if command else 0)
    if len(body) > 255:
        return bytes([flags | LONG]) + struct.pack(">Q", len(body)) + body
    return bytes([flags, len(body)]) + body


def long_frame_header(size: int, *, more: bool = False) -> bytes:
    """The header of a long frame announcing ``size`` bytes (the body may never come)."""
    return bytes([LONG | (MORE if more else 0)]) + struct.pack(">Q", size)


def ready(socket_type: bytes = b"DEALER", identity: bytes | None = None) -> bytes:
    """The NULL mechanism's READY command with its properties."""
    body = b"\x05READY" + _property(b"Socket-Type", socket_type)
    if identity is not None:
        body += _property(b"Identity", identity)
    return frame(body, command=True)


def _property(name: bytes, value: bytes) -> bytes:
    return bytes([len(name)]) + name + struct.pack(">I", len(value)) + value


def message(parts: list[bytes]) -> bytes:
    """A multipart message: each part a frame, all but the last with MORE."""
    return b"".join(frame(p, more=i < len(parts) - 1) for i, p in enumerate(parts))


def handshake(socket_type: bytes = b"DEALER") -> bytes:
    """What a peer sends before its first message: greeting and READY."""
    return greeting() + ready(socket_type)


# ---------------------------------------------------------------- messages


def bad_watch(rng: random.Random) -> bytes:
    """A ``watch`` whose signature does not verify with the key it presents:
    the host answers each one with a ``busy`` frame."""
    signer = nacl.signing.SigningKey(rng.randbytes(32))
    other = nacl.signing.SigningKey(rng.randbytes(32))
    watch = wire.Watch(
        v=list(wire.PROTOCOL_VERSION), name="ghost", key=bytes(other.verify_key), have=0
    )
    return wire.make_frame(watch, signer, game=NO_GAME).raw


def watch(rng: random.Random, *, have: int = 0, name: str = "ghost") -> bytes:
    """A well-signed ``watch`` of a stranger's own key."""
    key = nacl.signing.SigningKey(rng.randbytes(32))
    message = wire.Watch(
        v=list(wire.PROTOCOL_VERSION), name=name, key=bytes(key.verify_key), have=have
    )
    return wire.make_frame(message, key, game=NO_GAME).raw


def hello(rng: random.Random) -> bytes:
    """A third party's well-signed ``hello``: a host in a match answers it ``busy``."""
    key = nacl.signing.SigningKey(rng.randbytes(32))
    message = wire.Hello(
        v=list(wire.PROTOCOL_VERSION),
        name="stranger",
        key=bytes(key.verify_key),
        coin=rng.randbytes(wire.HASH_SIZE),
    )
    return wire.make_frame(message, key, seq=0).raw


def sync(rng: random.Random) -> bytes:
    """A stranger's ``sync`` of some game (a host answers it ``busy``)."""
    key = nacl.signing.SigningKey(rng.randbytes(32))
    message = wire.Sync(have=rng.randrange(0, 1000), head=rng.randbytes(wire.HASH_SIZE))
    return wire.make_frame(message, key, game=rng.randbytes(wire.HASH_SIZE)).raw


def junk(rng: random.Random) -> bytes:
    """Bytes that are no frame."""
    return rng.randbytes(rng.randrange(0, 600))


KINDS: Final = ("watch", "bad_watch", "hello", "sync", "junk")


def of_kind(kind: str, rng: random.Random) -> bytes:
    return {"watch": watch, "bad_watch": bad_watch, "hello": hello, "sync": sync, "junk": junk}[
        kind
    ](rng)


# ---------------------------------------------------------------- the stranger


def dial(port: int, *, timeout: float = 5.0) -> socket.socket:
    """A plain TCP connection to 127.0.0.1:``port``."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def send_all(sock: socket.socket, data: bytes) -> bool:
    """Send ``data``; ``False`` if the other side closed or the send would wait
    past the socket's timeout (a host that stopped reading)."""
    try:
        sock.sendall(data)
    except OSError:
        return False
    return True


def reset(sock: socket.socket) -> None:
    """Close abruptly: a TCP reset instead of an orderly close (SO_LINGER 0)."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def recv_exactly(sock: socket.socket, size: int) -> bytes | None:
    """``size`` bytes, or ``None`` if the connection ended first (or timed out)."""
    data = b""
    try:
        while len(data) < size:
            chunk = sock.recv(size - len(data))
            if not chunk:
                return None
            data += chunk
    except OSError:
        return None
    return data


def read_frame(sock: socket.socket) -> tuple[int, bytes] | None:
    """One frame's flags and body, or ``None`` if the connection ended."""
    head = recv_exactly(sock, 2)
    if head is None:
        return None
    flags, size = head[0], head[1]
    if flags & LONG:
        rest = recv_exactly(sock, 7)
        if rest is None:
            return None
        size = struct.unpack(">Q", head[1:] + rest)[0]
    body = recv_exactly(sock, size)
    return None if body is None else (flags, body)


def open_session(port: int, *, timeout: float = 5.0) -> socket.socket | None:
    """A connection past the ZMTP handshake, ready for messages; ``None`` if the
    other side would not finish it. A peer must wait for the other's READY
    before its first message: libzmq takes a message that arrives before it
    has sent its own READY for a handshake command, and drops the connection."""
    sock = dial(port, timeout=timeout)
    if send_all(sock, handshake()) and recv_exactly(sock, 64) is not None:
        answer = read_frame(sock)
        if answer is not None and answer[0] & COMMAND and answer[1][1:6] == b"READY":
            return sock
    reset(sock)
    return None


def unread_burst(port: int, payload: bytes, count: int, *, abrupt: bool = False) -> bool:
    """Connect, say hello in ZMTP, send ``count`` copies of the one-frame message
    ``payload`` and close without reading a byte of the answers: the pattern
    that aborted libzmq 4.3.5 with heartbeats on (see lcnet.net). Whether it
    could send everything."""
    sock = open_session(port)
    if sock is None:
        return False
    try:
        return send_all(sock, frame(payload) * count)
    finally:
        if abrupt:
            reset(sock)
        else:
            sock.close()


class HostileListener:
    """A TCP listener on 127.0.0.1 that a joiner's or spectator's DEALER
    connects to, and that answers it with raw ZMTP bytes of its choice."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(10.0)
        self.port: int = self.sock.getsockname()[1]

    def accept(self) -> socket.socket:
        conn, _ = self.sock.accept()
        conn.settimeout(5.0)
        return conn

    def close(self) -> None:
        self.sock.close()


@contextlib.contextmanager
def hostile_listener() -> Iterator[HostileListener]:
    listener = HostileListener()
    try:
        yield listener
    finally:
        listener.close()


class Ghosts:
    """Spectators that are not there: ``count`` connections at a time, each of
    which sends one well-signed ``watch`` (``asks`` of them) and never reads; a
    new one replaces the oldest every ``every`` seconds, until :meth:`stop`.
    Runs in a thread of its own (plain blocking sockets)."""

    def __init__(self, port: int, *, count: int = 8, asks: int = 1, every: float = 0.1) -> None:
        import threading

        self.port, self.count, self.asks, self.every = port, count, asks, every
        self.connected = 0
        """Ghost connections made so far."""
        self.started = threading.Event()
        """Set once ``2 * count`` ghosts have connected (the first ones replaced)."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ghosts", daemon=True)
        self._rng = random.Random(port)

    def start(self) -> Ghosts:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        live: list[socket.socket] = []
        try:
            while not self._stop.is_set():
                sock = open_session(self.port)
                if sock is not None:
                    payload = b"".join(
                        frame(watch(self._rng, name=f"ghost{self.connected}"))
                        for _ in range(self.asks)
                    )
                    send_all(sock, payload)
                    live.append(sock)
                    self.connected += 1
                if len(live) > self.count:
                    live.pop(0).close()  # unread answers: the close resets the connection
                if self.connected >= 2 * self.count:
                    self.started.set()
                self._stop.wait(self.every)
        finally:
            for sock in live:
                sock.close()

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

import asyncio
import collections
import contextlib
import dataclasses
import random
import socket
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import nacl.signing

from lcnet.link.audience import NO_GAME
from lcnet.protocol import wire

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
    that aborted libzmq 4.3.5 with heartbeats on (see lcnet.net.peer). Whether it
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


# ---------------------------------------------------------------- the generator


@dataclasses.dataclass
class Tally:
    """What a stranger did (and what it could not do)."""

    connections: int = 0
    messages: int = 0
    bytes_sent: int = 0
    refused: int = 0
    """Connections the target would not take (or closed at once)."""
    actions: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)

    def add(self, other: Tally) -> None:
        self.connections += other.connections
        self.messages += other.messages
        self.bytes_sent += other.bytes_sent
        self.refused += other.refused
        self.actions.update(other.actions)


MAX_HELD: Final = 16
"""Half-open connections a stranger holds at once (each is a file descriptor
on both sides; the rest are closed)."""


class Stranger:
    """A seeded stranger against a listening socket (a host's ROUTER): each
    :meth:`act` is one of :data:`HOST_ACTIONS`, chosen by the seed. The
    connections it leaves half-open are closed by :meth:`close`."""

    def __init__(
        self, port: int, rng: random.Random, *, burst: int = 200, kinds: tuple[str, ...] = KINDS
    ) -> None:
        self.port, self.rng, self.burst, self.kinds = port, rng, burst, kinds
        self.tally = Tally()
        self._held: list[socket.socket] = []

    def act(self, name: str | None = None) -> str:
        name = name or self.rng.choice(HOST_ACTIONS)
        self.tally.actions[name] += 1
        getattr(self, f"_{name}")()
        return name

    def close(self) -> None:
        for sock in self._held:
            reset(sock)
        self._held.clear()

    # -- helpers

    def _session(self) -> socket.socket | None:
        self.tally.connections += 1
        try:
            sock = open_session(self.port)
        except OSError:
            sock = None
        if sock is None:
            self.tally.refused += 1
        return sock

    def _dial(self) -> socket.socket | None:
        """A TCP connection to the target, counted (``None``, counted as refused)."""
        self.tally.connections += 1
        try:
            return dial(self.port)
        except OSError:
            self.tally.refused += 1
            return None

    def _send(self, sock: socket.socket, data: bytes, messages: int) -> None:
        if send_all(sock, data):
            self.tally.messages += messages
            self.tally.bytes_sent += len(data)

    def _hold(self, sock: socket.socket) -> None:
        self._held.append(sock)
        while len(self._held) > MAX_HELD:
            reset(self._held.pop(0))

    def _raw(self) -> bytes:
        return of_kind(self.rng.choice(self.kinds), self.rng)

    def _payloads(self, count: int, kind: str | None = None) -> bytes:
        kinds = [kind] if kind else list(self.kinds)
        return b"".join(frame(of_kind(self.rng.choice(kinds), self.rng)) for _ in range(count))

    # -- the actions

    def _churn(self) -> None:
        """Connect and close at once, before or after the handshake."""
        sock = self._dial()
        if sock is None:
            return
        if self.rng.random() < 0.5:
            send_all(sock, handshake())
        (reset if self.rng.random() < 0.5 else socket.socket.close)(sock)

    def _unread(self) -> None:
        """A flood of one kind, then a close without reading the answers."""
        sock = self._session()
        if sock is None:
            return
        count = self.rng.randrange(self.burst // 2, self.burst * 2)
        self._send(sock, self._payloads(1, self.rng.choice(self.kinds)) * count, count)
        (reset if self.rng.random() < 0.3 else socket.socket.close)(sock)

    def _flood(self) -> None:
        """Messages of every kind, unread, the connection held open for a while."""
        sock = self._session()
        if sock is None:
            return
        count = self.rng.randrange(1, self.burst)
        self._send(sock, self._payloads(count), count)
        self._hold(sock)

    def _half_open(self) -> None:
        """A connection that stops mid-greeting (or mid-frame) and stays."""
        sock = self._dial()
        if sock is None:
            return
        whole = handshake() + frame(self._raw())
        send_all(sock, whole[: self.rng.randrange(1, len(whole))])
        self._hold(sock)

    def _oversized(self) -> None:
        """A frame that announces more than any limit (up to 2**63 bytes)."""
        sock = self._session()
        if sock is None:
            return
        size = self.rng.choice([65 * 1024, 1 << 20, 1 << 32, (1 << 63) - 1])
        self._send(sock, long_frame_header(size) + self.rng.randbytes(4096), 1)
        reset(sock)

    def _malformed(self) -> None:
        """Frames with reserved flag bits, commands after the handshake, many parts."""
        sock = self._session()
        if sock is None:
            return
        choice = self.rng.randrange(4)
        if choice == 0:
            data = bytes([0xF0 | self.rng.randrange(16), 3]) + b"abc"
        elif choice == 1:
            data = frame(b"\x05READY" + self.rng.randbytes(20), command=True)
        elif choice == 2:
            data = frame(b"\x04PING" + self.rng.randbytes(4), command=True)
        else:
            data = message([self._raw() for _ in range(self.rng.randrange(2, 60))])
        self._send(sock, data, 1)
        (reset if self.rng.random() < 0.5 else socket.socket.close)(sock)

    def _bad_greeting(self) -> None:
        """A greeting no ZeroMQ peer would send."""
        sock = self._dial()
        if sock is None:
            return
        choice = self.rng.randrange(4)
        if choice == 0:
            data = self.rng.randbytes(self.rng.randrange(1, 200))
        elif choice == 1:
            data = SIGNATURE + bytes([self.rng.choice([1, 2, 4, 255]), 0]) + bytes(52)
        elif choice == 2:
            data = SIGNATURE + b"\x03\x01" + b"CURVE".ljust(20, b"\x00") + bytes(32)
        else:
            data = greeting() + ready(b"PUB")
        send_all(sock, data)
        (reset if self.rng.random() < 0.5 else socket.socket.close)(sock)


HOST_ACTIONS: Final = (
    "churn",
    "unread",
    "flood",
    "half_open",
    "oversized",
    "malformed",
    "bad_greeting",
)


def hostile_answer(conn: socket.socket, rng: random.Random, *, burst: int = 200) -> str:
    """What a hostile listener does with a DEALER that connected to it (a joiner
    or a spectator): one of :data:`LISTENER_ACTIONS`, chosen by ``rng``."""
    name = rng.choice(LISTENER_ACTIONS)
    junk = b"".join(frame(of_kind(rng.choice(KINDS), rng)) for _ in range(rng.randrange(1, burst)))
    try:
        if name == "bad_greeting":
            send_all(conn, rng.randbytes(rng.randrange(1, 100)))
        elif name == "silence":
            pass
        else:
            send_all(conn, greeting(as_server=True) + ready(b"ROUTER"))
            if name == "flood":
                send_all(conn, junk)
            elif name == "oversized":
                send_all(conn, long_frame_header(1 << rng.randrange(17, 63)) + rng.randbytes(999))
            elif name == "malformed":
                send_all(conn, bytes([0xF0, 3]) + b"abc")
    finally:
        (reset if rng.random() < 0.5 else socket.socket.close)(conn)
    return name


LISTENER_ACTIONS: Final = ("bad_greeting", "silence", "flood", "oversized", "malformed", "reset")


def rss_kib(pid: int) -> int:
    """The resident memory of process ``pid``, in KiB (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


# ---------------------------------------------------------------- campaigns


@dataclasses.dataclass
class Outcome:
    """One campaign of a stranger against one target program (a child process)."""

    target: str
    tally: Tally
    exit_code: int | None
    """The target's exit status (negative: killed by a signal, e.g. -6 for an abort)."""
    rss_before_kib: int
    rss_after_kib: int
    """The target's resident memory before the stranger came, and at its peak after."""
    seconds: float
    honest_ok: bool
    """The honest match completed with valid files (or, for a joiner or a
    spectator, the target ended by itself as it says it does)."""
    said: str = ""
    """The end of the target's standard error (its last words)."""

    @property
    def crashed(self) -> bool:
        return self.exit_code is None or self.exit_code < 0 or "Traceback" in self.said


def _act_many(stranger: Stranger, count: int, stop: threading.Event | None = None) -> None:
    for _ in range(count):
        if stop is not None and stop.is_set():
            break
        stranger.act()
    stranger.close()


async def _peak_rss(pid: int, stop: asyncio.Event, peak: list[int]) -> None:
    while not stop.is_set():
        peak[0] = max(peak[0], rss_kib(pid))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.2)


async def against_host(
    directory: Path, seed: int, actions: int, *, mid_match: bool, burst: int = 200
) -> Outcome:
    """A stranger's ``actions`` against ``lcnet host`` (idle, or while it plays a
    bot joiner); then, for an idle host, the honest joiner plays a whole match."""
    from tests.netutil import LOOPBACK, TIMING_ARGS, finish, replay_file, spawn, spawn_host, stop

    started = time.monotonic()
    host, port = await spawn_host(directory / "h", rounds=2 if mid_match else 1)
    # At a host waiting for an opponent, a stranger's well-signed hello is a
    # joiner like any other: it would play (or stall the opening, given up on
    # after its timeout). Mid-match, a hello is one more stranger turned away.
    kinds = KINDS if mid_match else tuple(k for k in KINDS if k != "hello")
    stranger = Stranger(port, random.Random(seed), kinds=kinds, burst=burst)
    before, peak, done = rss_kib(host.pid), [0], asyncio.Event()
    sampler = asyncio.ensure_future(_peak_rss(host.pid, done, peak))
    joiner_args = ["join", f"{LOOPBACK}:{port}", "--bot", "random", *TIMING_ARGS]
    joiner_args += ["--replays", str(directory / "j" / "replays")]
    joiner = None
    honest_ok, said = False, ""
    try:
        if mid_match:
            joiner = await spawn(joiner_args, directory / "j" / "home", directory / "j")
            await _match_begun(directory / "h" / "replays", joiner)
            await asyncio.to_thread(_act_many, stranger, actions)
        else:
            await asyncio.to_thread(_act_many, stranger, actions)
            joiner = await spawn(joiner_args, directory / "j" / "home", directory / "j")
        joined, _, joiner_said = await finish(joiner)
        code, _, said = await finish(host)
        said += f"\n(the honest joiner: {joined}) " + joiner_said[-200:]
        if joined == 0 and code == 0:
            from tests.net.test_net import assert_valid_pair

            with contextlib.suppress(AssertionError, ValueError):
                assert_valid_pair(replay_file(directory / "h"), replay_file(directory / "j"))
                honest_ok = True
    finally:
        done.set()
        await sampler
        stranger.close()
        await stop(host)
        if joiner is not None:
            await stop(joiner)
    return Outcome(
        target="host mid-match" if mid_match else "idle host",
        tally=stranger.tally,
        exit_code=host.returncode,
        rss_before_kib=before,
        rss_after_kib=peak[0],
        seconds=time.monotonic() - started,
        honest_ok=honest_ok,
        said=said[-400:] if host.returncode is not None else "",
    )


async def _match_begun(replays: Path, joiner: asyncio.subprocess.Process) -> None:
    """Wait until the host has a replay file (its match began) or the joiner ended."""
    from tests.netutil import DEADLINE

    async with asyncio.timeout(DEADLINE):
        while joiner.returncode is None and not any(replays.glob("*.lcnet")):
            await asyncio.sleep(0.05)


class _HostileServer:
    """A hostile listener that answers every connection (a thread of its own)."""

    def __init__(self, seed: int, burst: int) -> None:
        self.listener = HostileListener()
        self.listener.sock.settimeout(0.2)
        self.rng, self.burst = random.Random(seed), burst
        self.tally = Tally()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hostile", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.listener.sock.accept()
            except OSError:
                continue
            conn.settimeout(2.0)
            self.tally.connections += 1
            self.tally.actions[hostile_answer(conn, self.rng, burst=self.burst)] += 1

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self.listener.close()


async def against_dealer(
    directory: Path, seed: int, target: str, timeout: float, *, burst: int = 200
) -> Outcome:
    """A hostile listener against ``lcnet join`` or ``lcnet watch`` (``target``),
    told to give up after ``timeout`` seconds without an answer: it must end by
    itself, without a crash."""
    from tests.netutil import LOOPBACK, finish, spawn, stop

    started = time.monotonic()
    server = _HostileServer(seed, burst=burst)
    address = f"{LOOPBACK}:{server.listener.port}"
    if target == "join":
        args = ["join", address, "--bot", "random", "--connect-timeout", f"{timeout:g}"]
    else:
        args = ["watch", address, "--timeout", f"{timeout:g}"]
    args += ["--replays", str(directory / "replays")]
    proc = await spawn(args, directory / "home", directory)
    before, peak, done = rss_kib(proc.pid), [0], asyncio.Event()
    sampler = asyncio.ensure_future(_peak_rss(proc.pid, done, peak))
    try:
        code, _, said = await finish(proc)
    finally:
        done.set()
        await sampler
        server.close()
        await stop(proc)
    return Outcome(
        target=f"lcnet {target}",
        tally=server.tally,
        exit_code=code,
        rss_before_kib=before,
        rss_after_kib=peak[0],
        seconds=time.monotonic() - started,
        honest_ok=code >= 0 and "Traceback" not in said,
        said=said[-400:],
    )


class JunkHost:
    """A hostile host that answers every connection's handshake and then sends
    frames that are no answer (a stranger's signed ``sync``, ``watch`` and
    ``hello``, and junk), one every ``every`` seconds, for ever."""

    def __init__(self, *, every: float = 0.05) -> None:
        self.listener = HostileListener()
        self.port = self.listener.port
        self.every = every
        self.sent = 0
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._accept, daemon=True)]
        self._threads[0].start()

    def _accept(self) -> None:
        self.listener.sock.settimeout(0.2)
        while not self._stop.is_set():
            try:
                conn, _ = self.listener.sock.accept()
            except OSError:
                continue
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        rng = random.Random(len(self._threads))
        conn.settimeout(2.0)
        if not send_all(conn, greeting(as_server=True) + ready(b"ROUTER")):
            return
        while not self._stop.wait(self.every):
            kind = rng.choice(("sync", "watch", "hello", "junk"))
            if not send_all(conn, frame(of_kind(kind, rng))):
                break
            self.sent += 1
        conn.close()

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=10)
        self.listener.close()

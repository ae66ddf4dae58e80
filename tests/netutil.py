"""Helpers for the network tests: real processes, real sockets, loopback only.

Every address here is 127.0.0.1. Ports come from the operating system (port
0), read back from a child on its ``--ready-fd`` pipe. Waits are for events
(a line of output, a status, a frame) with generous
deadlines that end a test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import socket
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import nacl.signing
import zmq
import zmq.asyncio

from lcnet.bots import make_bot
from lcnet.game.seat import Seat
from lcnet.link.liveness import Timing
from lcnet.net.peer import NetPeer
from lcnet.net.sockets import bind_host, connect_joiner
from lcnet.protocol.events import MatchOptions, Step
from lcnet.protocol.session import Session
from lcnet.protocol.status import Status
from lcnet.run.netmatch import read_ready_port
from lcnet.store.replayfile import ReplayHeader, read_replay
from lcnet.store.writer import ReplayWriter

LOOPBACK = "127.0.0.1"
FAST = Timing(ping_interval=0.2, peer_timeout=2.0, connect_timeout=15.0, end_grace=5.0)
HOST_TIMING_ARGS = ["--ping-interval", "0.2", "--peer-timeout", "2"]
TIMING_ARGS = [*HOST_TIMING_ARGS, "--connect-timeout", "15"]
"""Short liveness timers for tests (a host has no connect timeout: it only listens)."""
DEADLINE = 120.0
"""Seconds any one wait may take before the test fails (instead of hanging)."""


@contextlib.contextmanager
def refusing_port() -> Iterator[int]:
    """A loopback port where nothing listens, for as long as the block runs.

    The OS picks the port (bind to port 0, read it back) and the socket stays
    bound without listening, so connections to it are refused and no other
    program can take the port in the meantime (a port found free, closed and
    reused later could be taken by then).
    """
    with socket.socket() as reserved:
        reserved.bind((LOOPBACK, 0))
        yield reserved.getsockname()[1]


def lcnet_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["LCNET_HOME"] = str(home)
    env.pop("NO_COLOR", None)
    return env


async def spawn(
    args: list[str],
    home: Path,
    cwd: Path,
    *,
    typed: bool = False,
    pass_fds: tuple[int, ...] = (),
    prefix: Sequence[str] = (),
) -> asyncio.subprocess.Process:
    """Start ``python -m lcnet ARGS`` with its own LCNET_HOME (``typed``: with
    a standard input for :func:`finish` to type into; else none), after the
    command ``prefix`` if any (e.g. ``ip netns exec NAME``)."""
    cwd.mkdir(parents=True, exist_ok=True)
    return await asyncio.create_subprocess_exec(
        *prefix,
        sys.executable,
        "-m",
        "lcnet",
        *args,
        stdin=asyncio.subprocess.PIPE if typed else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=lcnet_env(home),
        cwd=cwd,
        pass_fds=pass_fds,
    )


async def spawn_listening(
    args: list[str], home: Path, cwd: Path, *, typed: bool = False, prefix: Sequence[str] = ()
) -> tuple[asyncio.subprocess.Process, int]:
    """:func:`spawn` a command that listens (``host``, a host's ``resume``) and
    wait for the port it writes on its ``--ready-fd`` pipe."""
    ready_read, ready_write = os.pipe()
    try:
        proc = await spawn(
            [*args, "--ready-fd", str(ready_write)],
            home,
            cwd,
            typed=typed,
            pass_fds=(ready_write,),
            prefix=prefix,
        )
    except BaseException:
        os.close(ready_read)
        raise
    finally:
        os.close(ready_write)
    async with asyncio.timeout(DEADLINE):
        port = await read_ready_port(ready_read)
    if port is None:
        code, _, err = await finish(proc)
        raise AssertionError(f"the process ended ({code}) before it listened: {err[-500:]}")
    return proc, port


async def wait_line(proc: asyncio.subprocess.Process, needle: str, seen: list[str]) -> str:
    """Read the process's standard error until a line contains ``needle``."""
    assert proc.stderr is not None
    async with asyncio.timeout(DEADLINE):
        while True:
            raw = await proc.stderr.readline()
            if not raw:
                raise AssertionError(f"the process ended before {needle!r}: {seen[-5:]}")
            line = raw.decode(errors="replace").rstrip()
            seen.append(line)
            if needle in line:
                return line


async def finish(
    proc: asyncio.subprocess.Process, typed: bytes | None = None
) -> tuple[int, str, str]:
    """Type ``typed`` into the process (see :func:`spawn`) and wait for it to
    end (stopping it by its pid past the deadline)."""
    try:
        async with asyncio.timeout(DEADLINE):
            out, err = await proc.communicate(typed)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


async def stop(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()


async def spawn_host(
    directory: Path,
    *,
    bot: str = "random",
    suits: int = 5,
    rounds: int = 1,
    extra: list[str] | None = None,
) -> tuple[asyncio.subprocess.Process, int]:
    """``lcnet host --bot`` in a process of its own; returns it and its port."""
    args = [
        "host",
        "--bind",
        LOOPBACK,
        "--port",
        "0",
        "--bot",
        bot,
        "--suits",
        str(suits),
        "--rounds",
        str(rounds),
        "--replays",
        str(directory / "replays"),
        *HOST_TIMING_ARGS,
        *(extra or []),
    ]
    return await spawn_listening(args, directory / "home", directory)


def replay_file(directory: Path) -> Path:
    (path,) = sorted((directory / "replays").glob("*.lcnet"))
    return path


class ObservedPeer(NetPeer):
    """A NetPeer that lets the test look at it after every step, however small."""

    after_step: Callable[[], None] | None = None

    def _commit(self, step: Step) -> None:
        super()._commit(step)
        if self.after_step is not None:
            self.after_step()


class LocalPeer:
    """A NetPeer in this test's event loop, with its own key and replay file."""

    def __init__(
        self,
        seat: Seat,
        directory: Path,
        sock: zmq.asyncio.Socket,
        *,
        options: MatchOptions | None = None,
        seed: int = 0,
        fresh_master: bool = False,
        timing: Timing = FAST,
        session_class: type[Session] = Session,
        **peer_options: Any,
    ) -> None:
        """``peer_options`` go to the :class:`NetPeer` (a clock, a peer check, a ledger)."""
        rng = random.Random(seed)
        key = nacl.signing.SigningKey(rng.randbytes(32))
        master = rng.randbytes(32) if not fresh_master else os.urandom(32)
        if seat is Seat.HOST:
            session = session_class.host(key, master, name="local host", options=options)
        else:
            session = session_class.joiner(key, master, name="local joiner")
        directory.mkdir(parents=True, exist_ok=True)

        def open_writer(s: Session) -> ReplayWriter:
            header = ReplayHeader(seat=str(seat), created="test", software="test")
            return ReplayWriter.create(directory / f"local-{seat}.lcnet", header)

        self.path = directory / f"local-{seat}.lcnet"
        self.key = key
        self.peer = ObservedPeer(session, sock, writer=open_writer, timing=timing, **peer_options)
        self.statuses: list[Status] = []
        self.notices: list[str] = []
        self.status_seen: dict[Status, asyncio.Event] = {s: asyncio.Event() for s in Status}

    @property
    def session(self) -> Session:
        return self.peer.session

    async def play(
        self, bot: str = "random", *, hook: Callable[[LocalPeer], None] | None = None
    ) -> None:
        """Play to the end with a bot; ``hook`` sees the peer after every step."""
        player = make_bot(bot, 1)
        if hook is not None:
            self.peer.after_step = lambda: hook(self)
        async with asyncio.timeout(DEADLINE):
            while True:
                session = self.peer.session
                if session.awaiting_decision:
                    view = session.view()
                    assert view is not None
                    await self.peer.play(player.choose_turn(view))
                    continue
                if session.is_over or self.peer.failure is not None:
                    await self.peer.wait_closed()
                    return
                update = await self.peer.next_update()
                if update.notice is not None:
                    self.notices.append(update.notice)
                if update.status is not None:
                    self.statuses.append(update.status)
                    self.status_seen[update.status].set()


def local_host(directory: Path, ctx: zmq.asyncio.Context, **kw: object) -> tuple[LocalPeer, int]:
    sock, port = bind_host(ctx, LOOPBACK, 0)
    return LocalPeer(Seat.HOST, directory, sock, **kw), port  # type: ignore[arg-type]


def local_joiner(directory: Path, ctx: zmq.asyncio.Context, port: int, **kw: object) -> LocalPeer:
    sock = connect_joiner(ctx, LOOPBACK, port)
    return LocalPeer(Seat.JOINER, directory, sock, **kw)  # type: ignore[arg-type]


def same_transcript(first: Path, second: Path) -> bool:
    return read_replay(first).frames == read_replay(second).frames


class Proxy:
    """A TCP forwarder on 127.0.0.1 that can cut every connection through it."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.connections = 0
        self._writers: list[asyncio.StreamWriter] = []
        self._server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, LOOPBACK, 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        up_reader, up_writer = await asyncio.open_connection(LOOPBACK, self.target_port)
        self._writers += [writer, up_writer]

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, ConnectionError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            with contextlib.suppress(OSError, ConnectionError):
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def cut(self) -> None:
        """Drop every connection at once, as a failing network would."""
        for writer in self._writers:
            with contextlib.suppress(OSError, RuntimeError):
                writer.transport.abort()
        self._writers.clear()

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

"""Network figures: move-to-ack round trip, a whole match's wall time, a peer's memory.

    python bench/net.py [--matches N] [--suits 5|6] [--dir DIR]

A host peer runs as its own process (``lcnet host --bot random`` on
127.0.0.1, port chosen by the OS); this process joins it with a random bot
and times, for each of its moves, the span from ``play()`` to the moment
the host's acknowledgement has been received, verified and applied — that
includes signing, verification, the engine's checks and every fsync on
both sides. Prints one figure per line as ``name: value unit``.

The replay files go to a temporary directory under ``--dir`` (default: the
current directory); the fsync cost of that file system is printed first,
since two fsyncs (the move's, then the acknowledgement's) are the floor of
every round trip; ``fsync_in_match`` is the same call timed inside the
matches (the joiner's, while the host's file on the same disk is busy too).
Last come the parts of a round trip that are lcnet's own, timed in this
process without sockets or files: ``frame_decode`` (the strict decoding of
each frame of a match, signature not included) and
``session_time_move_ack``, the mover's ``play()``, the other side's
``receive()`` of the move (decoding it, checking it, building and signing the
acknowledgement) and the mover's ``receive()`` of the acknowledgement — the
sum of the three medians.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import HasFileno

import nacl.signing
import zmq
import zmq.asyncio

from lcnet.bots import make_bot
from lcnet.game.seat import Seat
from lcnet.link.liveness import Timing
from lcnet.net.peer import NetPeer
from lcnet.net.sockets import connect_joiner
from lcnet.protocol import wire
from lcnet.protocol.events import MatchOptions, Step, TurnPlayed
from lcnet.protocol.session import Session
from lcnet.run import localmatch
from lcnet.store.replayfile import ReplayHeader
from lcnet.store.writer import ReplayWriter

LOOPBACK = "127.0.0.1"


def fsync_ms(directory: Path, count: int = 200) -> float:
    path = directory / "fsync.probe"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        start = time.perf_counter()
        for _ in range(count):
            os.write(fd, b"x" * 200)
            os.fsync(fd)
        return (time.perf_counter() - start) / count * 1000
    finally:
        os.close(fd)
        path.unlink()


async def spawn_host(home: Path, *args: str) -> tuple[asyncio.subprocess.Process, int]:
    """``lcnet host --bot random`` on 127.0.0.1 (any free port) as its own process,
    with ``args`` added and LCNET_HOME ``home``; returns it and its port."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "lcnet", "host", "--bind", LOOPBACK, "--port", "0",
        "--bot", "random", *args,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE, env=dict(os.environ, LCNET_HOME=str(home)),
    )  # fmt: skip
    assert proc.stderr is not None
    while True:
        line = (await proc.stderr.readline()).decode()
        if not line:
            raise RuntimeError("the host process ended before listening")
        if "listening on" in line:
            return proc, int(line.rsplit(":", 1)[1])


def joiner_peer(
    ctx: zmq.asyncio.Context, port: int, rng: random.Random, path: Path
) -> tuple[Session, NetPeer]:
    """A joiner's session (keys from ``rng``) and its network peer, to the host
    on 127.0.0.1 at ``port``, writing its replay file at ``path``."""
    session = Session.joiner(
        nacl.signing.SigningKey(rng.randbytes(32)), rng.randbytes(32), name="bench"
    )

    def open_writer(s: Session) -> ReplayWriter:
        header = ReplayHeader(seat="joiner", created="bench", software="bench")
        return ReplayWriter.create(path, header)

    peer = NetPeer(
        session, connect_joiner(ctx, LOOPBACK, port), writer=open_writer, timing=Timing()
    )
    return session, peer


async def one_match(
    directory: Path, suits: int, seed: int
) -> tuple[list[float], float, list[bytes]]:
    proc, port = await spawn_host(
        directory / "host-home",
        *("--suits", str(suits), "--rounds", "3", "--replays", str(directory / "replays")),
    )
    ctx = zmq.asyncio.Context()
    session, peer = joiner_peer(ctx, port, random.Random(seed), directory / f"joiner-{seed}.lcnet")
    bot = make_bot("random", seed)
    round_trips: list[float] = []
    start = time.perf_counter()
    peer.start()
    try:
        while not session.is_over:
            if session.awaiting_decision:
                view = session.view()
                assert view is not None
                turn = bot.choose_turn(view)
                sent = time.perf_counter()
                await peer.play(turn)
                while True:  # until our own turn is acknowledged
                    update = await peer.next_update()
                    event = update.event
                    if isinstance(event, TurnPlayed) and event.seat is session.seat:
                        round_trips.append(time.perf_counter() - sent)
                        break
                continue
            await peer.next_update()
        wall = time.perf_counter() - start
        await peer.wait_closed()
    finally:
        await peer.aclose()
        ctx.term()
    await proc.wait()
    if not session.sealed:
        raise RuntimeError("the match did not end sealed")
    return round_trips, wall, [frame.raw for frame in session.chain]


class FsyncTimer:
    """Times every ``os.fsync`` of this process while installed (the joiner's)."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self._real = os.fsync

    def __enter__(self) -> FsyncTimer:
        def timed(fd: int | HasFileno) -> None:
            start = time.perf_counter()
            self._real(fd)
            self.times.append(time.perf_counter() - start)

        os.fsync = timed
        return self

    def __exit__(self, *exc: object) -> None:
        os.fsync = self._real


def decode_us(raws: list[bytes]) -> float:
    """Median time to decode one of ``raws`` (each decoded 20 times)."""
    times = []
    for raw in raws:
        start = time.perf_counter()
        for _ in range(20):
            wire.decode_frame(raw)
        times.append((time.perf_counter() - start) / 20)
    return statistics.median(times) * 1e6


def session_path_us(matches: int, suits: int) -> float:
    """Sum of the medians of the three session calls on a move's path, in µs."""
    spent: dict[str, list[float]] = {"play": [], "move": [], "ack": []}
    for seed in range(matches):
        rng = random.Random(seed)
        decide = {seat: make_bot("random", seed * 2 + int(seat)).choose_turn for seat in Seat}
        peers = localmatch.new_peers(decide, options=MatchOptions(suits=suits), rng=rng)
        queue = [(Seat.HOST, frame.raw) for frame in peers[Seat.JOINER].session.start().outgoing]
        while queue:
            to, raw = queue.pop(0)
            session = peers[to].session
            kind = wire.decode_frame(raw).message.TYPE
            start = time.perf_counter()
            step: Step = session.receive(raw)
            if kind in spent:
                spent[kind].append(time.perf_counter() - start)
            queue += [(to.other, frame.raw) for frame in step.outgoing]
            while session.awaiting_decision:
                view = session.view()
                assert view is not None
                turn = peers[to].decide(view)
                start = time.perf_counter()
                step = session.play(turn)
                spent["play"].append(time.perf_counter() - start)
                queue += [(to.other, frame.raw) for frame in step.outgoing]
    return sum(statistics.median(times) for times in spent.values()) * 1e6


async def main_async(matches: int, suits: int, where: Path) -> None:
    round_trips: list[float] = []
    walls: list[float] = []
    frames: list[int] = []
    raws: list[bytes] = []
    with tempfile.TemporaryDirectory(dir=where) as tmp, FsyncTimer() as fsyncs:
        directory = Path(tmp)
        print(f"fsync_on_this_disk: {fsync_ms(directory):.2f} ms")
        fsyncs.times.clear()  # the probe above is not part of a match
        for seed in range(matches):
            rt, wall, raws = await one_match(directory / str(seed), suits, seed)
            round_trips += rt
            walls.append(wall)
            frames.append(len(raws))
    ordered = sorted(round_trips)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    print(f"move_ack_rtt_p50_{suits}suits: {statistics.median(ordered) * 1000:.2f} ms")
    print(f"move_ack_rtt_p99_{suits}suits: {p99 * 1000:.2f} ms")
    print(f"move_ack_samples: {len(ordered)} moves")
    print(f"random_match_3rounds_wall_{suits}suits: {statistics.median(walls):.2f} s")
    print(f"random_match_frames_{suits}suits: {statistics.median(frames):.0f} frames")
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(f"peer_peak_rss: {peak_kib / 1024:.1f} MB")
    print(f"fsync_in_match_p50: {statistics.median(fsyncs.times) * 1000:.2f} ms")
    print(f"frame_decode: {decode_us(raws):.0f} us")
    print(f"session_time_move_ack_{suits}suits: {session_path_us(matches, suits):.0f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--suits", type=int, choices=(5, 6), default=5)
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path.cwd(),
        help="where the replay files go (default: the current directory)",
    )
    args = parser.parse_args()
    asyncio.run(main_async(args.matches, args.suits, args.dir))


if __name__ == "__main__":
    main()

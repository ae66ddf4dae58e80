"""What spectators cost the host: its CPU per move with 8 watching, and with none.

    python bench/spectators.py [--pairs N] [--spectators K] [--rounds R] [--pace S]

A host runs as its own process (``lcnet host --bot random`` on 127.0.0.1,
port chosen by the OS), this process joins it with a random bot, and K
spectators (``lcnet.watch.peer.watch``, also in this process) watch from the
start. The host's CPU time (user + system, from the operating system's
account of the child process, less what it used before the match began:
its start-up) is divided by the moves of its match. Each
pair of runs plays one match with no spectator and one with K, interleaved,
so that a change in the machine's load falls on both; the figures are the
medians over the pairs, and their ratio; then the floor: what sending one
message per step to K connections costs a process with no lcnet code
(ZeroMQ and the kernel's TCP), and the ratio it alone would give. Each
spectator's verdict must be
VALID (checked). The joiner waits ``--pace`` seconds before each of its
moves (default 0.03): bots play far faster than people, and K spectators
sharing this one process would otherwise fall hundreds of frames behind and
be dropped, which is the host's rule, not what a LAN evening looks like.
Prints one figure per line as ``name: value unit``.
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
from pathlib import Path

import nacl.signing
import zmq
import zmq.asyncio

if __package__ in (None, ""):  # run as `python bench/NAME.py`: the checkout's bench package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.net import LOOPBACK, joiner_peer, spawn_host
from lcnet.audit import verdict as audit
from lcnet.bots import make_bot
from lcnet.protocol import wire
from lcnet.store.identity import Identity
from lcnet.store.replayfile import read_replay
from lcnet.watch.peer import Watching, watch


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a running process has used so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def one_match(directory: Path, spectators: int, rounds: int, seed: int, pace: float) -> float:
    """The host's CPU seconds per move in one match with ``spectators`` watching."""
    replays = directory / f"host-{seed}-{spectators}"
    before = _children_cpu()
    proc, port = await spawn_host(
        directory / f"host-home-{seed}",
        *("--rounds", str(rounds), "--no-announce", "--replays", str(replays)),
        *("--spectators", str(max(spectators, 1))),
    )
    rng = random.Random(seed)
    watchers = [
        asyncio.ensure_future(
            watch(
                LOOPBACK,
                port,
                Watching(
                    identity=Identity(f"S{i}", nacl.signing.SigningKey(rng.randbytes(32))),
                    replays=directory / f"spectator-{seed}-{i}",
                    show=lambda line: None,
                ),
            )
        )
        for i in range(spectators)
    ]
    await asyncio.sleep(0.5)  # let them in before the match starts
    started = _process_cpu(proc.pid)  # the host's start-up is not the match's
    ctx = zmq.asyncio.Context()
    session, peer = joiner_peer(ctx, port, rng, directory / f"joiner-{seed}-{spectators}.lcnet")
    bot = make_bot("random", seed)
    peer.start()
    try:
        while not session.is_over:
            if session.awaiting_decision:
                view = session.view()
                assert view is not None
                await asyncio.sleep(pace)
                await peer.play(bot.choose_turn(view))
                continue
            if peer.failure is not None:
                raise RuntimeError(f"the joiner stopped: {peer.failure}")
            await peer.next_update()
        await peer.wait_closed()
    finally:
        await peer.aclose()
        ctx.term()
    await proc.wait()
    cpu = _children_cpu() - before - started
    for result in await asyncio.gather(*watchers):
        if result.verdict.kind is not audit.VerdictKind.VALID:
            raise RuntimeError(f"a spectator's verdict: {result.verdict.summary}")
    (host_file,) = replays.glob("*.lcnet")
    moves = sum(
        isinstance(wire.decode_frame(raw).message, wire.MoveMsg)
        for raw in read_replay(host_file).frames
    )
    return cpu / moves


RECEIVERS = """
import sys, zmq
port, count, messages = map(int, sys.argv[1:])
ctx = zmq.Context()
socks = []
for i in range(count):
    d = ctx.socket(zmq.DEALER)
    d.setsockopt(zmq.IDENTITY, bytes([65 + i]))
    d.connect(f"tcp://127.0.0.1:{port}")
    d.send(b"hi")
    socks.append(d)
poller = zmq.Poller()
for d in socks:
    poller.register(d, zmq.POLLIN)
got = 0
while got < count * messages:
    for sock, _ in poller.poll(5000):
        sock.recv_multipart()
        got += 1
"""


def send_floor(receivers: int, messages: int = 2000) -> float:
    """CPU seconds of this process per round of one 2-frame message to each of
    ``receivers`` connections (ZeroMQ, TCP on loopback, a receiver process
    draining them): what any host pays to send a step to that many spectators,
    with no lcnet code at all."""
    import subprocess
    import time

    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    router.setsockopt(zmq.ROUTER_MANDATORY, 1)
    port = router.bind_to_random_port(f"tcp://{LOOPBACK}")
    child = subprocess.Popen(
        [sys.executable, "-c", RECEIVERS, str(port), str(receivers), str(messages)]
    )
    for _ in range(receivers):
        router.recv_multipart()
    frame = bytes(300)
    start = resource.getrusage(resource.RUSAGE_SELF)
    for _ in range(messages):
        for k in range(receivers):
            router.send_multipart([bytes([65 + k]), frame, frame], flags=zmq.NOBLOCK)
        time.sleep(0.001)  # a step at a time, as moves come
    end = resource.getrusage(resource.RUSAGE_SELF)
    child.wait()
    router.close(linger=0)
    ctx.term()
    used = (end.ru_utime + end.ru_stime) - (start.ru_utime + start.ru_stime)
    return used / messages


async def main_async(pairs: int, spectators: int, rounds: int, pace: float) -> None:
    none: list[float] = []
    some: list[float] = []
    with tempfile.TemporaryDirectory(prefix="lcnet-bench-") as tmp:
        directory = Path(tmp)
        for pair in range(pairs):
            none.append(await one_match(directory, 0, rounds, 2 * pair, pace))
            some.append(await one_match(directory, spectators, rounds, 2 * pair + 1, pace))
    base, watched = statistics.median(none), statistics.median(some)
    print(f"host_cpu_per_move_0_spectators: {base * 1e3:.3f} ms")
    print(f"host_cpu_per_move_{spectators}_spectators: {watched * 1e3:.3f} ms")
    print(f"host_cpu_ratio_{spectators}_to_0: {watched / base:.3f} x")
    floor = send_floor(spectators)
    print(f"send_floor_per_step_{spectators}_connections: {floor * 1e6:.0f} us")
    # A move is 1.5 of the host's steps on average: its own move and the ack it
    # receives (2), or the opponent's move it receives and acknowledges (1).
    print(f"floor_ratio_{spectators}_to_0: {1 + 1.5 * floor / base:.3f} x")
    print(f"pairs: {pairs} matches each")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--spectators", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--pace", type=float, default=0.03)
    args = parser.parse_args()
    asyncio.run(main_async(args.pairs, args.spectators, args.rounds, args.pace))


if __name__ == "__main__":
    main()

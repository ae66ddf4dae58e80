"""A stranger at the socket: raw ZMTP against lcnet's host, joiner and spectator.

Every program here that a stranger attacks runs in a child process, so that
an abort inside libzmq is a failed test (the child's exit status), not a dead
pytest worker. The stranger writes ZMTP bytes itself (tests/zmtp.py): it can
close without reading, reset connections, flood and send what no library
would. The property: the target does not crash, does not hang past its
stated timeouts, and the honest match still completes with valid files.
"""

from __future__ import annotations

import asyncio
import random
import sys
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

import nacl.signing
import pytest
import zmq.asyncio

from lcnet.audit import verdict as audit
from lcnet.errors import ExitCode
from lcnet.game.seat import Seat
from lcnet.protocol.events import MatchOptions
from lcnet.store import identity
from lcnet.store.replayfile import read_replay
from lcnet.watch.peer import Watching, watch
from tests import zmtp
from tests.net.test_net import assert_valid_pair
from tests.netutil import (
    DEADLINE,
    LOOPBACK,
    TIMING_ARGS,
    LocalPeer,
    finish,
    local_host,
    local_joiner,
    replay_file,
    spawn,
    spawn_host,
    stop,
)

T = TypeVar("T")

UNREAD_CONNECTIONS = 8
UNREAD_MESSAGES = 1500
"""The pattern that aborted libzmq 4.3.5 with ZMTP heartbeats on (an idle
``lcnet host`` died of it 3 times in 3, within a second): each connection
queues more than a socket's receive limit (1,000 messages), so libzmq stops
reading it; the connection then fails while it is stopped, and the
heartbeat falls due before the host has read the queue."""


def unread_floods(port: int, payloads: list[bytes]) -> int:
    """:data:`UNREAD_CONNECTIONS` connections that each send
    :data:`UNREAD_MESSAGES` copies of a payload (taking turns) and close
    without reading; how many could send everything."""
    return sum(
        zmtp.unread_burst(port, payloads[n % len(payloads)], UNREAD_MESSAGES)
        for n in range(UNREAD_CONNECTIONS)
    )


async def host_outlives(host: asyncio.subprocess.Process, honest: Awaitable[T]) -> T:
    """Wait for ``honest`` (the honest side's part); a host that ends before it
    fails the test at once, with its exit status (-6: an abort) and last words."""
    work = asyncio.ensure_future(honest)
    ended = asyncio.ensure_future(host.wait())
    try:
        await asyncio.wait({work, ended}, timeout=DEADLINE, return_when=asyncio.FIRST_COMPLETED)
        if not work.done() and ended.done():
            assert host.stderr is not None
            words = (await host.stderr.read()).decode(errors="replace")
            raise AssertionError(f"the host died ({host.returncode}) mid-way: {words[-300:]}")
        return await asyncio.wait_for(work, DEADLINE)
    finally:
        for task in (work, ended):
            task.cancel()


async def bot_joiner(directory: Path, port: int) -> asyncio.subprocess.Process:
    args = ["join", f"{LOOPBACK}:{port}", "--bot", "random", *TIMING_ARGS]
    args += ["--replays", str(directory / "replays")]
    return await spawn(args, directory / "home", directory)


@pytest.mark.net
def test_an_idle_host_survives_connections_that_flood_and_close_unread(tmp_path: Path) -> None:
    async def main() -> None:
        host, port = await spawn_host(tmp_path / "h")
        joiner = None
        try:
            payload = zmtp.bad_watch(random.Random(1))
            sent = await asyncio.to_thread(unread_floods, port, [payload])
            assert sent == UNREAD_CONNECTIONS
            # Still there: it plays a whole match with the next joiner.
            joiner = await bot_joiner(tmp_path / "j", port)
            code, _, err = await host_outlives(host, finish(joiner))
            assert code == 0, err[-800:]
            code, _, err = await finish(host)
            assert code == 0, f"the host ended with {code}: {err[-800:]}"
        finally:
            await stop(host)
            if joiner is not None:
                await stop(joiner)
        assert_valid_pair(replay_file(tmp_path / "h"), replay_file(tmp_path / "j"))

    asyncio.run(main())


@pytest.mark.net
def test_a_host_mid_match_survives_connections_that_flood_and_close_unread(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        host, port = await spawn_host(tmp_path / "h", rounds=2)
        ctx = zmq.asyncio.Context()
        joiner = local_joiner(tmp_path / "j", ctx, port, seed=3)
        floods: list[asyncio.Task[int]] = []
        rng = random.Random(2)
        payloads = [zmtp.bad_watch(rng), zmtp.hello(rng)]

        def flood_once_under_way(peer: LocalPeer) -> None:
            track = peer.session.round
            if track is not None and len(track.turns) >= 6 and not floods:
                floods.append(
                    asyncio.ensure_future(asyncio.to_thread(unread_floods, port, payloads))
                )

        try:
            joiner.peer.start()
            await host_outlives(host, joiner.play(hook=flood_once_under_way))
            assert floods, "the flood started mid-match"
            assert await asyncio.wait_for(floods[0], DEADLINE) == UNREAD_CONNECTIONS
            code, _, err = await finish(host)
            assert code == 0, f"the host ended with {code}: {err[-800:]}"
        finally:
            await stop(host)
            await joiner.peer.aclose()
            ctx.term()
        assert joiner.session.seat is Seat.JOINER and joiner.session.is_over
        assert_valid_pair(replay_file(tmp_path / "h"), joiner.path)

    asyncio.run(main())


@pytest.mark.net
def test_a_plain_router_with_our_options_survives_the_same_pattern(tmp_path: Path) -> None:
    """The options alone (lcnet.net.sockets.bind_host's socket, nothing of lcnet's
    logic): a child that answers every message and is slower than the flood."""

    async def main() -> None:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            _ROUTER_CHILD,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            assert proc.stdout is not None
            line = await asyncio.wait_for(proc.stdout.readline(), DEADLINE)
            port = int(line)
            await asyncio.to_thread(unread_floods, port, [b"x" * 150])
            # It says when it has read every queue (or it died: no line).
            while (line := await asyncio.wait_for(proc.stdout.readline(), DEADLINE)) != b"idle\n":
                assert line, "the child died"
            reply = await asyncio.wait_for(_ask_router(port), DEADLINE)
            assert reply == b"answer"
        finally:
            if proc.returncode is None:
                proc.kill()
            _, err = await proc.communicate()
        assert proc.returncode in (-9, None), err.decode(errors="replace")[-500:]

    asyncio.run(main())


_ROUTER_CHILD = """
import time, zmq, zmq.asyncio
from lcnet.net.sockets import bind_host
ctx = zmq.asyncio.Context()
sock, port = bind_host(ctx, "127.0.0.1", 0)
plain = zmq.Socket.shadow(sock.underlying)
print(port, flush=True)
read = 0
while True:
    if not plain.poll(500):
        if read:
            print("idle", flush=True)
        continue
    ident, *parts = plain.recv_multipart()
    read += 1
    time.sleep(0.001)  # slower than the flood: its queues fill
    try:
        plain.send_multipart([ident, b"answer"], flags=zmq.NOBLOCK)
    except zmq.ZMQError:
        pass
"""


async def _ask_router(port: int) -> bytes:
    ctx = zmq.asyncio.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(f"tcp://{LOOPBACK}:{port}")
    try:
        await sock.send(b"question")
        return bytes(await sock.recv())
    finally:
        sock.close()
        ctx.term()


# ------------------------------------------------------------ spectator places


def _honest(tmp_path: Path, lines: list[str]) -> Watching:
    """The real spectator (lcnet.watch.peer), as ``lcnet watch`` runs it."""
    me = identity.Identity("Honest", nacl.signing.SigningKey(b"\x07" * 32))
    (tmp_path / "w").mkdir(parents=True, exist_ok=True)
    # The in-process players never answer about another match: nothing to follow.
    return Watching(
        identity=me, replays=tmp_path / "w", timeout=60.0, show=lines.append, follow=False
    )


@pytest.mark.net
def test_an_honest_spectator_gets_in_and_watches_while_eight_ghosts_keep_connecting(
    tmp_path: Path,
) -> None:
    # A ghost sends one watch and never reads; eight at a time, a new one every
    # 0.1 s. Before: the first eight held every place, and the spectator was
    # turned away ("this match already has the 8 spectators its host allows").
    lines: list[str] = []

    async def main() -> None:
        ctx = zmq.asyncio.Context()
        host, port = local_host(tmp_path / "h", ctx, options=MatchOptions(rounds=1), seed=81)
        joiner = local_joiner(tmp_path / "j", ctx, port, seed=82)
        host.peer.start()
        ghosts = zmtp.Ghosts(port).start()
        told_joiner: set[str] = set()
        try:
            assert await asyncio.to_thread(ghosts.started.wait, DEADLINE)
            spectator = asyncio.ensure_future(watch(LOOPBACK, port, _honest(tmp_path, lines)))
            async with asyncio.timeout(DEADLINE):
                while "Honest" not in {name for name, _ in host.peer.state.watchers}:
                    await host.peer.next_update()
            joiner.peer.start()
            playing = asyncio.ensure_future(joiner.play())
            await host.play(
                hook=lambda _: told_joiner.update(n for n, _ in joiner.peer.state.watchers)
            )
            await playing
            result = await asyncio.wait_for(spectator, DEADLINE)
        finally:
            ghosts.stop()
            await host.peer.aclose()
            await joiner.peer.aclose()
            ctx.term()
        assert ghosts.connected > 2 * ghosts.count
        # The spectator held a place (the opponent is told only of those), no ghost did.
        assert "Honest" in told_joiner
        assert not any(name.startswith("ghost") for name in told_joiner)
        assert result.verdict.kind is audit.VerdictKind.VALID, result.verdict.summary
        assert result.path is not None
        assert read_replay(result.path).frames == read_replay(host.path).frames

    asyncio.run(main())
    assert lines[-1].startswith("the match is over")


@pytest.mark.net
def test_connections_that_asked_and_closed_lose_their_places_at_an_idle_host(
    tmp_path: Path,
) -> None:
    # Eight that asked twice (so each held a place), then closed. Before: an
    # idle host sends them nothing, so nothing failed, and they kept the places.
    async def main() -> None:
        ctx = zmq.asyncio.Context()
        host, port = local_host(tmp_path / "h", ctx, options=MatchOptions(rounds=1), seed=83)
        host.peer.start()
        ghosts = zmtp.Ghosts(port, count=8, asks=2, every=0.0)
        try:
            async with asyncio.timeout(DEADLINE):
                ghosts.start()
                while len(host.peer.state.watchers) < 8:
                    await host.peer.next_update()
                await asyncio.to_thread(ghosts.stop)  # every ghost connection closes
                while host.peer.state.watchers:
                    await host.peer.next_update()
        finally:
            ghosts.stop()
            await host.peer.aclose()
            ctx.term()

    asyncio.run(main())


# ------------------------------------------------------------ the generator

RSS_GROWTH_LIMIT_KIB = 64 * 1024
"""What a stranger's small run may add to a target's resident memory (a
host's grows by about 10 MiB for its queues and caches in a short run;
growth without bound is what this catches)."""


PEAK_RSS_LIMIT_KIB = 256 * 1024
"""A joiner's or spectator's resident memory at its peak (about 45 MiB as
it starts, Python and lcnet loaded)."""


@pytest.mark.net
@pytest.mark.parametrize("mid_match", [False, True], ids=["idle", "mid-match"])
def test_a_seeded_stranger_neither_crashes_nor_stops_a_host(
    tmp_path: Path, mid_match: bool
) -> None:
    outcome = asyncio.run(zmtp.against_host(tmp_path, 56 + mid_match, 40, mid_match=mid_match))
    assert not outcome.crashed, outcome
    assert outcome.honest_ok, outcome
    assert outcome.tally.connections >= 40
    assert outcome.rss_after_kib - outcome.rss_before_kib < RSS_GROWTH_LIMIT_KIB, outcome


@pytest.mark.net
@pytest.mark.parametrize("target", ["join", "watch"])
def test_a_hostile_listener_neither_crashes_nor_holds_a_joiner_or_spectator(
    tmp_path: Path, target: str
) -> None:
    # Told to give up after 4 s without an answer, the target ends by itself
    # (the helper stops it at the tests' deadline, which would show as -9).
    outcome = asyncio.run(zmtp.against_dealer(tmp_path, 56, target, 4.0))
    assert not outcome.crashed, outcome
    assert outcome.honest_ok, outcome
    assert outcome.tally.connections >= 1
    assert outcome.rss_after_kib < PEAK_RSS_LIMIT_KIB, outcome


@pytest.mark.net
def test_a_joiner_gives_up_on_a_host_that_answers_only_junk(tmp_path: Path) -> None:
    # Before: each dropped frame counted as hearing the host, so a host that
    # kept sending junk held the joiner for ever (its connect timeout is 3 s).
    async def main() -> tuple[int, str]:
        host = zmtp.JunkHost()
        try:
            args = ["join", f"{LOOPBACK}:{host.port}", "--bot", "random", "--connect-timeout", "3"]
            proc = await spawn(args, tmp_path / "home", tmp_path)
            code, _, err = await finish(proc)
        finally:
            await asyncio.to_thread(host.close)
        assert host.sent > 0
        return code, err

    code, err = asyncio.run(main())
    assert code == ExitCode.UNREACHABLE, err[-500:]
    assert "no answer from the host" in err


@pytest.mark.net
def test_bytes_that_are_not_zmtp_3_never_become_messages() -> None:
    # libzmq read a peer whose greeting was not ZMTP 3's as an old ZMTP 1.0
    # peer, so a stranger's random bytes became messages: a host kept busy
    # decoding them delayed a real match by minutes and grew by 20 MB/s
    # (found from outside). Now such a peer is refused at the greeting, and
    # an honest ZMTP 3 peer still gets through.
    from lcnet.net.sockets import bind_host, connect_joiner

    async def main() -> tuple[int, bytes]:
        context = zmq.asyncio.Context()
        router, port = bind_host(context, LOOPBACK, 0)
        rng = random.Random(56)
        try:
            for _ in range(100):
                garbage = bytes(rng.getrandbits(8) for _ in range(2000))
                _, writer = await asyncio.open_connection(LOOPBACK, port)
                writer.write(garbage)
                await writer.drain()
                writer.close()
                await writer.wait_closed()
            honest = connect_joiner(context, LOOPBACK, port)
            await honest.send(b"honest")
            got = 0
            async with asyncio.timeout(DEADLINE):
                while True:
                    *_, last = await router.recv_multipart()
                    if last == b"honest":
                        return got, last
                    got += 1
        finally:
            context.destroy(linger=0)

    from_garbage, honest = asyncio.run(main())
    assert from_garbage == 0 and honest == b"honest"

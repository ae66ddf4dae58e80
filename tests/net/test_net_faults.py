"""Transport faults an adversarial peer found over real sockets (issue 10).

Everything runs on 127.0.0.1 with ports from the operating system. Waits are
for events (a status, a frame, a pong) under the shared deadline; nothing
here measures time. Where the code under test limits something per interval
of time, the host runs on a clock the test moves by hand, so that what is
counted (frames) does not depend on how fast the machine is.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Callable
from pathlib import Path

import msgpack
import nacl.signing
import pytest
import zmq
import zmq.asyncio

from lcnet.bots import make_bot
from lcnet.deck import hashing
from lcnet.game.seat import Seat
from lcnet.link.admission import BUSY_REASON
from lcnet.link.liveness import RESEND_INTERVAL
from lcnet.net import sockets
from lcnet.protocol import wire
from lcnet.protocol.events import MatchOptions
from lcnet.protocol.session import Session
from lcnet.protocol.status import Status
from lcnet.store import identity
from tests.net.test_net import _ask, _stranger_hello, assert_valid_pair
from tests.netutil import DEADLINE, LOOPBACK, LocalPeer, local_host, local_joiner

HOST = Seat.HOST


class ManualClock:
    """A monotonic clock that the test can stop and move forward."""

    def __init__(self) -> None:
        self._offset = 0.0
        self._frozen: float | None = None

    def __call__(self) -> float:
        if self._frozen is not None:
            return self._frozen
        return time.monotonic() + self._offset

    def freeze(self) -> None:
        self._frozen = self()

    def resume_after(self, seconds: float) -> None:
        """Run again, from ``seconds`` after the moment it stopped (never backwards)."""
        assert self._frozen is not None
        target = self._frozen + seconds
        self._frozen = None
        self._offset += max(0.0, target - self())


async def play_until(local: LocalPeer, done: Callable[[Session], bool]) -> None:
    """Play ``local``'s moves with a random bot until ``done`` holds (then stop moving)."""
    bot = make_bot("random", 1)
    async with asyncio.timeout(DEADLINE):
        while not done(local.session):
            session = local.session
            if session.awaiting_decision:
                view = session.view()
                assert view is not None
                await local.peer.play(bot.choose_turn(view))
                continue
            await local.peer.next_update()


# ---------------------------------------------------------------- 6: oversized


@pytest.mark.net
def test_an_oversized_message_drops_no_connection_for_good(tmp_path: Path) -> None:
    """A message above ZMQ_MAXMSGSIZE costs a connection, which comes back by itself.

    The host sends two 70,000-byte messages to the joiner, the joiner one to
    the host. libzmq cuts the connection each time; the joiner's it never
    redials on its own, so the joiner does, and counts the two messages it
    could not read as dropped. The match completes.
    """

    async def main() -> None:
        ctx = zmq.asyncio.Context()
        host, port = local_host(tmp_path / "h", ctx, options=MatchOptions(rounds=1), seed=21)
        joiner = local_joiner(tmp_path / "j", ctx, port, seed=22)
        sent: dict[str, list[int]] = {"host": [], "joiner": []}

        def oversize_at(who: str, turns: tuple[int, ...]) -> Callable[[LocalPeer], None]:
            def hook(local: LocalPeer) -> None:
                track = local.session.round
                if track is None or track.table is None:
                    return
                done = len(track.turns)
                if done in turns and done not in sent[who]:
                    sent[who].append(done)
                    local.peer._send(os.urandom(sockets.MAX_MESSAGE_BYTES + 4464))  # 70,000 bytes

            return hook

        try:
            host.peer.start()
            joiner.peer.start()
            await asyncio.gather(
                host.play(hook=oversize_at("host", (4, 20))),
                joiner.play(hook=oversize_at("joiner", (12,))),
            )
        finally:
            await host.peer.aclose()
            await joiner.peer.aclose()
            ctx.term()
        assert sent == {"host": [4, 20], "joiner": [12]}
        assert joiner.peer.dropped >= 2, "each oversized message is counted"
        assert host.session.sealed and joiner.session.sealed
        assert host.session.dispute is None
        assert_valid_pair(host.path, joiner.path)

    asyncio.run(main())


# ---------------------------------------------------------------- 7: resends


async def _collect(sock: zmq.asyncio.Socket, until_pong: int) -> list[wire.Frame]:
    """The transcript frames that arrive on ``sock`` until the pong numbered ``until_pong``."""
    frames: list[wire.Frame] = []
    async with asyncio.timeout(DEADLINE):
        while True:
            frame = wire.decode_frame(await sock.recv())
            if isinstance(frame.message, wire.Pong) and frame.message.n == until_pong:
                return frames
            if not frame.message.CONTROL:
                frames.append(frame)


@pytest.mark.net
def test_syncs_asking_for_everything_get_a_bounded_answer(tmp_path: Path) -> None:
    async def main() -> None:
        ctx = zmq.asyncio.Context()
        clock = ManualClock()
        host, port = local_host(
            tmp_path / "h", ctx, options=MatchOptions(rounds=1), seed=23, clock=clock
        )
        joiner = local_joiner(tmp_path / "j", ctx, port, seed=24)
        # The joiner's key on a second connection: what a peer flooding syncs looks like.
        flood = ctx.socket(zmq.DEALER)
        flood.setsockopt(zmq.LINGER, 0)
        try:
            host.peer.start()
            joiner.peer.start()
            hosting = asyncio.create_task(host.play())
            await play_until(
                joiner,
                lambda s: len(s.chain) >= 40 and s.awaiting_decision,
            )
            session = joiner.session
            host_key = host.session.keys[HOST]
            own = [f for f in host.session.chain if f.signed_by(host_key)]
            assert len(own) >= 15

            clock.freeze()  # everything below happens within one resend interval
            flood.connect(f"tcp://{LOOPBACK}:{port}")
            everything = session.control(wire.Sync(have=0, head=session.head or b"")).raw
            for _ in range(200):
                await flood.send(everything)
            await flood.send(session.control(wire.Ping(n=10**6)).raw)
            answered = await _collect(flood, 10**6)
            assert answered, "a sync asking for everything is answered"
            assert len(answered) <= len(own), (
                f"{len(answered)} frames resent for 200 syncs; at most one full resend "
                f"({len(own)} frames) per interval"
            )

            # An honest reconnect after the interval, short of the last frames, catches up.
            clock.resume_after(RESEND_INTERVAL)
            honest = ctx.socket(zmq.DEALER)
            honest.setsockopt(zmq.LINGER, 0)
            honest.connect(f"tcp://{LOOPBACK}:{port}")
            try:
                have = len(session.chain) - 4
                await honest.send(
                    session.control(wire.Sync(have=have, head=session.chain[have - 1].hash)).raw
                )
                await honest.send(session.control(wire.Ping(n=10**6 + 1)).raw)
                caught_up = await _collect(honest, 10**6 + 1)
            finally:
                honest.close()
            missing = [f.raw for f in session.chain[have:] if f.signed_by(host_key)]
            assert missing and [f.raw for f in caught_up] == missing

            await joiner.play()  # and the real joiner plays on to the end
            await asyncio.wait_for(hosting, DEADLINE)
        finally:
            flood.close()
            await host.peer.aclose()
            await joiner.peer.aclose()
            ctx.term()
        assert host.session.sealed and joiner.session.sealed
        assert_valid_pair(host.path, joiner.path)

    asyncio.run(main())


# ---------------------------------------------------------------- 8: reasons


def _broken(raw: bytes) -> bytes:
    """The frame with one bit of its signature flipped (still a well-formed frame)."""
    return raw[:-1] + bytes([raw[-1] ^ 1])


@pytest.mark.net
def test_each_refusal_says_what_happened(tmp_path: Path) -> None:
    async def main() -> None:
        ctx = zmq.asyncio.Context()
        home = tmp_path / "host-home"
        ledger = identity.game_ledger(home)
        host, port = local_host(
            tmp_path / "h",
            ctx,
            options=MatchOptions(rounds=1),
            seed=25,
            peer_check=identity.tofu_check(home),
            fresh_game=ledger,
        )
        host_key = host.key
        joiner_key = local_joiner_key(26)
        stranger = _stranger_hello([1, 0])
        old = _stranger_hello([1, 0], name="someone from before")
        assert ledger(hashing.game_id(old))  # a match this host has played
        identity.check_peer("Joe", bytes(joiner_key.verify_key), home)  # Joe is known ...
        impostor = _stranger_hello([1, 0], name="Joe")  # ... and this is not his key

        sync_frame = wire.make_frame(
            wire.Sync(have=3, head=b"\x01" * wire.HASH_SIZE), joiner_key, game=b"\x02" * 32
        ).raw
        idle_cases = {
            "bad signature": (_broken(stranger), "signature"),
            "own key, signed": (_stranger_hello([1, 0], key=host_key), "own key"),
            "own key, forged": (
                _stranger_hello_presenting(bytes(host_key.verify_key)),
                "own key",
            ),
            "replayed": (old, "already played"),
            "changed key": (impostor, "Joe"),
            "version": (_stranger_hello([2, 0]), "protocol 2.0"),
            "unknown match": (sync_frame, "no match"),
        }
        try:
            host.peer.start()
            for case, (raw, needle) in idle_cases.items():
                answer = await _ask(ctx, port, raw)
                assert isinstance(answer.message, wire.Busy), case
                reason = answer.message.reason
                assert needle in reason, (case, reason)
                assert reason != BUSY_REASON, (case, "the host is not busy")
            assert host.session.next_seq == 0 and host.peer.turned_away == len(idle_cases)

            # A joiner with the host's own identity reads the reason in its failure.
            mirror = local_joiner(tmp_path / "mirror", ctx, port, seed=25)
            mirror.peer.start()
            async with asyncio.timeout(DEADLINE):
                while mirror.peer.failure is None:
                    await mirror.peer.next_update()
            await mirror.peer.aclose()
            assert "own key" in str(mirror.peer.failure)
            assert host.session.next_seq == 0

            # The real opponent is taken; now, and only now, others hear "busy".
            joiner = local_joiner(tmp_path / "j", ctx, port, seed=26)
            joiner.peer.start()
            game = asyncio.gather(host.play(), joiner.play())
            await asyncio.wait_for(host.status_seen[Status.PLAYING].wait(), DEADLINE)
            busy = await _ask(ctx, port, _stranger_hello([1, 0], name="third"))
            assert isinstance(busy.message, wire.Busy)
            assert busy.message.reason == BUSY_REASON
            again = _stranger_hello([1, 0], key=joiner_key, name="local joiner")
            other_match = await _ask(ctx, port, again)
            assert isinstance(other_match.message, wire.Busy)
            assert "resume" in other_match.message.reason
            await asyncio.wait_for(game, DEADLINE)
            await joiner.peer.aclose()
        finally:
            await host.peer.aclose()
            ctx.term()
        assert host.session.sealed

    asyncio.run(main())


def local_joiner_key(seed: int) -> nacl.signing.SigningKey:
    """The signing key :class:`LocalPeer` derives from ``seed``."""
    return nacl.signing.SigningKey(random.Random(seed).randbytes(32))


def _stranger_hello_presenting(key: bytes) -> bytes:
    """A hello that presents ``key`` but is signed by another (a forger's best)."""
    forger = nacl.signing.SigningKey(b"\x77" * 32)
    body = {
        "t": "hello",
        "seq": 0,
        "v": [1, 0],
        "name": "forger",
        "key": key,
        "coin": hashing.coin_commitment(b"\x45" * 32),
    }
    return wire.sign_frame(msgpack.packb(dict(sorted(body.items())), use_bin_type=True), forger)

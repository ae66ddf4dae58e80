"""Transport faults an adversarial peer found over real sockets (issue 10).

Everything runs on 127.0.0.1 with ports from the operating system. Waits are
for events (a status, a frame, a pong) under the shared deadline; nothing
here measures time. Where the code under test limits something per interval
of time, the host runs on a clock the test moves by hand, so that what is
counted (frames) does not depend on how fast the machine is.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import msgpack
import nacl.signing
import zmq
import zmq.asyncio

from lcnet import hashing, identity, net, wire
from lcnet.client import Status
from lcnet.session import MatchOptions
from tests.netutil import DEADLINE, local_host, local_joiner
from tests.test_net import _ask, _stranger_hello

# ---------------------------------------------------------------- 8: reasons


def _broken(raw: bytes) -> bytes:
    """The frame with one bit of its signature flipped (still a well-formed frame)."""
    return raw[:-1] + bytes([raw[-1] ^ 1])


def test_each_refusal_says_what_happened(tmp_path: Path) -> None:
    async def main() -> None:
        ctx = zmq.asyncio.Context()
        home = tmp_path / "host-home"
        ledger = net.game_ledger(home)
        host, port = local_host(
            tmp_path / "h",
            ctx,
            options=MatchOptions(rounds=1),
            seed=25,
            peer_check=net.tofu_check(home),
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
                assert reason != net.BUSY_REASON, (case, "the host is not busy")
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
            assert busy.message.reason == net.BUSY_REASON
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

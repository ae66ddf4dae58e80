"""A player started with ``--bot`` says so in its opening (``bot``, protocol
1.1, advisory; docs/PROTOCOL.md §5.4, §5.5): the other side and spectators
mark it. A person's opening stays 1.0, byte for byte."""

from __future__ import annotations

import random

import msgpack
import nacl.signing
import pytest

from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.events import MatchOptions
from lcnet.protocol.observer import Observer
from lcnet.protocol.session import Session
from lcnet.protocol.snapshot import state_of
from lcnet.watch.spectator import Spectator, who_plays


def _pair(*, host_bot: bool, joiner_bot: bool) -> tuple[Session, Session, list[bytes]]:
    rng = random.Random(4)
    keys = [nacl.signing.SigningKey(rng.randbytes(32)) for _ in range(2)]
    host = Session.host(
        keys[0], rng.randbytes(32), name="Ada", options=MatchOptions(), bot=host_bot
    )
    joiner = Session.joiner(keys[1], rng.randbytes(32), name="Ben", bot=joiner_bot)
    hello = joiner.start().outgoing[0]
    welcome = host.receive(hello.raw).outgoing[0]
    joiner.receive(welcome.raw)
    return host, joiner, [hello.raw, welcome.raw]


def test_a_bot_says_so_in_its_opening_and_a_person_announces_1_0() -> None:
    host, joiner, (hello, welcome) = _pair(host_bot=False, joiner_bot=True)
    said = wire.decode_frame(hello).message
    assert isinstance(said, wire.Hello) and said.v == [1, 1] and said.bot is True
    plain = wire.decode_frame(welcome).message
    assert isinstance(plain, wire.Welcome) and plain.v == [1, 0] and plain.bot is None
    assert b"bot" not in welcome  # a person's welcome is what a 1.0 peer reads
    assert host.bots == {Seat.JOINER} and joiner.bots == {Seat.JOINER}
    assert state_of(host).bots == frozenset({Seat.JOINER})
    # An auditor and a spectator learn it from the transcript.
    observer = Observer()
    for raw in (hello, welcome):
        observer.receive(raw)
    assert observer.bots == {Seat.JOINER}
    spectator = Spectator()
    spectator.receive([hello, welcome])
    lines = who_plays(spectator.players(), {})
    assert "(a bot, its program says)" in lines[1] and "bot" not in lines[0]


def test_a_resumed_bot_rebuilds_its_own_opening() -> None:
    _, joiner, frames = _pair(host_bot=True, joiner_bot=True)
    key = joiner._signing_key
    assert key is not None
    again, _ = Session.resume(Seat.JOINER, key, joiner._own.master_secret, frames, name="Ben")
    assert again.bots == {Seat.HOST, Seat.JOINER}
    assert [f.raw for f in again.chain][:2] == frames  # then its coin, due now


def _resigned(raw: bytes, key: nacl.signing.SigningKey, **change: object) -> bytes:
    outer = msgpack.unpackb(raw, raw=False)
    body = msgpack.unpackb(outer[0], raw=False)
    body.update(change)
    packed = msgpack.packb(dict(sorted(body.items())), use_bin_type=True)
    return wire.sign_frame(packed, key)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"v": [1, 0]}, "unknown field"),  # a 1.0 opening has no bot
        ({"bot": False}, "bot"),  # present only as true
        ({"bot": 1}, "bot"),
    ],
)
def test_a_bot_field_outside_its_version_is_malformed(change: dict[str, object], why: str) -> None:
    _, joiner, (hello, _) = _pair(host_bot=False, joiner_bot=True)
    key = joiner._signing_key
    assert key is not None
    with pytest.raises(wire.MalformedFrame, match=why):
        wire.decode_frame(_resigned(hello, key, **change), allow_unknown_fields=True)

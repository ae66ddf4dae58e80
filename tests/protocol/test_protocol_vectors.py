"""The frame test vectors of docs/PROTOCOL.md §8.2, read from the document itself."""

from __future__ import annotations

import re
from pathlib import Path

import msgpack
import nacl.signing
import pytest

from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.events import MatchOptions
from lcnet.protocol.observer import Observer
from lcnet.protocol.session import Session

SPEC = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"


def spec_frames() -> tuple[list[bytes], list[str], str]:
    """The hex blocks of §8.2: frames, their chain hashes, and the game id."""
    text = SPEC.read_text(encoding="utf-8").split("### 8.2 Frames", 1)[1]
    frames = []
    for block in re.findall(r"Frame \d, `\w+` \(\d+ bytes\):\n\n((?:    [0-9a-f]+\n)+)", text):
        frames.append(bytes.fromhex("".join(block.split())))
    chains = re.findall(r"chain\(frame \d\) = ([0-9a-f]{64})", text)
    game = re.findall(r"game id        = ([0-9a-f]{64})", text)[0]
    return frames, chains, game


def test_the_first_frames_match_the_specification() -> None:
    frames, chains, game = spec_frames()
    assert len(frames) == len(chains) == 3
    joiner = Session.joiner(
        nacl.signing.SigningKey(bytes(range(32, 64))), bytes(range(96, 128)), name="Joe"
    )
    host = Session.host(
        nacl.signing.SigningKey(bytes(range(32))),
        bytes(range(64, 96)),
        name="Hana",
        options=MatchOptions(suits=5, rounds=3),
    )
    hello = joiner.start().outgoing[0]
    welcome = host.receive(hello.raw).outgoing[0]
    coin = joiner.receive(welcome.raw).outgoing[0]
    assert [hello.raw, welcome.raw, coin.raw] == frames
    assert [f.hash.hex() for f in (hello, welcome, coin)] == chains
    assert joiner.game_id is not None and joiner.game_id.hex() == game
    assert joiner.first_starter is Seat.JOINER


def test_an_independent_reader_accepts_the_specified_frames() -> None:
    # A fresh observer, given only the bytes from the document, agrees.
    frames, _, game = spec_frames()
    observer = Observer()
    for raw in frames:
        assert observer.receive(raw).accepted is not None
    assert observer.game_id is not None and observer.game_id.hex() == game
    assert observer.names == {Seat.JOINER: "Joe", Seat.HOST: "Hana"}


def control_vector(after: str) -> tuple[bytes, bytes]:
    """The control frame the first hex block after ``after`` in §8.2 gives,
    and the game id it is for (the match of the frames above)."""
    text = SPEC.read_text(encoding="utf-8").split("### 8.2 Frames", 1)[1].split(after, 1)[1]
    block = re.search(r"\n\n((?:    [0-9a-f]{2,}\n)+)", text)
    assert block is not None
    _, _, game = spec_frames()
    return bytes.fromhex("".join(block.group(1).split())), bytes.fromhex(game)


HOST_KEY = nacl.signing.SigningKey(bytes(range(32)))
EVE_KEY = nacl.signing.SigningKey(bytes(range(128, 160)))
JOINER_KEY = nacl.signing.SigningKey(bytes(range(32, 64)))


def test_the_specified_watch_frame() -> None:
    # §8.2's watch, rebuilt from its inputs, and read back as a host reads it.
    spec, game = control_vector("asks with this `watch`")
    message = wire.Watch(v=[1, 0], name="Eve", key=bytes(EVE_KEY.verify_key), have=2)
    assert wire.make_frame(message, EVE_KEY, game=game).raw == spec
    frame = wire.decode_frame(spec)
    assert isinstance(frame.message, wire.Watch) and frame.signed_by(bytes(EVE_KEY.verify_key))


def test_the_specified_rematch_frame() -> None:
    # §8.2's rematch, rebuilt from its inputs: the host's yes, for the match above.
    spec, game = control_vector("asks for another with this\n`rematch`")
    assert wire.make_frame(wire.Rematch(ok=True), HOST_KEY, game=game).raw == spec
    frame = wire.decode_frame(spec)
    assert isinstance(frame.message, wire.Rematch) and frame.message.ok
    assert frame.signed_by(bytes(HOST_KEY.verify_key))


def test_the_specified_say_frame() -> None:
    # §8.2's say, rebuilt from its inputs: the joiner's line to the host.
    spec, game = control_vector("says a line to the host with this\n`say`")
    assert wire.make_frame(wire.Say(text="good luck, Hana"), JOINER_KEY, game=game).raw == spec
    frame = wire.decode_frame(spec)
    assert isinstance(frame.message, wire.Say) and frame.message.text == "good luck, Hana"
    assert frame.signed_by(bytes(JOINER_KEY.verify_key))


def test_the_specified_opponent_frame() -> None:
    # §8.2's opponent, rebuilt from its inputs: the host tells its spectators.
    spec, game = control_vector("connection is lost with\nthis `opponent`")
    assert wire.make_frame(wire.Opponent(here=False), HOST_KEY, game=game).raw == spec
    frame = wire.decode_frame(spec)
    assert isinstance(frame.message, wire.Opponent) and frame.message.here is False
    assert frame.signed_by(bytes(HOST_KEY.verify_key))


def test_the_specified_watching_frame() -> None:
    # §8.2's watching, rebuilt from its inputs: the host names Eve to its opponent.
    spec, game = control_vector("that Eve watches with this `watching`")
    eve = bytes(EVE_KEY.verify_key)
    message = wire.Watching(count=1, watchers=[["Eve", eve]])
    assert wire.make_frame(message, HOST_KEY, game=game).raw == spec
    frame = wire.decode_frame(spec)
    assert isinstance(frame.message, wire.Watching) and frame.message.watchers == [["Eve", eve]]


def test_the_specified_malformed_hello() -> None:
    # §8.2's hello with a field protocol 1.0 does not define, though it
    # announces 1.0: signed by the joiner, and malformed for every reader (§5.5).
    spec, _ = control_vector("is **malformed** (§5.5)")
    frames, _, _ = spec_frames()
    body = msgpack.unpackb(wire.decode_frame(frames[0]).body, raw=False)
    body["x"] = 1
    packed = msgpack.packb(dict(sorted(body.items())), use_bin_type=True)
    assert wire.sign_frame(packed, JOINER_KEY) == spec
    for lenient in (False, True):
        with pytest.raises(wire.MalformedFrame, match="unknown field"):
            wire.decode_frame(spec, allow_unknown_fields=lenient)
    assert Observer().receive(spec).accepted is None


def test_the_specified_bot_hello() -> None:
    # §8.2's hello of a bot joiner: frame 0's fields, announcing 1.1, with `bot`.
    spec, _ = control_vector("started as a bot, says so in its `hello`")
    frames, _, _ = spec_frames()
    plain = wire.decode_frame(frames[0]).message
    assert isinstance(plain, wire.Hello)
    said = wire.Hello(v=[1, 1], name=plain.name, key=plain.key, coin=plain.coin, bot=True)
    assert wire.make_frame(said, JOINER_KEY, seq=0).raw == spec
    frame = wire.decode_frame(spec)
    assert isinstance(frame.message, wire.Hello) and frame.message.bot is True
    assert frame.signed_by(bytes(JOINER_KEY.verify_key))

"""The wire format: strict decoding, canonical encoding, signatures."""

from __future__ import annotations

import contextlib
import os

import msgpack
import nacl.signing
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lcnet.protocol import wire

KEY = nacl.signing.SigningKey(b"\x01" * 32)
OTHER = nacl.signing.SigningKey(b"\x02" * 32)
GAME = b"\x07" * 32
PREV = b"\x08" * 32


def move_frame(**overrides: object) -> wire.Frame:
    fields: dict[str, object] = {
        "card": 5,
        "discard": False,
        "draw": -1,
        "pos": 3,
        "key": b"k" * 32,
    }
    fields.update(overrides)
    return wire.make_frame(wire.MoveMsg(**fields), KEY, seq=9, prev=PREV, game=GAME)  # type: ignore[arg-type]


def raw_frame(body: dict[str, object], key: nacl.signing.SigningKey = KEY) -> bytes:
    """A frame with an arbitrary body, signed: for bodies the encoder refuses to build."""
    packed = msgpack.packb(dict(sorted(body.items())), use_bin_type=True)
    return wire.sign_frame(packed, key)


def test_a_frame_round_trips_and_verifies() -> None:
    frame = move_frame()
    again = wire.decode_frame(frame.raw)
    assert again.message == frame.message
    assert (again.seq, again.prev, again.game) == (9, PREV, GAME)
    again.verify(bytes(KEY.verify_key))


def test_another_key_does_not_verify() -> None:
    with pytest.raises(wire.BadSignature):
        move_frame().verify(bytes(OTHER.verify_key))


def test_a_flipped_bit_in_the_body_breaks_the_signature() -> None:
    frame = move_frame(card=5)
    tampered = frame.raw.replace(b"\xa4card\x05", b"\xa4card\x06")
    assert tampered != frame.raw
    with pytest.raises(wire.BadSignature):
        wire.decode_frame(tampered).verify(bytes(KEY.verify_key))


def test_the_signature_is_domain_separated() -> None:
    frame = move_frame()
    plain = KEY.sign(frame.body).signature  # the body signed without the tag
    forged = msgpack.packb([frame.body, plain], use_bin_type=True)
    with pytest.raises(wire.BadSignature):
        wire.decode_frame(forged).verify(bytes(KEY.verify_key))


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x92",
        b"\xc1",
        b"not msgpack at all",
        msgpack.packb([b"x"], use_bin_type=True),
        msgpack.packb([b"x", b"short sig"], use_bin_type=True),
        msgpack.packb({"a": 1}, use_bin_type=True),
        msgpack.packb([1, 2], use_bin_type=True),
        msgpack.packb([msgpack.ExtType(1, b"x"), b"s" * 64], use_bin_type=True),
    ],
)
def test_garbage_is_malformed(raw: bytes) -> None:
    with pytest.raises(wire.MalformedFrame):
        wire.decode_frame(raw)


def test_an_oversized_frame_is_refused_before_decoding() -> None:
    with pytest.raises(wire.MalformedFrame, match="limit"):
        wire.decode_frame(b"\x00" * (wire.MAX_FRAME_BYTES + 1))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"t": "move", "seq": 1, "prev": PREV, "game": GAME, "card": 1, "discard": False},
            "missing",
        ),
        (
            {
                "t": "move",
                "seq": 1,
                "prev": PREV,
                "game": GAME,
                "card": 1,
                "discard": 0,
                "draw": -1,
            },
            "bad discard",
        ),
        (
            {
                "t": "move",
                "seq": 1,
                "prev": PREV,
                "game": GAME,
                "card": 99,
                "discard": False,
                "draw": -1,
            },
            "bad card",
        ),
        (
            {
                "t": "move",
                "seq": 1,
                "prev": PREV,
                "game": GAME,
                "card": 1,
                "discard": False,
                "draw": -1,
                "pos": 3,
            },
            "pos and key",
        ),
        (
            {
                "t": "move",
                "seq": 1,
                "prev": PREV,
                "game": GAME,
                "card": 1,
                "discard": False,
                "draw": -1,
                "extra": 1,
            },
            "unknown field",
        ),
        ({"t": "teleport", "seq": 1, "prev": PREV, "game": GAME}, "unknown message type"),
        ({"t": "ack", "seq": 1, "game": GAME}, "prev and game"),
        ({"t": "ack", "seq": 0, "prev": PREV}, "first frame"),
        ({"t": "ack", "seq": -1, "prev": PREV, "game": GAME}, "seq"),
        ({"t": "ack", "seq": 1, "prev": b"short", "game": GAME}, "prev and game"),
        ({"t": "ping", "seq": 1, "game": GAME, "n": 1}, "control frame"),
        (
            {
                "t": "hello",
                "seq": 0,
                "v": [1, 0],
                "name": "evil\x1b[2J",
                "key": b"k" * 32,
                "coin": b"c" * 32,
            },
            "bad name",
        ),
        (
            {
                "t": "hello",
                "seq": 0,
                "v": [1, 0],
                "name": "x" * 65,
                "key": b"k" * 32,
                "coin": b"c" * 32,
            },
            "bad name",
        ),
        (
            {
                "t": "welcome",
                "seq": 1,
                "prev": PREV,
                "game": GAME,
                "v": [1, 0],
                "name": "h",
                "key": b"k" * 32,
                "suits": 7,
                "rounds": 3,
                "coin": b"c" * 32,
            },
            "bad suits",
        ),
        (
            {
                "t": "pass",
                "seq": 1,
                "prev": PREV,
                "game": GAME,
                "round": 1,
                "n": 1,
                "points": b"p" * 32 * 59,
            },
            "bad points",
        ),
    ],
)
def test_schema_violations_are_malformed(body: dict[str, object], message: str) -> None:
    with pytest.raises(wire.MalformedFrame, match=message):
        wire.decode_frame(raw_frame(body))


def test_unknown_fields_pass_only_for_a_newer_minor_version() -> None:
    body = {"t": "ack", "seq": 1, "prev": PREV, "game": GAME, "later": 1}
    with pytest.raises(wire.MalformedFrame):
        wire.decode_frame(raw_frame(body))
    assert isinstance(
        wire.decode_frame(raw_frame(body), allow_unknown_fields=True).message, wire.Ack
    )


def test_non_canonical_encodings_are_refused() -> None:
    unsorted = msgpack.packb({"t": "ack", "seq": 1, "prev": PREV, "game": GAME}, use_bin_type=True)
    with pytest.raises(wire.MalformedFrame, match="canonical"):
        wire.decode_frame(wire.sign_frame(unsorted, KEY))
    # seq 1 written as a 4-byte integer instead of a fixint
    canonical = msgpack.packb(
        dict(sorted({"t": "ack", "seq": 1, "prev": PREV, "game": GAME}.items())), use_bin_type=True
    )
    long_form = canonical.replace(b"\xa3seq\x01", b"\xa3seq\xce\x00\x00\x00\x01")
    assert long_form != canonical
    with pytest.raises(wire.MalformedFrame, match="canonical"):
        wire.decode_frame(wire.sign_frame(long_form, KEY))


def test_booleans_are_not_integers() -> None:
    body = {"t": "ack", "seq": True, "prev": PREV, "game": GAME}
    with pytest.raises(wire.MalformedFrame):
        wire.decode_frame(raw_frame(body))


def test_control_frames_carry_the_game_and_no_position() -> None:
    frame = wire.make_frame(wire.Ping(n=3), KEY, game=GAME)
    assert frame.seq is None and frame.game == GAME
    with pytest.raises(ValueError):
        wire.make_frame(wire.Ping(n=3), KEY, seq=1, prev=PREV, game=GAME)


def test_the_largest_frame_fits_the_limit() -> None:
    frame = wire.make_frame(
        wire.DeckPass(round=wire.MAX_ROUNDS, n=4, points=os.urandom(32 * 72)),
        KEY,
        seq=wire.MAX_SEQ,
        prev=PREV,
        game=GAME,
    )
    assert len(frame.raw) < wire.MAX_FRAME_BYTES


@pytest.mark.slow
@settings(max_examples=300)
@given(st.binary(max_size=600))
def test_random_bytes_never_raise_anything_but_malformed(data: bytes) -> None:
    with contextlib.suppress(wire.MalformedFrame):
        wire.decode_frame(data)


@pytest.mark.slow
@settings(max_examples=300)
@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=0, max_value=255))
def test_corrupted_frames_never_raise_anything_but_malformed(index: int, value: int) -> None:
    raw = bytearray(move_frame().raw)
    raw[index % len(raw)] = value
    with contextlib.suppress(wire.MalformedFrame, wire.BadSignature):
        wire.decode_frame(bytes(raw)).verify(bytes(KEY.verify_key))


def test_keys_of_mixed_types_are_malformed_not_a_crash() -> None:
    body = msgpack.packb({"t": "ping", b"x": 1}, use_bin_type=True)
    with pytest.raises(wire.MalformedFrame, match="strings"):
        wire.decode_frame(wire.sign_frame(body, KEY))


def test_nil_values_are_malformed() -> None:
    body = {"t": "ack", "seq": 1, "prev": PREV, "game": GAME, "key": None}
    with pytest.raises(wire.MalformedFrame, match="nil"):
        wire.decode_frame(raw_frame(body))


def test_a_hello_of_a_newer_minor_version_may_carry_fields_we_do_not_know() -> None:
    body = {
        "t": "hello",
        "seq": 0,
        "v": [1, 4],
        "name": "future",
        "key": b"k" * 32,
        "coin": b"c" * 32,
        "emoji": "ok",
    }
    frame = wire.decode_frame(raw_frame(body))
    assert isinstance(frame.message, wire.Hello) and frame.message.v == [1, 4]
    body["v"] = [1, 0]
    with pytest.raises(wire.MalformedFrame, match="unknown field"):
        wire.decode_frame(raw_frame(body))


@pytest.mark.parametrize(
    "watchers",
    [
        [["x", bytes(32)]] * (wire.MAX_LISTED_WATCHERS + 1),  # names more than 16
        [["x", bytes(31)]],  # not a key
        [["a\x00b", bytes(32)]],  # a name that is not printable
        [["x", bytes(32), 1]],  # not a [name, key] pair
        [("x", bytes(32))],  # a pair, but not an array
    ],
)
def test_a_watching_frame_names_at_most_16_spectators_each_by_name_and_key(
    watchers: list[list[object]],
) -> None:
    with pytest.raises(ValueError):
        wire.Watching(count=len(watchers), watchers=watchers)

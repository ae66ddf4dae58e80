"""The wire format: message schema, strict msgpack codec, signed frames.

A *frame* is what travels and what the replay file stores::

    frame = msgpack array [body, signature]      (both msgpack bin)
    body  = msgpack map, keys sorted, canonical  (see docs/PROTOCOL.md §5)
    signature = Ed25519(signer, FRAME_SIGNATURE_TAG + body)

Signatures are always verified over the body bytes as received, never over a
re-encoding. A frame of the transcript carries ``seq`` (its position),
``prev`` (the chain hash of the previous frame's exact bytes) and, from the
second frame on, ``game`` (the game id, the hash of the first frame).
*Control* frames (``sync``, ``ping``, ``pong``) are signed but sit outside
the chain: they carry the game id and no position.

Decoding is strict and bounded: sizes are capped by named constants, no
extension types, exact field types, canonical encoding only (sorted keys,
shortest forms), no unknown message types, and unknown fields only from a
peer that announced a newer minor version. Malformed input raises
:class:`MalformedFrame`; nothing else escapes the decoder.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Final

import msgpack
import nacl.exceptions
import nacl.signing

from lcnet.deck import hashing
from lcnet.errors import RemoteProtocolError
from lcnet.game.cards import HAND_SIZE

PROTOCOL_VERSION: Final = (1, 1)
"""(major, minor). Majors must match; a minor version only adds optional fields.
1.1 adds ``bot`` to ``hello`` and ``welcome``."""

BASE_VERSION: Final = (1, 0)
"""What a ``hello`` or ``welcome`` announces when it uses no field of a later
minor version (see :func:`version_for`): a peer of 1.0 then reads all of it."""

MAX_FRAME_BYTES: Final = 4096
"""Largest frame accepted: a 72-card deck pass is 2304 bytes of points plus a
header under 200 bytes; nothing legitimate comes close to 4 KiB."""

MAX_NAME_BYTES: Final = 64
MAX_LISTED_WATCHERS: Final = 16
"""Spectators a `watching` frame names at most (its `count` says how many in all)."""
"""A display name, UTF-8: long enough for any nickname, short enough for a status bar."""

MAX_REASON_BYTES: Final = 512
"""The text of a dispute: one or two sentences of explanation."""

MAX_ROUNDS: Final = 20
"""Rounds per match: far above the usual 3; a cap keeps a result frame small."""

MAX_SEQ: Final = 2**32 - 1
"""Frames per match. Human play has no turn limit, but 4 billion frames is no limit."""

MAX_SCORE: Final = 10_000
"""Absolute bound on any round score (the real maximum is a few hundred per round)."""

KEY_SIZE: Final = 32
"""An Ed25519 public key, a deck position key (scalar) or a seed: 32 bytes."""

HASH_SIZE: Final = hashing.DIGEST_SIZE
SIGNATURE_SIZE: Final = 64
POINT_SIZE: Final = 32
MAX_DECK: Final = 72

FRAME_SIGNATURE_TAG: Final = b"lcnet/v1/frame\x00"
"""Prefixed to the body bytes before signing, so a frame signature can never be
mistaken for a signature made for any other purpose with the same key."""

DRAW_PILE: Final = -1
"""The ``draw`` field of a move that draws from the draw pile (else a suit, 0-5)."""


class MalformedFrame(RemoteProtocolError):
    """Bytes that are not a well-formed lcnet frame (dropped, never trusted)."""


class IncompatibleVersion(MalformedFrame):
    """A hello or welcome from a peer that speaks another major protocol version."""

    def __init__(self, version: tuple[int, int]) -> None:
        self.version = version
        ours = f"{PROTOCOL_VERSION[0]}.{PROTOCOL_VERSION[1]}"
        super().__init__(
            f"the peer speaks lcnet protocol {version[0]}.{version[1]}, this lcnet speaks "
            f"{ours}: both players need a version of lcnet with the same major protocol version"
        )


class BadSignature(RemoteProtocolError):
    """A frame whose signature does not verify under the expected key (dropped)."""


# ------------------------------------------------------------------ schema

_Check = Callable[[object], bool]


def _is_int(lo: int, hi: int) -> _Check:
    return lambda v: type(v) is int and lo <= v <= hi


def _is_bin(size: int) -> _Check:
    return lambda v: type(v) is bytes and len(v) == size


def _is_bool(v: object) -> bool:
    return type(v) is bool


def _is_text(max_bytes: int) -> _Check:
    return lambda v: type(v) is str and len(v.encode("utf-8")) <= max_bytes and v.isprintable()


def _is_watchers(v: object) -> bool:
    name = _is_text(MAX_NAME_BYTES)
    return (
        type(v) is list
        and len(v) <= MAX_LISTED_WATCHERS
        and all(type(w) is list and len(w) == 2 and name(w[0]) and type(w[1]) is bytes for w in v)
        and all(len(w[1]) == KEY_SIZE for w in v)
    )


def _is_version(v: object) -> bool:
    return type(v) is list and len(v) == 2 and all(type(x) is int and 0 <= x <= 0xFFFF for x in v)


def _is_points(v: object) -> bool:
    return type(v) is bytes and len(v) % POINT_SIZE == 0 and len(v) // POINT_SIZE in (60, 72)


def _is_scores(v: object) -> bool:
    return type(v) is list and 1 <= len(v) <= MAX_ROUNDS and all(_is_pair(x) for x in v)


def _is_pair(v: object) -> bool:
    return (
        type(v) is list
        and len(v) == 2
        and all(
            type(x) is int and -MAX_SCORE * MAX_ROUNDS <= x <= MAX_SCORE * MAX_ROUNDS for x in v
        )
    )


@dataclass(frozen=True)
class Message:
    """Base of every message. Subclasses list their fields and checks."""

    TYPE: ClassVar[str] = ""
    CHECKS: ClassVar[Mapping[str, _Check]] = {}
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()
    SINCE: ClassVar[Mapping[str, int]] = {}
    """Fields a later minor version added, with that minor: a ``hello`` or
    ``welcome`` announcing an earlier one must not carry them (§5.5)."""
    CONTROL: ClassVar[bool] = False

    def __post_init__(self) -> None:
        for name, check in self.CHECKS.items():
            value = getattr(self, name)
            if value is None and name in self.OPTIONAL:
                continue
            if not check(value):
                raise ValueError(f"{self.TYPE}: bad {name}: {value!r}")

    def to_fields(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for name in _field_names(type(self)):
            value = getattr(self, name)
            if value is None and name in self.OPTIONAL:
                continue
            out[name] = value
        return out


_FIELD_NAMES: dict[type[Message], tuple[str, ...]] = {}


def _field_names(cls: type[Message]) -> tuple[str, ...]:
    """A message type's fields, in declaration order (looked up once per type)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


@dataclass(frozen=True)
class Hello(Message):
    """Joiner, first frame: who it is and its commitment to a coin nonce;
    ``bot`` (1.1, advisory): a program plays this side, not a person."""

    TYPE: ClassVar[str] = "hello"
    v: list[int]
    name: str
    key: bytes
    coin: bytes
    bot: bool | None = None
    CHECKS: ClassVar[Mapping[str, _Check]] = {
        "v": _is_version,
        "name": _is_text(MAX_NAME_BYTES),
        "key": _is_bin(KEY_SIZE),
        "coin": _is_bin(HASH_SIZE),
        "bot": lambda v: v is True,
    }
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"bot"})
    SINCE: ClassVar[Mapping[str, int]] = {"bot": 1}


@dataclass(frozen=True)
class Welcome(Message):
    """Host: who it is, the match options, and its coin nonce in the clear."""

    TYPE: ClassVar[str] = "welcome"
    v: list[int]
    name: str
    key: bytes
    suits: int
    rounds: int
    coin: bytes
    bot: bool | None = None
    CHECKS: ClassVar[Mapping[str, _Check]] = {
        "v": _is_version,
        "name": _is_text(MAX_NAME_BYTES),
        "key": _is_bin(KEY_SIZE),
        "suits": lambda v: type(v) is int and v in (5, 6),
        "rounds": _is_int(1, MAX_ROUNDS),
        "coin": _is_bin(HASH_SIZE),
        "bot": lambda v: v is True,
    }
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"bot"})
    SINCE: ClassVar[Mapping[str, int]] = {"bot": 1}


@dataclass(frozen=True)
class Coin(Message):
    """Joiner: reveals the coin nonce it committed to in its hello."""

    TYPE: ClassVar[str] = "coin"
    nonce: bytes
    CHECKS: ClassVar[Mapping[str, _Check]] = {"nonce": _is_bin(HASH_SIZE)}


@dataclass(frozen=True)
class Commit(Message):
    """A side's commitment to its seed for a round."""

    TYPE: ClassVar[str] = "commit"
    round: int
    commit: bytes
    CHECKS: ClassVar[Mapping[str, _Check]] = {
        "round": _is_int(1, MAX_ROUNDS),
        "commit": _is_bin(HASH_SIZE),
    }


@dataclass(frozen=True)
class DeckPass(Message):
    """One of the four deck passes: n points of 32 bytes, concatenated."""

    TYPE: ClassVar[str] = "pass"
    round: int
    n: int
    points: bytes
    CHECKS: ClassVar[Mapping[str, _Check]] = {
        "round": _is_int(1, MAX_ROUNDS),
        "n": _is_int(1, 4),
        "points": _is_points,
    }

    def point_list(self) -> list[bytes]:
        p = self.points
        return [p[i : i + POINT_SIZE] for i in range(0, len(p), POINT_SIZE)]


@dataclass(frozen=True)
class DealKeys(Message):
    """A side's keys for the other side's 8 hand positions, in position order."""

    TYPE: ClassVar[str] = "keys"
    round: int
    keys: bytes
    CHECKS: ClassVar[Mapping[str, _Check]] = {
        "round": _is_int(1, MAX_ROUNDS),
        "keys": _is_bin(HAND_SIZE * KEY_SIZE),
    }

    def key_list(self) -> list[bytes]:
        k = self.keys
        return [k[i : i + KEY_SIZE] for i in range(0, len(k), KEY_SIZE)]


@dataclass(frozen=True)
class MoveMsg(Message):
    """A whole turn: the card put down and where, then where the draw comes from.

    ``pos`` and ``key`` are present iff the card comes from the mover's
    hidden hand (the masked deck position it was dealt or drawn at, and the
    mover's key that opens it); a card the mover took from a discard pile is
    public and needs neither.
    """

    TYPE: ClassVar[str] = "move"
    card: int
    discard: bool
    draw: int
    pos: int | None = None
    key: bytes | None = None
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"pos", "key"})
    CHECKS: ClassVar[Mapping[str, _Check]] = {
        "card": _is_int(0, MAX_DECK - 1),
        "discard": _is_bool,
        "draw": _is_int(DRAW_PILE, 5),
        "pos": _is_int(0, MAX_DECK - 1),
        "key": _is_bin(KEY_SIZE),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if (self.pos is None) != (self.key is None):
            raise ValueError("move: pos and key go together")


@dataclass(frozen=True)
class Ack(Message):
    """Accepts the previous move; ``key`` opens the card it drew from the draw pile."""

    TYPE: ClassVar[str] = "ack"
    key: bytes | None = None
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"key"})
    CHECKS: ClassVar[Mapping[str, _Check]] = {"key": _is_bin(KEY_SIZE)}


@dataclass(frozen=True)
class Reveal(Message):
    """A side's seed for a finished round (checked against its commitment)."""

    TYPE: ClassVar[str] = "reveal"
    round: int
    seed: bytes
    CHECKS: ClassVar[Mapping[str, _Check]] = {
        "round": _is_int(1, MAX_ROUNDS),
        "seed": _is_bin(HASH_SIZE),
    }


@dataclass(frozen=True)
class Result(Message):
    """The match result as this side computed it (host first, joiner countersigns).

    The transcript head a result seals is its own ``prev``.
    """

    TYPE: ClassVar[str] = "result"
    scores: list[list[int]]
    totals: list[int]
    CHECKS: ClassVar[Mapping[str, _Check]] = {"scores": _is_scores, "totals": _is_pair}


@dataclass(frozen=True)
class Resign(Message):
    """The sender gives up the match (sent when it may speak)."""

    TYPE: ClassVar[str] = "resign"


@dataclass(frozen=True)
class Dispute(Message):
    """The sender stops the match because frame ``about`` (hash ``frame``) broke the rules."""

    TYPE: ClassVar[str] = "dispute"
    about: int
    """The position of the offending frame."""
    frame: bytes
    reason: str
    seed: bytes | None = None
    """The sender's seed for the round in progress, if one is: with it anyone can
    redo the openings that only the sender could do, and judge the claim."""
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"seed"})
    CHECKS: ClassVar[Mapping[str, _Check]] = {
        "about": _is_int(0, MAX_SEQ),
        "frame": _is_bin(HASH_SIZE),
        "reason": _is_text(MAX_REASON_BYTES),
        "seed": _is_bin(HASH_SIZE),
    }


@dataclass(frozen=True)
class Sync(Message):
    """Control: after (re)connecting, how many transcript frames the sender holds."""

    TYPE: ClassVar[str] = "sync"
    CONTROL: ClassVar[bool] = True
    have: int
    head: bytes
    CHECKS: ClassVar[Mapping[str, _Check]] = {
        "have": _is_int(0, MAX_SEQ),
        "head": _is_bin(HASH_SIZE),
    }


@dataclass(frozen=True)
class Ping(Message):
    """Control: are you alive? (answered by a pong with the same ``n``)."""

    TYPE: ClassVar[str] = "ping"
    CONTROL: ClassVar[bool] = True
    n: int
    CHECKS: ClassVar[Mapping[str, _Check]] = {"n": _is_int(0, MAX_SEQ)}


@dataclass(frozen=True)
class Pong(Message):
    """Control: the answer to a ping."""

    TYPE: ClassVar[str] = "pong"
    CONTROL: ClassVar[bool] = True
    n: int
    CHECKS: ClassVar[Mapping[str, _Check]] = {"n": _is_int(0, MAX_SEQ)}


@dataclass(frozen=True)
class Busy(Message):
    """Control: the host turns away a peer that is not its opponent (unverified
    by the receiver, who knows no key of the host; it only explains the refusal)."""

    TYPE: ClassVar[str] = "busy"
    CONTROL: ClassVar[bool] = True
    reason: str
    CHECKS: ClassVar[Mapping[str, _Check]] = {"reason": _is_text(MAX_REASON_BYTES)}


@dataclass(frozen=True)
class Bye(Message):
    """Control: the sender quits an unfinished match, which it keeps to resume.

    Advisory: it changes nothing in the match (it is not part of the
    transcript); the receiver tells its player at once instead of after the
    peer timeout."""

    TYPE: ClassVar[str] = "bye"
    CONTROL: ClassVar[bool] = True


@dataclass(frozen=True)
class Watch(Message):
    """Control, spectator to host: let me watch, and send me the transcript
    from frame ``have`` on (docs/PROTOCOL.md §6.6). Signed by ``key``."""

    TYPE: ClassVar[str] = "watch"
    CONTROL: ClassVar[bool] = True
    v: list[int]
    name: str
    key: bytes
    have: int
    CHECKS: ClassVar[Mapping[str, _Check]] = {
        "v": _is_version,
        "name": _is_text(MAX_NAME_BYTES),
        "key": _is_bin(KEY_SIZE),
        "have": _is_int(0, MAX_SEQ),
    }


@dataclass(frozen=True)
class Watching(Message):
    """Control, from the program that bound the socket to its opponent: who
    watches the match (docs/PROTOCOL.md §6.6), so that both screens show it."""

    TYPE: ClassVar[str] = "watching"
    CONTROL: ClassVar[bool] = True
    count: int
    watchers: list[list[Any]]
    """[name, key] of the first :data:`MAX_LISTED_WATCHERS` of them, in the order they came."""
    CHECKS: ClassVar[Mapping[str, _Check]] = {
        "count": _is_int(0, MAX_SEQ),
        "watchers": _is_watchers,
    }


@dataclass(frozen=True)
class Rematch(Message):
    """Control, between the players of a finished match: whether the sender
    wants another one with the seats swapped (``ok``), or not
    (docs/PROTOCOL.md §6.7). Advisory until both have said yes."""

    TYPE: ClassVar[str] = "rematch"
    CONTROL: ClassVar[bool] = True
    ok: bool
    CHECKS: ClassVar[Mapping[str, _Check]] = {"ok": _is_bool}


MAX_SAY_BYTES: Final = 200
"""A line between players (``say``): a sentence, not a letter."""


@dataclass(frozen=True)
class Say(Message):
    """Control, between the players of a match: a short line of text from the
    sender to the other player (and its spectators), outside the transcript
    (docs/PROTOCOL.md §6.9). Advisory: it changes nothing in the match."""

    TYPE: ClassVar[str] = "say"
    CONTROL: ClassVar[bool] = True
    text: str
    CHECKS: ClassVar[Mapping[str, _Check]] = {"text": _is_text(MAX_SAY_BYTES)}


@dataclass(frozen=True)
class Opponent(Message):
    """Control, from the program that bound the socket to its spectators: whether
    its opponent's connection is there (``here``), told when that changes
    (docs/PROTOCOL.md §6.6). Advisory: for the spectators' screens."""

    TYPE: ClassVar[str] = "opponent"
    CONTROL: ClassVar[bool] = True
    here: bool
    CHECKS: ClassVar[Mapping[str, _Check]] = {"here": _is_bool}


MESSAGE_TYPES: Final[dict[str, type[Message]]] = {
    cls.TYPE: cls
    for cls in (
        Hello,
        Welcome,
        Coin,
        Commit,
        DeckPass,
        DealKeys,
        MoveMsg,
        Ack,
        Reveal,
        Result,
        Resign,
        Dispute,
        Sync,
        Ping,
        Pong,
        Bye,
        Busy,
        Watch,
        Rematch,
        Watching,
        Say,
        Opponent,
    )
}

_HEADER_FIELDS: Final = frozenset({"t", "seq", "prev", "game"})
assert not any({f.name for f in fields(cls)} & _HEADER_FIELDS for cls in MESSAGE_TYPES.values()), (
    "a message field would collide with a header field"
)


# ------------------------------------------------------------------ frames


@dataclass(frozen=True)
class Frame:
    """A decoded frame: its exact bytes, header and message.

    ``seq``/``prev`` are ``None`` for control frames; ``prev`` and ``game``
    are ``None`` for the first frame of a match.
    """

    raw: bytes
    body: bytes
    signature: bytes
    message: Message
    seq: int | None
    prev: bytes | None
    game: bytes | None
    unknown: frozenset[str] = frozenset()
    """Fields this version does not know (only where they were allowed when
    decoding): whether its signer may send them is for the receiver to decide
    (PROTOCOL §5.5: the signer's announced minor version governs)."""

    @functools.cached_property
    def hash(self) -> bytes:
        """The chain hash of the exact frame bytes (what the next frame quotes as prev)."""
        return hashing.chain_hash(self.raw)

    @property
    def type(self) -> str:
        return self.message.TYPE

    def verify(self, public_key: bytes) -> None:
        """Raise :class:`BadSignature` unless ``public_key`` signed this frame."""
        verify_signature(self.body, self.signature, public_key)

    def signed_by(self, public_key: bytes) -> bool:
        """Whether ``public_key`` signed this frame."""
        try:
            self.verify(public_key)
        except BadSignature:
            return False
        return True

    def __repr__(self) -> str:
        where = "control" if self.seq is None else f"seq={self.seq}"
        return f"<Frame {self.type} {where} {len(self.raw)} bytes>"


def _pack(obj: object) -> bytes:
    data: bytes = msgpack.packb(obj, use_bin_type=True)
    return data


def encode_body(
    message: Message, *, seq: int | None, prev: bytes | None, game: bytes | None
) -> bytes:
    """The canonical body bytes of ``message`` with its header."""
    body: dict[str, object] = dict(message.to_fields())
    body["t"] = message.TYPE
    if message.CONTROL:
        if seq is not None or prev is not None or game is None:
            raise ValueError("a control frame carries the game id and no position")
        body["game"] = game
    else:
        if seq is None or not 0 <= seq <= MAX_SEQ:
            raise ValueError(f"a transcript frame needs a position, not {seq!r}")
        body["seq"] = seq
        if seq == 0:
            if prev is not None or game is not None:
                raise ValueError("the first frame has no prev and no game id")
        else:
            if prev is None or game is None:
                raise ValueError("every frame after the first carries prev and the game id")
            body["prev"] = prev
            body["game"] = game
    return _pack(dict(sorted(body.items())))


def sign_frame(body: bytes, signing_key: nacl.signing.SigningKey) -> bytes:
    """The frame bytes: ``[body, signature]`` with the signature over the tagged body."""
    signature = signing_key.sign(FRAME_SIGNATURE_TAG + body).signature
    return _pack([body, signature])


def make_frame(
    message: Message,
    signing_key: nacl.signing.SigningKey,
    *,
    seq: int | None = None,
    prev: bytes | None = None,
    game: bytes | None = None,
) -> Frame:
    """Encode and sign ``message`` into a frame."""
    body = encode_body(message, seq=seq, prev=prev, game=game)
    raw = sign_frame(body, signing_key)
    # The frame ends with the signature (a 64-byte bin): no need to decode what we built.
    return Frame(raw, body, raw[-SIGNATURE_SIZE:], message, seq, prev, game)


_VERIFY_KEYS: dict[bytes, nacl.signing.VerifyKey] = {}


def verify_signature(body: bytes, signature: bytes, public_key: bytes) -> None:
    """Raise :class:`BadSignature` unless ``signature`` is ``public_key``'s over ``body``."""
    key = _VERIFY_KEYS.get(public_key)
    if key is None:
        try:
            key = nacl.signing.VerifyKey(public_key)
        except (nacl.exceptions.CryptoError, TypeError, ValueError):
            raise BadSignature("the signer's public key is not a valid Ed25519 key") from None
        if len(_VERIFY_KEYS) < 64:  # two players, plus the odd stranger: keep it tiny
            _VERIFY_KEYS[public_key] = key
    try:
        key.verify(FRAME_SIGNATURE_TAG + body, signature)
    except (nacl.exceptions.BadSignatureError, nacl.exceptions.CryptoError, ValueError):
        raise BadSignature("the frame's signature does not verify") from None


def _unpack_strict(data: bytes, what: str) -> Any:
    try:
        return msgpack.unpackb(
            data,
            raw=False,
            use_list=True,
            strict_map_key=True,
            ext_hook=_reject_ext,
            max_str_len=MAX_FRAME_BYTES,
            max_bin_len=MAX_FRAME_BYTES,
            max_array_len=MAX_ROUNDS + 2,
            max_map_len=16,
            max_ext_len=0,
        )
    except Exception as exc:  # msgpack raises many types; none may escape
        raise MalformedFrame(f"{what} is not valid msgpack ({type(exc).__name__}: {exc})") from None


def version_for(*, bot: bool) -> list[int]:
    """What a ``hello`` or ``welcome`` announces: the lowest minor version
    that has every field it uses (1.1 for ``bot``), so that a peer of 1.0
    reads a person's opening as before."""
    return list(PROTOCOL_VERSION if bot else BASE_VERSION)


def _reject_ext(code: int, data: bytes) -> object:
    raise ValueError("extension types are not allowed")


def decode_frame(raw: bytes, *, allow_unknown_fields: bool = False) -> Frame:
    """Decode a frame's structure and schema (the signature is checked separately).

    ``allow_unknown_fields`` is for a peer that announced a newer minor
    version, or a reader that does not know the signer yet (an auditor):
    fields this version does not know are then ignored. A ``hello`` or
    ``welcome`` is decoded by the version it announces itself, whatever
    ``allow_unknown_fields`` says (PROTOCOL §5.5).
    """
    if type(raw) is not bytes:
        raise MalformedFrame("a frame is bytes")
    if len(raw) > MAX_FRAME_BYTES:
        raise MalformedFrame(f"frame of {len(raw)} bytes exceeds the {MAX_FRAME_BYTES}-byte limit")
    outer = _unpack_strict(raw, "the frame")
    if (
        type(outer) is not list
        or len(outer) != 2
        or type(outer[0]) is not bytes
        or type(outer[1]) is not bytes
        or len(outer[1]) != SIGNATURE_SIZE
    ):
        raise MalformedFrame("a frame is [body, 64-byte signature]")
    body_bytes, signature = outer
    if _pack([body_bytes, signature]) != raw:
        raise MalformedFrame("the frame is not canonically encoded")
    body = _unpack_strict(body_bytes, "the frame body")
    if type(body) is not dict:
        raise MalformedFrame("a frame body is a map")
    if not all(type(key) is str for key in body):
        raise MalformedFrame("the keys of a frame body are strings")
    if any(value is None for value in body.values()):
        raise MalformedFrame("a frame body holds no nil: an absent field is left out")
    if _pack(dict(sorted(body.items()))) != body_bytes:
        raise MalformedFrame(
            "the frame body is not canonically encoded (sorted keys, shortest forms)"
        )
    kind = body.get("t")
    version = body.get("v")
    if kind in ("hello", "welcome") and _is_version(version):
        assert isinstance(version, list)
        if version[0] != PROTOCOL_VERSION[0]:
            raise IncompatibleVersion((version[0], version[1]))
        # The frame announces its signer's own version, and that announcement
        # governs it (PROTOCOL §5.5), however leniently the reader decodes the
        # frames whose signer it does not know yet: unknown fields only if it
        # announces a newer minor version, never in one announcing ours.
        allow_unknown_fields = version[1] > PROTOCOL_VERSION[1]
    cls = MESSAGE_TYPES.get(kind) if type(kind) is str else None
    if cls is None:
        raise MalformedFrame(f"unknown message type {kind!r}")
    known = _field_names(cls)
    if kind in ("hello", "welcome") and _is_version(version):
        assert isinstance(version, list)
        # A field of a later minor than the frame announces is one its version lacks.
        known = tuple(f for f in known if cls.SINCE.get(f, 0) <= version[1])
    unknown = body.keys() - known - _HEADER_FIELDS
    if unknown and not allow_unknown_fields:
        raise MalformedFrame(f"{cls.TYPE}: unknown field(s) {', '.join(sorted(unknown))}")
    missing = set(known) - body.keys() - cls.OPTIONAL
    if missing:
        raise MalformedFrame(f"{cls.TYPE}: missing field(s) {', '.join(sorted(missing))}")
    seq, prev, game = _header(cls, body)
    try:
        message = cls(**{k: body[k] for k in known if k in body})
    except (ValueError, TypeError) as exc:
        raise MalformedFrame(str(exc)) from None
    return Frame(raw, body_bytes, signature, message, seq, prev, game, frozenset(unknown))


_is_hash: Final = _is_bin(HASH_SIZE)
_is_seq: Final = _is_int(0, MAX_SEQ)


def _header(
    cls: type[Message], body: dict[str, object]
) -> tuple[int | None, bytes | None, bytes | None]:
    game = body.get("game")
    if game is not None and not _is_hash(game):
        raise MalformedFrame("the game id is 32 bytes")
    if cls.CONTROL:
        if "seq" in body or "prev" in body or game is None:
            raise MalformedFrame(f"{cls.TYPE} is a control frame: game id, no seq or prev")
        return None, None, game  # type: ignore[return-value]
    seq = body.get("seq")
    if not _is_seq(seq):
        raise MalformedFrame("seq must be an integer 0 .. 2**32-1")
    assert isinstance(seq, int)
    prev = body.get("prev")
    if seq == 0:
        if prev is not None or game is not None:
            raise MalformedFrame("the first frame carries no prev and no game id")
        return 0, None, None
    if not _is_hash(prev) or game is None:
        raise MalformedFrame("a frame after the first carries prev and game (32 bytes each)")
    return seq, prev, game  # type: ignore[return-value]

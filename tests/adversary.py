"""Adversarial matches: a cheating peer with every power it really has, and
the invariants that must hold after every match (docs/PROTOCOL.md §5–§7).

:func:`generate` plays one short match between an honest, unchanged
:class:`~lcnet.protocol.session.Session` and a cheater, a real session too, whose
owner can in addition, at random points:

* sign any fields with its own key: any message type, at any position (its
  own turn or not), with any header (``seq``, ``prev``, ``game``); disputes
  about any position (its own included), with or without a seed, a wrong one;
  rewrite its own next message or header before signing it;
* keep every frame it received or sent and replay, reorder, drop or re-send
  it to the honest peer; sign a second frame for a position (equivocation);
* choose its own round seeds and coin nonce, announce protocol minor version 1
  and plant unknown fields with arbitrary bytes in its frames, e.g. bytes that
  are whole replay records (length ‖ kind ‖ payload ‖ CRC-32);
* damage the honest player's file (flip bits, overwrite or delete byte
  ranges, truncate it), and hand over a forged "twin" file of its own for
  ``lcnet audit HONEST TWIN``: built from any frames it holds, as FRAME,
  EVIDENCE or NOTE records, in any order.

The honest player writes its file as ``tests/cheaters.py``'s Table does
(EVIDENCE, then the accepted frame, then its own frames), or as a networked
peer does (a NOTE with the receive time after each received frame).

:func:`check` audits the honest player's file alone and the pair (honest
file, twin) in both orders and returns one string per broken invariant,
``"<kind>: <detail>"``; :data:`KINDS` says what each kind means.
:func:`examine` also returns the *doubtful* findings (:data:`DOUBTFUL`):
outcomes the spec does not clearly forbid, recorded rather than asserted.

Every decision is drawn by name from a :class:`Choices`: from a seed
(:class:`SeedChoices`, the bench) or from hypothesis (:class:`DataChoices`,
the property test); ``forced`` pins named decisions (the regression examples).
"""

from __future__ import annotations

import bisect
import contextlib
import random
import zlib
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import msgpack
import nacl.bindings
import nacl.signing

from lcnet.audit import compare, repair
from lcnet.audit import verdict as audit
from lcnet.deck import hashing
from lcnet.deck.deckcheck import PlayerDeck, RoundTrack
from lcnet.deck.group import GROUP_ORDER
from lcnet.deck.rounddeal import RoundDeal
from lcnet.errors import SessionFailed
from lcnet.game.engine import Turn, View
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.events import DisputeInfo, MatchOptions, Step
from lcnet.protocol.session import Session
from lcnet.protocol.transcript import FrameHeader
from lcnet.store.replayfile import (
    MAGIC,
    RecordKind,
    ReplayContents,
    ReplayFileError,
    ReplayHeader,
    parse_replay,
)

T = TypeVar("T")

KINDS: Mapping[str, str] = {
    "a-named": "a verdict (honest file alone, either file of a pair, or the comparison's "
    "equivocation) is INVALID naming the honest player",
    "a-owed": "the damaged honest file is INCOMPLETE saying the honest player owes frame k, "
    "while its untouched bytes hold a frame the honest player signed at a position >= k",
    "b-not-named": "the honest session disputed a fault of the cheater, but the audit of its "
    "undamaged file is not INVALID naming the cheater",
    "b-damaged": "the honest session disputed a fault of the cheater, but the audit of its "
    "damaged file alone is VALID, or INVALID not naming the cheater",
    "c-unsigned": "the damaged honest file (alone or repaired from the twin) is INVALID "
    "naming nobody, while the undamaged file is not",
    "d-unsigned": "the honest player's undamaged file is INVALID naming nobody: the audit "
    "rejects frames the honest session accepted or sent",
    "d-disagree": "the audit of the honest player's undamaged file contradicts how the "
    "honest session ended (over / not over / disputed)",
    "d-stalled": "the cheater broke no rule while playing (announcing a newer minor and adding "
    "fields, choosing its seeds and nonce are allowed) and every frame was delivered, yet the "
    "honest session did not finish the match sealed",
    "crash-audit": "an audit raised something other than lcnet's documented errors",
    "crash-honest": "the honest session failed (SessionFailed or another exception) on "
    "frames from the cheater",
    "crash-generate": "the generator itself failed",
}

DOUBTFUL: Mapping[str, str] = {
    "a-owed?": "the damaged honest file, repaired from the twin, is INCOMPLETE saying the "
    "honest player owes frame k, which it did send, but no untouched byte shows it",
    "a-dispute?": "the damaged honest file, repaired from the twin, ends with the cheater's "
    "(unproven) dispute accusing the honest player, which the undamaged file does not hold",
    "b-reshaped?": "as b-damaged, but the bytes were changed so that the file is still well "
    "formed (whole records deleted): no damage a reader can see (§7.2)",
    "c-reshaped?": "as c-unsigned, but the bytes were changed so that the file is still well "
    "formed (whole records deleted): an INVALID naming nobody proves nothing (§6.2)",
    "a-seat?": "a verdict is INVALID naming the honest player's seat, but with another key "
    "(the cheater's, in a transcript it forged)",
}

HONEST_NAME = {Seat.HOST: "Hana", Seat.JOINER: "Joe"}
MAX_DELIVERIES = 1500


# ------------------------------------------------------------------ choices


class Choices:
    """Named decisions. ``forced`` pins some: a value (every time) or a list
    (consumed in order, then drawn as usual)."""

    def __init__(self, forced: Mapping[str, Any] | None = None) -> None:
        self._always: dict[str, Any] = {}
        self._queues: dict[str, list[Any]] = {}
        for name, value in (forced or {}).items():
            if isinstance(value, list):
                self._queues[name] = list(value)
            else:
                self._always[name] = value

    def _forced(self, name: str) -> tuple[bool, Any]:
        if name in self._always:
            return True, self._always[name]
        queue = self._queues.get(name)
        if queue:
            return True, queue.pop(0)
        return False, None

    def _draw(self, name: str, lo: int, hi: int) -> int:
        raise NotImplementedError

    def _bytes(self, name: str, size: int) -> bytes:
        raise NotImplementedError

    def _index(self, name: str, n: int) -> int:
        """A uniform choice among ``n`` (the first is the simplest)."""
        return self._draw(name, 0, n - 1)

    def integer(self, name: str, lo: int, hi: int) -> int:
        hit, value = self._forced(name)
        return int(value) if hit else self._draw(name, lo, hi)

    def chance(self, name: str, p: float) -> bool:
        """True with probability ``p`` (shrinks to False)."""
        hit, value = self._forced(name)
        if hit:
            return bool(value)
        if p <= 0:
            return False
        if p >= 1:
            return True
        return self._index(name, 100) >= 100 - round(100 * p)

    def pick(self, name: str, options: Sequence[T]) -> T:
        """One of ``options`` (shrinks to the first)."""
        hit, value = self._forced(name)
        if hit:
            return value  # type: ignore[no-any-return]
        return options[self._index(name, len(options))]

    def weighted(self, name: str, options: Mapping[str, int]) -> str:
        """One of the keys, by weight (shrinks to the first key)."""
        hit, value = self._forced(name)
        if hit:
            return str(value)
        total = sum(options.values())
        n = self._index(name, total)
        for key, weight in options.items():
            if n < weight:
                return key
            n -= weight
        raise AssertionError("unreachable")

    def binary(self, name: str, size: int) -> bytes:
        hit, value = self._forced(name)
        return bytes(value) if hit else self._bytes(name, size)


class SeedChoices(Choices):
    def __init__(self, rng: random.Random, forced: Mapping[str, Any] | None = None) -> None:
        super().__init__(forced)
        self.rng = rng

    def _draw(self, name: str, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def _bytes(self, name: str, size: int) -> bytes:
        return self.rng.randbytes(size)


class DataChoices(Choices):
    """Decisions drawn from hypothesis's ``st.data()`` (so that they shrink)."""

    def __init__(self, data: Any, forced: Mapping[str, Any] | None = None) -> None:
        super().__init__(forced)
        self.data = data

    def _draw(self, name: str, lo: int, hi: int) -> int:
        from hypothesis import strategies as st

        # A small range uniformly, as a seed draws it (st.integers favours
        # small values, which would make most matches the same), shrinking
        # towards ``lo``; a large one (a seed, an offset) as hypothesis likes.
        if hi - lo < 1000:
            return int(self.data.draw(st.sampled_from(range(lo, hi + 1)), label=name))
        return int(self.data.draw(st.integers(lo, hi), label=name))

    def _bytes(self, name: str, size: int) -> bytes:
        from hypothesis import strategies as st

        return bytes(self.data.draw(st.binary(min_size=size, max_size=size), label=name))


def as_choices(source: object, forced: Mapping[str, Any] | None = None) -> Choices:
    if isinstance(source, Choices):
        return source
    if isinstance(source, int):
        return SeedChoices(random.Random(source), forced)
    if isinstance(source, random.Random):
        return SeedChoices(source, forced)
    if hasattr(source, "draw"):
        return DataChoices(source, forced)
    raise TypeError(f"cannot draw choices from {source!r}")


# ------------------------------------------------------------------ speed


class _Memo:
    """A pure libsodium function with its results (or its exception) remembered."""

    LIMIT = 100_000

    def __init__(self, real: Callable[..., Any]) -> None:
        self.real = real
        self.results: dict[tuple[bytes, ...], Any] = {}

    def __call__(self, *args: bytes) -> Any:
        key = tuple(bytes(a) for a in args)
        hit = self.results.get(key)
        if hit is None:
            if len(self.results) > self.LIMIT:
                self.results.clear()
            try:
                hit = self.real(*args)
            except Exception as exc:
                hit = exc
            self.results[key] = hit
        if isinstance(hit, Exception):
            raise type(hit)(*hit.args)
        return hit


_PURE = (
    "crypto_scalarmult_ed25519_noclamp",
    "crypto_core_ed25519_is_valid_point",
    "crypto_sign_open",
)


@contextlib.contextmanager
def crypto_cache() -> Iterator[None]:
    """Inside the block, libsodium's costliest pure functions (a scalar
    product, a point check, a signature check) remember their results: a
    match's files are audited five or six times over, each time with the
    very same products and signatures. Only libsodium's answers are cached;
    every line of lcnet runs as usual. Restored on leaving the block."""
    bindings = nacl.bindings
    if isinstance(getattr(bindings, _PURE[0]), _Memo):
        yield
        return
    saved = {name: getattr(bindings, name) for name in _PURE}
    for name, real in saved.items():
        setattr(bindings, name, _Memo(real))
    try:
        yield
    finally:
        for name, real in saved.items():
            setattr(bindings, name, real)


def run(
    source: object, forced: Mapping[str, Any] | None = None
) -> tuple[Case, list[str], list[str]]:
    """Generate one match and examine it (with :func:`crypto_cache`)."""
    with crypto_cache():
        case = generate(source, forced)
        violations, doubts = examine(case)
    return case, violations, doubts


# ------------------------------------------------------------------ files


def record(kind: int, payload: bytes) -> bytes:
    """One replay-file record: length ‖ kind ‖ payload ‖ CRC-32 (PROTOCOL §7.1)."""
    body = bytes([kind]) + payload
    return len(body).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")


def file_bytes(seat: str, records: Sequence[tuple[int, bytes]]) -> bytes:
    """A replay file, byte for byte what a ReplayWriter writes for these records."""
    header = ReplayHeader(seat=seat, created="test", software="test")
    out = [MAGIC, record(RecordKind.HEADER, header.to_payload())]
    out.extend(record(kind, payload) for kind, payload in records)
    return b"".join(out)


NOTE_PAYLOAD = msgpack.packb({"received": 1.0}, use_bin_type=True)


# ------------------------------------------------------------------ frames


def sign_fields(key: nacl.signing.SigningKey, fields: Mapping[str, object]) -> bytes:
    """Sign any body: the fields as a canonical msgpack map (sorted keys)."""
    body = msgpack.packb(dict(sorted(fields.items())), use_bin_type=True)
    return wire.sign_frame(body, key)


def fields_of(message: wire.Message, header: FrameHeader | None) -> dict[str, object]:
    out: dict[str, object] = dict(message.to_fields())
    out["t"] = message.TYPE
    if header is not None:
        seq, prev, game = header
        out["seq"] = seq
        if prev is not None:
            out["prev"] = prev
        if game is not None:
            out["game"] = game
    return out


def decode(raw: bytes) -> wire.Frame | None:
    try:
        return wire.decode_frame(raw, allow_unknown_fields=True)
    except wire.MalformedFrame:
        return None


def scalar(n: int) -> bytes:
    return (n % GROUP_ORDER or 1).to_bytes(32, "little")


class QuickBot:
    """Random put-downs; draws from the draw pile most of the time (a round
    then takes ~45 turns instead of ~140), otherwise any legal draw."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose_turn(self, view: View) -> Turn:
        put_down = self.rng.choice(view.legal_put_downs())
        draws = view.legal_draws(put_down)
        deck = [d for d in draws if d.from_deck]
        if deck and self.rng.random() < 0.9:
            return Turn(put_down, deck[0])
        return Turn(put_down, self.rng.choice(draws))


# ------------------------------------------------------------------ the cheater


class _OwnFault(Exception):
    """The cheater's own session refused a frame it rewrote: it stops playing."""


class CheaterSession(Session):
    """A real session whose owner (:class:`Adversary`) may rewrite what it signs."""

    adversary: Adversary
    confused = False
    emitted: list[bytes]
    """Every frame this session signed, even one its own checks then refused."""

    def _build_auto(self) -> wire.Message:
        return self.adversary.built(self, super()._build_auto())

    def new_round(self, number: int, starter: Seat) -> RoundTrack:
        track = super().new_round(number, starter)
        seed = self.adversary.seed_for(number)
        if seed is not None and self.options is not None and self.game_id is not None:
            track.deck = PlayerDeck(
                RoundDeal(
                    seat=self.seat,
                    suit_count=self.options.suits,
                    game_id=self.game_id,
                    round_number=track.number,
                    seed=seed,
                )
            )
        return track

    def emit(self, message: wire.Message, step: Step) -> wire.Frame:
        raw = self.adversary.sign_own(self, message)
        self.emitted.append(raw)
        frame = decode(raw)
        if frame is None:
            self.confused = True
            raise _OwnFault("the cheater signed a frame that does not decode")
        try:
            self.append_own(frame, step)
        except Exception as exc:
            self.confused = True
            raise _OwnFault(str(exc)) from exc
        return frame


class Adversary:
    """What the cheater knows and does: its key, every frame it holds, its plans."""

    def __init__(
        self, ch: Choices, seat: Seat, key: nacl.signing.SigningKey, master: bytes, suits: int
    ) -> None:
        self.ch = ch
        self.seat = seat
        self.key = key
        self.master = master
        self.suits = suits
        self.log: list[str] = []
        self.held: list[bytes] = []
        self._held_set: set[bytes] = set()
        self.by_seq: dict[int, list[wire.Frame]] = {}
        self.own_seqs: list[int] = []
        self.other_seqs: list[int] = []
        self.game_id: bytes | None = None
        self.announce = False
        self.plant_rate = 0
        self.plants: list[bytes] = []
        """Planted byte strings (to aim damage at them)."""
        self.seeds: dict[int, bytes] = {}
        self.choose_seeds = False
        self.nonce: bytes | None = None
        self.rewrite_next = 0
        self.header_next = 0
        self.plant_on: set[str] = set()
        """Message types whose next frame gets planted bytes for sure."""
        self._quiet = 0

    def say(self, line: str) -> None:
        if not self._quiet:
            self.log.append(line)

    # -- knowledge

    def hold(self, raw: bytes, own: bool) -> None:
        if raw in self._held_set:
            return
        self._held_set.add(raw)
        self.held.append(raw)
        frame = decode(raw)
        if frame is None or frame.seq is None:
            return
        if frame.seq == 0 and self.game_id is None and isinstance(frame.message, wire.Hello):
            self.game_id = hashing.game_id(raw)
        self.by_seq.setdefault(frame.seq, []).append(frame)
        (self.own_seqs if own else self.other_seqs).append(frame.seq)

    @property
    def frontier(self) -> int:
        return max(self.by_seq, default=-1) + 1

    def round_seed(self, number: int) -> bytes:
        if number in self.seeds:
            return self.seeds[number]
        return hashing.round_seed(self.master, self.game_id or bytes(32), number)

    def seed_for(self, number: int) -> bytes | None:
        if not self.choose_seeds:
            return None
        if number not in self.seeds:
            self.seeds[number] = self.bytes32(f"seed{number}")
            self.log.append(f"chooses its round {number} seed {self.seeds[number].hex()}")
        return self.seeds[number]

    def bytes32(self, what: str) -> bytes:
        """32 bytes of its choice: random, or a small intact replay record inside."""
        ch = self.ch
        if ch.chance("plant32", 0.6):
            kind = ch.pick("plant32_kind", [RecordKind.NOTE, 77, RecordKind.FRAME])
            payload = ch.binary("plant32_payload", ch.integer("plant32_len", 1, 12))
            if kind == RecordKind.NOTE and ch.chance("plant32_map", 0.5):
                payload = b"\x80"
            rec = record(kind, payload)
            lead = ch.integer("plant32_lead", 0, 32 - len(rec))
            out = ch.binary("plant32_pad", lead) + rec
            out += ch.binary("plant32_pad", 32 - len(out))
            self.plants.append(rec)
            return out
        return ch.binary(what, 32)

    # -- its own frames

    def built(self, session: Session, message: wire.Message) -> wire.Message:
        """The cheater's say over the frames its session builds by itself."""
        if isinstance(message, wire.Hello | wire.Welcome) and self.announce:
            message = _replace(message, v=[1, 2])
        if self.nonce is not None:
            if isinstance(message, wire.Hello):
                message = _replace(message, coin=hashing.coin_commitment(self.nonce))
            elif isinstance(message, wire.Welcome):
                message = _replace(message, coin=self.nonce)
            elif isinstance(message, wire.Coin):
                message = _replace(message, nonce=self.nonce)
        return message

    def sign_own(self, session: Session, message: wire.Message) -> bytes:
        ch = self.ch
        header = session.next_header()
        fields = fields_of(message, header)
        if self.rewrite_next:
            self.rewrite_next -= 1
            fields = self.mutate(fields, header)
        if self.header_next:
            self.header_next -= 1
            fields = self.mutate_header(fields)
        plant = fields.get("t") in self.plant_on or (
            self.plant_rate > 0 and ch.integer("plant_roll", 0, 9) < self.plant_rate
        )
        if plant:
            self.plant_on.discard(str(fields.get("t")))
            planted = self.planted(header)
            name = ch.pick("plant_field", ["~", "zz", "x", "a"])
            candidate = dict(fields)
            candidate[name] = planted
            raw = sign_fields(self.key, candidate)
            if len(raw) <= wire.MAX_FRAME_BYTES and name not in fields:
                self.plants.append(planted)
                self.log.append(
                    f"plants {len(planted)} bytes (field {name!r}) in its {fields.get('t')} "
                    f"at {fields.get('seq')}"
                )
                self.hold(raw, own=True)
                return raw
        raw = sign_fields(self.key, fields)
        self.hold(raw, own=True)
        return raw

    def planted(self, header: FrameHeader) -> bytes:
        """Bytes that look like whole replay records (or plain bytes)."""
        ch = self.ch
        out = b""
        for _ in range(ch.integer("plant_records", 1, 3)):
            kind = ch.weighted(
                "plant_kind",
                {
                    "note": 3,
                    "frame-alt": 3,
                    "frame-held": 2,
                    "evidence": 3,
                    "unknown": 1,
                    "header": 1,
                    "raw": 1,
                },
            )
            if kind == "note":
                out += record(
                    RecordKind.NOTE, NOTE_PAYLOAD if ch.chance("note_map", 0.5) else b"\x80"
                )
            elif kind == "frame-alt":
                # Another frame for the very position being signed.
                alt = sign_fields(self.key, self.random_fields(header, "alt"))
                self.hold(alt, own=True)
                self.say(
                    f"plants, as a FRAME record, another frame for its position: {_label(alt)}"
                )
                out += record(RecordKind.FRAME, alt)
            elif kind in ("frame-held", "evidence"):
                if not self.held:
                    continue
                raw = ch.pick("plant_held", self.held)
                if len(raw) > 1200:
                    continue
                rk = RecordKind.FRAME if kind == "frame-held" else RecordKind.EVIDENCE
                out += record(rk, raw)
            elif kind == "unknown":
                out += record(77, ch.binary("plant_unknown", ch.integer("plant_len", 1, 8)))
            elif kind == "header":
                out += record(RecordKind.HEADER, ReplayHeader("host", "x", "x").to_payload())
            else:
                out += ch.binary("plant_raw", ch.integer("plant_len", 1, 16))
        return out or b"\x00"

    # -- forging

    def position(self, name: str) -> int:
        ch = self.ch
        frontier = self.frontier
        options = {
            "frontier": 5,
            "last-other": 4,
            "last-own": 2,
            "any": 2,
            "ahead": 1,
        }
        which = ch.weighted(name, options)
        if which == "last-other" and self.other_seqs:
            return self.other_seqs[-1]
        if which == "last-own" and self.own_seqs:
            return self.own_seqs[-1]
        if which == "any":
            return ch.integer(name + "_any", 0, max(frontier, 0))
        if which == "ahead":
            return frontier + 1
        return frontier

    def header_at(self, seq: int) -> FrameHeader:
        ch = self.ch
        if seq == 0:
            return FrameHeader(0, None, None)
        before = self.by_seq.get(seq - 1)
        if before and not ch.chance("random_prev", 0.05):
            prev = ch.pick("prev_of", before).hash
        else:
            prev = ch.binary("prev", 32)
        game = self.game_id if self.game_id and not ch.chance("random_game", 0.05) else None
        return FrameHeader(seq, prev, game or ch.binary("game", 32))

    def forge(self, seq: int, what: str, kind: str | None = None) -> bytes:
        header = self.header_at(seq)
        fields = self.random_fields(header, what, kind)
        raw = sign_fields(self.key, fields)
        self.hold(raw, own=True)
        self.log.append(f"signs {_describe_fields(fields)}")
        return raw

    def random_fields(
        self, header: FrameHeader, what: str, kind: str | None = None
    ) -> dict[str, object]:
        """A message of any type (mostly schema-valid), with ``header``."""
        ch = self.ch
        kind = kind or ch.weighted(
            what + "_type",
            {
                "dispute": 6,
                "resign": 2,
                "move": 2,
                "ack": 2,
                "result": 1,
                "reveal": 1,
                "keys": 1,
                "commit": 1,
                "pass": 1,
                "coin": 1,
                "hello": 1,
                "welcome": 1,
            },
        )
        n = 60 if self.suits == 5 else 72
        rnd = ch.integer("round", 1, 2)
        message: wire.Message
        if kind == "dispute":
            message = self.dispute(header.seq)
        elif kind == "resign":
            message = wire.Resign()
        elif kind == "move":
            hidden = ch.chance("move_hidden", 0.5)
            message = wire.MoveMsg(
                card=ch.integer("card", 0, n - 1),
                discard=ch.chance("discard", 0.5),
                draw=ch.integer("draw", -1, self.suits - 1),
                pos=ch.integer("pos", 0, n - 1) if hidden else None,
                key=scalar(ch.integer("key", 1, 2**64)) if hidden else None,
            )
        elif kind == "ack":
            message = wire.Ack(
                key=scalar(ch.integer("key", 1, 2**64)) if ch.chance("ack_key", 0.5) else None
            )
        elif kind == "result":
            a, b = ch.integer("score", -50, 100), ch.integer("score", -50, 100)
            message = wire.Result(scores=[[a, b]], totals=[a, b])
        elif kind == "reveal":
            seed = self.round_seed(rnd) if ch.chance("right_seed", 0.5) else ch.binary("seed", 32)
            message = wire.Reveal(round=rnd, seed=seed)
        elif kind == "keys":
            message = wire.DealKeys(
                round=rnd, keys=b"".join(scalar(ch.integer("key", 1, 2**64)) for _ in range(8))
            )
        elif kind == "commit":
            message = wire.Commit(round=rnd, commit=ch.binary("commit", 32))
        elif kind == "pass":
            message = wire.DeckPass(
                round=rnd, n=ch.integer("pass_n", 1, 4), points=ch.binary("points", 32) * n
            )
        elif kind == "coin":
            message = wire.Coin(nonce=ch.binary("nonce", 32))
        elif kind == "hello":
            message = wire.Hello(
                v=[1, 0], name="Eve", key=bytes(self.key.verify_key), coin=ch.binary("coin", 32)
            )
        else:
            message = wire.Welcome(
                v=[1, 0],
                name="Eve",
                key=bytes(self.key.verify_key),
                suits=self.suits,
                rounds=1,
                coin=ch.binary("coin", 32),
            )
        fields = fields_of(message, header)
        if ch.chance(what + "_mutate", 0.15):
            self._quiet += 1
            try:
                fields = self.mutate(fields, header)
            finally:
                self._quiet -= 1
        return fields

    def dispute(self, at: int) -> wire.Dispute:
        ch = self.ch
        which = ch.weighted(
            "about",
            {"own-position": 3, "before": 3, "last-other": 3, "any": 2, "above": 1, "zero": 1},
        )
        if which == "own-position":
            about = at
        elif which == "before":
            about = max(at - 1, 0)
        elif which == "last-other" and self.other_seqs:
            about = self.other_seqs[-1]
        elif which == "above":
            about = at + ch.integer("above", 1, 3)
        elif which == "zero":
            about = 0
        else:
            about = ch.integer("about_any", 0, max(at, 0))
        target = self.by_seq.get(about)
        frame_hash = ch.pick("about_frame", target).hash if target else ch.binary("about_hash", 32)
        seed_kind = ch.weighted("dispute_seed", {"none": 2, "right": 3, "wrong": 2, "round1": 1})
        seed: bytes | None = None
        if seed_kind == "right":
            seed = self.round_seed(ch.integer("seed_round", 1, 2))
        elif seed_kind == "wrong":
            seed = ch.binary("seed", 32)
        elif seed_kind == "round1":
            seed = self.round_seed(1)
        reason = ch.pick("reason", ["", "cheat", "you lie", "x" * 40])
        return wire.Dispute(about=about, frame=frame_hash, reason=reason, seed=seed)

    def mutate(self, fields: dict[str, object], header: FrameHeader) -> dict[str, object]:
        """Change one thing in a message: a field, its type, a missing field."""
        ch = self.ch
        out = dict(fields)
        how = ch.weighted("mutation", {"field": 6, "type": 3, "drop": 1})
        keys = sorted(k for k in out if k not in ("t", "seq", "prev", "game"))
        if how == "type" or not keys:
            new = self.random_fields(header, "retype")
            self.say(f"rewrites its {out.get('t')} at {out.get('seq')} as a {new.get('t')}")
            return new
        key = ch.pick("mutate_key", keys)
        if how == "drop":
            del out[key]
            self.say(f"drops field {key!r} of its {out.get('t')} at {out.get('seq')}")
            return out
        out[key] = self.mutate_value(key, out[key])
        self.say(f"changes field {key!r} of its {out.get('t')} at {out.get('seq')}")
        return out

    def mutate_value(self, key: str, value: object) -> object:
        ch = self.ch
        if isinstance(value, bool):
            return not value
        if isinstance(value, int):
            return ch.pick(
                "int", [value + 1, value - 1, 0, value + 2, ch.integer("int_any", 0, 80), 2**32]
            )
        if isinstance(value, bytes) and len(value) == 32:
            return ch.pick(
                "bin32",
                [
                    ch.binary("bin32_random", 32),
                    bytes(32),
                    GROUP_ORDER.to_bytes(32, "little"),
                    scalar(ch.integer("key", 1, 2**64)),
                ],
            )
        if isinstance(value, bytes) and len(value) % 32 == 0 and len(value) >= 64:
            items = [value[i : i + 32] for i in range(0, len(value), 32)]
            i, j = ch.integer("item", 0, len(items) - 1), ch.integer("item", 0, len(items) - 1)
            how = ch.pick("bins", ["swap", "duplicate", "random", "zero", "grow", "shrink"])
            if how == "swap":
                items[i], items[j] = items[j], items[i]
            elif how == "duplicate":
                items[i] = items[j - 1]
            elif how == "random":
                items[i] = ch.binary("item_random", 32)
            elif how == "zero":
                items[i] = bytes(32)
            elif how == "grow":
                items += items[:12]
            else:
                items = items[:-12] if len(items) > 12 else items[:-1]
            return b"".join(items)
        if isinstance(value, list):
            if key == "v":
                return ch.pick("version", [[1, 2], [2, 0], [1, 0, 0], [0, 9]])
            flat = msgpack.packb(value)
            return msgpack.unpackb(flat[:-1] + bytes([(flat[-1] + 1) % 0x7F]))
        if isinstance(value, str):
            return ch.pick("text", ["", "Eve", "a\u200bb", "x" * 70])
        return value

    def mutate_header(self, fields: dict[str, object]) -> dict[str, object]:
        ch = self.ch
        out = dict(fields)
        which = ch.pick("header_field", ["seq", "prev", "game"])
        if which == "seq" and isinstance(out.get("seq"), int):
            seq = out["seq"]
            assert isinstance(seq, int)
            out["seq"] = max(seq + ch.pick("seq_delta", [-1, 1, -2, 2]), 0)
        elif which == "prev" and "prev" in out:
            before = self.by_seq.get(ch.integer("prev_pos", 0, self.frontier))
            out["prev"] = ch.pick("prev_frame", before).hash if before else ch.binary("prev", 32)
        elif "game" in out:
            out["game"] = ch.binary("game", 32)
        self.say(f"signs its {out.get('t')} with {which} changed (seq {out.get('seq')})")
        return out


def _replace(message: wire.Message, **changes: object) -> wire.Message:
    values = dict(message.to_fields())
    values.update(changes)
    return type(message)(**values)


def _describe_fields(fields: Mapping[str, object]) -> str:
    t = fields.get("t")
    out = f"a {t} for position {fields.get('seq')}"
    if t == "dispute":
        seed = "no seed" if "seed" not in fields else "a seed"
        out += f" about {fields.get('about')} ({seed})"
    return out


# ------------------------------------------------------------------ the match


@dataclass
class Case:
    """One generated match, what the cheater did, and the files to audit."""

    honest: Seat
    suits: int
    rounds: int
    layout: str
    log: list[str]
    clean: bytes
    """The honest player's file as it wrote it."""
    damaged: bytes | None
    """The same file after the cheater damaged it (``None``: not damaged)."""
    twin: bytes
    """The cheater's file, as it hands it over."""
    honest_positions: frozenset[int]
    """Positions of the frames the honest player signed (its transcript)."""
    intact_honest_positions: frozenset[int]
    """Of those, the ones whose FRAME record no damage touched."""
    honest_key: bytes
    """The honest player's public key (who an accusation names is its key)."""
    honest_dispute: DisputeInfo | None
    honest_over: bool
    honest_sealed: bool
    honest_failure: str | None
    frames: int
    crashes: list[str] = field(default_factory=list)
    seed: int | None = None
    lawful: bool = False
    """The cheater played by the rules and every frame was delivered: the
    match must then end sealed."""

    @property
    def cheater(self) -> Seat:
        return self.honest.other

    def describe(self) -> str:
        head = (
            f"honest {self.honest}, {self.suits} suits, {self.rounds} round(s), "
            f"{self.layout} file, {self.frames} frames"
        )
        return head + "".join(f"\n  - {line}" for line in self.log)


class AdversaryTable:
    """The honest session and the cheater's; every frame goes as bytes through
    one queue the cheater controls. Each side's random bot moves when its
    session awaits a decision. Its settings are drawn from ``ch`` (pin them
    with ``forced``: honest, six_suits, two_rounds, layout)."""

    def __init__(self, ch: Choices, seed: int) -> None:
        self.ch = ch
        rng = random.Random(seed)
        self.honest_seat: Seat = ch.pick("honest", [Seat.HOST, Seat.JOINER])
        self.cheater_seat = self.honest_seat.other
        self.suits = 6 if ch.chance("six_suits", 0.1) else 5
        self.rounds = 2 if ch.chance("two_rounds", 0.1) else 1
        self.layout = ch.pick("layout", ["table", "net"])
        keys = {s: nacl.signing.SigningKey(rng.randbytes(32)) for s in Seat}
        masters = {s: rng.randbytes(32) for s in Seat}
        self.keys = keys
        options = MatchOptions(suits=self.suits, rounds=self.rounds)
        self.honest = Session(
            seat=self.honest_seat,
            signing_key=keys[self.honest_seat],
            master_secret=masters[self.honest_seat],
            name=HONEST_NAME[self.honest_seat],
            options=options if self.honest_seat is Seat.HOST else None,
        )
        cheater = CheaterSession(
            seat=self.cheater_seat,
            signing_key=keys[self.cheater_seat],
            master_secret=masters[self.cheater_seat],
            name=HONEST_NAME[self.cheater_seat],
            options=options if self.cheater_seat is Seat.HOST else None,
        )
        self.adv = Adversary(
            ch, self.cheater_seat, keys[self.cheater_seat], masters[self.cheater_seat], self.suits
        )
        cheater.adversary = self.adv
        cheater.emitted = []
        self.cheater = cheater
        self.bots = {s: QuickBot(random.Random(rng.getrandbits(64))) for s in Seat}
        self.queue: deque[tuple[Seat, bytes]] = deque()
        self.honest_records: list[tuple[int, bytes]] = []
        self.honest_meta: list[int | None] = []
        """Per honest record: the seq of a frame the honest player signed, else None."""
        self.cheater_records: list[tuple[int, bytes]] = []
        self.wire: list[bytes] = []
        self.honest_failure: str | None = None
        self.cheater_emitted = 0
        self.deliveries = 0
        self.lawful = False

    # -- the honest side

    def honest_step(self, step: Step) -> None:
        if step.evidence is not None:
            self._honest_record(RecordKind.EVIDENCE, step.evidence.raw, None)
        if step.accepted is not None:
            self._honest_record(RecordKind.FRAME, step.accepted.raw, None)
            if self.layout == "net":
                self._honest_record(RecordKind.NOTE, NOTE_PAYLOAD, None)
        for frame in step.outgoing:
            self._honest_record(RecordKind.FRAME, frame.raw, frame.seq)
            self.queue.append((self.cheater_seat, frame.raw))
            self.wire.append(frame.raw)
            self.adv.hold(frame.raw, own=False)
        honest = self.honest
        if honest.awaiting_decision and self.honest_failure is None:
            view = honest.view()
            assert view is not None
            try:
                step = honest.play(self.bots[self.honest_seat].choose_turn(view))
            except Exception as exc:
                self.honest_failed(exc)
                return
            self.honest_step(step)

    def _honest_record(self, kind: int, payload: bytes, seq: int | None) -> None:
        self.honest_records.append((kind, payload))
        self.honest_meta.append(seq)

    def honest_failed(self, exc: BaseException) -> None:
        cause = exc.__cause__ if isinstance(exc, SessionFailed) else exc
        self.honest_failure = f"{type(exc).__name__} ({type(cause).__name__}): {exc}"

    def to_honest(self, raw: bytes) -> None:
        if self.honest_failure is not None:
            return
        try:
            step = self.honest.receive(raw)
        except Exception as exc:
            self.honest_failed(exc)
            return
        self.honest_step(step)

    # -- the cheater side

    def to_cheater(self, raw: bytes) -> None:
        step: Step | None = None
        cheater = self.cheater
        if cheater.failure is None:
            try:
                step = cheater.receive(raw)
            except Exception:
                cheater.confused = True
        self.cheater_flush(step)

    def cheater_flush(self, step: Step | None) -> None:
        if step is not None:
            if step.evidence is not None:
                self.cheater_records.append((RecordKind.EVIDENCE, step.evidence.raw))
            if step.accepted is not None:
                self.cheater_records.append((RecordKind.FRAME, step.accepted.raw))
        new = self.cheater.emitted[self.cheater_emitted :]
        self.cheater_emitted += len(new)
        for raw in new:
            self.cheater_records.append((RecordKind.FRAME, raw))
            self.queue.append((self.honest_seat, raw))
            self.wire.append(raw)
        cheater = self.cheater
        if cheater.awaiting_decision and not cheater.confused:
            view = cheater.view()
            assert view is not None
            step = None
            try:
                step = cheater.play(self.bots[self.cheater_seat].choose_turn(view))
            except Exception:
                cheater.confused = True
            self.cheater_flush(step)

    # -- running

    def start(self) -> None:
        joiner_is_honest = self.honest_seat is Seat.JOINER
        if joiner_is_honest:
            try:
                step = self.honest.start()
            except Exception as exc:
                self.honest_failed(exc)
                return
            self.honest_step(step)
        else:
            self._cheater_call(self.cheater.start)

    def relay(self, until: Callable[[AdversaryTable], bool] | None = None) -> None:
        """Deliver queued frames in order until none is left (or ``until`` holds)."""
        while self.queue and self.honest_failure is None:
            if until is not None and until(self):
                return
            if self.deliveries >= MAX_DELIVERIES:
                return
            to, raw = self.queue.popleft()
            self.deliveries += 1
            if to is self.honest_seat:
                self.to_honest(raw)
            else:
                self.to_cheater(raw)

    def honest_file(self) -> bytes:
        """The honest player's replay file as it wrote it."""
        return file_bytes(str(self.honest_seat), self.honest_records)

    def cheater_file(self) -> bytes:
        """The file the cheater's session wrote (as the Table does)."""
        return file_bytes(str(self.cheater_seat), self.cheater_records)

    def case(
        self, twin: bytes, damaged: bytes | None = None, touched: bytearray | None = None
    ) -> Case:
        """The match as :func:`check` judges it: the honest file (``damaged``,
        with ``touched`` marking the bytes the damage changed), and ``twin``."""
        honest = self.honest
        clean = self.honest_file()
        positions = frozenset(s for s in self.honest_meta if s is not None)
        intact = positions
        if touched is not None:
            spans = _spans(clean)[1:]  # after the header: one span per record
            intact = frozenset(
                seq
                for (start, end), seq in zip(spans, self.honest_meta, strict=True)
                if seq is not None and not any(touched[start:end])
            )
        crashes = [] if self.honest_failure is None else [f"crash-honest: {self.honest_failure}"]
        return Case(
            lawful=self.lawful,
            honest=self.honest_seat,
            suits=self.suits,
            rounds=self.rounds,
            layout=self.layout,
            log=self.adv.log,
            clean=clean,
            damaged=damaged,
            twin=twin,
            honest_positions=positions,
            intact_honest_positions=intact,
            honest_key=bytes(self.keys[self.honest_seat].verify_key),
            honest_dispute=honest.dispute,
            honest_over=honest.is_over,
            honest_sealed=honest.sealed,
            honest_failure=self.honest_failure,
            frames=len(honest.chain),
            crashes=crashes,
        )

    def _cheater_call(self, call: Callable[[], Step]) -> None:
        step: Step | None = None
        try:
            step = call()
        except Exception:
            self.cheater.confused = True
        self.cheater_flush(step)


def _play(ch: Choices, table: AdversaryTable) -> None:
    adv = table.adv
    # Before the match: what the cheater announces and chooses.
    adv.announce = ch.chance("announce_minor", 0.3)
    if adv.announce:
        adv.log.append("announces protocol version 1.2")
        adv.plant_rate = ch.integer("plant_rate", 0, 6)
    elif ch.chance("plant_anyway", 0.05):
        adv.plant_rate = ch.integer("plant_rate", 1, 3)
    adv.choose_seeds = ch.chance("choose_seeds", 0.2)
    if ch.chance("choose_nonce", 0.15):
        adv.nonce = adv.bytes32("nonce")
        adv.log.append(f"chooses its coin nonce {adv.nonce.hex()}")
    cheats = ch.weighted("live_cheats", {"0": 3, "1": 5, "2": 3, "3": 1})
    triggers = sorted(
        ch.integer("trigger", 0, ch.pick("trigger_range", [14, 40, 120]))
        for _ in range(int(cheats))
    )
    # Matches without live cheating are mostly played to the end.
    tail_choice = ch.pick("tail", [-1, -1, 10, 30] if cheats == "0" else [0, 3, 10, 30, -1])
    tail = None if tail_choice < 0 else tail_choice
    # Announcing a newer minor and adding fields, choosing seeds and a nonce
    # break no rule (§5.5, §2.1, §4); anything else live may.
    lawful = cheats == "0" and (adv.announce or not adv.plant_rate)
    table.start()
    while table.honest_failure is None and table.deliveries < MAX_DELIVERIES:
        while triggers and (table.honest.next_seq >= triggers[0] or not table.queue):
            triggers.pop(0)
            _cheat(ch, table)
        if not table.queue:
            table.lawful = lawful and tail is None and not table.cheater.confused
            break
        if not triggers and tail is not None:
            if tail == 0:
                adv.log.append(f"stops relaying after {table.deliveries} deliveries")
                break
            tail -= 1
        to, raw = table.queue.popleft()
        table.deliveries += 1
        if to is table.honest_seat:
            table.to_honest(raw)
        else:
            table.to_cheater(raw)


def _cheat(ch: Choices, table: AdversaryTable) -> None:
    adv = table.adv
    action = ch.weighted(
        "cheat",
        {
            "dispute": 5,
            "forge": 4,
            "rewrite": 4,
            "header": 2,
            "replay": 3,
            "drop": 2,
            "reorder": 2,
            "equivocate": 2,
            "resign": 1,
            "plant": 1,
        },
    )
    to_honest = [i for i, (to, _) in enumerate(table.queue) if to is table.honest_seat]
    front = ch.chance("send_first", 0.7)

    def send(raw: bytes) -> None:
        table.wire.append(raw)
        if front:
            table.queue.appendleft((table.honest_seat, raw))
        else:
            table.queue.append((table.honest_seat, raw))

    if action in ("dispute", "forge", "resign"):
        kind = {"dispute": "dispute", "resign": "resign", "forge": None}[action]
        send(adv.forge(adv.position("forge_pos"), "forge", kind))
    elif action == "rewrite":
        adv.rewrite_next += 1
    elif action == "header":
        adv.header_next += 1
    elif action == "plant":
        adv.plant_rate = max(adv.plant_rate, 5)
    elif action == "replay" and adv.held:
        raw = ch.pick("replayed", adv.held)
        adv.log.append(f"re-sends a frame it holds ({_label(raw)})")
        send(raw)
    elif action == "drop" and to_honest:
        index = ch.pick("dropped", to_honest)
        _, raw = table.queue[index]
        del table.queue[index]
        adv.log.append(f"drops its {_label(raw)}")
    elif action == "reorder" and len(to_honest) > 1:
        index = ch.pick("reordered", to_honest[1:])
        item = table.queue[index]
        del table.queue[index]
        table.queue.appendleft(item)
        adv.log.append(f"sends its {_label(item[1])} out of order")
    elif action == "equivocate" and adv.own_seqs:
        seq = ch.pick("equivocated", adv.own_seqs[-3:])
        send(adv.forge(seq, "equivocate"))


def _label(raw: bytes) -> str:
    frame = decode(raw)
    return "malformed frame" if frame is None else f"{frame.type} at {frame.seq}"


# ------------------------------------------------------------------ damage


def _spans(data: bytes) -> list[tuple[int, int]]:
    out, offset = [], len(MAGIC)
    while offset + 4 <= len(data):
        end = offset + 4 + int.from_bytes(data[offset : offset + 4], "big") + 4
        out.append((offset, end))
        offset = end
    return out


def damage(
    ch: Choices, data: bytes, plants: Sequence[bytes], log: list[str], who: str
) -> tuple[bytes, bytearray]:
    """Natural damage (flipped bits, overwritten, deleted or cut-off bytes),
    aimed at the end of the file and at bytes planted in frames. Returns the
    damaged bytes and which original bytes were touched."""
    spans = _spans(data)
    touched = bytearray(len(data))
    cur = bytearray(data)
    origin = list(range(len(data)))
    planted_at = [
        (start, data.find(p, start, end))
        for start, end in spans
        for p in plants
        if len(p) >= 9 and data.find(p, start, end) > start
    ]
    for _ in range(int(ch.weighted("damage_ops", {"1": 4, "2": 2, "3": 1}))):
        if not cur:
            break
        aim = ch.weighted(
            "damage_aim", {"end": 3, "tail": 3, "planted": 3 if planted_at else 0, "any": 3}
        )
        frame_spans = [(a, b) for a, b in spans if data[a + 4] == RecordKind.FRAME]
        if aim == "tail" and frame_spans:
            # Hide the last frames: from inside one of them up to the last
            # record, which survives (a NOTE, or a record planted in a frame).
            start, end = frame_spans[-ch.integer("tail_k", 1, min(3, len(frame_spans)))]
            target = ch.integer("damage_at", start, end - 1)
            i = min(bisect.bisect_left(origin, target), len(cur) - 1)
            last = bisect.bisect_left(origin, spans[-1][0])
            op = ch.pick("tail_op", ["flip", "overwrite", "delete"])
            stop = last if last > i else i + 1
            if op == "flip" or stop - i < 2:
                cur[i] ^= 1 << ch.integer("damage_bit", 0, 7)
                touched[origin[i]] = 1
                log.append(f"flips a bit of {who}'s byte {origin[i]} (near the end)")
                continue
            for j in range(i, stop):
                touched[origin[j]] = 1
            log.append(
                f"{op}s {who}'s bytes {origin[i]}-{origin[stop - 1]} (up to its last record)"
            )
            if op == "overwrite":
                cur[i:stop] = ch.binary("damage_fill", stop - i)
            else:
                del cur[i:stop]
                del origin[i:stop]
            continue
        if aim == "planted":
            start, at = ch.pick("damage_plant", planted_at)
            target = ch.integer("damage_at", start, at - 1)
        else:
            candidates = spans[-6:] if aim == "end" else spans
            start, end = ch.pick("damage_record", candidates)
            target = ch.integer("damage_at", start, end - 1)
        # Map the original offset to where it is now (deletions shift bytes).
        i = min(bisect.bisect_left(origin, target), len(cur) - 1)
        op = ch.weighted(
            "damage_op", {"flip": 4, "overwrite": 2, "zero": 1, "delete": 2, "truncate": 1}
        )
        length = ch.pick("damage_len", [1, 4, 16, 100, 400, 2000])
        stop = min(i + length, len(cur))
        if op == "flip":
            cur[i] ^= 1 << ch.integer("damage_bit", 0, 7)
            touched[origin[i]] = 1
            log.append(f"flips a bit of {who}'s byte {origin[i]}")
            continue
        for j in range(i, stop if op != "truncate" else len(cur)):
            touched[origin[j]] = 1
        if op in ("overwrite", "zero"):
            fill = ch.binary("damage_fill", stop - i) if op == "overwrite" else bytes(stop - i)
            cur[i:stop] = fill
            log.append(f"overwrites {who}'s bytes {origin[i]}-{origin[stop - 1]} ({op})")
        elif op == "delete":
            log.append(f"deletes {who}'s bytes {origin[i]}-{origin[stop - 1]}")
            del cur[i:stop]
            del origin[i:stop]
        else:
            log.append(f"truncates {who} at its byte {origin[i]}")
            del cur[i:]
            del origin[i:]
    return bytes(cur), touched


def flip(data: bytes, offset: int, mask: int = 0x20) -> tuple[bytes, bytearray]:
    """``data`` with the byte at ``offset`` changed (and which byte it was)."""
    out = bytearray(data)
    out[offset] ^= mask
    touched = bytearray(len(data))
    touched[offset] = 1
    return bytes(out), touched


def record_spans(data: bytes) -> list[tuple[int, int, int]]:
    """(start, end, kind) of each record of an intact file after the magic."""
    return [(a, b, data[a + 4]) for a, b in _spans(data)]


# ------------------------------------------------------------------ the twin


def _twin(ch: Choices, table: AdversaryTable) -> bytes:
    adv = table.adv
    base = ch.weighted("twin_base", {"own": 4, "honest": 3, "wire": 1})
    if base == "own":
        records = list(table.cheater_records)
    elif base == "honest":
        records = [(RecordKind.FRAME, f.raw) for f in table.honest.chain]
    else:
        records = [(RecordKind.FRAME, raw) for raw in table.wire]
    adv.log.append(f"builds its file from {base} frames ({len(records)} records)")

    def frame_indexes() -> list[int]:
        return [i for i, (k, _) in enumerate(records) if k == RecordKind.FRAME]

    for _ in range(int(ch.weighted("twin_edits", {"0": 3, "1": 4, "2": 2, "3": 1}))):
        edit = ch.weighted(
            "twin_edit",
            {
                "replace": 4,
                "append": 3,
                "evidence": 3,
                "truncate": 2,
                "note": 1,
                "swap": 1,
                "drop": 1,
                "duplicate": 1,
            },
        )
        frames = frame_indexes()
        if edit == "replace" and frames:
            i = ch.pick("twin_replaced", frames)
            old = decode(records[i][1])
            if old is None or not old.seq:
                continue
            before = [j for j in frames if j < i]
            prev = decode(records[before[-1]][1]) if before else None
            header = FrameHeader(old.seq, prev.hash if prev else ch.binary("prev", 32), old.game)
            new = sign_fields(adv.key, adv.random_fields(header, "twin"))
            adv.hold(new, own=True)
            records[i] = (RecordKind.FRAME, new)
            adv.log.append(
                f"puts in its file, instead of the {old.type} at {old.seq}, {_label(new)}"
            )
            if ch.chance("twin_cut", 0.5):
                records = records[: i + 1]
                adv.log.append("ends its file there")
            if ch.chance("twin_keep_replaced", 0.6):
                at = ch.pick("twin_evidence_at", ["end", "before", "after"])
                item = (RecordKind.EVIDENCE, old.raw)
                index = {"end": len(records), "before": i, "after": i + 1}[at]
                records.insert(index, item)
                adv.log.append(f"keeps the replaced {old.type} as EVIDENCE ({at})")
        elif edit == "append":
            last = decode(records[frames[-1]][1]) if frames else None
            for _ in range(ch.integer("twin_appended", 1, 3)):
                seq = (last.seq or 0) + 1 if last is not None else 1
                header = FrameHeader(seq, last.hash if last else ch.binary("prev", 32), adv.game_id)
                raw = sign_fields(adv.key, adv.random_fields(header, "twin"))
                adv.hold(raw, own=True)
                records.append((RecordKind.FRAME, raw))
                adv.log.append(f"appends {_label(raw)} to its file")
                last = decode(raw)
        elif edit == "evidence" and adv.held:
            raw = ch.pick("twin_evidence", adv.held)
            index = ch.integer("twin_evidence_index", 0, len(records))
            records.insert(index, (RecordKind.EVIDENCE, raw))
            adv.log.append(f"adds {_label(raw)} as EVIDENCE at record {index}")
        elif edit == "truncate" and records:
            index = ch.integer("twin_cut_at", 0, len(records) - 1)
            records = records[:index]
            adv.log.append(f"keeps only its first {index} records")
        elif edit == "note":
            records.insert(
                ch.integer("twin_note_at", 0, len(records)), (RecordKind.NOTE, NOTE_PAYLOAD)
            )
        elif edit == "swap" and len(records) > 1:
            i = ch.integer("twin_swap", 0, len(records) - 2)
            records[i], records[i + 1] = records[i + 1], records[i]
            adv.log.append(f"swaps its records {i} and {i + 1}")
        elif edit == "drop" and records:
            i = ch.integer("twin_drop", 0, len(records) - 1)
            adv.log.append(f"drops its record {i} ({_label(records[i][1])})")
            del records[i]
        elif edit == "duplicate" and records:
            i = ch.integer("twin_dup", 0, len(records) - 1)
            records.insert(i + 1, records[i])
            adv.log.append(f"duplicates its record {i}")
    seat = ch.pick("twin_seat", [str(table.cheater_seat), str(table.honest_seat)])
    data = file_bytes(seat, records)
    if ch.chance("twin_damaged", 0.08):
        data, _ = damage(ch, data, adv.plants, adv.log, "its own file")
    return data


# ------------------------------------------------------------------ generate


def generate(source: object, forced: Mapping[str, Any] | None = None) -> Case:
    """Play one adversarial match; ``source`` is a seed, a ``random.Random``,
    hypothesis's ``st.data()`` object or a :class:`Choices`."""
    ch = as_choices(source, forced)
    table = AdversaryTable(ch, ch.integer("seed", 0, 2**32 - 1))
    crashes: list[str] = []
    adv = table.adv
    try:
        _play(ch, table)
    except Exception as exc:  # the generator's own bug: say so, keep what was played
        crashes.append(f"crash-generate: {type(exc).__name__}: {exc}")
    damaged: bytes | None = None
    touched: bytearray | None = None
    if ch.chance("damage", 0.5):
        clean = table.honest_file()
        damaged, touched = damage(ch, clean, adv.plants, adv.log, "the honest player's file")
    twin = _twin(ch, table)
    case = table.case(twin, damaged, touched)
    case.crashes[:0] = crashes
    case.seed = source if isinstance(source, int) else None
    return case


# ------------------------------------------------------------------ check

Verdict = audit.Verdict
VerdictKind = audit.VerdictKind


def _names(verdict: Verdict, seat: Seat) -> bool:
    bad = verdict.bad
    return (
        verdict.kind is VerdictKind.INVALID
        and bad is not None
        and bad.signer is not None
        and bad.signer.seat is seat
    )


def _signed_by(evidence: str, key: bytes) -> bool:
    """Whether a frame of a verdict's evidence (hex, ``a / b`` for two) is signed by ``key``."""
    for part in evidence.split(" / "):
        try:
            frame = decode(bytes.fromhex(part.strip()))
        except ValueError:
            continue
        if frame is not None and frame.signed_by(key):
            return True
    return False


def _unsigned(verdict: Verdict) -> bool:
    return verdict.kind is VerdictKind.INVALID and (
        verdict.bad is None or verdict.bad.signer is None
    )


def _short(verdict: Verdict) -> str:
    return verdict.summary[:300]


class _Findings:
    def __init__(self) -> None:
        self.violations: list[str] = []
        self.doubts: list[str] = []

    def add(self, kind: str, detail: str) -> None:
        target = self.doubts if kind in DOUBTFUL else self.violations
        line = f"{kind}: {detail}"
        if line not in target:
            target.append(line)


def _parse(data: bytes, what: str, found: _Findings) -> ReplayContents | None:
    try:
        return parse_replay(data)
    except ReplayFileError:
        return None  # documented: the file is no readable replay file
    except Exception as exc:
        found.add("crash-audit", f"reading {what}: {type(exc).__name__}: {exc}")
        return None


def _audit(contents: ReplayContents, what: str, found: _Findings) -> Verdict | None:
    try:
        return audit.audit_contents(contents)
    except Exception as exc:
        found.add("crash-audit", f"auditing {what}: {type(exc).__name__}: {exc}")
        return None


def _pair(
    first: tuple[str, bytes], second: tuple[str, bytes], found: _Findings
) -> tuple[dict[str, Verdict], compare.Comparison | None]:
    """What ``lcnet audit FIRST SECOND`` judges: each file's verdict (a file
    that is no replay file is skipped, the other judged alone) and the comparison."""
    parsed = {name: _parse(data, name, found) for name, data in (first, second)}
    readable = {name: c for name, c in parsed.items() if c is not None}
    if len(readable) < 2:
        out = {}
        for name, contents in readable.items():
            verdict = _audit(contents, name, found)
            if verdict is not None:
                out[name] = verdict
        return out, None
    names = (first[0], second[0])
    c1, c2 = readable[names[0]], readable[names[1]]
    try:
        verdicts, comparison = repair.audit_pair(c1, c2, names)
    except Exception as exc:
        found.add("crash-audit", f"auditing the pair {names}: {type(exc).__name__}: {exc}")
        return {}, None
    return dict(zip(names, verdicts, strict=True)), comparison


def check(case: Case) -> list[str]:
    """The invariants broken by this match (empty: none)."""
    return examine(case)[0]


def examine(case: Case) -> tuple[list[str], list[str]]:
    """(violations, doubtful findings) of one match."""
    found = _Findings()
    for crash in case.crashes:
        kind, _, detail = crash.partition(": ")
        found.add(kind, detail)
    honest, cheater = case.honest, case.cheater
    contents = _parse(case.clean, "the honest file", found)
    if contents is None:
        found.add("crash-audit", "the honest player's own file is no readable replay file")
        return found.violations, found.doubts
    v_clean = _audit(contents, "the honest file", found)
    if v_clean is not None:
        _check_clean(case, v_clean, found)

    honest_fp = hashing.fingerprint(case.honest_key)

    def accused(signer: audit.Signer | None, evidence: str, where: str, text: str) -> None:
        """An accusation names a key (PROTOCOL §2.5): the honest player's is a
        violation (and so is one with no key whose evidence the honest player
        signed); the honest seat held by another key, in a transcript the
        cheater forged, is recorded as doubtful."""
        if signer is None:
            return
        if signer.fingerprint == honest_fp or (
            not signer.fingerprint and _signed_by(evidence, case.honest_key)
        ):
            found.add("a-named", f"{where}: {text}")
        elif signer.seat is honest:
            found.add("a-seat?", f"{where}: {text}")

    def named(verdict: Verdict, where: str) -> None:
        if verdict.kind is VerdictKind.INVALID and verdict.bad is not None:
            accused(verdict.bad.signer, verdict.bad.evidence, where, _short(verdict))

    if v_clean is not None:
        named(v_clean, "the honest file alone")
    honest_file = case.damaged if case.damaged is not None else case.clean
    reshaped = False
    if case.damaged is not None:
        parsed = _parse(case.damaged, "the damaged honest file", found)
        # Bytes changed so that the file is still well formed (whole records
        # deleted, a cut between two records) are no damage a reader can see
        # (§7.2): the file is then just another container, judged as such.
        reshaped = parsed is not None and not parsed.damage and parsed.torn is None
        v_damaged = _audit(parsed, "the damaged honest file", found) if parsed else None
        if v_damaged is not None:
            named(v_damaged, "the damaged honest file alone")
            _check_damaged(case, v_clean, v_damaged, "alone", reshaped, found)
            unproven = v_damaged.kind is VerdictKind.VALID or (
                v_damaged.kind is VerdictKind.INVALID and not _names(v_damaged, cheater)
            )
            if _honest_disputed(case) and unproven and not (v_clean and _unsigned(v_clean)):
                found.add("b-reshaped?" if reshaped else "b-damaged", f"alone: {_short(v_damaged)}")
    for order in ("honest first", "twin first"):
        files = [("honest.lcnet", honest_file), ("twin.lcnet", case.twin)]
        if order == "twin first":
            files.reverse()
        verdicts, comparison = _pair(files[0], files[1], found)
        for name, verdict in verdicts.items():
            named(verdict, f"{name} in the pair ({order})")
        if comparison is not None and comparison.equivocation is not None:
            proof = comparison.equivocation
            accused(proof.signer, proof.evidence, f"the comparison ({order})", comparison.summary)
        mine = verdicts.get("honest.lcnet")
        if mine is not None and case.damaged is not None:
            _check_damaged(case, v_clean, mine, f"with the twin, {order}", reshaped, found)
    return found.violations, found.doubts


def _honest_disputed(case: Case) -> bool:
    """Whether the honest session found a fault of the cheater (and kept working)."""
    dispute = case.honest_dispute
    return (
        dispute is not None and dispute.detected_by is case.honest and case.honest_failure is None
    )


def _check_clean(case: Case, verdict: Verdict, found: _Findings) -> None:
    """The undamaged honest file: its audit agrees with the honest session."""
    honest, cheater = case.honest, case.cheater
    if _unsigned(verdict):
        found.add("d-unsigned", _short(verdict))
        return
    if case.honest_failure is not None:
        return
    if case.lawful and not case.honest_sealed:
        found.add(
            "d-stalled", f"the honest session stopped at frame {case.frames}: {_short(verdict)}"
        )
    dispute = case.honest_dispute
    proven_against_cheater = _names(verdict, cheater)
    if dispute is not None and dispute.detected_by is honest:
        if not proven_against_cheater:
            found.add(
                "b-not-named",
                f"the honest {honest} disputed frame {dispute.seq} ({dispute.reason[:120]}); "
                f"the audit says {_short(verdict)}",
            )
        return
    if proven_against_cheater or verdict.kind is VerdictKind.INVALID:
        return  # an INVALID naming the honest player is a-named
    if dispute is not None:
        expected = VerdictKind.INCOMPLETE  # the cheater's dispute, proven or not
    elif case.honest_over:
        expected = VerdictKind.VALID
    else:
        expected = VerdictKind.INCOMPLETE
    if verdict.kind is not expected:
        state = (
            "disputed by the cheater"
            if dispute is not None
            else "over"
            if case.honest_over
            else "not over"
        )
        found.add(
            "d-disagree",
            f"the honest session is {state}, the audit says {_short(verdict)}",
        )


def _check_damaged(
    case: Case,
    clean: Verdict | None,
    verdict: Verdict,
    where: str,
    reshaped: bool,
    found: _Findings,
) -> None:
    """The damaged honest file (alone or repaired from the twin)."""
    honest = case.honest
    if _unsigned(verdict) and (clean is None or not _unsigned(clean)):
        before = "?" if clean is None else clean.kind.value
        kind = "c-reshaped?" if reshaped else "c-unsigned"
        found.add(kind, f"{where} (undamaged: {before}): {_short(verdict)}")
    if verdict.kind is not VerdictKind.INCOMPLETE:
        return
    owed = verdict.owed or ""
    if owed.startswith(f"the {honest} "):
        k = verdict.frames
        shown = sorted(p for p in case.intact_honest_positions if p >= k)
        if shown:
            found.add(
                "a-owed",
                f"{where}: says {owed!r} at frame {k}, but the file's untouched bytes hold "
                f"its frame(s) at {shown[:5]}",
            )
        elif verdict.repaired is not None and any(p >= k for p in case.honest_positions):
            found.add("a-owed?", f"{where}: says {owed!r} at frame {k}; it had sent it")
    accusing = f"accusing the {honest} "
    if (
        verdict.repaired is not None
        and verdict.dispute is not None
        and accusing in verdict.dispute
        and (clean is None or clean.dispute is None or accusing not in clean.dispute)
    ):
        found.add("a-dispute?", f"{where}: {_short(verdict)}")


def kind_of(violation: str) -> str:
    return violation.split(":", 1)[0]

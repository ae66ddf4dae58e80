"""The masked deck: two peers shuffle and deal one deck that neither can see into.

SRA-style mental poker on the prime-order Ed25519 group (the design brief's "The
masked deck"; docs/PROTOCOL.md §3–4 is the normative text). Every card has its
own hashed point; the host (side A) and the joiner (side B) each shuffle and
mask the deck once, then lock every position with a per-position key:

1. host:   ``D1[i] = g_A · P[π_A(i)]``
2. joiner: ``D2[i] = g_B · D1[π_B(i)]``
3. host:   ``D3[i] = (k_A,i · g_A⁻¹) · D2[i]``
4. joiner: ``D4[i] = (k_B,i · g_B⁻¹) · D3[i]  =  k_A,i · k_B,i · P[card at i]``

A position is opened for one side by the other side's key ``k_i``. Dealing
convention: the host's hand is positions 0–7, the joiner's 8–15, and the draw
pile is 16, 17, … taken in increasing order (the first draw of a round takes
position 16).

:class:`lcnet.deck.rounddeal.RoundDeal` is one side's state for one round,
driven message by message by the (sans-IO) session, on top of the checks
here that need no secret (:func:`check_pass`, :func:`verify_side`);
:func:`rebuild_round` and :func:`audit_round` work from revealed seeds for
replay and audit; the coin
(:func:`coin_first_player`) decides who starts round 1. No I/O here and no
random source: secrets come from the caller (the edge draws them,
:func:`lcnet.run.netmatch.new_master_secret`).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from lcnet.deck import batch, group, hashing
from lcnet.errors import LocalProtocolError, RemoteProtocolError
from lcnet.game.cards import ALL_CARDS, HAND_SIZE, Card, deck_size
from lcnet.game.seat import Seat

__all__ = [
    "COMMITMENT_SIZE",
    "FIRST_DRAW_POSITION",
    "GAME_ID_SIZE",
    "HAND_SIZE",
    "MASTER_SECRET_SIZE",
    "PASS_COUNT",
    "SEED_SIZE",
    "CardTable",
    "DeckFault",
    "DeckPass",
    "DeckProtocolError",
    "DeckSecrets",
    "PositionKey",
    "RevealedKey",
    "RoundDeck",
    "Seat",
    "audit_round",
    "card_table",
    "check_pass",
    "coin_first_player",
    "hand_positions",
    "open_with_keys",
    "pass_author",
    "rebuild_round",
    "verify_side",
]


FIRST_DRAW_POSITION: Final = 2 * HAND_SIZE
"""The draw pile starts after both hands: the first deck draw takes position 16."""

PASS_COUNT: Final = 4
"""Deck passes per round: shuffle A, shuffle B, lock A, lock B."""

MASTER_SECRET_SIZE: Final = 32
"""Bytes of a side's per-game secret: 256 bits, beyond any search."""

SEED_SIZE: Final = hashing.DIGEST_SIZE
"""Bytes of a round seed (a 32-byte digest)."""

COMMITMENT_SIZE: Final = hashing.DIGEST_SIZE
"""Bytes of a seed or coin commitment (a 32-byte digest)."""

GAME_ID_SIZE: Final = hashing.DIGEST_SIZE
"""Bytes of a game id (:func:`lcnet.deck.hashing.game_id` of the first frame)."""

COIN_NONCE_SIZE: Final = 32
"""Bytes of a coin nonce: enough that the commitment hides it."""

KEY_SIZE: Final = group.SCALAR_SIZE
"""Bytes of a position key (a scalar)."""


def hand_positions(seat: Seat) -> range:
    """The deck positions dealt to ``seat``: host 0–7, joiner 8–15."""
    start = 0 if seat is Seat.HOST else HAND_SIZE
    return range(start, start + HAND_SIZE)


def pass_author(number: int) -> Seat:
    """Who computes deck pass ``number``: the host passes 1 and 3, the joiner 2 and 4."""
    if not 1 <= number <= PASS_COUNT:
        raise LocalProtocolError(f"there is no deck pass {number}: passes are 1 to {PASS_COUNT}")
    return Seat.HOST if number % 2 == 1 else Seat.JOINER


# --- errors ------------------------------------------------------------------


class DeckFault(enum.Enum):
    """What the other side got wrong in the masked deck."""

    MALFORMED_COMMITMENT = "the commitment is not 32 bytes"
    PASS_SIZE = "the pass does not hold exactly one point per card"
    MALFORMED_POINT = "an entry of the pass is not 32 bytes"
    DUPLICATE_POINT = "a point occurs twice in the pass"
    INVALID_POINT = "a point is not in the prime-order group (invalid or small order)"
    KEY_COUNT = "the dealing keys are not exactly one per card of the hand"
    INVALID_KEY = "a key is not 32 bytes encoding a scalar in 1 .. L-1"
    WRONG_POSITION = "the key is for another position than the one due"
    NOT_A_CARD = "the key opens a point that is no card"
    CARD_ALREADY_SEEN = "the key opens a card that was already seen this round"
    POSITION_NOT_HELD = "the position is not a hidden card of that player"
    WRONG_CARD = "the key does not open the card that was named"
    MALFORMED_SEED = "the revealed seed is not 32 bytes"
    COMMITMENT_MISMATCH = "the revealed seed does not match its commitment"
    KEY_MISMATCH = "a revealed key differs from the one the seed derives"
    PASS_MISMATCH = "the pass is not what the revealed seed produces"


class DeckProtocolError(RemoteProtocolError):
    """The other side sent deck data the protocol forbids; the evidence of a dispute.

    ``fault`` says what is wrong, ``seat`` who sent it, ``item`` which item
    (``"pass 2"``, ``"key for position 17"``, …), ``position`` the deck
    position concerned and ``pass_number`` the pass, when there is one — so
    that a fault found late (at the reveal) can be traced to the message
    that carried the item.
    """

    def __init__(
        self,
        fault: DeckFault,
        *,
        author: Seat,
        item: str,
        position: int | None = None,
        pass_number: int | None = None,
        detail: str = "",
    ) -> None:
        self.fault = fault
        self.seat = author
        self.item = item
        self.position = position
        self.pass_number = pass_number
        text = f"{item}: {fault.value}"
        if detail:
            text += f" ({detail})"
        super().__init__(text, author=str(author))


# --- values ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardTable:
    """The point of every card of a game and the reverse lookup.

    ``points[card.id]`` is ``from_uniform(H32("card", suit, rank, copy))``;
    the three wagers of a suit have three different points, so equal cards
    never give equal ciphertexts.
    """

    suit_count: int
    points: tuple[bytes, ...]
    _cards_by_point: Mapping[bytes, Card] = field(repr=False, compare=False)

    @property
    def size(self) -> int:
        return len(self.points)

    def card_at(self, point: bytes) -> Card | None:
        """The card whose point this is, or ``None`` if it is no card of this game."""
        return self._cards_by_point.get(point)

    def point_of(self, card: Card) -> bytes:
        return self.points[card.id]


@functools.cache
def _all_card_points() -> tuple[bytes, ...]:
    points = tuple(
        group.from_uniform(hashing.card_uniform(int(card.suit), card.rank, card.copy))
        for card in ALL_CARDS
    )
    # Checked once because the whole scheme rests on it; a failure would be a
    # libsodium bug (probability of a collision or of the identity: ~2⁻²⁴⁰).
    if len(set(points)) != len(points) or not batch.all_valid(points):
        raise LocalProtocolError("the card points are not distinct valid group elements")
    return points


@functools.cache
def card_table(suit_count: int) -> CardTable:
    """The card table of a game with 5 (60 cards) or 6 suits (72 cards), built once."""
    size = deck_size(suit_count)
    points = _all_card_points()[:size]
    return CardTable(suit_count, points, dict(zip(points, ALL_CARDS[:size], strict=True)))


@dataclass(frozen=True, slots=True)
class DeckSecrets:
    """What one side derives from its round seed for a ``size``-card deck.

    ``permutation`` is π, ``global_scalar`` is g, ``position_keys[i]`` is
    ``k_i``; ``lock_scalars[i]`` is ``k_i · g⁻¹``, the scalar of the lock pass.
    """

    seed: bytes = field(repr=False)
    size: int
    permutation: tuple[int, ...] = field(repr=False)
    global_scalar: bytes = field(repr=False)
    position_keys: tuple[bytes, ...] = field(repr=False)
    lock_scalars: tuple[bytes, ...] = field(repr=False)

    @classmethod
    def derive(cls, seed: bytes, size: int) -> DeckSecrets:
        if len(seed) != SEED_SIZE:
            raise LocalProtocolError(f"a round seed is {SEED_SIZE} bytes, not {len(seed)}")
        g = hashing.global_scalar(seed)
        g_inverse = group.scalar_invert(g)
        keys = tuple(hashing.position_scalar(seed, i) for i in range(size))
        return cls(
            seed=seed,
            size=size,
            permutation=hashing.permutation(seed, size),
            global_scalar=g,
            position_keys=keys,
            lock_scalars=tuple(group.scalar_mul(k, g_inverse) for k in keys),
        )

    def shuffle(self, points: Sequence[bytes]) -> tuple[bytes, ...]:
        """Pass 1 or 2 over trusted points: ``out[i] = g · points[π(i)]``."""
        g = self.global_scalar
        return batch.mul_many([g] * self.size, [points[j] for j in self.permutation])

    def lock(self, points: Sequence[bytes]) -> tuple[bytes, ...]:
        """Pass 3 or 4 over trusted points: ``out[i] = (k_i · g⁻¹) · points[i]``."""
        return batch.mul_many(self.lock_scalars, points)


@dataclass(frozen=True, slots=True)
class DeckPass:
    """One deck pass as sent: its number (1–4) and one 32-byte point per position."""

    number: int
    points: tuple[bytes, ...] = field(repr=False)

    @property
    def author(self) -> Seat:
        return pass_author(self.number)


@dataclass(frozen=True, slots=True)
class PositionKey:
    """A side's key for one deck position, as sent to open it for the other side."""

    position: int
    key: bytes = field(repr=False)


@dataclass(frozen=True, slots=True)
class RevealedKey:
    """A key a side sent during a round, as recorded for the check at the reveal."""

    author: Seat
    position: int
    key: bytes = field(repr=False)


@dataclass(frozen=True, slots=True)
class RoundDeck:
    """A round's whole deck in the clear, rebuilt from both seeds.

    ``order[i]`` is the card at deck position ``i``.
    """

    suit_count: int
    order: tuple[Card, ...]

    def hand(self, seat: Seat) -> tuple[Card, ...]:
        """The 8 cards dealt to ``seat``, in position order."""
        return tuple(self.order[i] for i in hand_positions(seat))

    @property
    def draw_pile(self) -> tuple[Card, ...]:
        """The draw pile, the first card drawn first."""
        return self.order[FIRST_DRAW_POSITION:]

    def position_of(self, card: Card) -> int:
        return self.order.index(card)


def rebuild_round(suit_count: int, host_seed: bytes, joiner_seed: bytes) -> RoundDeck:
    """The deck order both seeds produce: position ``i`` holds card ``π_A(π_B(i))``.

    Pure derivation, no group operations: it is what the passes amount to
    once :func:`audit_round` (or :meth:`RoundDeal.verify_reveal`) has checked
    they follow from these seeds.
    """
    size = deck_size(suit_count)
    for seed in (host_seed, joiner_seed):
        if len(seed) != SEED_SIZE:
            raise LocalProtocolError(f"a round seed is {SEED_SIZE} bytes, not {len(seed)}")
    host_perm = hashing.permutation(host_seed, size)
    joiner_perm = hashing.permutation(joiner_seed, size)
    return RoundDeck(suit_count, tuple(ALL_CARDS[host_perm[j]] for j in joiner_perm))


# --- checks shared by the live state and the audit ---------------------------


def check_pass_shape(number: int, points: object, size: int) -> tuple[bytes, ...]:
    """Count, shape and distinctness of a received pass (the cheap checks, in that order)."""
    author = pass_author(number)
    item = f"pass {number}"
    if isinstance(points, bytes | str) or not isinstance(points, Sequence):
        raise DeckProtocolError(
            DeckFault.PASS_SIZE,
            author=author,
            item=item,
            pass_number=number,
            detail="not a list of points",
        )
    if len(points) != size:
        raise DeckProtocolError(
            DeckFault.PASS_SIZE,
            author=author,
            item=item,
            pass_number=number,
            detail=f"{len(points)}, not {size}",
        )
    for position, point in enumerate(points):
        if not isinstance(point, bytes) or len(point) != group.POINT_SIZE:
            raise DeckProtocolError(
                DeckFault.MALFORMED_POINT,
                author=author,
                item=f"{item} position {position}",
                position=position,
                pass_number=number,
            )
    seen: dict[bytes, int] = {}
    for position, point in enumerate(points):
        # Valid points have one canonical encoding, so equal points are equal bytes.
        if point in seen:
            raise DeckProtocolError(
                DeckFault.DUPLICATE_POINT,
                author=author,
                item=f"{item} position {position}",
                position=position,
                pass_number=number,
                detail=f"same as position {seen[point]}",
            )
        seen[point] = position
    return tuple(points)


def _invalid_point_error(number: int, points: Sequence[bytes]) -> DeckProtocolError:
    """The error naming the lowest invalid position of a pass known to hold one."""
    for position, point in enumerate(points):
        if not group.is_valid_point(point):
            return DeckProtocolError(
                DeckFault.INVALID_POINT,
                author=pass_author(number),
                item=f"pass {number} position {position}",
                position=position,
                pass_number=number,
            )
    raise LocalProtocolError(f"libsodium refused pass {number} although every point is valid")


def check_points_valid(number: int, points: Sequence[bytes]) -> None:
    if not batch.all_valid(points):
        raise _invalid_point_error(number, points)


def check_pass(
    number: int, points: Sequence[bytes], size: int, *, validity: bool = True
) -> tuple[bytes, ...]:
    """The checks of a received pass (PROTOCOL.md §3.4) for an observer without secrets.

    Raises :class:`DeckProtocolError` naming the pass author; returns the
    points as a tuple. A :class:`RoundDeal` does the same checks itself.
    With ``validity=False`` only the cheap checks run (count, shape,
    distinctness): for an auditor that will recompute the pass from its
    author's revealed seed, which proves every point valid anyway.
    """
    received = check_pass_shape(number, points, size)
    if validity:
        check_points_valid(number, received)
    return received


def open_with_keys(
    suit_count: int, point: bytes, host_key: bytes, joiner_key: bytes
) -> Card | None:
    """The card a last-pass point holds, opened with both sides' keys for its position.

    For observers (replay, audit) that have seen both keys of a position.
    ``None`` if either key is not a valid scalar, the point is not valid, or
    the result is no card of the game.
    """
    if not (group.is_scalar(host_key) and group.is_scalar(joiner_key)):
        return None
    unmask = group.scalar_invert(group.scalar_mul(host_key, joiner_key))
    opened = group.try_mul(unmask, point)
    return None if opened is None else card_table(suit_count).card_at(opened)


def multiply_received(
    number: int, points: tuple[bytes, ...], scalars: Sequence[bytes], order: Sequence[int]
) -> tuple[bytes, ...]:
    """``out[i] = scalars[i] · points[order[i]]``, checking every received point on the way.

    The multiplication refuses exactly the points ``is_valid_point`` refuses
    (see :func:`lcnet.deck.group.try_mul`) and ``order`` is a permutation, so
    every received point is checked, without paying for the check twice.
    """
    products = batch.try_mul_many(scalars, [points[source] for source in order])
    out = tuple(product for product in products if product is not None)
    if len(out) != len(products):
        raise _invalid_point_error(number, points)
    return out


def check_key_shape(key: object, *, author: Seat, item: str, position: int) -> bytes:
    if not group.is_scalar(key):
        raise DeckProtocolError(DeckFault.INVALID_KEY, author=author, item=item, position=position)
    assert isinstance(key, bytes)
    return key


def check_seed(
    seed: object, commitment: bytes, *, game_id: bytes, round_number: int, author: Seat
) -> bytes:
    item = f"round {round_number} seed"
    if not isinstance(seed, bytes) or len(seed) != SEED_SIZE:
        raise DeckProtocolError(DeckFault.MALFORMED_SEED, author=author, item=item)
    if hashing.seed_commitment(game_id, round_number, int(author), seed) != commitment:
        raise DeckProtocolError(DeckFault.COMMITMENT_MISMATCH, author=author, item=item)
    return seed


def check_revealed_keys(secrets: Mapping[Seat, DeckSecrets], keys: Sequence[RevealedKey]) -> None:
    """Every key against the one its author's seed derives, in the given order."""
    for revealed in keys:
        position = revealed.position
        derived = secrets[revealed.author].position_keys
        if not 0 <= position < len(derived) or revealed.key != derived[position]:
            raise DeckProtocolError(
                DeckFault.KEY_MISMATCH,
                author=revealed.author,
                item=f"key for position {position}",
                position=position,
            )


def compare_pass(number: int, received: Sequence[bytes], expected: Sequence[bytes]) -> None:
    for position, (got, want) in enumerate(zip(received, expected, strict=True)):
        if got != want:
            raise DeckProtocolError(
                DeckFault.PASS_MISMATCH,
                author=pass_author(number),
                item=f"pass {number} position {position}",
                position=position,
                pass_number=number,
            )


def expected_pass(
    number: int, secrets: DeckSecrets, previous: Sequence[bytes], table: CardTable
) -> tuple[bytes, ...]:
    """The pass ``number`` its author's secrets produce from the pass before it."""
    if number == 1:
        return secrets.shuffle(table.points)
    if number == 2:
        return secrets.shuffle(previous)
    return secrets.lock(previous)


def check_game_id(game_id: bytes) -> None:
    if len(game_id) != GAME_ID_SIZE:
        raise LocalProtocolError(f"a game id is {GAME_ID_SIZE} bytes, not {len(game_id)}")


def check_round_number(round_number: int) -> None:
    if isinstance(round_number, bool) or not 1 <= round_number <= hashing.MAX_INTEGER:
        raise LocalProtocolError(f"rounds are numbered from 1, not {round_number!r}")


def verify_side(
    *,
    suit_count: int,
    game_id: bytes,
    round_number: int,
    seat: Seat,
    commitment: bytes,
    seed: bytes,
    passes: Sequence[Sequence[bytes]],
    revealed_keys: Sequence[RevealedKey],
) -> DeckSecrets:
    """Check one side's revealed seed against everything that side sent; return its secrets.

    For an observer that learns the seeds one at a time (at each reveal, or
    from a dispute, which carries its sender's seed). In order, the first
    failure raised as a :class:`DeckProtocolError` naming ``seat``: the seed
    against its commitment, every key of ``revealed_keys`` that ``seat``
    sent, then each pass ``seat`` made (of ``passes``, as exchanged so far)
    against what its seed makes of the pass before it as it was received.
    Cost: one scalar multiplication per card and pass of ``seat``.
    """
    check_game_id(game_id)
    check_round_number(round_number)
    table = card_table(suit_count)
    checked = check_seed(seed, commitment, game_id=game_id, round_number=round_number, author=seat)
    secrets = DeckSecrets.derive(checked, table.size)
    check_revealed_keys({seat: secrets}, [k for k in revealed_keys if k.author is seat])
    previous: Sequence[bytes] = table.points
    for number, received in enumerate(passes, start=1):
        if pass_author(number) is seat:
            expected = expected_pass(number, secrets, previous, table)
            compare_pass(number, check_pass_shape(number, received, table.size), expected)
        previous = received
    return secrets


def audit_round(
    *,
    suit_count: int,
    game_id: bytes,
    round_number: int,
    commitments: Sequence[bytes],
    seeds: Sequence[bytes],
    passes: Sequence[Sequence[bytes]],
    revealed_keys: Sequence[RevealedKey],
) -> RoundDeck:
    """Check a whole round from its transcript and both revealed seeds; rebuild its deck.

    ``commitments`` and ``seeds`` are indexed by seat; ``passes`` are the
    passes in order (fewer than four if the round stopped early);
    ``revealed_keys`` every key either side sent, in transcript order. The
    checks run in this order and the first failure is raised as a
    :class:`DeckProtocolError`: host seed against its commitment, joiner
    seed against its commitment, every revealed key against its author's
    seed, then every pass (lowest position first) against what its author's
    seed makes of the pass before it. Cost: one scalar multiplication per
    card and pass.
    """
    check_game_id(game_id)
    check_round_number(round_number)
    table = card_table(suit_count)
    if len(commitments) != 2 or len(seeds) != 2:
        raise LocalProtocolError("an audit needs one commitment and one seed per seat")
    if len(passes) > PASS_COUNT:
        raise LocalProtocolError(f"a round has at most {PASS_COUNT} passes")
    checked = [
        check_seed(
            seeds[seat], commitments[seat], game_id=game_id, round_number=round_number, author=seat
        )
        for seat in Seat
    ]
    secrets = {seat: DeckSecrets.derive(checked[seat], table.size) for seat in Seat}
    check_revealed_keys(secrets, revealed_keys)
    previous: tuple[bytes, ...] = table.points
    for number, received in enumerate(passes, start=1):
        received = check_pass_shape(number, received, table.size)
        expected = expected_pass(number, secrets[pass_author(number)], previous, table)
        compare_pass(number, received, expected)
        previous = expected
    return rebuild_round(suit_count, checked[Seat.HOST], checked[Seat.JOINER])


def coin_first_player(
    *, game_id: bytes, joiner_commitment: bytes, joiner_nonce: bytes, host_nonce: bytes
) -> Seat:
    """Who starts round 1, from the coin commit–reveal (docs/PROTOCOL.md §4).

    The joiner commits to ``joiner_nonce`` first (``coin_commitment``), the
    host then sends ``host_nonce`` in the clear, the joiner reveals its
    nonce. The host starts if the coin bit is 0, the joiner if it is 1. A
    malformed host nonce is the host's fault; a malformed joiner nonce or
    one that does not match the commitment is the joiner's.
    """
    check_game_id(game_id)
    if not isinstance(host_nonce, bytes) or len(host_nonce) != COIN_NONCE_SIZE:
        raise RemoteProtocolError(
            f"the coin nonce is not {COIN_NONCE_SIZE} bytes", author=str(Seat.HOST)
        )
    if not isinstance(joiner_nonce, bytes) or len(joiner_nonce) != COIN_NONCE_SIZE:
        raise RemoteProtocolError(
            f"the coin nonce is not {COIN_NONCE_SIZE} bytes", author=str(Seat.JOINER)
        )
    if hashing.coin_commitment(joiner_nonce) != joiner_commitment:
        raise RemoteProtocolError(
            "the revealed coin nonce does not match its commitment", author=str(Seat.JOINER)
        )
    return Seat(hashing.coin_bit(game_id, joiner_nonce, host_nonce))

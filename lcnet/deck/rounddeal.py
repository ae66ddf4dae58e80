"""One side's masked deck for one round: the state a player keeps.

The deck itself, its passes and the checks that need no secret are in
:mod:`lcnet.deck.deal` (docs/PROTOCOL.md §3–4); here is what one side holds
while the round is dealt and played: its own secrets, the passes so far,
the keys it received, the cards it has opened. No I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NoReturn

from lcnet.deck import group, hashing
from lcnet.deck.deal import (
    COMMITMENT_SIZE,
    FIRST_DRAW_POSITION,
    MASTER_SECRET_SIZE,
    PASS_COUNT,
    DeckFault,
    DeckPass,
    DeckProtocolError,
    DeckSecrets,
    PositionKey,
    RevealedKey,
    RoundDeck,
    card_table,
    check_game_id,
    check_key_shape,
    check_pass_shape,
    check_points_valid,
    check_revealed_keys,
    check_round_number,
    check_seed,
    compare_pass,
    expected_pass,
    hand_positions,
    multiply_received,
    pass_author,
    rebuild_round,
)
from lcnet.errors import LocalProtocolError, ProtocolError
from lcnet.game.cards import HAND_SIZE, Card
from lcnet.game.seat import Seat


class RoundDeal:
    """One side's masked deck for one round, driven message by message.

    The session calls, in protocol order:

    1. :attr:`commitment` (send it) and :meth:`receive_commitment`;
    2. :meth:`make_pass` / :meth:`receive_pass` in the order 1, 2, 3, 4 (the
       host makes 1 and 3, the joiner 2 and 4); every received pass is
       checked at once;
    3. :meth:`dealing_keys` (send them) and :meth:`open_hand` with the other
       side's dealing keys; :attr:`hand` is then this side's 8 cards;
    4. per turn: :meth:`reveal_card` / :meth:`verify_played` for a hidden
       card put down, :meth:`give_draw` / :meth:`open_draw` for a deck draw;
    5. at the end of the round :meth:`reveal_seed` and :meth:`verify_reveal`.

    Calls out of this order raise :class:`LocalProtocolError`; anything wrong
    in what the other side sent raises :class:`DeckProtocolError` naming it.
    After the first error the object refuses every further call (fail closed).
    """

    def __init__(
        self, *, seat: Seat, suit_count: int, game_id: bytes, round_number: int, seed: bytes
    ) -> None:
        check_game_id(game_id)
        check_round_number(round_number)
        self._seat = Seat(seat)
        self._table = card_table(suit_count)
        self._game_id = game_id
        self._round_number = round_number
        self._secrets = DeckSecrets.derive(seed, self._table.size)
        self._commitment = hashing.seed_commitment(game_id, round_number, int(self._seat), seed)
        self._their_commitment: bytes | None = None
        self._passes: list[tuple[bytes, ...]] = []
        self._next_own_pass: tuple[bytes, ...] | None = None
        self._gave_dealing_keys = False
        self._opened_hand = False
        self._mine: dict[int, Card] = {}
        self._theirs: set[int] = set()
        self._public: dict[int, Card] = {}
        self._seen: set[Card] = set()
        self._next_draw = FIRST_DRAW_POSITION
        self._received_keys: list[RevealedKey] = []
        self._seed_revealed = False
        self._verified: RoundDeck | None = None
        self._failure: ProtocolError | None = None

    @classmethod
    def from_master(
        cls,
        *,
        seat: Seat,
        suit_count: int,
        game_id: bytes,
        round_number: int,
        master_secret: bytes,
    ) -> RoundDeal:
        """The state for a round whose seed is ``H32("round-seed", master, game_id, round)``."""
        if len(master_secret) != MASTER_SECRET_SIZE:
            raise LocalProtocolError(
                f"a master secret is {MASTER_SECRET_SIZE} bytes, not {len(master_secret)}"
            )
        seed = hashing.round_seed(master_secret, game_id, round_number)
        return cls(
            seat=seat,
            suit_count=suit_count,
            game_id=game_id,
            round_number=round_number,
            seed=seed,
        )

    def __repr__(self) -> str:
        return (
            f"<RoundDeal {self._seat} round {self._round_number}, {self._table.size} cards, "
            f"{len(self._passes)} passes, next draw {self._next_draw}>"
        )

    # -- read-only views ------------------------------------------------------

    @property
    def seat(self) -> Seat:
        return self._seat

    @property
    def size(self) -> int:
        """Cards in the deck (60 or 72)."""
        return self._table.size

    @property
    def round_number(self) -> int:
        return self._round_number

    @property
    def commitment(self) -> bytes:
        """This side's seed commitment, to send before any deck pass."""
        return self._commitment

    @property
    def next_pass_number(self) -> int | None:
        """The number of the pass due next (made or received), or ``None`` after pass 4."""
        done = len(self._passes)
        return done + 1 if done < PASS_COUNT else None

    @property
    def passes(self) -> tuple[tuple[bytes, ...], ...]:
        """The passes exchanged so far, pass 1 first."""
        return tuple(self._passes)

    @property
    def hand(self) -> tuple[Card, ...]:
        """This side's hidden cards (dealt or drawn and not yet put down), in position order."""
        return tuple(self._mine[p] for p in sorted(self._mine))

    @property
    def hidden_positions(self) -> Mapping[Card, int]:
        """Where each of this side's hidden cards lies in the deck."""
        return {card: position for position, card in self._mine.items()}

    @property
    def next_draw_position(self) -> int | None:
        """The deck position the next draw takes, or ``None`` once the pile is empty."""
        return self._next_draw if self._next_draw < self.size else None

    @property
    def verified_deck(self) -> RoundDeck | None:
        """The whole round in the clear, once :meth:`verify_reveal` has succeeded."""
        return self._verified

    # -- commitments ----------------------------------------------------------

    def receive_commitment(self, commitment: bytes) -> None:
        """Record the other side's seed commitment (must come before any pass)."""
        self._require_healthy()
        if self._their_commitment is not None:
            raise LocalProtocolError("the other side's commitment was already received")
        if not isinstance(commitment, bytes) or len(commitment) != COMMITMENT_SIZE:
            self._fail(
                DeckProtocolError(
                    DeckFault.MALFORMED_COMMITMENT,
                    author=self._seat.other,
                    item=f"round {self._round_number} commitment",
                )
            )
        self._their_commitment = commitment

    # -- the four passes ------------------------------------------------------

    def make_pass(self) -> DeckPass:
        """This side's next pass (1 or 3 for the host, 2 or 4 for the joiner)."""
        self._require_healthy()
        number = self._due_pass(self._seat)
        if number == 1:
            points = self._secrets.shuffle(self._table.points)
        else:
            # Computed when the pass before it was received and checked.
            assert self._next_own_pass is not None
            points, self._next_own_pass = self._next_own_pass, None
        self._passes.append(points)
        return DeckPass(number, points)

    def receive_pass(self, number: int, points: Sequence[bytes]) -> None:
        """Check the other side's pass ``number`` and record it.

        The checks, in order (the first failure names the pass, position and
        author): exactly ``size`` entries, each 32 bytes, pairwise distinct,
        each a valid point of the prime-order group. A pass this side builds
        on (1, 2 and 3) is checked by the very multiplications that build the
        next pass, which is then ready for :meth:`make_pass`; pass 4, which
        the host only opens position by position, is checked point by point.
        """
        self._require_healthy()
        if self._due_pass(self._seat.other) != number:
            raise LocalProtocolError(f"pass {number} is not the pass due now")
        try:
            received = check_pass_shape(number, points, self.size)
            if number == 1:
                secrets = self._secrets
                self._next_own_pass = multiply_received(
                    number, received, [secrets.global_scalar] * self.size, secrets.permutation
                )
            elif number < PASS_COUNT:
                self._next_own_pass = multiply_received(
                    number, received, self._secrets.lock_scalars, range(self.size)
                )
            else:
                check_points_valid(number, received)
        except DeckProtocolError as exc:
            self._fail(exc)
        self._passes.append(received)

    def _due_pass(self, author: Seat) -> int:
        if self._their_commitment is None:
            raise LocalProtocolError("both seed commitments come before any deck pass")
        number = self.next_pass_number
        if number is None:
            raise LocalProtocolError("all four deck passes are done")
        if pass_author(number) is not author:
            raise LocalProtocolError(f"pass {number} is due, and it is the {author.other}'s")
        return number

    # -- dealing --------------------------------------------------------------

    def dealing_keys(self) -> tuple[bytes, ...]:
        """This side's keys for the other side's hand (host: 8–15; joiner: 0–7), in order."""
        self._require_healthy()
        self._require_passes_done()
        positions = hand_positions(self._seat.other)
        self._gave_dealing_keys = True
        self._theirs.update(p for p in positions if p not in self._public)
        return tuple(self._secrets.position_keys[p] for p in positions)

    def open_hand(self, keys: Sequence[bytes]) -> tuple[Card, ...]:
        """Open this side's 8 dealt cards with the other side's keys for them, in order."""
        self._require_healthy()
        self._require_passes_done()
        if self._opened_hand:
            raise LocalProtocolError("this side's hand is already open")
        author = self._seat.other
        well_formed = isinstance(keys, Sequence) and not isinstance(keys, bytes | str)
        if not well_formed or len(keys) != HAND_SIZE:
            self._fail(DeckProtocolError(DeckFault.KEY_COUNT, author=author, item="dealing keys"))
        cards = []
        for position, key in zip(hand_positions(self._seat), keys, strict=True):
            card = self._open(position, key)
            self._mine[position] = card
            cards.append(card)
        self._opened_hand = True
        return tuple(cards)

    # -- turns ----------------------------------------------------------------

    def give_draw(self) -> PositionKey:
        """This side's key for the next draw-pile position, which the other side draws."""
        self._require_dealt()
        position = self._take_draw_position()
        self._theirs.add(position)
        return PositionKey(position, self._secrets.position_keys[position])

    def open_draw(self, position: int, key: bytes) -> Card:
        """Open the card this side drew from the deck, with the other side's key for it."""
        self._require_dealt()
        due = self.next_draw_position
        if due is None:
            raise LocalProtocolError("the draw pile is empty: there is nothing to draw")
        if position != due:
            self._fail(
                DeckProtocolError(
                    DeckFault.WRONG_POSITION,
                    author=self._seat.other,
                    item=f"key for position {position!r}",
                    detail=f"the draw takes position {due}",
                )
            )
        card = self._open(position, key)
        self._take_draw_position()
        self._mine[position] = card
        return card

    def reveal_card(self, card: Card) -> PositionKey:
        """This side puts down hidden ``card``: its position and this side's key for it."""
        self._require_dealt()
        for position, held in self._mine.items():
            if held == card:
                del self._mine[position]
                self._public[position] = card
                return PositionKey(position, self._secrets.position_keys[position])
        raise LocalProtocolError(f"{card} is not a hidden card of the {self._seat}")

    def verify_played(self, card: Card, position: int, key: bytes) -> None:
        """Check the other side's claim that the hidden card at ``position`` is ``card``."""
        self._require_dealt()
        author = self._seat.other
        item = f"key for position {position!r}"
        if position not in self._theirs:
            self._fail(
                DeckProtocolError(
                    DeckFault.POSITION_NOT_HELD, author=author, item=item, detail=f"playing {card}"
                )
            )
        key = self._checked_key(key, item=item, position=position)
        if card.id >= self.size or not self._masks(position, key, card):
            self._fail(
                DeckProtocolError(
                    DeckFault.WRONG_CARD,
                    author=author,
                    item=item,
                    position=position,
                    detail=f"named {card}",
                )
            )
        if card in self._seen:
            self._fail(
                DeckProtocolError(
                    DeckFault.CARD_ALREADY_SEEN,
                    author=author,
                    item=item,
                    position=position,
                    detail=str(card),
                )
            )
        self._record_key(position, key)
        self._theirs.discard(position)
        self._public[position] = card
        self._seen.add(card)

    # -- end of round ---------------------------------------------------------

    def reveal_seed(self) -> bytes:
        """This side's round seed, for the end of the round; no card is hidden after it."""
        self._require_healthy()
        if self._their_commitment is None:
            raise LocalProtocolError("a seed is revealed only after both commitments")
        self._seed_revealed = True
        return self._secrets.seed

    def verify_reveal(self, seed: bytes) -> RoundDeck:
        """Check the other side's revealed seed against everything it sent this round.

        In order, the first failure raised as a :class:`DeckProtocolError`:
        the seed against its commitment; every key it sent, in the order
        received, against the key its seed derives; each of its passes,
        lowest position first, against what its seed makes of the pass
        before it. Returns the whole round in the clear.
        """
        self._require_healthy()
        if self._their_commitment is None:
            raise LocalProtocolError("no commitment to check a seed against")
        if self._verified is not None:
            raise LocalProtocolError("the other side's seed is already verified")
        other = self._seat.other
        try:
            checked = check_seed(
                seed,
                self._their_commitment,
                game_id=self._game_id,
                round_number=self._round_number,
                author=other,
            )
            theirs = DeckSecrets.derive(checked, self.size)
            check_revealed_keys({other: theirs}, self._received_keys)
            for index, received in enumerate(self._passes):
                number = index + 1
                if pass_author(number) is other:
                    previous = self._passes[index - 1] if index else self._table.points
                    compare_pass(
                        number, received, expected_pass(number, theirs, previous, self._table)
                    )
        except DeckProtocolError as exc:
            self._fail(exc)
        if self._seat is Seat.HOST:
            deck = rebuild_round(self._table.suit_count, self._secrets.seed, checked)
        else:
            deck = rebuild_round(self._table.suit_count, checked, self._secrets.seed)
        self._check_consistent(deck)
        self._verified = deck
        return deck

    # -- internals ------------------------------------------------------------

    def _open(self, position: int, key: object) -> Card:
        """Open a position for this side with the other side's key; record the key."""
        author = self._seat.other
        item = f"key for position {position}"
        checked = self._checked_key(key, item=item, position=position)
        card = self._table.card_at(self._unmask(position, checked))
        if card is None:
            self._fail(
                DeckProtocolError(DeckFault.NOT_A_CARD, author=author, item=item, position=position)
            )
        if card in self._seen:
            self._fail(
                DeckProtocolError(
                    DeckFault.CARD_ALREADY_SEEN,
                    author=author,
                    item=item,
                    position=position,
                    detail=str(card),
                )
            )
        self._record_key(position, checked)
        self._seen.add(card)
        return card

    def _masks(self, position: int, their_key: bytes, card: Card) -> bool:
        """Whether ``(k_mine,i · k_theirs,i) · P[card] = D4[i]``.

        The same test as unmasking ``D4[i]`` and comparing with ``P[card]``
        (multiplying by a non-zero scalar is a bijection of the group), but
        with the card named there is no scalar to invert: one multiplication.
        """
        combined = group.scalar_mul(self._secrets.position_keys[position], their_key)
        masked = self._passes[PASS_COUNT - 1][position]
        return group.mul(combined, self._table.point_of(card)) == masked

    def _unmask(self, position: int, their_key: bytes) -> bytes:
        """``(k_mine,i · k_theirs,i)⁻¹ · D4[i]``: one multiplication with a combined scalar."""
        combined = group.scalar_mul(self._secrets.position_keys[position], their_key)
        return group.mul(group.scalar_invert(combined), self._passes[PASS_COUNT - 1][position])

    def _checked_key(self, key: object, *, item: str, position: int) -> bytes:
        try:
            return check_key_shape(key, author=self._seat.other, item=item, position=position)
        except DeckProtocolError as exc:
            self._fail(exc)

    def _record_key(self, position: int, key: bytes) -> None:
        self._received_keys.append(RevealedKey(self._seat.other, position, key))

    def _take_draw_position(self) -> int:
        position = self.next_draw_position
        if position is None:
            raise LocalProtocolError("the draw pile is empty: there is nothing to draw")
        self._next_draw += 1
        return position

    def _check_consistent(self, deck: RoundDeck) -> None:
        # Follows from the checks above and our own honest passes; a mismatch is our bug.
        for position, card in (*self._mine.items(), *self._public.items()):
            if deck.order[position] != card:
                raise LocalProtocolError(
                    f"the rebuilt deck has {deck.order[position]} at position {position}, "
                    f"but {card} was opened there"
                )

    def _require_healthy(self) -> None:
        if self._failure is not None:
            raise LocalProtocolError(f"this round's deal stopped at an error: {self._failure}")

    def _require_passes_done(self) -> None:
        if len(self._passes) < PASS_COUNT:
            raise LocalProtocolError("keys are exchanged only after all four deck passes")

    def _require_dealt(self) -> None:
        self._require_healthy()
        if not (self._gave_dealing_keys and self._opened_hand):
            raise LocalProtocolError("both hands must be dealt before a turn")
        if self._seed_revealed:
            raise LocalProtocolError("the seed is revealed: the round's cards are no longer hidden")

    def _fail(self, error: ProtocolError) -> NoReturn:
        self._failure = error
        raise error

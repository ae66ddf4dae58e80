"""A round's masked deck as the session checks it: one interface, two roles.

The session keeps, for the round in progress, one :class:`RoundTrack` (the
public facts of the round: commitments, passes, keys, hidden positions) and
one deck behind the :class:`DeckChecks` interface, which it feeds every
deck item of the transcript, whoever sent it:

* :class:`PlayerDeck`, for a player: its :class:`~lcnet.deck.rounddeal.RoundDeal`
  (its own secrets) checks the other side's items as they arrive and opens
  the cards meant for this player;
* :class:`ObserverDeck`, for an auditor without secrets: it checks at once
  what anyone can, postpones what a reveal proves for free, and redoes the
  openings a dispute's seed makes possible.

So the session's handlers never ask which role they play.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass, field

from lcnet.deck import deal, rounddeal
from lcnet.errors import LocalProtocolError, Violation
from lcnet.game.cards import Card, deck_size
from lcnet.game.engine import Round, Turn
from lcnet.game.seat import Seat


@dataclass(frozen=True, slots=True)
class HiddenPlay:
    """A hidden card put down that an observer has not opened yet."""

    author: Seat
    card: Card
    position: int
    key: bytes
    seq: int | None
    """The frame of the move (where a failed opening is pinned)."""


@dataclass
class RoundTrack:
    """What a session follows within one round (``Session.round``); read it, never change it."""

    number: int
    starter: Seat
    deck: DeckChecks
    table: Round | None = None
    turns: list[tuple[Seat, Turn]] = field(default_factory=list)
    pending: tuple[Seat, Turn] | None = None
    next_draw: int = deal.FIRST_DRAW_POSITION
    # Public deck data, kept by everyone.
    commitments: dict[Seat, bytes] = field(default_factory=dict)
    passes: list[tuple[bytes, ...]] = field(default_factory=list)
    keys_given: dict[Seat, dict[int, bytes]] = field(
        default_factory=lambda: {Seat.HOST: {}, Seat.JOINER: {}}
    )
    """Keys each seat sent to open positions for the other."""
    hidden: dict[Seat, set[int]] = field(
        default_factory=lambda: {Seat.HOST: set(), Seat.JOINER: set()}
    )
    seen: set[Card] = field(default_factory=set)
    seeds: dict[Seat, bytes] = field(default_factory=dict)
    plays: dict[int, tuple[Seat, Card]] = field(default_factory=dict)
    """Every hidden card put down this round: position -> (player, card)."""
    pass_seqs: dict[int, int] = field(default_factory=dict)
    key_seqs: dict[tuple[Seat, int], int] = field(default_factory=dict)
    """Which frame carried each pass and each key: a fault found at the reveal
    is pinned on the frame that held the faulty item."""

    @property
    def own_deal(self) -> rounddeal.RoundDeal | None:
        """A player's own deck secrets (``None`` for an observer)."""
        return self.deck.own


class DeckChecks(abc.ABC):
    """The deck items of one round, checked as they come (each method raises a
    :class:`Violation` or a :class:`~lcnet.deck.deal.DeckProtocolError` on a fault).

    Every method is called for every item of the transcript, whoever sent it;
    the session has recorded the item in the :class:`RoundTrack` first.
    """

    own: rounddeal.RoundDeal | None = None

    @property
    def hand(self) -> tuple[Card, ...]:
        """This player's dealt cards (none for an observer)."""
        return ()

    @abc.abstractmethod
    def commitment(self, author: Seat, commitment: bytes) -> None: ...

    @abc.abstractmethod
    def deck_pass(self, author: Seat, number: int, points: tuple[bytes, ...]) -> None: ...

    @abc.abstractmethod
    def dealing_keys(self, author: Seat, keys: Sequence[bytes]) -> None: ...

    @abc.abstractmethod
    def hidden_play(
        self, author: Seat, card: Card, position: int, key: bytes, seq: int | None
    ) -> None: ...

    @abc.abstractmethod
    def draw_key(self, author: Seat, position: int, key: bytes) -> Card | None:
        """The key ``author`` sent for the other player's deck draw; the card
        drawn if this deck may know it."""

    @abc.abstractmethod
    def reveal(self, author: Seat, seed: bytes) -> None: ...

    @abc.abstractmethod
    def verified_deck(self) -> deal.RoundDeck:
        """The whole round in the clear, once both seeds are in and checked."""

    @abc.abstractmethod
    def run_deferred(self) -> None:
        """Checks postponed to a reveal that will not come (now, in transcript order)."""

    def judge_dispute(self, accuser: Seat, seed: bytes, about: int) -> str | None:
        """Why the frame ``about`` is proven wrong by the accuser's ``seed``, if it is."""
        raise LocalProtocolError("only an observer judges a dispute")


class PlayerDeck(DeckChecks):
    """A player's deck: its own secrets check the other side's items."""

    def __init__(self, own: rounddeal.RoundDeal) -> None:
        self.own = own
        self._seat = own.seat

    @property
    def hand(self) -> tuple[Card, ...]:
        assert self.own is not None
        return self.own.hand

    def commitment(self, author: Seat, commitment: bytes) -> None:
        if author is not self._seat:
            assert self.own is not None
            self.own.receive_commitment(commitment)

    def deck_pass(self, author: Seat, number: int, points: tuple[bytes, ...]) -> None:
        if author is not self._seat:  # our own passes are recorded as we build them
            assert self.own is not None
            self.own.receive_pass(number, points)

    def dealing_keys(self, author: Seat, keys: Sequence[bytes]) -> None:
        if author is not self._seat:
            assert self.own is not None
            self.own.open_hand(keys)

    def hidden_play(
        self, author: Seat, card: Card, position: int, key: bytes, seq: int | None
    ) -> None:
        if author is not self._seat:
            assert self.own is not None
            self.own.verify_played(card, position, key)

    def draw_key(self, author: Seat, position: int, key: bytes) -> Card | None:
        if author is self._seat:
            return None  # our key, for the other player's draw
        assert self.own is not None
        return self.own.open_draw(position, key)

    def reveal(self, author: Seat, seed: bytes) -> None:
        if author is not self._seat:
            assert self.own is not None
            self.own.verify_reveal(seed)

    def verified_deck(self) -> deal.RoundDeck:
        assert self.own is not None and self.own.verified_deck is not None
        return self.own.verified_deck

    def run_deferred(self) -> None:
        pass  # a player checks everything as it arrives


class ObserverDeck(DeckChecks):
    """An auditor's deck: no secrets, so each check happens where the data allows.

    What anyone can check is checked at once (a pass's size and distinct
    points, a played card's position and novelty). Two expensive checks wait
    for the reveals, which prove the same for free: the validity of every
    pass point (a pass recomputed from its author's seed equals the received
    one only if every point is valid) and the opening of each hidden card
    played (the rebuilt deck holds it at its position or not). If no reveal
    comes, :meth:`run_deferred` does them one by one, in transcript order.
    """

    def __init__(self, track: RoundTrack | None, *, suit_count: int, game_id: bytes) -> None:
        self._track = track
        self._suit_count = suit_count
        self._game_id = game_id
        self.revealed_keys: list[deal.RevealedKey] = []
        """Every key either side sent, in transcript order (checked at the reveals)."""
        self.unopened: list[HiddenPlay] = []
        self.unchecked_passes: set[int] = set()

    def attach(self, track: RoundTrack) -> None:
        self._track = track

    @property
    def track(self) -> RoundTrack:
        assert self._track is not None
        return self._track

    def commitment(self, author: Seat, commitment: bytes) -> None:
        pass  # kept in the track; checked against the seed at the reveal

    def deck_pass(self, author: Seat, number: int, points: tuple[bytes, ...]) -> None:
        deal.check_pass(number, points, deck_size(self._suit_count), validity=False)
        self.unchecked_passes.add(number)

    def dealing_keys(self, author: Seat, keys: Sequence[bytes]) -> None:
        positions = deal.hand_positions(author.other)
        for position, key in zip(positions, keys, strict=True):
            self.revealed_keys.append(deal.RevealedKey(author, position, key))

    def hidden_play(
        self, author: Seat, card: Card, position: int, key: bytes, seq: int | None
    ) -> None:
        track = self.track
        if position not in track.hidden[author]:
            raise Violation(
                f"position {position} is not a hidden card of the {author}", seat=author, seq=seq
            )
        if card in track.seen:
            raise Violation(f"{card} was already seen this round", seat=author, seq=seq)
        self.revealed_keys.append(deal.RevealedKey(author, position, key))
        # Opening the position costs a scalar multiplication; the reveals prove
        # the same for free, so it waits (see run_deferred).
        self.unopened.append(HiddenPlay(author, card, position, key, seq))

    def draw_key(self, author: Seat, position: int, key: bytes) -> Card | None:
        self.revealed_keys.append(deal.RevealedKey(author, position, key))
        return None

    def reveal(self, author: Seat, seed: bytes) -> None:
        self._verify_side(author, seed)

    def verified_deck(self) -> deal.RoundDeck:
        track = self.track
        # Each seed was checked against everything its side sent at its reveal.
        verified = deal.rebuild_round(
            self._suit_count, track.seeds[Seat.HOST], track.seeds[Seat.JOINER]
        )
        for play in self.unopened:
            if verified.order[play.position] != play.card:
                raise Violation(
                    f"position {play.position} held {verified.order[play.position]}, "
                    f"not the {play.card} named",
                    seat=play.author,
                    seq=play.seq,
                )
        self.unopened.clear()
        return verified

    def run_deferred(self) -> None:
        """Pass validity, then the openings of the hidden cards played, in
        transcript order (each raises on the first fault)."""
        track = self.track
        size = deck_size(self._suit_count)
        for number in sorted(self.unchecked_passes):
            deal.check_pass(number, track.passes[number - 1], size)
            self.unchecked_passes.discard(number)
        while self.unopened:
            play = self.unopened[0]
            author, position = play.author, play.position
            keys = {author: play.key, author.other: track.keys_given[author.other][position]}
            opened = deal.open_with_keys(
                self._suit_count, track.passes[-1][position], keys[Seat.HOST], keys[Seat.JOINER]
            )
            if opened != play.card:
                raise Violation(
                    f"the key for position {position} opens {opened or 'no card'}, not {play.card}",
                    seat=author,
                    seq=play.seq,
                )
            self.unopened.pop(0)

    def judge_dispute(self, accuser: Seat, seed: bytes, about: int) -> str | None:
        """With the accuser's seed, redo the openings only the accuser could do.

        The seed is checked first like a reveal (a failure is the accuser's own
        fault). Then every position whose two keys are now known is opened:
        the accuser's cards (its keys from its seed, the accused's keys as
        sent) and the hidden cards the accused played (both keys were sent).
        The accused frame ``about`` is proven wrong if a key it sent opens no
        card, or if a card it opens or plays also lies at another position.
        """
        track = self.track
        secrets = self._verify_side(accuser, seed)
        accused = accuser.other
        given = track.keys_given[accused]
        last = track.passes[-1]

        def open_at(position: int, accuser_key: bytes, accused_key: bytes) -> Card | None:
            keys = {accuser: accuser_key, accused: accused_key}
            return deal.open_with_keys(
                self._suit_count, last[position], keys[Seat.HOST], keys[Seat.JOINER]
            )

        opened: dict[int, Card | None] = {
            p: open_at(p, secrets.position_keys[p], key) for p, key in given.items()
        }
        for position, (author, played) in track.plays.items():
            if author is accused:
                opened[position] = played  # its opening was checked when it was played
        disputed = sorted(
            p for (seat, p), s in track.key_seqs.items() if seat is accused and s == about
        )
        for position in disputed:
            card = opened.get(position)
            if position in given and card is None:
                return f"the key for position {position} opens no card"
            twins = [q for q, c in opened.items() if c is not None and c == card and q != position]
            if twins:
                return (
                    f"position {position} opens {card}, which also lies at position {twins[0]} "
                    "(one card twice in the deck)"
                )
        return None

    def _verify_side(self, seat: Seat, seed: bytes) -> deal.DeckSecrets:
        """One side's seed against all that side sent this round."""
        track = self.track
        if seat not in track.commitments:
            raise Violation(f"a seed for round {track.number} before its commitment", seat=seat)
        secrets = deal.verify_side(
            suit_count=self._suit_count,
            game_id=self._game_id,
            round_number=track.number,
            seat=seat,
            commitment=track.commitments[seat],
            seed=seed,
            passes=track.passes,
            revealed_keys=self.revealed_keys,
        )
        # Every pass of this side equals what its seed makes: valid points.
        self.unchecked_passes -= {n for n in range(1, 5) if deal.pass_author(n) is seat}
        return secrets

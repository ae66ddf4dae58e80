"""The rules of Lost Cities: moves, a round's state, legality, scoring, a match.

Pure: no I/O, no clock and no global random state (randomness always comes
from a caller-supplied :class:`random.Random`).

A turn has two steps and the engine treats each as a move: first a
:class:`PutDown` (play a card onto one's expedition, or discard it onto its
suit's pile), then a :class:`Draw` (from the draw pile, or the top of a
discard pile other than the one just discarded onto). A :class:`Turn` pairs
the two, which is what a player decides and what the protocol sends.

:class:`Round` is the full-information state, mutable with cheap undo in the
style of python-chess's ``Board`` (``push``/``pop``). :class:`View` is what one
seat knows; bots and user interfaces only ever see a view.

Internally cards are their integer ids (see :mod:`lcnet.game.cards`) so that the
random playouts used by the search bots stay fast.
"""

from __future__ import annotations

import enum
import random as _random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final, NamedTuple, TypeAlias

from lcnet.errors import (
    IllegalMoveError,
    IllegalReason,
    InvalidCardError,
    InvalidMoveError,
    InvalidSetupError,
    MatchStateError,
)
from lcnet.game.cards import (
    ALL_CARDS,
    ALLOWED_SUIT_COUNTS,
    CARDS_PER_SUIT,
    DEFAULT_SUITS,
    HAND_SIZE,
    LEVEL_AFTER,
    RANK_OF,
    SUIT_OF,
    THRESHOLD,
    Card,
    Suit,
    deck_size,
    format_cards,
    shuffled_deck,
    sort_hand,
)

PLAYERS: Final = 2
EXPEDITION_COST: Final = 20
"""An expedition starts 20 points in debt."""
BONUS_LENGTH: Final = 8
"""An expedition of at least this many cards (wagers included) earns the bonus."""
BONUS: Final = 20
DEFAULT_ROUNDS: Final = 3

# Per-card tables indexed by card id (cards.py; the hot paths never build Card objects).
_SUIT_OF: Final = SUIT_OF
_POINTS: Final = RANK_OF  # a wager adds 0
_IS_WAGER: Final = tuple(c.is_wager for c in ALL_CARDS)
_THRESHOLD: Final = THRESHOLD
_LEVEL_AFTER: Final = LEVEL_AFTER


class Phase(enum.Enum):
    """Which step of the turn comes next."""

    PUT_DOWN = "put down"
    DRAW = "draw"
    OVER = "over"


# --------------------------------------------------------------------- moves

_PLAY_WORDS: Final = ("play", "p")
_DISCARD_WORDS: Final = ("discard", "x")
_DRAW_WORDS: Final = ("draw",)
_DECK_WORDS: Final = ("deck", "pile", "dk")


@dataclass(frozen=True, slots=True)
class PutDown:
    """The first step of a turn: ``card`` onto one's expedition or its discard pile.

    Text: ``play r7`` (short ``+r7`` or ``p r7``), ``discard gH2`` (short
    ``-gH2`` or ``x gH2``).
    """

    card: Card
    discard: bool = False
    code: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.card, Card):
            raise InvalidMoveError(f"a put-down needs a card, not {self.card!r}")
        object.__setattr__(self, "code", self.card.id * 2 + int(bool(self.discard)))

    @classmethod
    def parse(cls, text: str) -> PutDown:
        words = text.replace("+", " + ").replace("-", " - ").split()
        if len(words) == 2:
            verb, card_text = words[0].lower(), words[1]
            if verb in (*_PLAY_WORDS, "+"):
                return cls(_parse_card_for_move(card_text, text), False)
            if verb in (*_DISCARD_WORDS, "-"):
                return cls(_parse_card_for_move(card_text, text), True)
        raise InvalidMoveError(
            f"not a put-down: {text!r} (write 'play r7' or '+r7', 'discard r7' or '-r7')"
        )

    def __str__(self) -> str:
        return f"{'discard' if self.discard else 'play'} {self.card}"

    def __repr__(self) -> str:
        return f"PutDown.parse({str(self)!r})"


@dataclass(frozen=True, slots=True)
class Draw:
    """The second step of a turn: from the draw pile (``suit=None``) or a discard pile.

    Text: ``draw deck`` (short ``deck``), ``draw r`` or ``draw red`` (short ``r``).
    """

    suit: Suit | None = None
    code: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.suit is not None and not isinstance(self.suit, Suit):
            raise InvalidMoveError(f"a draw is from the deck or a suit's pile, not {self.suit!r}")
        object.__setattr__(
            self, "code", DRAW_CODE_BASE + (0 if self.suit is None else self.suit + 1)
        )

    @property
    def from_deck(self) -> bool:
        return self.suit is None

    @classmethod
    def parse(cls, text: str) -> Draw:
        words = text.lower().split()
        if words and words[0] in _DRAW_WORDS:
            words = words[1:]
        if len(words) == 1:
            if words[0] in _DECK_WORDS:
                return cls(None)
            try:
                return cls(Suit.parse(words[0]))
            except InvalidCardError:
                pass
        raise InvalidMoveError(
            f"not a draw: {text!r} "
            "(write 'draw deck' or 'deck', or 'draw r' or 'r' for a discard pile)"
        )

    def __str__(self) -> str:
        return "draw deck" if self.suit is None else f"draw {self.suit.letter}"

    def __repr__(self) -> str:
        return f"Draw.parse({str(self)!r})"


Move: TypeAlias = PutDown | Draw

DRAW_CODE_BASE: Final = len(ALL_CARDS) * 2
"""Move codes: put-downs are ``card_id * 2 + discard``; draws follow them."""


def _parse_card_for_move(card_text: str, move_text: str) -> Card:
    try:
        return Card.parse(card_text)
    except InvalidCardError as exc:
        raise InvalidMoveError(f"not a move: {move_text!r}: {exc}") from None


@dataclass(frozen=True, slots=True)
class Turn:
    """A whole turn: a put-down, then a draw. Text: ``play r7, draw deck``.

    :meth:`parse` also takes the short forms, e.g. ``+r7 deck`` or ``-b3 g``.
    """

    put_down: PutDown
    draw: Draw

    @classmethod
    def parse(cls, text: str) -> Turn:
        cleaned = text.replace(",", " ").replace(";", " ")
        cleaned = cleaned.replace("+", " + ").replace("-", " - ")
        words = cleaned.split()
        if len(words) >= 3:
            try:
                return cls(PutDown.parse(" ".join(words[:2])), Draw.parse(" ".join(words[2:])))
            except InvalidMoveError:
                pass
        raise InvalidMoveError(
            f"not a turn: {text!r} (write e.g. 'play r7, draw deck' or '+r7 deck', '-b3 g')"
        )

    def __str__(self) -> str:
        return f"{self.put_down}, {self.draw}"

    def __repr__(self) -> str:
        return f"Turn.parse({str(self)!r})"


def _interned_moves() -> tuple[tuple[PutDown, ...], tuple[Draw, ...]]:
    put_downs = tuple(PutDown(c, bool(d)) for c in ALL_CARDS for d in (0, 1))
    draws = (Draw(None), *(Draw(s) for s in Suit))
    return put_downs, draws


PUT_DOWNS, DRAWS = _interned_moves()
"""Every put-down indexed by code, and every draw indexed by ``code - DRAW_CODE_BASE``."""


def move_from_code(code: int) -> Move:
    """The move with the given code (see :data:`DRAW_CODE_BASE`)."""
    if 0 <= code < DRAW_CODE_BASE:
        return PUT_DOWNS[code]
    if 0 <= code - DRAW_CODE_BASE < len(DRAWS):
        return DRAWS[code - DRAW_CODE_BASE]
    raise InvalidMoveError(f"no move has code {code!r}")


# ------------------------------------------------------------------- scoring


def expedition_value(cards: Iterable[Card]) -> int:
    """Score of one expedition per the rules (0 if never started).

    ``(sum of numbers - 20) * (1 + wagers)``, plus 20 unmultiplied for 8 or
    more cards (wagers included).
    """
    return _value_of_ids([c.id for c in cards])


def _value_of_ids(ids: Sequence[int]) -> int:
    if not ids:
        return 0
    total = 0
    wagers = 0
    for cid in ids:
        if _IS_WAGER[cid]:
            wagers += 1
        else:
            total += _POINTS[cid]
    value = (total - EXPEDITION_COST) * (1 + wagers)
    if len(ids) >= BONUS_LENGTH:
        value += BONUS
    return value


# --------------------------------------------------------------------- round


class _PutDownUndo(NamedTuple):
    """What :meth:`Round.pop` needs to undo a put-down."""

    move: PutDown
    hand_index: int
    """Where the card stood in the hand."""
    old_level: int
    """The expedition's level before (unused for a discard)."""
    was_public: bool
    """Whether the card was known to the opponent (taken from a discard pile)."""


class _DrawUndo(NamedTuple):
    """What :meth:`Round.pop` needs to undo a draw."""

    move: Draw
    card_id: int
    discarded_suit: int
    """The suit discarded this turn (-1: none), which the draw may not take back."""


class Round:
    """The full state of one round, mutable with undo (``push``/``pop``).

    Players are 0 and 1 (in a networked match, 0 is the host and 1 the
    joiner). Build one with :meth:`deal` from a deck order or :meth:`new`
    from a random source.
    """

    __slots__ = (
        "_deck",
        "_discarded_suit",
        "_discards",
        "_exps",
        "_hands",
        "_levels",
        "_phase",
        "_public",
        "_stack",
        "_to_move",
        "suit_count",
        "turns_played",
    )

    def __init__(self) -> None:
        # Use deal()/new(); a bare Round is filled in by those constructors.
        self.suit_count = DEFAULT_SUITS
        self._hands: list[list[int]] = [[], []]
        self._deck: list[int] = []  # the next card to draw is the last element
        self._exps: list[list[list[int]]] = [[], []]
        self._levels: list[list[int]] = [[], []]
        self._discards: list[list[int]] = []
        self._public: list[set[int]] = [set(), set()]
        self._to_move = 0
        self._phase = Phase.PUT_DOWN
        self._discarded_suit = -1
        self._stack: list[_PutDownUndo | _DrawUndo] = []
        self.turns_played = 0

    # -- construction

    @classmethod
    def deal(cls, deck_order: Sequence[Card], starter: int = 0) -> Round:
        """A round dealt from ``deck_order``: cards 0-7 to player 0, 8-15 to
        player 1, and the rest is the draw pile in the order it is drawn
        (``deck_order[16]`` is drawn first) — the masked deck's convention.
        """
        ids = [c.id for c in deck_order]
        suit_count = len(ids) // CARDS_PER_SUIT
        if (
            suit_count not in ALLOWED_SUIT_COUNTS
            or len(ids) != deck_size(suit_count)
            or sorted(ids) != list(range(len(ids)))
        ):
            raise InvalidSetupError("deck_order must be a permutation of a whole 5- or 6-suit deck")
        if starter not in (0, 1):
            raise InvalidSetupError(f"the starter is player 0 or 1, not {starter!r}")
        r = cls()
        r.suit_count = suit_count
        r._hands = [ids[:HAND_SIZE], ids[HAND_SIZE : 2 * HAND_SIZE]]
        r._deck = ids[2 * HAND_SIZE :][::-1]
        r._exps = [[[] for _ in range(suit_count)] for _ in range(PLAYERS)]
        r._levels = [[0] * suit_count for _ in range(PLAYERS)]
        r._discards = [[] for _ in range(suit_count)]
        r._to_move = starter
        return r

    @classmethod
    def new(
        cls,
        rng: _random.Random | int | None = None,
        *,
        suits: int = DEFAULT_SUITS,
        starter: int = 0,
    ) -> Round:
        """A freshly shuffled round (``rng``: a Random or a seed)."""
        return cls.deal(shuffled_deck(suits, rng), starter)

    def copy(self) -> Round:
        """An independent copy (the undo history is not copied)."""
        r = Round.__new__(Round)
        r.suit_count = self.suit_count
        r._hands = [self._hands[0][:], self._hands[1][:]]
        r._deck = self._deck[:]
        r._exps = [[e[:] for e in self._exps[0]], [e[:] for e in self._exps[1]]]
        r._levels = [self._levels[0][:], self._levels[1][:]]
        r._discards = [p[:] for p in self._discards]
        r._public = [set(self._public[0]), set(self._public[1])]
        r._to_move = self._to_move
        r._phase = self._phase
        r._discarded_suit = self._discarded_suit
        r._stack = []
        r.turns_played = self.turns_played
        return r

    # -- inspection

    @property
    def to_move(self) -> int:
        """The player whose turn it is (after the round ends: who would be next)."""
        return self._to_move

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def is_over(self) -> bool:
        return self._phase is Phase.OVER

    @property
    def discarded_this_turn(self) -> Suit | None:
        """The suit discarded onto in the current turn, which cannot be drawn from."""
        return None if self._discarded_suit < 0 else Suit(self._discarded_suit)

    @property
    def suits(self) -> tuple[Suit, ...]:
        return tuple(Suit)[: self.suit_count]

    @property
    def draw_pile_size(self) -> int:
        return len(self._deck)

    def draw_pile(self) -> list[Card]:
        """The draw pile in drawing order (first element is drawn next)."""
        return [ALL_CARDS[i] for i in reversed(self._deck)]

    def hand(self, player: int) -> list[Card]:
        """A player's hand, in the order the cards arrived."""
        return [ALL_CARDS[i] for i in self._hands[player]]

    def expedition(self, player: int, suit: Suit) -> list[Card]:
        return [ALL_CARDS[i] for i in self._exps[player][suit]]

    def discard_pile(self, suit: Suit) -> list[Card]:
        """A discard pile, bottom first (its last card is the top)."""
        return [ALL_CARDS[i] for i in self._discards[suit]]

    def holds_public(self, player: int, card: Card) -> bool:
        """Whether ``card`` is in ``player``'s hand and known to the opponent."""
        return card.id in self._public[player]

    def public_hand_cards(self, player: int) -> list[Card]:
        """Cards in ``player``'s hand that the opponent knows (taken from discard piles)."""
        return sort_hand(ALL_CARDS[i] for i in self._public[player])

    @property
    def move_stack(self) -> list[Move]:
        """The moves pushed so far (since construction or the last copy)."""
        return [entry.move for entry in self._stack]

    def expedition_value(self, player: int, suit: Suit) -> int:
        return _value_of_ids(self._exps[player][suit])

    def score(self, player: int) -> int:
        """A player's round score so far (the final score once the round is over)."""
        return sum(_value_of_ids(e) for e in self._exps[player])

    def scores(self) -> tuple[int, int]:
        return self.score(0), self.score(1)

    # -- legality

    def legal_moves(self) -> list[Move]:
        """Every legal move of the current step (put-downs, or draws)."""
        if self._phase is Phase.PUT_DOWN:
            return list(self._legal_put_downs())
        if self._phase is Phase.DRAW:
            return list(self._legal_draws())
        return []

    def _legal_put_downs(self) -> Iterator[PutDown]:
        levels = self._levels[self._to_move]
        for cid in sorted(self._hands[self._to_move]):
            if levels[_SUIT_OF[cid]] < _THRESHOLD[cid]:
                yield PUT_DOWNS[cid * 2]
            yield PUT_DOWNS[cid * 2 + 1]

    def _legal_draws(self) -> Iterator[Draw]:
        if self._deck:
            yield DRAWS[0]
        for s, pile in enumerate(self._discards):
            if pile and s != self._discarded_suit:
                yield DRAWS[s + 1]

    def is_legal(self, move: Move) -> bool:
        return self.illegal_reason(move) is None

    def illegal_reason(self, move: Move) -> IllegalReason | None:
        """Why ``move`` is illegal now, or ``None`` if it is legal."""
        if self._phase is Phase.OVER:
            return IllegalReason.ROUND_OVER
        if isinstance(move, PutDown):
            if self._phase is not Phase.PUT_DOWN:
                return IllegalReason.MUST_DRAW
            cid = move.card.id
            if _SUIT_OF[cid] >= self.suit_count:
                return IllegalReason.SUIT_NOT_IN_GAME
            if cid not in self._hands[self._to_move]:
                return IllegalReason.CARD_NOT_IN_HAND
            if not move.discard:
                return _play_problem(self._levels[self._to_move][_SUIT_OF[cid]], cid)
            return None
        if self._phase is not Phase.DRAW:
            return IllegalReason.MUST_PUT_DOWN_FIRST
        if move.suit is None:
            return None if self._deck else IllegalReason.EMPTY_PILE
        if move.suit >= self.suit_count:
            return IllegalReason.SUIT_NOT_IN_GAME
        if move.suit == self._discarded_suit:
            return IllegalReason.DRAW_BACK_DISCARD
        if not self._discards[move.suit]:
            return IllegalReason.EMPTY_PILE
        return None

    def check(self, move: Move, player: int | None = None) -> None:
        """Raise :class:`IllegalMoveError` unless ``move`` (by ``player``) is legal now."""
        if player is not None and player != self._to_move and self._phase is not Phase.OVER:
            raise IllegalMoveError(
                move, IllegalReason.NOT_YOUR_TURN, f"player {self._to_move} is to move"
            )
        reason = self.illegal_reason(move)
        if reason is not None:
            raise IllegalMoveError(move, reason, self._detail(move, reason))

    def _detail(self, move: Move, reason: IllegalReason) -> str:
        if isinstance(move, PutDown) and reason in (
            IllegalReason.NOT_HIGHER,
            IllegalReason.WAGER_AFTER_NUMBER,
        ):
            exp = self.expedition(self._to_move, move.card.suit)
            return f"the {move.card.suit} expedition is {format_cards(exp)}"
        if reason is IllegalReason.CARD_NOT_IN_HAND:
            return f"the hand is {format_cards(sort_hand(self.hand(self._to_move)))}"
        return ""

    # -- making and unmaking moves

    def push(self, move: Move, player: int | None = None) -> None:
        """Make ``move`` (checked; raises :class:`IllegalMoveError`)."""
        self.check(move, player)
        if isinstance(move, PutDown):
            self._put_down(move.card.id, move.discard)
        else:
            self._draw(-1 if move.suit is None else int(move.suit))

    def push_turn(self, turn: Turn, player: int | None = None) -> None:
        """Make both steps of ``turn``; on an illegal draw the put-down is undone."""
        self.push(turn.put_down, player)
        try:
            self.push(turn.draw, player)
        except IllegalMoveError:
            self.pop()
            raise

    def _put_down(self, cid: int, discard: bool) -> None:
        p = self._to_move
        hand = self._hands[p]
        index = hand.index(cid)
        del hand[index]
        public = self._public[p]
        was_public = cid in public
        if was_public:
            public.discard(cid)
        suit = _SUIT_OF[cid]
        if discard:
            self._discards[suit].append(cid)
            self._discarded_suit = suit
            old_level = -1
        else:
            self._exps[p][suit].append(cid)
            levels = self._levels[p]
            old_level = levels[suit]
            levels[suit] = _LEVEL_AFTER[cid]
        self._phase = Phase.DRAW
        self._stack.append(_PutDownUndo(PUT_DOWNS[cid * 2 + discard], index, old_level, was_public))

    def _draw(self, suit: int) -> None:
        p = self._to_move
        if suit < 0:
            cid = self._deck.pop()
        else:
            cid = self._discards[suit].pop()
            self._public[p].add(cid)
        self._hands[p].append(cid)
        self._stack.append(_DrawUndo(DRAWS[suit + 1], cid, self._discarded_suit))
        self._discarded_suit = -1
        self.turns_played += 1
        if not self._deck:
            self._phase = Phase.OVER
        else:
            self._phase = Phase.PUT_DOWN
            self._to_move = 1 - p

    def pop(self) -> Move:
        """Undo the last move and return it."""
        undo = self._stack.pop()
        if type(undo) is _PutDownUndo:
            put_down = undo.move
            p = self._to_move
            cid = put_down.card.id
            suit = _SUIT_OF[cid]
            if put_down.discard:
                self._discards[suit].pop()
                self._discarded_suit = -1
            else:
                self._exps[p][suit].pop()
                self._levels[p][suit] = undo.old_level
            self._hands[p].insert(undo.hand_index, cid)
            if undo.was_public:
                self._public[p].add(cid)
            self._phase = Phase.PUT_DOWN
            return put_down
        assert type(undo) is _DrawUndo
        draw = undo.move
        cid = undo.card_id
        p = self._to_move if self._phase is Phase.OVER else 1 - self._to_move
        self._hands[p].pop()
        if draw.suit is None:
            self._deck.append(cid)
        else:
            self._discards[draw.suit].append(cid)
            self._public[p].discard(cid)
        self._discarded_suit = undo.discarded_suit
        self._to_move = p
        self._phase = Phase.DRAW
        self.turns_played -= 1
        return draw

    # -- partial knowledge

    def exchange(self, a: Card, b: Card) -> None:
        """Swap where two hidden cards lie (each in the draw pile or a hand).

        For a peer (or an auditor) that follows a round without seeing every
        card: it keeps a full round in which the cards it has not seen stand
        in as placeholders, and when a card is revealed it exchanges that card
        with the placeholder occupying the revealed card's true place. Cards
        on the table, and cards known to be in a hand because they were taken
        from a discard pile, cannot be exchanged. The undo history is not
        affected (exchange between rounds of push/pop at your own risk).
        """
        if a == b:
            return
        places = [self._hidden_place(a.id), self._hidden_place(b.id)]
        for (where, index), new in zip(places, (b.id, a.id), strict=True):
            where[index] = new

    def _hidden_place(self, cid: int) -> tuple[list[int], int]:
        for where in (self._deck, self._hands[0], self._hands[1]):
            if cid in where:
                if cid in self._public[0] or cid in self._public[1]:
                    break
                return where, where.index(cid)
        raise InvalidSetupError(
            f"{ALL_CARDS[cid]} is not hidden (not in the draw pile or a hidden hand)"
        )

    # -- fast random playout (the inner loop of the search bots)

    def playout(self, rng: _random.Random, max_turns: int = 10_000) -> int:
        """Play uniformly random legal moves to the end of the round.

        Put-downs are uniform among the legal ones, then draws uniform among
        the legal ones (rejection sampling keeps both exact). No undo
        history is kept. Returns the number of turns played; stops early
        (round not over) after ``max_turns``, because two random players
        passing cards through the discard piles could in principle go on
        for very long.
        """
        hands = self._hands
        deck = self._deck
        exps = self._exps
        levels_by_player = self._levels
        discards = self._discards
        publics = self._public
        suit_of = _SUIT_OF
        threshold = _THRESHOLD
        level_after = _LEVEL_AFTER
        random = rng.random
        n_draw_options = self.suit_count + 1
        p = self._to_move
        turns = 0
        if self._phase is Phase.OVER:
            return 0
        if self._phase is Phase.DRAW:
            # Finish the turn in progress first (the discard, if any, is set).
            discarded = self._discarded_suit
            phase_draw = True
        else:
            discarded = -1
            phase_draw = False
        while turns < max_turns:
            if not phase_draw:
                hand = hands[p]
                levels = levels_by_player[p]
                n2 = len(hand) * 2
                while True:
                    r = int(random() * n2)
                    cid = hand[r >> 1]
                    suit = suit_of[cid]
                    if r & 1:
                        del hand[r >> 1]
                        discards[suit].append(cid)
                        discarded = suit
                        break
                    if levels[suit] < threshold[cid]:
                        del hand[r >> 1]
                        exps[p][suit].append(cid)
                        levels[suit] = level_after[cid]
                        discarded = -1
                        break
                if publics[p]:
                    publics[p].discard(cid)
            phase_draw = False
            while True:
                r = int(random() * n_draw_options)
                if r == 0:
                    hands[p].append(deck.pop())
                    break
                pile = discards[r - 1]
                if pile and r - 1 != discarded:
                    cid = pile.pop()
                    hands[p].append(cid)
                    publics[p].add(cid)
                    break
            turns += 1
            if not deck:
                self._phase = Phase.OVER
                self._to_move = p
                self._discarded_suit = -1
                self.turns_played += turns
                return turns
            p = 1 - p
        self._to_move = p
        self._phase = Phase.PUT_DOWN
        self._discarded_suit = -1
        self.turns_played += turns
        return turns

    # -- views

    def view(self, seat: int) -> View:
        """What ``seat`` knows of this round."""
        other = 1 - seat
        return View(
            seat=seat,
            suit_count=self.suit_count,
            hand=tuple(sort_hand(ALL_CARDS[i] for i in self._hands[seat])),
            expeditions=tuple(
                tuple(tuple(ALL_CARDS[i] for i in e) for e in self._exps[p]) for p in range(PLAYERS)
            ),
            discard_piles=tuple(tuple(ALL_CARDS[i] for i in pile) for pile in self._discards),
            draw_pile_size=len(self._deck),
            opponent_hand_size=len(self._hands[other]),
            opponent_known=frozenset(ALL_CARDS[i] for i in self._public[other]),
            hand_public=frozenset(ALL_CARDS[i] for i in self._public[seat]),
            to_move=self._to_move,
            phase=self._phase,
            discarded_this_turn=self.discarded_this_turn,
        )

    def __str__(self) -> str:
        lines = []
        for p in range(PLAYERS):
            exps = "  ".join(
                f"{s.letter}:{format_cards(self.expedition(p, s)) or '-'}" for s in self.suits
            )
            lines.append(f"player {p} hand: {format_cards(sort_hand(self.hand(p)))}")
            lines.append(f"player {p} expeditions: {exps}")
        tops = "  ".join(
            f"{s.letter}:{ALL_CARDS[self._discards[s][-1]] if self._discards[s] else '-'}"
            for s in self.suits
        )
        lines.append(f"discard tops: {tops}")
        lines.append(f"draw pile: {len(self._deck)}; player {self._to_move} to {self._phase.value}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"<Round suits={self.suit_count} to_move={self._to_move} phase={self._phase.name} "
            f"draw_pile={len(self._deck)}>"
        )


def _play_problem(level: int, cid: int) -> IllegalReason | None:
    if level < _THRESHOLD[cid]:
        return None
    return IllegalReason.WAGER_AFTER_NUMBER if _IS_WAGER[cid] else IllegalReason.NOT_HIGHER


# ---------------------------------------------------------------------- views


@dataclass(frozen=True)
class View:
    """What one seat knows: the public table, its own hand, and the opponent's
    cards that are public because they were taken from a discard pile.

    ``hand_public`` are the cards of this seat's own hand that the opponent
    knows about for the same reason.

    Discard piles are listed bottom first: every discard was seen face up by
    both players, so a whole pile is public knowledge; only its top card can
    be drawn.
    """

    seat: int
    suit_count: int
    hand: tuple[Card, ...]
    expeditions: tuple[tuple[tuple[Card, ...], ...], ...]
    discard_piles: tuple[tuple[Card, ...], ...]
    draw_pile_size: int
    opponent_hand_size: int
    opponent_known: frozenset[Card]
    hand_public: frozenset[Card]
    to_move: int
    phase: Phase
    discarded_this_turn: Suit | None

    @property
    def opponent(self) -> int:
        return 1 - self.seat

    @property
    def suits(self) -> tuple[Suit, ...]:
        return tuple(Suit)[: self.suit_count]

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def my_turn(self) -> bool:
        return self.to_move == self.seat and self.phase is not Phase.OVER

    def top(self, suit: Suit) -> Card | None:
        pile = self.discard_piles[suit]
        return pile[-1] if pile else None

    def level(self, player: int, suit: Suit) -> int:
        """0 if the expedition is empty, 1 after wagers only, else its highest number."""
        exp = self.expeditions[player][suit]
        return _LEVEL_AFTER[exp[-1].id] if exp else 0

    def can_play(self, card: Card, player: int | None = None) -> bool:
        """Whether ``card`` fits on ``player``'s (default: own) expedition."""
        who = self.seat if player is None else player
        return self.level(who, card.suit) < _THRESHOLD[card.id]

    def expedition_value(self, player: int, suit: Suit) -> int:
        return expedition_value(self.expeditions[player][suit])

    def score(self, player: int) -> int:
        return sum(expedition_value(e) for e in self.expeditions[player])

    def legal_put_downs(self) -> list[PutDown]:
        """The put-downs this seat may make now (empty unless it is to put down)."""
        if not self.my_turn or self.phase is not Phase.PUT_DOWN:
            return []
        moves: list[PutDown] = []
        for card in self.hand:
            if self.can_play(card):
                moves.append(PUT_DOWNS[card.id * 2])
            moves.append(PUT_DOWNS[card.id * 2 + 1])
        return moves

    def legal_draws(self, after: PutDown | None = None) -> list[Draw]:
        """The draws legal in this turn; with ``after``, the draws legal once
        that put-down is made (so a whole turn can be chosen at once)."""
        if self.phase is Phase.OVER:
            return []
        piles = [len(p) for p in self.discard_piles]
        blocked = -1 if self.discarded_this_turn is None else int(self.discarded_this_turn)
        if after is not None and after.discard:
            piles[after.card.suit] += 1
            blocked = int(after.card.suit)
        draws: list[Draw] = [DRAWS[0]] if self.draw_pile_size else []
        draws.extend(DRAWS[s + 1] for s in range(self.suit_count) if piles[s] and s != blocked)
        return draws

    def legal_turns(self) -> list[Turn]:
        """Every legal whole turn for this seat (put-down, then draw)."""
        return [Turn(pd, d) for pd in self.legal_put_downs() for d in self.legal_draws(pd)]

    def unseen_cards(self) -> list[Card]:
        """Cards this seat has not seen: in the draw pile or hidden in the opponent's hand."""
        seen = {c.id for c in self.hand}
        seen.update(c.id for c in self.opponent_known)
        for per_player in self.expeditions:
            for exp in per_player:
                seen.update(c.id for c in exp)
        for pile in self.discard_piles:
            seen.update(c.id for c in pile)
        return [c for c in ALL_CARDS[: deck_size(self.suit_count)] if c.id not in seen]

    def determinize(self, rng: _random.Random) -> Round:
        """A full round consistent with this view: the unseen cards are
        shuffled between the opponent's hidden hand and the draw pile.

        This is how search bots imagine the hidden cards; it never reads
        anything the seat does not know.
        """
        unseen = [c.id for c in self.unseen_cards()]
        rng.shuffle(unseen)
        hidden = self.opponent_hand_size - len(self.opponent_known)
        r = Round()
        r.suit_count = self.suit_count
        me, other = self.seat, self.opponent
        r._hands[me] = [c.id for c in self.hand]
        r._hands[other] = [c.id for c in self.opponent_known] + unseen[:hidden]
        r._deck = unseen[hidden:]
        r._exps = [[[c.id for c in e] for e in self.expeditions[p]] for p in range(PLAYERS)]
        r._levels = [[_LEVEL_AFTER[e[-1]] if e else 0 for e in r._exps[p]] for p in range(PLAYERS)]
        r._discards = [[c.id for c in pile] for pile in self.discard_piles]
        r._public = [set(), set()]
        r._public[me] = {c.id for c in self.hand_public}
        r._public[other] = {c.id for c in self.opponent_known}
        r._to_move = self.to_move
        r._phase = self.phase
        r._discarded_suit = (
            -1 if self.discarded_this_turn is None else int(self.discarded_this_turn)
        )
        return r


# --------------------------------------------------------------------- match


@dataclass(frozen=True)
class Outcome:
    """The result of a match: both totals and the winner (``None`` on a draw)."""

    totals: tuple[int, int]
    winner: int | None

    @property
    def is_draw(self) -> bool:
        return self.winner is None


@dataclass
class Match:
    """A match of ``rounds`` rounds and who starts each.

    Round 1's starter is given (in a networked match a fair coin decides).
    Later rounds: the player with the higher running total starts; on equal
    totals, the player who did not start the previous round. Equal final
    totals are a draw.
    """

    rounds: int = DEFAULT_ROUNDS
    suit_count: int = DEFAULT_SUITS
    first_starter: int = 0
    round_scores: list[tuple[int, int]] = field(default_factory=list)
    starters: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.rounds < 1:
            raise InvalidSetupError(f"a match has at least one round, not {self.rounds}")
        if self.suit_count not in ALLOWED_SUIT_COUNTS:
            raise InvalidSetupError(f"a game has 5 or 6 suits, not {self.suit_count}")
        if self.first_starter not in (0, 1):
            raise InvalidSetupError(f"the starter is player 0 or 1, not {self.first_starter!r}")

    @property
    def totals(self) -> tuple[int, int]:
        return (
            sum(s[0] for s in self.round_scores),
            sum(s[1] for s in self.round_scores),
        )

    @property
    def rounds_played(self) -> int:
        return len(self.round_scores)

    @property
    def is_over(self) -> bool:
        return len(self.round_scores) >= self.rounds

    def next_starter(self) -> int:
        """Who starts the next round."""
        if not self.round_scores:
            return self.first_starter
        a, b = self.totals
        if a != b:
            return 0 if a > b else 1
        return 1 - self.starters[-1]

    def start_round(self) -> int:
        """Note that the next round starts and return its starter."""
        if self.is_over:
            raise MatchStateError("the match is over")
        if len(self.starters) > len(self.round_scores):
            raise MatchStateError("the current round has not been recorded yet")
        starter = self.next_starter()
        self.starters.append(starter)
        return starter

    def record_round(self, scores: tuple[int, int]) -> None:
        if len(self.starters) != len(self.round_scores) + 1:
            raise MatchStateError("start_round() must be called before record_round()")
        self.round_scores.append((int(scores[0]), int(scores[1])))

    def outcome(self) -> Outcome:
        if not self.is_over:
            raise MatchStateError("the match is not over")
        a, b = self.totals
        return Outcome((a, b), None if a == b else (0 if a > b else 1))

"""A saved match as a sequence of positions, for ``lcnet replay``.

:func:`load` runs the transcript through an observer session (the same
checks as ``lcnet audit``) and keeps every position: the start of each round
and the table after each turn. For a round whose two seeds were revealed,
every card is known and positions are rebuilt with both hands; for a round
still hidden (an unfinished match), positions show only what was public.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from lcnet.audit import verdict as audit
from lcnet.deck import hashing
from lcnet.game.cards import Card, format_cards, sort_hand
from lcnet.game.engine import Round, Turn, View
from lcnet.game.seat import Seat
from lcnet.protocol.events import RoundStarted, RoundVerified, Step, TurnPlayed
from lcnet.protocol.observer import Observer
from lcnet.store.replayfile import ReplayContents, TornTail
from lcnet.textsafe import shown


@dataclass(frozen=True)
class Position:
    """The table at one step of the match."""

    round: int
    """Round number, from 1."""
    turn: int
    """Turns played in this round so far."""
    table: Round
    hands_known: bool
    """Whether ``table``'s hands are the real ones (the round's seeds are revealed)."""
    last: tuple[Seat, Turn] | None
    """The move that led here."""
    drawn: Card | None
    """The card that move drew, when it is known."""
    totals_before: tuple[int, int]
    """Match totals before this round."""

    @property
    def scores(self) -> tuple[int, int]:
        return self.table.scores()


@dataclass
class MatchRecord:
    """Everything ``lcnet replay`` shows about a match."""

    names: dict[Seat, str]
    fingerprints: dict[Seat, str]
    suits: int
    rounds: int
    positions: list[Position]
    round_starts: list[int]
    """Index into ``positions`` of each round's first position."""
    verdict: audit.Verdict
    round_scores: list[tuple[int, int]] = field(default_factory=list)

    def name(self, seat: Seat) -> str:
        """The player's name as it is signed in the file (escape it to show it)."""
        return self.names.get(seat, str(seat))


@dataclass(frozen=True)
class Decision:
    """One turn of one player, with what that player knew when making it."""

    round: int
    turn: int
    """The turn's number in its round (1 is the round's first turn)."""
    view: View
    """The player's view just before the turn: its hand and the public table,
    never the opponent's hidden cards (even when the file reveals them later)."""
    played: Turn
    index: int
    """The position after the turn, in :attr:`MatchRecord.positions`."""


def decisions(record: MatchRecord, seat: Seat) -> list[Decision]:
    """Every turn ``seat`` played in a round whose seeds were revealed, in order.

    A round still hidden (an unfinished match) is left out: the file alone
    does not say what the player held (:func:`hidden_turns` counts them).
    """
    out = []
    positions = record.positions
    for index in range(1, len(positions)):
        position, before = positions[index], positions[index - 1]
        if position.last is None or position.last[0] is not seat or not before.hands_known:
            continue
        view = before.table.view(int(seat))
        out.append(Decision(position.round, position.turn, view, position.last[1], index))
    return out


def hidden_turns(record: MatchRecord, seat: Seat) -> int:
    """How many turns of ``seat`` lie in rounds whose seeds were not revealed."""
    return sum(
        1
        for p in record.positions
        if p.last is not None and p.last[0] is seat and not p.hands_known
    )


def load(
    frames: Sequence[bytes], evidence: Sequence[bytes] = (), torn: TornTail | None = None
) -> MatchRecord:
    """Replay a transcript into positions, checking it as ``audit`` does."""
    collector = Collector()
    verdict = audit.audit_frames(frames, evidence, torn, on_step=collector.step)
    return _record(collector, verdict)


def _record(collector: Collector, verdict: audit.Verdict) -> MatchRecord:
    """What ``collector`` gathered, with the names and options its observer read."""
    observer = collector.observer
    names: dict[Seat, str] = {}
    prints: dict[Seat, str] = {}
    suits, rounds = 5, 0
    scores: list[tuple[int, int]] = []
    if observer is not None:
        names = dict(observer.names)
        prints = {seat: hashing.fingerprint(key) for seat, key in observer.keys.items()}
        if observer.options:
            suits, rounds = observer.options.suits, observer.options.rounds
        if observer.match:
            scores = list(observer.match.round_scores)
    return MatchRecord(
        names=names,
        fingerprints=prints,
        suits=suits,
        rounds=rounds,
        positions=list(collector.positions),
        round_starts=list(collector.round_starts),
        verdict=verdict,
        round_scores=scores,
    )


class Follower:
    """A transcript's record as its frames arrive (``lcnet watch``'s board).

    After any frames, :meth:`record` holds the positions :func:`load` gives of
    the same frames (checked once each, as they come): the audit stops at a
    frame that is no next frame of the transcript or proves a fault, and so
    does this. Its verdict is left to whoever checks the frames.
    """

    def __init__(self) -> None:
        self.observer = Observer()
        self.taken = 0
        """Frames taken (those after the audit's stop included)."""
        self.stopped = False
        """The audit stops at the last frame checked: later frames change nothing."""
        self._collector = Collector()

    def extend(self, frames: Sequence[bytes]) -> None:
        """Take what ``frames`` (the whole transcript so far) holds past the frames taken."""
        observer = self.observer
        for raw in frames[self.taken :]:
            self.taken += 1
            if self.stopped:
                continue
            step = observer.receive(raw)
            self._collector.step(observer, step)
            # Where audit.audit_frames stops.
            proof = observer.dispute is not None and observer.dispute.detected_by is None
            self.stopped = proof or step.accepted is None

    def record(self) -> MatchRecord:
        """The match so far, as :func:`load` gives it (an INCOMPLETE verdict, unsummed)."""
        verdict = audit.Verdict(kind=audit.VerdictKind.INCOMPLETE, frames=self.taken, summary="")
        return _record(self._collector, verdict)


class Collector:
    """Keeps a position for each round start and each turn, as the audit goes."""

    def __init__(self) -> None:
        self.observer: Observer | None = None
        self.positions: list[Position] = []
        self.round_starts: list[int] = []
        self._turns: list[tuple[Seat, Turn]] = []
        self._starter = Seat.HOST
        self._totals = (0, 0)

    def step(self, observer: Observer, step: Step) -> None:
        self.observer = observer
        for event in step.events:
            if isinstance(event, RoundStarted):
                self._starter = event.starter
                self._turns = []
                self.round_starts.append(len(self.positions))
                self.positions.append(
                    Position(event.round, 0, self._table(observer), False, None, None, self._totals)
                )
            elif isinstance(event, TurnPlayed):
                self._turns.append((event.seat, event.turn))
                self.positions.append(
                    Position(
                        event.round,
                        len(self._turns),
                        self._table(observer),
                        False,
                        (event.seat, event.turn),
                        event.drawn,
                        self._totals,
                    )
                )
            elif isinstance(event, RoundVerified):
                start = self.round_starts[-1]
                self.positions[start:] = _full_positions(
                    event.round, event.deck.order, self._starter, self._turns, self._totals
                )
                self._totals = (
                    self._totals[0] + event.scores[0],
                    self._totals[1] + event.scores[1],
                )

    @staticmethod
    def _table(observer: Observer) -> Round:
        assert observer.round is not None and observer.round.table is not None
        return observer.round.table.copy()


def load_contents(contents: ReplayContents) -> MatchRecord:
    """The positions of a file's intact prefix, with the file's verdict.

    A damaged file (bad bytes with intact records after them) shows the
    positions before the damage, and its verdict is DAMAGED, not a torn tail.
    """
    torn = None if contents.damage else contents.torn
    record = load(contents.frames, audit.all_evidence(contents), torn)
    record.verdict = audit.file_verdict(contents, record.verdict)
    return record


def _full_positions(
    number: int,
    order: Sequence[Card],
    starter: Seat,
    turns: Sequence[tuple[Seat, Turn]],
    totals: tuple[int, int],
) -> list[Position]:
    table = Round.deal(order, int(starter))
    out = [Position(number, 0, table.copy(), True, None, None, totals)]
    for index, (seat, turn) in enumerate(turns, start=1):
        table.push_turn(turn, int(seat))
        drawn = table.hand(int(seat))[-1]
        out.append(Position(number, index, table.copy(), True, (seat, turn), drawn, totals))
    return out


# --------------------------------------------------------------- as text


def describe_move(record: MatchRecord, position: Position) -> str:
    if position.last is None:
        starter = Seat(position.table.to_move) if position.turn == 0 else None
        who = shown(record.name(starter)) if starter is not None else "?"
        return f"round {position.round} begins; {who} starts"
    seat, turn = position.last
    text = f"{shown(record.name(seat))}: {turn}"
    if position.drawn is not None and (position.hands_known or turn.draw.suit is not None):
        text += f" (drew {position.drawn})"
    return text


def render_text(record: MatchRecord, position: Position, perspective: Seat | None) -> list[str]:
    """The table at ``position`` as plain lines.

    ``perspective`` is the seat whose hand is shown, or ``None`` for both
    hands (only known once the round's seeds are revealed).
    """
    table = position.table
    lines = [
        f"round {position.round}/{record.rounds}, turn {position.turn}: "
        f"{describe_move(record, position)}"
    ]
    for seat in Seat:
        exps = "  ".join(
            f"{suit.letter}:{format_cards(table.expedition(int(seat), suit)) or '-'}"
            f"({table.expedition_value(int(seat), suit):+d})"
            if table.expedition(int(seat), suit)
            else f"{suit.letter}:-"
            for suit in table.suits
        )
        score = table.score(int(seat))
        total = position.totals_before[int(seat)] + score
        lines.append(
            f"  {shown(record.name(seat))} ({seat}): {exps}  round {score:+d}, match {total:+d}"
        )
        show = position.hands_known and (perspective is None or perspective is seat)
        if show:
            hand = sort_hand(table.hand(int(seat)))
            lines.append(f"    hand: {format_cards(hand)}")
        else:
            known = table.public_hand_cards(int(seat))
            extra = f" (known: {format_cards(known)})" if known else ""
            lines.append(f"    hand: {len(table.hand(int(seat)))} cards, hidden{extra}")
    tops = "  ".join(
        f"{suit.letter}:{table.discard_pile(suit)[-1] if table.discard_pile(suit) else '-'}"
        for suit in table.suits
    )
    lines.append(f"  discard piles: {tops}   draw pile: {table.draw_pile_size}")
    return lines

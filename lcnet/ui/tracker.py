"""What both game interfaces (full screen and line mode) know of a match in progress.

Each update says what happened and carries a frozen snapshot of where the
match stood then (:class:`~lcnet.protocol.client.MatchState`); the screen reads
only those, never the live session. :class:`MatchTracker` follows the
stream and keeps what a snapshot does not say in words: the turns of
the current round (to score a finished round expedition by expedition once
its deck is revealed), the last move of each player, the summaries of the
finished rounds, the final result, a dispute, the connection status. It
also turns each update into sentences, and says whether the player may move
*and* every earlier event has been shown (so the line mode never prints a
prompt before the opponent's move that led to it).

Pure presentation logic: it reads the updates, never drives the client.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from lcnet.errors import ExitCode, IllegalMoveError, IllegalReason, LcnetError
from lcnet.game.cards import Card, Suit
from lcnet.game.engine import Draw, Outcome, PutDown, Round, Turn, View
from lcnet.game.seat import Seat
from lcnet.invocation import command
from lcnet.protocol.client import MatchClient, MatchState, Update
from lcnet.protocol.events import (
    DisputeInfo,
    DisputeRaised,
    MatchEnded,
    MatchStarted,
    Offer,
    PeerIdentified,
    RoundStarted,
    RoundVerified,
    Said,
    TurnPlayed,
)
from lcnet.protocol.status import Status
from lcnet.ui.board import SUIT_NAMES, Board, board_from_view

PROBE_SEED: Final = 0
"""Seed for the throwaway round used to explain an illegal choice: the
explanation never depends on the hidden cards, so any fixed seed will do."""

YOU: Final = "you"


@dataclass(frozen=True)
class RoundSummary:
    """A finished round: its scores and, once rebuilt, every expedition."""

    round: int
    scores: tuple[int, int]
    """By seat (host, joiner)."""
    totals: tuple[int, int]
    """Match totals after this round, by seat."""
    expeditions: tuple[tuple[tuple[Card, ...], ...], ...] | None
    """By seat, then by suit; ``None`` if the round could not be rebuilt."""
    suits: tuple[Suit, ...]


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def check_choice(
    view: View, put_down: PutDown, draw: Draw | None = None
) -> IllegalMoveError | None:
    """Why a put-down (and then a draw) is not allowed for this player now, or ``None``.

    The engine explains it: the check runs on a round consistent with the
    view (:meth:`View.determinize`), which only the hidden cards could tell
    apart, and no rule depends on them.
    """
    probe = view.determinize(random.Random(PROBE_SEED))
    try:
        probe.check(put_down, view.seat)
        if draw is not None:
            probe.push(put_down, view.seat)
            probe.check(draw, view.seat)
    except IllegalMoveError as exc:
        return exc
    return None


def explain(exc: IllegalMoveError) -> str:
    """An illegal move in one sentence: what was tried and which rule forbids it."""
    reason = exc.reason.value
    if exc.reason is IllegalReason.CARD_NOT_IN_HAND:
        reason = "the card is not in your hand"  # the engine speaks of "the player"
    text = f"not allowed: {exc.move}: {reason}"
    return f"{text} ({exc.detail})" if exc.detail else text


def describe_turn(who: str, turn: Turn, drawn: Card | None) -> str:
    """A turn in words, e.g. ``you discarded r5 and took g7 from the green pile``."""
    put = f"{'discarded' if turn.put_down.discard else 'played'} {turn.put_down.card}"
    suit = turn.draw.suit
    if suit is None:
        draw = f"drew {drawn} from the draw pile" if drawn else "drew from the draw pile"
    else:
        taken = f"took {drawn}" if drawn else "took the top card"
        draw = f"{taken} from the {SUIT_NAMES[suit]} pile"
    return f"{who} {put} and {draw}"


def pile_draws(turns: list[tuple[Seat, Turn]]) -> list[Card | None]:
    """The card each turn took from a discard pile (``None`` for the draw pile).

    The discard piles are public: replaying the round's turns in order
    rebuilds them, so a resumed round tells its pile draws as live play did.
    """
    piles: dict[object, list[Card]] = {}
    taken: list[Card | None] = []
    for _, turn in turns:
        card = turn.put_down.card
        if turn.put_down.discard:
            piles.setdefault(card.suit, []).append(card)
        suit = turn.draw.suit
        pile = piles.get(suit) if suit is not None else None
        taken.append(pile.pop() if pile else None)
    return taken


def rebuild_round(
    order: tuple[Card, ...], starter: Seat, turns: list[tuple[Seat, Turn]]
) -> Round | None:
    """The finished round with both hands, from its revealed deck and its turns."""
    try:
        table = Round.deal(order, int(starter))
        for seat, turn in turns:
            table.push_turn(turn, int(seat))
    except (IllegalMoveError, ValueError):
        return None
    return table if table.is_over else None


class MatchTracker:
    """The match as the player has been shown it, update by update."""

    def __init__(self, client: MatchClient, *, moves: bool = True) -> None:
        self.client = client
        self.moves = moves
        """Whether :meth:`apply` tells each move (a bot's side tells only the rest)."""
        self.me = client.seat
        state = client.state
        self.state: MatchState = state
        """The match as the last update shown left it (never the live session)."""
        # A resumed match starts mid-way: take what the client knows now.
        self.round = state.round_number
        self.starter: Seat | None = state.round_starter
        self.turns: list[tuple[Seat, Turn]] = list(state.round_turns)
        view = state.view
        self._to_move: Seat | None = (
            Seat(view.to_move) if view is not None and not view.is_over else None
        )
        self.last_moves: dict[Seat, str] = {}
        self._moves: list[str] = []
        """This round's turns in words, in order (drawn cards as far as they were shown)."""
        # A resumed round: its moves so far, from the transcript (pile draws are public).
        for (seat, turn), drawn in zip(self.turns, pile_draws(self.turns), strict=True):
            self._note_move(seat, describe_turn(self.name(seat), turn, drawn))
        self.summaries: list[RoundSummary] = []
        self.ended: MatchEnded | None = None
        self.dispute: DisputeInfo | None = state.dispute
        self.status: Status = client.status
        self.error: str | None = None
        """A failure of the connection itself (the client raised)."""
        self.cautions: list[str] = []
        """Why the opponent's name may not be who it says (:attr:`Update.caution`)."""
        self.last_notice: str | None = None
        """The client's last notice (when it gives up, it says why in one)."""
        self.failure: LcnetError | None = None
        """Why the client stopped (a refusal, an impostor, an unreachable host)."""
        self.warnings: list[LcnetError] = []
        """Peers refused while the client goes on (a known name with a new key)."""

    # -- names

    def name(self, seat: Seat) -> str:
        """How the interface names a player: ``you``, or the opponent's name."""
        if seat is self.me:
            return YOU
        return self.state.names.get(seat) or "the opponent"

    @property
    def opponent(self) -> str:
        return self.name(self.me.other)

    # -- the state now

    @property
    def rounds(self) -> int:
        options = self.state.options
        return options.rounds if options is not None else 0

    def totals_before_round(self) -> tuple[int, int]:
        """Match totals by seat, of the rounds already recorded."""
        return self.state.totals

    def board(self) -> Board | None:
        """The table from this player's side (``None`` before the first deal)."""
        state = self.state
        view = state.view
        if view is None:
            return None
        totals = self.totals_before_round()
        me, other = self.me, self.me.other
        return board_from_view(
            view,
            names=(self.opponent, YOU),
            totals=(totals[other], totals[me]),
            round_number=state.round_number,
            rounds=self.rounds,
            turn=len(self.turns),
        )

    @property
    def over(self) -> bool:
        """Whether nothing more will happen: the match ended (finished, resigned,
        stopped by a dispute) or the client gave up on it (status ``OVER``)."""
        # From the updates shown, not the session: the session may be over
        # while its last round's result has not been shown yet.
        return (
            self.ended is not None
            or self.dispute is not None
            or self.status in (Status.OVER, Status.DISPUTE)
        )

    @property
    def stopped_early(self) -> bool:
        """The client gave up on a match that is not over (it can be resumed)."""
        return self.over and not self.state.is_over and self.dispute is None

    def may_move(self) -> bool:
        """The session waits for this player's move and every event before it was shown."""
        state = self.state
        return (
            state.awaiting_decision
            and self.round == state.round_number
            and self._to_move is self.me
        )

    def note_sent(self) -> None:
        """This player's move goes to the client (told just before it is
        handed over): the turn passes on, until :meth:`note_not_sent`."""
        self._to_move = self.me.other

    def note_not_sent(self) -> None:
        """The client refused this player's move: the turn is still theirs."""
        if self.client.state.awaiting_decision:
            self._to_move = self.me

    def exit_code(self) -> int:
        if self.dispute is not None:
            return ExitCode.DISPUTE
        if self.ended is not None or self.state.is_over:
            return ExitCode.FINISHED
        if not self.opponent_known:
            return ExitCode.NOT_STARTED  # no match, no file: nothing to continue
        return ExitCode.UNFINISHED

    @property
    def replay_path(self) -> Path | None:
        return self.client.replay_path

    @property
    def opponent_known(self) -> bool:
        """Whether the opponent ever answered (else no match was started)."""
        return self.me.other in self.state.fingerprints

    # -- updates

    def apply(self, update: Update) -> list[str]:
        """Take one update into account; return what to tell the player, in sentences."""
        out: list[str] = []
        if update.state is not None:
            before = self.state.watchers
            out.extend(self._rematch_news(self.state.rematch, update.state.rematch))
            self.state = update.state
            out.extend(
                f"{name} ({fingerprint}) watches the match"
                for name, fingerprint in update.state.watchers
                if (name, fingerprint) not in before
            )
            out.extend(
                f"{name} ({fingerprint}) no longer watches"
                for name, fingerprint in before
                if (name, fingerprint) not in update.state.watchers
            )
        if update.event is not None:
            out.extend(self._event(update.event))
        if update.status is not None:
            out.extend(self._status(update.status))
        if update.notice:
            self.last_notice = update.notice
            out.append(update.notice)
        if update.failure is not None and self.failure is None:
            self.failure = update.failure
            out.append(str(update.failure))
        if update.warning is not None:
            self.warnings.append(update.warning)
            out.append(str(update.warning))
        if update.status is Status.WAITING_FOR_PEER:
            self.cautions.clear()  # a host that gave up on a stalled opening waits anew
        if update.caution is not None:
            self.cautions.append(update.caution)
            out.append(f"CAUTION: {update.caution}")
        return out

    def _rematch_news(self, before: Offer | None, now: Offer | None) -> list[str]:
        """What changed in the offer of another match, in a sentence."""
        if now is None or before is None:
            return []
        if now.ours and before.ours is None and now.theirs is None:
            return [f"asked {self.opponent} for another match; waiting for the answer"]
        if before.theirs == now.theirs:
            return []
        if not now.theirs:
            return [f"{self.opponent} does not want another match"]
        if now.ours:
            return [f"{self.opponent} agrees: another match starts, the seats swapped"]
        return [f"{self.opponent} asks for another match, the seats swapped"]

    def rematch_question(self) -> str | None:
        """What the player may say of another match now (``None``: nothing)."""
        offer = self.state.rematch
        if offer is None or offer.declined or offer.ours:
            return None
        if offer.theirs:
            return f"{self.opponent} asks for another match, with the seats swapped."
        return "Another match, with the seats swapped?"

    def _event(self, event: object) -> list[str]:
        if isinstance(event, PeerIdentified):
            if event.seat is self.me:
                return []
            return [
                *self.identity_lines(),
                "read the fingerprints to each other: they must match what each of you sees",
            ]
        if isinstance(event, MatchStarted):
            return [
                f"match: {event.options.suits} suits, {plural(event.options.rounds, 'round')}; "
                f"a fair coin says {self.name(event.first_starter)} start"
                f"{'' if event.first_starter is self.me else 's'} round 1"
            ]
        if isinstance(event, RoundStarted):
            self.round = event.round
            self.starter = event.starter
            self.turns = []
            self._to_move = event.starter
            self.last_moves = {}
            self._moves = []
            who = self.name(event.starter)
            verb = "start" if event.starter is self.me else "starts"
            return [f"round {event.round} of {self.rounds}: {who} {verb}"]
        if isinstance(event, TurnPlayed):
            if event.round != self.round:
                self.round, self.turns, self.starter = event.round, [], event.seat
                self._moves = []
            self.turns.append((event.seat, event.turn))
            self._to_move = event.seat.other
            text = describe_turn(self.name(event.seat), event.turn, event.drawn)
            self._note_move(event.seat, text)
            return [text] if self.moves else []
        if isinstance(event, RoundVerified):
            return self._round_verified(event)
        if isinstance(event, MatchEnded):
            self.ended = event
            self._to_move = None
            return self.result_lines()
        if isinstance(event, DisputeRaised):
            self.dispute = event.dispute
            self._to_move = None
            return self.dispute_lines()
        if isinstance(event, Said):
            return [
                f"{self.name(event.seat)} {'say' if event.seat is self.me else 'says'}: "
                f"{event.text}"
            ]
        return []  # dropped frames, duplicates, gaps and control frames are the net layer's

    def _note_move(self, seat: Seat, text: str) -> None:
        self.last_moves[seat] = text
        self._moves.append(text)

    def history(self) -> list[str]:
        """Every turn of the current round in words, both players, in order."""
        return list(self._moves)

    def _round_verified(self, event: RoundVerified) -> list[str]:
        before = self.summaries[-1].totals if self.summaries else self._totals_without(event)
        totals = (before[0] + event.scores[0], before[1] + event.scores[1])
        table = None
        if self.starter is not None and self.round == event.round:
            table = rebuild_round(event.deck.order, self.starter, self.turns)
        expeditions = None
        suits = tuple(Suit)[: event.deck.suit_count]
        if table is not None:
            expeditions = tuple(
                tuple(tuple(table.expedition(int(seat), s)) for s in suits) for seat in Seat
            )
        self.summaries.append(RoundSummary(event.round, event.scores, totals, expeditions, suits))
        me, other = self.me, self.me.other
        return [
            f"round {event.round} over: you {event.scores[me]:+d}, "
            f"{self.opponent} {event.scores[other]:+d}; "
            f"match: you {totals[me]:+d}, {self.opponent} {totals[other]:+d}"
        ]

    def _totals_without(self, event: RoundVerified) -> tuple[int, int]:
        """Totals before ``event``'s round, from the match record (a resumed match)."""
        earlier = self.state.round_scores[: event.round - 1]
        return (sum(s[0] for s in earlier), sum(s[1] for s in earlier))

    def _status(self, status: Status) -> list[str]:
        previous, self.status = self.status, status
        if status is Status.DISCONNECTED:
            return [self.disconnected_text()]
        if status is Status.PLAYING and previous is Status.DISCONNECTED:
            return [f"{self.opponent} is back; the match goes on"]
        if status is Status.WAITING_FOR_PEER:
            return ["waiting for the opponent to connect"]
        if status is Status.CONNECTING:
            return ["connecting to the opponent"]
        if status is Status.DISPUTE and self.dispute is None:
            self.dispute = self.state.dispute
            return self.dispute_lines()
        if status is Status.OVER and self.stopped_early:
            if self.state.failure is not None:
                return []  # the command says why it stopped, once, as it ends
            return [self.stopped_text()]
        return []

    # -- sentences

    def disconnected_text(self, listening: str | None = None) -> str:
        """What to do while the opponent is away (``listening``: where a host
        listens for it to reconnect)."""
        path = self.replay_path
        later = (
            f"or quit and continue later with: {command()} resume {path}"
            if path is not None
            else "or quit (this match is not saved, so it cannot be resumed)"
        )
        if listening is not None:
            return f"{self.opponent} is disconnected; listening on {listening}. Wait, {later}"
        return (
            f"{self.opponent} is disconnected. Wait: the match goes on when they reconnect; {later}"
        )

    def identity_lines(self) -> list[str]:
        """Both players: name, seat and key fingerprint (``?`` for a key not known yet)."""
        state = self.state
        lines = []
        for seat in (self.me, self.me.other):
            fingerprint = state.fingerprints.get(seat)
            name = state.names.get(seat) or ("the opponent" if seat is not self.me else "?")
            who = f"you: {name}" if seat is self.me else f"opponent: {name}"
            bot = ", a bot (its program says so)" if seat in state.bots else ""
            if fingerprint is None:
                lines.append(f"{who} ({seat}), not connected yet")
            else:
                lines.append(f"{who} ({seat}), key {fingerprint}{bot}")
            if seat is not self.me:
                lines.extend(f"  ! {caution}" for caution in self.cautions)
        for name, fingerprint in state.watchers:
            lines.append(f"watching: {name}, key {fingerprint}")
        if state.unlisted_watchers:
            lines.append(f"watching: {state.unlisted_watchers} more, not named by the host")
        return lines

    @property
    def match_started(self) -> bool:
        """Whether the joiner went past the host's welcome (before it, no file is kept)."""
        return self.state.frames > 2

    def stopped_text(self) -> str:
        if self.failure is not None and not (self.opponent_known and self.match_started):
            return "no match was started, and no file was kept"
        if not self.opponent_known:
            return "the opponent never answered, so no match was started"
        path = self.replay_path
        later = (
            f"continue it later with: {command()} resume {path}"
            if path is not None
            else "it was not saved, so it cannot be continued"
        )
        return f"the match stopped before its end; {later}"

    def outcome_text(self, outcome: Outcome, resigned: Seat | None) -> str:
        me, other = int(self.me), int(self.me.other)
        mine, theirs = outcome.totals[me], outcome.totals[other]
        # The winner's total comes first, as a result is read out.
        if resigned is not None:
            # The totals are the finished rounds' only: the board of the round
            # resigned showed its own running score, which does not count.
            stood = f"finished rounds: you {mine}, {self.opponent} {theirs}"
            if resigned is self.me:
                return f"you resigned: {self.opponent} wins ({stood})"
            return f"{self.opponent} resigned: you win ({stood})"
        if outcome.winner is None:
            return f"the match is a draw, {mine} to {theirs}"
        if outcome.winner == me:
            return f"you win the match, {mine} to {theirs}"
        return f"{self.opponent} wins the match, {theirs} to {mine}"

    def saved_text(self) -> str:
        path = self.replay_path
        if path is None:
            return "this match was not saved to a file"
        return f"match saved in: {path}"

    def result_lines(self) -> list[str]:
        if self.ended is None:
            return []
        lines = [self.outcome_text(self.ended.outcome, self.ended.resigned)]
        me, other = int(self.me), int(self.me.other)
        for number, scores in enumerate(self.ended.round_scores, start=1):
            lines.append(
                f"  round {number}: you {scores[me]:+d}, {self.opponent} {scores[other]:+d}"
            )
        if not self.ended.sealed and self.ended.resigned is None:
            lines.append("the result is not yet countersigned by both players")
        lines.append(self.saved_text())
        return lines

    def dispute_lines(self) -> list[str]:
        info = self.dispute
        if info is None:
            return []
        if info.offender is self.me:
            what = (
                f"{self.opponent} stopped the match, saying your frame {info.seq} "
                f"breaks the protocol: {info.reason}"
            )
        else:
            what = f"{self.opponent} broke the rules in frame {info.seq}: {info.reason}"
        path = self.replay_path
        evidence = (
            [
                f"the evidence (every signed frame) is in: {path}",
                f"check it with: {command()} audit {path}",
            ]
            if path is not None
            else ["this match was not saved to a file, so there is no evidence file"]
        )
        return [
            f"dispute: {what}",
            "the match is stopped; nothing after that frame counts",
            *evidence,
        ]

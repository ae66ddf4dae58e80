"""The analysis of a saved match: each turn of one player set against the bot's choice.

:func:`analyze_record` takes a :class:`~lcnet.review.positions.MatchRecord` and a seat
(the file owner's, by default), rebuilds that player's view before each of
its turns (:func:`lcnet.review.positions.decisions`: only what the player knew, never
the opponent's hidden hand, even though a finished round's file reveals it)
and asks :func:`lcnet.bots.advice.analyze` for a verdict on each. The
result says, per turn, the turn played, the bot's choice and how many
points the played turn is expected to lose, marks the turns that lost most,
and sums it up; as text lines (``lcnet replay FILE --analyze``) or as JSON
(``--json``). No I/O here: the command prints, and draws the progress bar
through ``on_progress``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from lcnet.bots import advice
from lcnet.bots.advice import short
from lcnet.errors import UserError
from lcnet.game.seat import Seat
from lcnet.review import positions

WORST: Final = 3
"""How many of the costliest turns the analysis marks."""
MARK_LOSS: Final = 2.0
"""A turn is marked only if it loses at least this many points (less is the
estimate's noise more than a mistake)."""


@dataclass(frozen=True)
class AnalyzedTurn:
    decision: positions.Decision
    verdict: advice.TurnVerdict
    worst: bool
    """One of the turns that lost the most (at most :data:`WORST`)."""

    @property
    def agrees(self) -> bool:
        return self.verdict.agrees


@dataclass(frozen=True)
class MatchAnalysis:
    """A verdict on every analysable turn of one player."""

    seat: Seat
    player: str
    turns: list[AnalyzedTurn]
    hidden: int
    """The player's turns in rounds whose seeds were not revealed (not analysed)."""
    deals: int
    seed: int

    @property
    def total_loss(self) -> float:
        return sum(t.verdict.loss for t in self.turns)

    @property
    def agreed(self) -> int:
        return sum(1 for t in self.turns if t.agrees)

    def worst(self) -> list[AnalyzedTurn]:
        """The marked turns, costliest first."""
        return sorted((t for t in self.turns if t.worst), key=lambda t: -t.verdict.loss)

    def at(self, index: int) -> AnalyzedTurn | None:
        """The turn that led to ``record.positions[index]``, if it was analysed."""
        return next((t for t in self.turns if t.decision.index == index), None)


def analyze_record(
    record: positions.MatchRecord,
    seat: Seat,
    *,
    seed: int = 0,
    deals: int = advice.ANALYSIS_DEALS,
    on_progress: Callable[[int, int], None] | None = None,
) -> MatchAnalysis:
    """Analyse ``seat``'s turns in ``record``; a :class:`UserError` if there are none."""
    decisions = positions.decisions(record, seat)
    hidden = positions.hidden_turns(record, seat)
    player = f"{record.name(seat)} ({seat})" if record.name(seat) != str(seat) else str(seat)
    if not decisions:
        why = (
            f"its {hidden} turns are in rounds whose seeds were not revealed, so the file "
            "does not say what was in the hand"
            if hidden
            else "it holds no turn of theirs"
        )
        raise UserError(f"nothing to analyze for {player}: {why}")
    verdicts = advice.analyze(
        [(d.view, d.played) for d in decisions], seed=seed, deals=deals, on_progress=on_progress
    )
    costly = sorted(
        (i for i, v in enumerate(verdicts) if v.loss >= MARK_LOSS), key=lambda i: -verdicts[i].loss
    )[:WORST]
    turns = [
        AnalyzedTurn(decision, verdict, index in costly)
        for index, (decision, verdict) in enumerate(zip(decisions, verdicts, strict=True))
    ]
    return MatchAnalysis(seat, player, turns, hidden, deals, seed)


def verdict_line(turn: AnalyzedTurn) -> str:
    """One turn's verdict in a sentence (the replay viewer shows it under the board)."""
    verdict = turn.verdict
    if verdict.agrees:
        return f"{short(verdict.played)}: the bot agrees: {verdict.reason}"
    return (
        f"{short(verdict.played)} loses about {verdict.loss:.1f} points; "
        f"the bot would {verdict.reason}"
    )


def text_lines(analysis: MatchAnalysis) -> list[str]:
    """The analysis as a table, the worst turns and a summary."""
    rounds = sorted({t.decision.round for t in analysis.turns})
    out = [
        f"Analysis of {analysis.player}'s turns: {len(analysis.turns)} turns in "
        f"{len(rounds)} round{'s' if len(rounds) != 1 else ''} "
        f"({analysis.deals} deals a turn, seed {analysis.seed}).",
        "Each turn is valued from what the player knew then, as the bot's estimate of",
        "the round's final margin (you minus the opponent); loss: points below the bot's choice.",
        "",
        f"{'round':>5} {'turn':>4}  {'played':<11} {'bot':<11} {'loss':>5}",
    ]
    for turn in analysis.turns:
        verdict = turn.verdict
        choice = "same" if verdict.played == verdict.choice else short(verdict.choice)
        loss = f"{'-':>5}" if verdict.played == verdict.choice else f"{verdict.loss:5.1f}"
        mark = "  <- worst" if turn.worst else ""
        out.append(
            f"{turn.decision.round:>5} {turn.decision.turn:>4}  {short(verdict.played):<11} "
            f"{choice:<11} {loss}{mark}"
        )
    out.append("")
    worst = analysis.worst()
    if worst:
        out.append("The turns that lost the most:")
        for turn in worst:
            verdict = turn.verdict
            out.append(
                f"  round {turn.decision.round}, turn {turn.decision.turn}: "
                f"{short(verdict.played)} loses about {verdict.loss:.1f} points "
                f"against {short(verdict.choice)}"
            )
            out.append(f"    the bot: {verdict.reason}")
    else:
        out.append(f"No turn lost {MARK_LOSS:g} points or more against the bot's choice.")
    count = len(analysis.turns)
    out.append(
        f"Summary: {analysis.agreed} of {count} turns are the bot's choice or within "
        f"{advice.MIN_LOSS:g} points of it; in all, the turns played lose about "
        f"{analysis.total_loss:.1f} points against the bot's choices "
        f"({analysis.total_loss / count:.1f} a turn)."
    )
    if analysis.hidden:
        out.append(
            f"{analysis.hidden} turns were not analysed: their rounds' seeds were not "
            "revealed, so the file does not say what was in the hand."
        )
    return out


def to_json(analysis: MatchAnalysis) -> dict[str, Any]:
    """The analysis as a JSON document (values and losses in points)."""
    return {
        "seat": str(analysis.seat),
        "player": analysis.player,
        "deals": analysis.deals,
        "seed": analysis.seed,
        "turns": [
            {
                "round": t.decision.round,
                "turn": t.decision.turn,
                "played": short(t.verdict.played),
                "choice": short(t.verdict.choice),
                "played_value": round(t.verdict.played_value, 2),
                "choice_value": round(t.verdict.choice_value, 2),
                "loss": round(t.verdict.loss, 2),
                "agrees": t.agrees,
                "worst": t.worst,
                "reason": t.verdict.reason,
            }
            for t in analysis.turns
        ],
        "not_analyzed": analysis.hidden,
        "summary": {
            "turns": len(analysis.turns),
            "agreed": analysis.agreed,
            "total_loss": round(analysis.total_loss, 2),
            "worst": [
                {"round": t.decision.round, "turn": t.decision.turn} for t in analysis.worst()
            ],
        },
    }

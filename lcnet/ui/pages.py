"""The text of the game's full-screen pages, as plain functions of the match.

Each page the game shows over the board, or instead of it, is made here from
what the :class:`~lcnet.ui.tracker.MatchTracker` knows and the player's seat:
the banner above the board, the wait for the opponent, who plays whom (the
``i`` key), a known name with a new key, a refused match, a round summary,
the result or a dispute, the move history and the too-small terminal. None
of them keeps state or touches the screen: :class:`~lcnet.ui.game.GameUI`
decides which page shows and draws it.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Final

from lcnet.errors import LcnetError
from lcnet.game.seat import Seat
from lcnet.protocol.events import MatchEnded, RoundVerified
from lcnet.protocol.status import Status
from lcnet.store import identity
from lcnet.ui.board import SCREEN_WIDTH, Line, clip, scoring_lines
from lcnet.ui.tracker import YOU, MatchTracker, RoundSummary

TEXT_WIDTH: Final = SCREEN_WIDTH - 2
"""Wrapped messages leave a margin of one column on each side."""
MAX_ADDRESSES: Final = 8
"""At most this many of a waiting host's addresses on its screen (it fits 80x24)."""
BANNER_LINES: Final = 2
"""Room for the disconnected or dispute banner above the board."""


@dataclass(frozen=True)
class Screen:
    """A full screen shown over the board until the player moves on."""

    kind: type[object]
    """The event that opened it: RoundVerified, MatchEnded or DisputeRaised."""
    summary: RoundSummary | None = None


def key_check(error: LcnetError) -> identity.PeerCheck | None:
    """The known and the new key, if ``error`` refused a known name with a new key."""
    check = getattr(error, "check", None)
    return check if isinstance(check, identity.PeerCheck) else None


def failure_title(failure: LcnetError) -> str:
    """A heading for why no match was played (the network errors name their kind)."""
    return failure.title


def sentence(text: str) -> str:
    """``text`` with a capital first letter (the rest, paths included, unchanged)."""
    return text[:1].upper() + text[1:]


def _wrapped(text: str) -> list[Line]:
    """``text`` wrapped to the page, indented one column; paths and commands stay whole."""
    return [
        [("", f" {line}")]
        for line in textwrap.wrap(text, TEXT_WIDTH, break_long_words=False, break_on_hyphens=False)
    ]


# -- above the board, and while there is none


def banner(tracker: MatchTracker) -> list[Line]:
    """The disconnected, failed or stopped match, above the board (nothing if all is well)."""
    text = ""
    style = "class:banner.warning"
    if tracker.error is not None:
        text = f"The connection failed: {tracker.error}. Press q to leave."
    elif tracker.stopped_early:
        first = str(tracker.failure) if tracker.failure is not None else tracker.last_notice
        parts = [first, tracker.stopped_text(), "press q to leave"]
        text = ". ".join(sentence(part) for part in parts if part) + "."
    elif tracker.status is Status.DISCONNECTED:
        text = tracker.disconnected_text(listening(tracker))
    elif tracker.status in (Status.CONNECTING, Status.WAITING_FOR_PEER):
        text = tracker.status.value
        where = listening(tracker)
        if where is not None and tracker.board() is not None:
            text += f"; listening on {where}"  # a resumed host, on its board
    if not text:
        return []
    # Paths and commands stay whole, wherever the program was installed.
    wrapped = textwrap.wrap(text, TEXT_WIDTH, break_long_words=False, break_on_hyphens=False)
    return [[(style, f" {line:<{TEXT_WIDTH}} ")] for line in wrapped[:BANNER_LINES]]


def identities(tracker: MatchTracker) -> list[str]:
    """Both players' key fingerprints, to read aloud to each other before playing."""
    lines = []
    for line in tracker.identity_lines():
        if line.startswith("  ! "):  # a caution about the opponent's name: all of it
            lines.extend(textwrap.wrap(line, TEXT_WIDTH - 2, subsequent_indent="    "))
        else:
            lines.append(clip(line, TEXT_WIDTH - 2))
    if tracker.opponent_known:
        lines.append("Read the fingerprints to each other: they must match what you see.")
    lines.append("(i shows them again at any time)")
    return lines


def listening(tracker: MatchTracker) -> str | None:
    """Where a host listens (a resumed one too), for its banner; None for a joiner."""
    addresses = tracker.state.addresses
    if not addresses:
        return None
    more = f" (and {len(addresses) - 1} more)" if len(addresses) > 1 else ""
    return f"{addresses[0]}{more}"


def join_commands(tracker: MatchTracker) -> list[str]:
    """While a host waits: where the opponent can join it (the network peer says)."""
    addresses = tracker.state.addresses
    if tracker.status is not Status.WAITING_FOR_PEER or not addresses:
        return []
    shown = addresses[:MAX_ADDRESSES]
    lines = ["The opponent joins with one of:" if len(shown) > 1 else "The opponent joins with:"]
    lines.extend(f"  lcnet join {address}" for address in shown)
    if len(addresses) > len(shown):
        lines.append(f"  (and {len(addresses) - len(shown)} more addresses)")
    lines.append("")
    return lines


def waiting_text(tracker: MatchTracker) -> str:
    """What the screen waits for while there is no board."""
    status = tracker.status
    if status is Status.WAITING_FOR_PEER:
        return "Waiting for the opponent to connect..."
    if status is Status.CONNECTING:
        return "Connecting..."
    if tracker.over:
        return "The match is over."
    return "Shuffling and dealing (both players take part in the masked deal)..."


# -- who plays whom


def identity_screen(tracker: MatchTracker) -> list[Line]:
    """The ``i`` screen: who plays whom, with both key fingerprints."""
    out: list[Line] = [[("class:banner", f" {'Who you play':<{TEXT_WIDTH}} ")], [("", "")]]
    out.extend([("", f" {line}")] for line in identities(tracker)[:-1])
    out.append([("", "")])
    for text in (
        "lcnet remembers each opponent's key, and refuses a known name that comes "
        "back with another key. Compare the fingerprints with your opponent (in "
        "person, or by phone) the first time you play.",
    ):
        out.extend([("", f" {line}")] for line in textwrap.wrap(text, TEXT_WIDTH))
    out.append([("", "")])
    out.append([("class:dim", " Press Esc, Enter or i to go back.")])
    return out


def key_warning(
    tracker: MatchTracker, seat: Seat, warning: LcnetError, *, stopped: bool
) -> list[Line]:
    """A known name with a new key: both fingerprints, and what to do.

    ``stopped``: the client gave up on it (else a host turned a peer away and waits on).
    """
    check = key_check(warning)
    assert check is not None
    name = clip(check.name, 24)
    title = f"WARNING: this may not be {name}"
    out: list[Line] = [
        [("class:banner.dispute", f" {title:<{TEXT_WIDTH}} ")],
        [("", "")],
        [
            ("", f" You know {name} with the key   "),
            ("class:label", f"{check.previous_fingerprint}"),
        ],
        [
            ("", f" but this {'opponent' if stopped else 'peer'} presents   "),
            ("class:error", f"{check.fingerprint}"),
        ],
        [("", "")],
    ]
    texts = [
        identity.same_name_causes(name)
        + " "
        + (
            "Nothing was played, and no file was kept."
            if stopped
            else "This host turned them away and still waits for its opponent."
        ),
        f"What to do: check the new fingerprint with {name} in person. If they "
        f"really have a new key, "
        + (
            f"play again with --accept-new-key {check.fingerprint}, or forget the old "
            f"key with: lcnet id --forget {check.name!r}"
            if stopped
            else f"accept it with: lcnet id --forget {check.name!r} (they then join again)"
        )
        + ". If it is someone else, one of you can take another name: lcnet id --name NAME",
    ]
    for text in texts:
        out.extend(_wrapped(text))
    out.append([("", "")])
    me = tracker.state.fingerprints.get(seat)
    if me is not None:
        out.append([("class:dim", f" Your own key: {me}")])
    leave = "Press q to leave." if stopped else "Press Enter to go on waiting, q to leave."
    out.append([("class:dim", f" {leave}")])
    return out


def refusal_screen(tracker: MatchTracker, failure: LcnetError) -> list[Line]:
    """No match: the one reason (refused, busy, version, unreachable), full width."""
    out: list[Line] = [
        [("class:banner.warning", f" {failure_title(failure):<{TEXT_WIDTH}} ")],
        [("", "")],
    ]
    out.extend(_wrapped(f"{sentence(str(failure))}. {sentence(tracker.stopped_text())}."))
    out.append([("", "")])
    out.extend([("", f" {line}")] for line in identities(tracker)[:-1])
    out.append([("", "")])
    out.append([("class:dim", " Press q to leave.")])
    return out


# -- between rounds and at the end


def screen_lines(tracker: MatchTracker, seat: Seat, screen: Screen) -> list[Line]:
    """A round summary, the result or a dispute, until the player moves on."""
    out: list[Line] = []
    if screen.kind is RoundVerified and screen.summary is not None:
        out.extend(summary_lines(tracker, seat, screen.summary))
        more = "go on to the next round"
        if tracker.ended is not None or len(tracker.summaries) >= tracker.rounds:
            more = "see the result"
        out.append([("class:dim", f"Press Enter to {more}.")])
        return out
    if screen.kind is MatchEnded:
        out.append([("class:banner", f" {'The match is over':<{TEXT_WIDTH}} ")])
        out.append([("", "")])
    else:
        out.append([("class:banner.dispute", f" {'Dispute: the match stopped':<{TEXT_WIDTH}} ")])
        out.append([("", "")])
    texts = tracker.result_lines() if screen.kind is MatchEnded else tracker.dispute_lines()
    for text in texts:
        # Paths stay whole (the window wraps a path longer than a line).
        out.extend(_wrapped(text))
    out.append([("", "")])
    question = tracker.rematch_question()
    offer = tracker.state.rematch
    if question is not None:
        out.extend(_wrapped(f"{question} Press a for it, q to leave."))
    elif offer is not None and offer.theirs is False:
        out.extend(_wrapped(f"{tracker.opponent} does not want another match. Press q to leave."))
    elif offer is not None and offer.ours and offer.theirs is None:
        out.append([("", f" Waiting for {tracker.opponent} to answer (q leaves).")])
    else:
        out.append([("class:dim", " Press q to leave.")])
    return out


def summary_lines(tracker: MatchTracker, seat: Seat, summary: RoundSummary) -> list[Line]:
    """A finished round: each player's expeditions scored (or the scores), and the totals."""
    me, other = seat, seat.other
    opponent = tracker.opponent
    out: list[Line] = [
        [("class:banner", f" {f'Round {summary.round} is over':<{TEXT_WIDTH}} ")],
    ]
    if summary.expeditions is not None:
        for player, name in ((me, YOU), (other, opponent)):
            out.extend(scoring_lines(name, summary.suits, summary.expeditions[player]))
    else:
        out.append([("", f" you {summary.scores[me]:+d}, {opponent} {summary.scores[other]:+d}")])
    out.append(
        [
            ("class:label", " match: "),
            (
                "",
                f"you {summary.totals[me]:+d}, {clip(opponent, 24)} {summary.totals[other]:+d}",
            ),
        ]
    )
    return out


# -- the moves, and a terminal too small


def history_page(tracker: MatchTracker, scroll: int, rows: int) -> tuple[list[Line], int]:
    """Every turn of this round, both players, in order (the latest at the bottom),
    on ``rows`` rows with ``scroll`` of them hidden below; and ``scroll`` kept
    within the moves there are."""
    round_number = tracker.state.round_number
    head: list[Line] = [
        [("class:banner", f" {f'Round {round_number}: every move, in order':<{TEXT_WIDTH}} ")]
    ]
    moves: list[Line] = [
        [("class:dim", f"{number:>4}  "), ("", text)]
        for number, text in enumerate(tracker.history(), start=1)
    ]
    if not moves:
        moves = [[("class:dim", "  no move yet in this round")]]
    foot: list[Line] = [
        [("class:dim", "  Up/Down, PageUp/PageDown: scroll   m, Esc or Enter: back")]
    ]
    room = max(rows - len(head) - len(foot), 1)
    scroll = max(0, min(scroll, len(moves) - room))
    end = len(moves) - scroll
    shown = moves[max(0, end - room) : end]
    return [*head, *shown, *foot], scroll


def too_small_lines(
    columns: int, rows: int, least: tuple[int, int], question: str | None
) -> list[Line]:
    """The terminal (``columns`` x ``rows``) is smaller than ``least``: the size to
    make it, and the question waiting, if any (else how to quit)."""
    paragraphs = [
        ("class:banner.warning", "The terminal is too small for the board."),
        (
            "",
            f"It is {columns}×{rows}: make the terminal at least {least[0]}×{least[1]} "
            "(a larger window or a smaller font). The board comes back as soon as it fits.",
        ),
        ("class:banner.warning", question) if question is not None else ("class:dim", "q quits."),
    ]
    return [
        [(style, line)]
        for style, text in paragraphs
        for line in textwrap.wrap(text, max(columns, 10))
    ]

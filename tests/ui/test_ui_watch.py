"""``lcnet watch``'s full-screen board: never more than ``lcnet replay`` shows.

The board a spectator shows at a terminal (:class:`lcnet.ui.watch_view.WatchScreen`)
is fed what a spectator keeps, message by message; at every step its screen,
every page of it, names no card that the replay viewer of the same frames
(from no seat: ``--seat both``) does not name at that step or before, and
its board is the replay viewer's, line for line: whose move, the totals,
the last move. The keys are pressed through a pipe, and one test watches a
real match over ZeroMQ.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import re
from pathlib import Path
from typing import Final

import pytest
import zmq.asyncio
from hypothesis import given, settings
from hypothesis import strategies as st
from prompt_toolkit.input import DummyInput, PipeInput, create_pipe_input

from lcnet.audit import verdict as audit
from lcnet.game.seat import Seat
from lcnet.protocol.events import MatchOptions
from lcnet.review import positions
from lcnet.store.replayfile import read_replay
from lcnet.ui import replay_view
from lcnet.ui.board import SCREEN_WIDTH, plain
from lcnet.ui.keys import markdown_rows
from lcnet.ui.replay_view import Perspective, ReplayViewer, position_lines, text_lines
from lcnet.ui.watch_view import (
    BODY_ROWS,
    HELP_TEXT,
    KEYS,
    LISTED_ORDER,
    PUBLIC,
    Page,
    WatchScreen,
)
from lcnet.watch.spectator import Spectator
from tests.netutil import DEADLINE, LOOPBACK, local_host, local_joiner
from tests.uisupport import SmallOutput, match_frames, render, wait_until
from tests.watch.test_watch import _watching

REPLAYS: Final = Path(__file__).resolve().parents[2] / "replays"
README: Final = Path(__file__).resolve().parents[2] / "README.md"
SAMPLES: Final = tuple(sorted(path.name for path in REPLAYS.glob("sample-*.lcnet")))
SIX_SUITS: Final = "two bots, 6 suits, in memory"
SOURCES: Final = (*SAMPLES, SIX_SUITS)
CARD: Final = re.compile(r"(?<![A-Za-z0-9])[ybwgrp](?:H[1-3]|10|[2-9])(?![A-Za-z0-9])")
"""A card in notation (``r7``, ``yH2``) standing alone, as the screens write them."""


@functools.cache
def transcript(source: str) -> tuple[bytes, ...]:
    if source == SIX_SUITS:
        return tuple(match_frames(rounds=1, suits=6, seed=4))
    return tuple(read_replay(REPLAYS / source).frames)


def watch_screen(input: PipeInput | None = None) -> WatchScreen:
    return WatchScreen(
        title="watching the match at test",
        input=input or DummyInput(),
        output=SmallOutput(),
        monochrome=True,
    )


def feed(screen: WatchScreen, spectator: Spectator, message: list[bytes]) -> None:
    """One message from the host, as lcnet.watch.peer hands it to the screen."""
    received = spectator.receive(message)
    if received.frames:
        screen.take_frames(spectator.frames)
    for line in received.lines:
        screen.show(line)


def pages(screen: WatchScreen) -> dict[Page, list[str]]:
    """Every page of the screen, rendered on 80x24 (the board last: it stays open)."""
    out = {}
    for page in (*(p for p in Page if p is not Page.BOARD), Page.BOARD):
        screen.open(page)
        out[page] = render(screen.app)
    return out


def body(rows: list[str], height: int) -> list[str]:
    """The rows under the title, ``height`` of them, without the blank ones at the end."""
    lines = rows[1 : 1 + height]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def cards(text: str) -> set[str]:
    return set(CARD.findall(text))


def replay_at_last_step(frames: list[bytes]) -> tuple[positions.MatchRecord, list[str]]:
    """``lcnet replay --seat both`` of ``frames``, at its last step, on 80x24."""
    record = positions.load(frames)
    viewer = ReplayViewer(
        record, perspective=Perspective.BOTH, input=DummyInput(), output=SmallOutput()
    )
    viewer.go(len(record.positions) - 1)
    return record, render(viewer.app)


def replay_cards(record: positions.MatchRecord, screen: list[str]) -> set[str]:
    """Every card ``lcnet replay --seat both`` names at the last step or before:
    the full screen at the last step, the body of every earlier step, and the
    text form (``--text``: every step, and the audit's verdict whole, which
    the status bar cuts to its width)."""
    named = cards("\n".join([*screen, *text_lines(record, Perspective.BOTH)]))
    for position in record.positions:
        named |= cards("\n".join(plain(position_lines(record, position, Perspective.BOTH))))
    return named


def check_against_replay(
    screen: WatchScreen, spectator: Spectator, earlier: frozenset[str] = frozenset()
) -> set[str]:
    """Check the screen against the replay of what ``spectator`` holds
    (``earlier``: cards the lines of an earlier match on the same watch may
    name); returns the cards the replay names."""
    frames = list(spectator.frames)
    record, replay_rows = replay_at_last_step(frames)
    shown = pages(screen)
    board = shown[Page.BOARD]
    assert f"{len(frames)} frame" in board[0]
    # Nothing on any page of the watch screen that the replay does not show.
    seen = cards("\n".join(row for rows in shown.values() for row in rows))
    named = replay_cards(record, replay_rows)
    extra = seen - named - earlier
    assert not extra, (extra, board)
    if not record.positions:
        assert not cards("\n".join(board))
        return named
    # The board is the replay's at that step, line for line.
    watch_body = body(board, BODY_ROWS)
    assert watch_body == body(replay_rows, replay_view.BODY_ROWS)
    text, replay_text = "\n".join(watch_body), "\n".join(replay_rows)
    assert re.findall(r"\S.*< to move", text) == re.findall(r"\S.*< to move", replay_text)
    assert re.findall(r"match [+-]\d+", text) == re.findall(r"match [+-]\d+", replay_text)
    assert "move: " in text
    last = record.positions[-1]
    if not last.hands_known:
        assert not [row for row in watch_body if row.startswith("  hand: ") and "hidden" not in row]
    return named


@st.composite
def messages(draw: st.DrawFn) -> tuple[str, list[list[bytes]]]:
    """A transcript cut somewhere, sent in messages of a few frames, some sent twice."""
    source = draw(st.sampled_from(SOURCES))
    frames = list(transcript(source))
    end = draw(st.integers(0, len(frames)))
    cuts = sorted(draw(st.sets(st.integers(1, max(end - 1, 1)), max_size=12)) | {0, end})
    out = [frames[a:b] for a, b in itertools.pairwise(cuts) if b > a]
    if out and draw(st.booleans()):
        again = draw(st.integers(0, len(out) - 1))
        out.insert(again + 1, out[again])  # the host sends a message again
    return source, out


@pytest.mark.slow
@settings(max_examples=50)
@given(messages())
def test_the_watch_screen_never_shows_more_than_the_replay_of_the_same_frames(
    sent: tuple[str, list[list[bytes]]],
) -> None:
    _, messages_sent = sent
    screen, spectator = watch_screen(), Spectator()
    for message in messages_sent:
        feed(screen, spectator, message)
    check_against_replay(screen, spectator)


@pytest.mark.slow
def test_at_every_step_of_a_cheat_and_a_resignation_the_screen_is_the_replay_s() -> None:
    # Every step of a short match, and of a longer one from the end of its
    # first round to the cheat that stops it (a replay of each step costs
    # what the frames before it cost).
    for source, start in (
        ("sample-out-of-turn-resign-joiner.lcnet", 0),
        ("sample-cheated-host.lcnet", 95),
    ):
        screen, spectator = watch_screen(), Spectator()
        for index, raw in enumerate(transcript(source)):
            if index >= start:
                check_against_replay(screen, spectator)
            feed(screen, spectator, [raw])
        check_against_replay(screen, spectator)
        assert spectator.stopped
    # The cheat ends the watch with the spectator's verdict, as the replay's audit says.
    assert "DISPUTE" in "\n".join(screen.lines)


@pytest.mark.slow
def test_a_finished_round_shows_both_hands_as_the_replay_does_and_not_before() -> None:
    frames = transcript("sample-complete-host.lcnet")
    record = positions.load(list(frames))
    end_of_round = record.round_starts[1] - 1  # the last position of round 1
    screen, spectator = watch_screen(), Spectator()
    hidden_seen = revealed_seen = False
    for raw in frames:
        feed(screen, spectator, [raw])
        position = screen.position
        if position is None or position.round != 1:
            continue
        board = "\n".join(render(screen.app))
        if position.hands_known:
            revealed_seen = True
            assert "hands: both open" in board
            hand = " ".join(str(c) for c in sorted(position.table.hand(0), key=lambda c: c.id))
            assert hand in board
        else:
            hidden_seen = True
            assert board.count("cards, hidden") == 2
    assert hidden_seen and revealed_seen
    assert record.positions[end_of_round].hands_known


@pytest.mark.slow
def test_another_match_on_the_same_watch_gets_a_board_of_its_own() -> None:
    screen = watch_screen()
    earlier: frozenset[str] = frozenset()
    for source, end in (("sample-complete-host.lcnet", 200), (SIX_SUITS, 40)):
        spectator = Spectator()  # a rematch: the spectator of the next match
        for raw in transcript(source)[:end]:
            feed(screen, spectator, [raw])
        # The lines of the match before stay (l); its board and moves do not.
        earlier = frozenset(check_against_replay(screen, spectator, earlier))
    assert screen.follower.taken == 40 and screen.record.suits == 6


def test_the_help_fits_and_readme_lists_the_keys_of_the_table() -> None:
    lines = HELP_TEXT.splitlines()
    assert len(lines) <= BODY_ROWS and max(len(line) for line in lines) < SCREEN_WIDTH
    readme = README.read_text()
    start = readme.index("<!-- watch keys:")
    block = readme[readme.index("\n", start) + 1 : readme.index("<!-- end of watch keys -->")]
    expected = markdown_rows(KEYS, LISTED_ORDER)
    assert block.strip().splitlines() == expected, "README.md's watch keys:\n" + "\n".join(expected)


def run_keys(frames: tuple[bytes, ...], press: str) -> tuple[list[list[str]], object]:
    """A screen fed ``frames`` beside a watch that never ends; ``press`` typed on
    it (then q); the screen after each key."""
    seen: list[list[str]] = []

    async def main() -> object:
        with create_pipe_input() as keys:
            screen, spectator = watch_screen(keys), Spectator()
            for raw in frames:
                feed(screen, spectator, [raw])
            cancelled = asyncio.Event()

            async def endless() -> str:
                try:
                    await asyncio.Event().wait()
                finally:
                    cancelled.set()
                return "never"

            task = asyncio.ensure_future(screen.run_beside(endless()))
            for key, page in zip(press, [Page.PLAYERS, Page.MOVES, Page.BOARD], strict=False):
                keys.send_text(key)
                await wait_until(screen, lambda page=page: screen.page is page, str(page))
                seen.append(render(screen.app))
            keys.send_text("q")
            result = await asyncio.wait_for(task, DEADLINE)
            assert cancelled.is_set()
            return result

    result = asyncio.run(main())
    return seen, result


@pytest.mark.slow
def test_keys_i_m_and_q_on_a_screen_fed_frames() -> None:
    frames = transcript("sample-complete-host.lcnet")[:150]
    record = positions.load(list(frames))
    seen, result = run_keys(frames, "imm")
    assert result is None  # q before the watch ended: it was stopped
    players = "\n".join(seen[0])
    assert "Who plays" in players
    for seat in Seat:
        assert record.fingerprints[seat] in players
        assert f"{seat}: {record.name(seat)}" in players
    moves = "\n".join(seen[1])
    last = record.positions[-1]
    assert replay_view.move_text(record, last, PUBLIC) in moves
    assert f"of {len(record.positions)})" in moves
    board = "\n".join(seen[2][1:])
    assert "move: " in board and "discards" in board


@pytest.mark.slow
def test_after_the_watch_the_board_stays_until_q_and_an_error_closes_it() -> None:
    async def main() -> None:
        with create_pipe_input() as keys:
            screen = watch_screen(keys)

            async def quick() -> str:
                screen.show("verdict: VALID")
                return "done"

            task = asyncio.ensure_future(screen.run_beside(quick()))
            await wait_until(screen, lambda: screen.over, "the watch is over")
            assert "the watch is over: q leaves" in render(screen.app)[-1]
            keys.send_text("?")
            await wait_until(screen, lambda: screen.page is Page.HELP, "the help")
            keys.send_text("\x1b")
            await wait_until(screen, lambda: screen.page is Page.BOARD, "back to the board")
            keys.send_text("q")
            assert await asyncio.wait_for(task, DEADLINE) == "done"

        with create_pipe_input() as keys:
            screen = watch_screen(keys)

            async def refused() -> str:
                await asyncio.sleep(0)
                raise RuntimeError("turned away")

            try:
                await asyncio.wait_for(screen.run_beside(refused()), DEADLINE)
            except RuntimeError as exc:
                assert str(exc) == "turned away"
            else:
                raise AssertionError("the watch's error was not raised")
            assert not screen.app.is_running

    asyncio.run(main())


@pytest.mark.net
def test_a_real_match_watched_on_the_screen_ends_on_the_replay_s_last_board(
    tmp_path: Path,
) -> None:
    from lcnet.cli.watch import watch_on_screen

    lines: list[str] = []

    async def main() -> tuple[object, list[str], WatchScreen]:
        ctx = zmq.asyncio.Context()
        host, port = local_host(tmp_path / "h", ctx, options=MatchOptions(rounds=1), seed=71)
        joiner = local_joiner(tmp_path / "j", ctx, port, seed=72)
        with create_pipe_input() as keys:
            screen = watch_screen(keys)
            how = _watching(tmp_path, 7, "Wall", lines)
            watching = asyncio.ensure_future(watch_on_screen(LOOPBACK, port, how, screen))
            host.peer.start()
            async with asyncio.timeout(DEADLINE):
                while not host.peer.state.watchers:
                    await host.peer.next_update()
            joiner.peer.start()
            joiner_task = asyncio.ensure_future(joiner.play())
            try:
                await host.play()
                await joiner_task
                await wait_until(screen, lambda: screen.over, "the watch is over")
                rows = render(screen.app)
                keys.send_text("q")
                watched = await asyncio.wait_for(watching, DEADLINE)
            finally:
                await host.peer.aclose()
                await joiner.peer.aclose()
                ctx.term()
        players.extend(read_replay(host.path).frames)
        return watched, rows, screen

    players: list[bytes] = []
    watched, rows, screen = asyncio.run(main())
    assert not lines  # every line went to the screen, none to the terminal
    assert watched is not None
    verdict = watched.verdict  # type: ignore[attr-defined]
    path = watched.path  # type: ignore[attr-defined]
    assert verdict.kind is audit.VerdictKind.VALID, verdict.summary
    frames = read_replay(path).frames
    assert frames == players
    _, replay_rows = replay_at_last_step(frames)
    assert body(rows, BODY_ROWS) == body(replay_rows, replay_view.BODY_ROWS)
    assert screen.lines[-1] == f"verdict: {verdict.summary}"
    assert any(line.startswith("saving the match to ") for line in screen.lines)

"""Helpers for the user-interface tests (no tests here).

* :func:`render` draws an application's layout on an 80x24 screen, headless,
  and returns the rows as text: what a user of the smallest supported
  terminal would see.
* :func:`wait_until` waits for a change of what a UI shows (never a sleep).
* :func:`running` runs a UI in the background and always ends it.
* :class:`ScriptedClient` is a real :class:`~tests.localclient.LocalClient` into
  whose update stream a test can push what a network peer would report
  (a lost connection, a dispute).
* :func:`make_replay` writes a real replay file of a whole bot match.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final, Protocol

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Size
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.output import DummyOutput

from lcnet.bots import make_bot
from lcnet.game.seat import Seat
from lcnet.protocol.client import Update
from lcnet.protocol.events import MatchOptions
from lcnet.run import localmatch
from lcnet.store.replayfile import ReplayHeader
from lcnet.store.writer import write_replay
from tests.localclient import LocalClient

TIMEOUT: Final = 60.0
"""Ends a test that waits for something that never comes (it does not time anything)."""
WIDTH: Final = 80
HEIGHT: Final = 24


class Watchable(Protocol):
    app: Application[int]

    def on_change(self, listener: Callable[[], None]) -> Callable[[], None]: ...


class SmallOutput(DummyOutput):
    """A headless output that reports an 80x24 terminal."""

    def get_size(self) -> Size:
        return Size(rows=HEIGHT, columns=WIDTH)


class SizedOutput(DummyOutput):
    """A headless output whose terminal size the test chooses (and changes)."""

    def __init__(self, columns: int, rows: int) -> None:
        self.size = Size(rows=rows, columns=columns)

    def get_size(self) -> Size:
        return self.size


def render(app: Application[Any], width: int = WIDTH, height: int = HEIGHT) -> list[str]:
    """The application's layout drawn on a ``width`` x ``height`` screen, row by row."""
    screen = Screen(default_char=None)
    # Controls cache their text per render; a new count makes them ask again.
    app.render_counter += 1
    with set_app(app):
        container = app.layout.container
        needed = container.preferred_height(width, height).preferred
        assert needed <= height, f"the layout needs {needed} rows, the terminal has {height}"
        container.write_to_screen(
            screen, MouseHandlers(), WritePosition(0, 0, width, height), "", False, None
        )
        screen.draw_all_floats()
    rows = []
    for y in range(height):
        line = screen.data_buffer[y]
        rows.append("".join(line[x].char for x in range(width)).rstrip())
    return rows


async def wait_until(ui: Watchable, predicate: Callable[[], bool], what: str) -> None:
    """Wait until ``predicate()`` holds, checking after every change the UI shows."""
    if predicate():
        return
    reached = asyncio.Event()

    def check() -> None:
        if predicate():
            reached.set()

    stop = ui.on_change(check)
    try:
        await asyncio.wait_for(reached.wait(), TIMEOUT)
    except TimeoutError:
        raise AssertionError(f"the UI never reached: {what}") from None
    finally:
        stop()


@asynccontextmanager
async def running(coroutine: Any, app: Application[Any]) -> AsyncIterator[asyncio.Task[Any]]:
    """Run a UI's coroutine as a task; end the application if the test leaves early."""
    task = asyncio.ensure_future(coroutine)
    try:
        yield task
    finally:
        if not task.done():
            if app.is_running and not app.future.done():  # type: ignore[union-attr]
                app.exit(result=-1)
            await asyncio.wait_for(asyncio.shield(task), TIMEOUT)


class ScriptedClient(LocalClient):
    """A real local match whose update stream a test can add to, as a network peer would."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(make_bot("random", random.Random(7)), **kwargs)
        self.replay: Path | None = None

    @property
    def replay_path(self) -> Path | None:
        return self.replay

    def inject(self, update: Update) -> None:
        """Add ``update`` to the stream, as a network peer would; it carries
        the match as it stands when the screen takes it (the match begins
        when the screen first asks for an update)."""
        self._updates.put_nowait(update)

    async def next_update(self) -> Update:
        update = await super().next_update()
        return update if update.state is not None else dataclasses.replace(update, state=self.state)


def local_client(
    *, rounds: int = 1, suits: int = 5, seed: int = 3, bot_rematch: bool | None = None
) -> LocalClient:
    """A human (host) against a random bot, through two real sessions
    (``bot_rematch``: the bot's answer to another match, see LocalClient)."""
    return LocalClient(
        make_bot("random", random.Random(seed)),
        options=MatchOptions(suits=suits, rounds=rounds),
        rng=random.Random(seed),
        bot_rematch=bot_rematch,
    )


def bot_match(*, rounds: int, suits: int, seed: int) -> dict[Seat, localmatch.Peer]:
    """Two random bots, Ada (host) and Bob (joiner), ready to play a match."""
    rng = random.Random(seed)
    bots = {seat: make_bot("random", random.Random(rng.getrandbits(32))) for seat in Seat}
    peers = localmatch.new_peers(
        {seat: bots[seat].choose_turn for seat in Seat},
        options=MatchOptions(suits=suits, rounds=rounds),
        rng=rng,
        names={Seat.HOST: "Ada", Seat.JOINER: "Bob"},
    )
    return peers


def match_frames(*, rounds: int = 1, suits: int = 5, seed: int = 2) -> list[bytes]:
    """The transcript of a whole bot match, kept in memory (no file, no fsync)."""
    peers = bot_match(rounds=rounds, suits=suits, seed=seed)
    localmatch.run(peers)
    return [frame.raw for frame in peers[Seat.HOST].session.chain]


def make_replay(directory: Path, *, rounds: int = 1, suits: int = 5, seed: int = 2) -> list[Path]:
    """Play a whole match between random bots; return both players' replay files."""
    peers = bot_match(rounds=rounds, suits=suits, seed=seed)
    localmatch.run(peers)
    paths = []
    for seat, peer in peers.items():
        header = ReplayHeader(seat=str(seat), created="2026-11-29T00:00:00Z", software="test")
        frames = [frame.raw for frame in peer.session.chain]
        paths.append(write_replay(directory / f"match-{seat}.lcnet", header, frames))
    return paths

"""A :class:`~lcnet.protocol.client.MatchClient` for a person against a bot, in process (tests).

Two real sessions with their own keys exchange real signed frames, so the
user interfaces can be tested through the real protocol without a network.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from pathlib import Path

from lcnet.bots import Bot
from lcnet.errors import LocalProtocolError
from lcnet.game.engine import Turn, View
from lcnet.game.seat import Seat
from lcnet.link import chat, rematch
from lcnet.protocol.client import MatchState, Update
from lcnet.protocol.events import MatchOptions, Offer, Said, Step
from lcnet.protocol.session import Session
from lcnet.protocol.snapshot import state_of
from lcnet.protocol.status import Status
from lcnet.run.localmatch import Peer, new_peers


class LocalClient:
    """A :class:`MatchClient` for a human against a bot, in process.

    Two real sessions with their own keys exchange real signed frames; the
    bot answers through the same protocol. No replay file is written.
    """

    def __init__(
        self,
        bot: Bot,
        *,
        seat: Seat = Seat.HOST,
        options: MatchOptions | None = None,
        rng: random.Random | None = None,
        names: dict[Seat, str] | None = None,
        bot_rematch: bool | None = None,
    ) -> None:
        rng = rng or random.Random()
        self._seat = seat
        self._updates: asyncio.Queue[Update] = asyncio.Queue()

        def human(view: View) -> Turn:
            raise LocalProtocolError("the human's moves come through play()")

        deciders = {seat: human, seat.other: bot.choose_turn}
        self._peers: dict[Seat, Peer] = new_peers(
            deciders,
            options=options or MatchOptions(),
            rng=rng,
            names=names or {seat: "you", seat.other: f"{bot.name} bot"},
        )
        self.addresses: tuple[str, ...] = ()
        """Where a host listens (a test may set it, as a network host has)."""
        self._status = Status.PLAYING
        self._queue: list[tuple[Seat, bytes]] = []
        self._started = False
        self._bot_rematch = bot_rematch
        """The bot's answer to another match (``None``: it never answers, like a
        peer that does not know ``rematch``)."""
        self._offer = Offer()
        self.rematches = 0
        """How many times both agreed (the next match itself is not played here)."""

    @property
    def seat(self) -> Seat:
        return self._seat

    @property
    def session(self) -> Session:
        """The human's session (for tests; a screen reads :attr:`state`)."""
        return self._peers[self._seat].session

    @property
    def state(self) -> MatchState:
        offer = None
        if self._bot_rematch is not None and rematch.possible(self.session):
            offer = dataclasses.replace(self._offer, theirs=self._bot_rematch)
        return state_of(self.session, addresses=self.addresses, rematch=offer)

    def _post(self, update: Update) -> None:
        self._updates.put_nowait(dataclasses.replace(update, state=self.state))

    @property
    def status(self) -> Status:
        return self._status

    @property
    def replay_path(self) -> Path | None:
        return None

    async def next_update(self) -> Update:
        self.start()
        return await self._updates.get()

    def start(self) -> None:
        """Let the match begin (the joiner's hello), if it has not yet."""
        if not self._started:
            self._started = True
            self._after(Seat.JOINER, self._peers[Seat.JOINER].session.start())
            self._pump()

    async def play(self, turn: Turn) -> None:
        session = self.session
        if not session.awaiting_decision:
            raise LocalProtocolError("it is not your move")
        self._after(self._seat, session.play(turn))  # raises IllegalMoveError if illegal
        self._pump()

    async def resign(self) -> None:
        if self.session.speaker is self._seat:
            self._after(self._seat, self.session.resign())
            self._pump()

    async def say(self, text: str) -> None:
        """The bot reads nothing: the line is shown on this side only."""
        self._post(Update(event=Said(self._seat, chat.line_to_say(text))))

    async def rematch(self, ok: bool, *, wait: float | None = None) -> bool:
        if self._bot_rematch is None or not rematch.possible(self.session):
            return False
        self._offer = dataclasses.replace(self._offer, ours=ok)
        agreed = ok and self._bot_rematch
        self.rematches += agreed
        self._post(Update())
        return agreed

    def _after(self, seat: Seat, step: Step) -> None:
        peer = self._peers[seat]
        peer.record(step)
        if seat is self._seat:
            for event in step.events:
                self._post(Update(event=event))
        self._queue.extend((seat.other, frame.raw) for frame in step.outgoing)
        session = peer.session
        if seat is not self._seat:
            while session.awaiting_decision:
                view = session.view()
                assert view is not None
                step = session.play(peer.decide(view))
                peer.record(step)
                self._queue.extend((seat.other, frame.raw) for frame in step.outgoing)
        self._refresh_status()

    def _pump(self) -> None:
        while self._queue:
            to, raw = self._queue.pop(0)
            self._after(to, self._peers[to].session.receive(raw))

    def _refresh_status(self) -> None:
        session = self.session
        new = self._status
        if session.dispute is not None:
            new = Status.DISPUTE
        elif session.is_over:
            new = Status.OVER
        if new is not self._status:
            self._status = new
            self._post(Update(status=new))

"""A bot-run host or joiner tells the person who runs it what happens
(issue 57, point 5): who joined (name and fingerprint), each round's
score, the opponent gone and back, refusals, the result and the file. The
lines are the line mode's (:class:`lcnet.ui.tracker.MatchTracker`), without
the moves."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from pathlib import Path
from types import MappingProxyType

import pytest

from lcnet.audit import verdict as audit
from lcnet.cli._netargs import narrator
from lcnet.errors import UserError
from lcnet.game.engine import Turn
from lcnet.game.seat import Seat
from lcnet.protocol.client import MatchState, Update
from lcnet.protocol.status import Status
from lcnet.run.netmatch import drive_bot
from tests.netutil import (
    DEADLINE,
    LOOPBACK,
    TIMING_ARGS,
    finish,
    replay_file,
    spawn,
    spawn_host,
    stop,
)

FINGERPRINT = r"[0-9A-F]{4}(?:-[0-9A-F]{4}){3}"


@pytest.mark.slow
def test_a_bot_host_and_a_bot_joiner_say_who_played_the_scores_the_result_and_the_file(
    tmp_path: Path,
) -> None:
    async def main() -> tuple[tuple[int, str], tuple[int, str]]:
        host, port = await spawn_host(tmp_path / "h", bot="random", rounds=2)
        try:
            joiner = await spawn(
                [
                    "join",
                    f"{LOOPBACK}:{port}",
                    "--bot",
                    "random",
                    "--name",
                    "Joy",
                    *TIMING_ARGS,
                    "--replays",
                    str(tmp_path / "j" / "replays"),
                ],
                tmp_path / "j" / "home",
                tmp_path / "j",
            )
            async with asyncio.timeout(DEADLINE):
                joined = await finish(joiner)
                hosted = await finish(host)
        finally:
            await stop(host)
        return (joined[0], joined[2]), (hosted[0], hosted[2])

    (joiner_code, joiner_err), (host_code, host_err) = asyncio.run(main())
    assert (joiner_code, host_code) == (0, 0), joiner_err + host_err
    host_fp = _one(rf"you are (\S+), key fingerprint ({FINGERPRINT})", host_err)
    joiner_fp = _one(rf"as Joy, key fingerprint ({FINGERPRINT})", joiner_err)
    host_name = host_fp[0]
    # Who joined, with the fingerprint, on each side.
    # Each was started with --bot, says so in its opening, and is marked a bot.
    bot = ", a bot (its program says so)"
    assert f"opponent: Joy (joiner), key {joiner_fp[0]}{bot}" in host_err.splitlines()
    assert f"opponent: {host_name} (host), key {host_fp[1]}{bot}" in joiner_err.splitlines()
    # Each round's score, as the audit of the files has them.
    host_file, joiner_file = replay_file(tmp_path / "h"), replay_file(tmp_path / "j")
    verdict = audit.audit_file(host_file)
    assert verdict.kind is audit.VerdictKind.VALID, verdict.summary
    totals = [0, 0]
    for number, (h, j) in enumerate(verdict.round_scores, start=1):
        totals = [totals[0] + h, totals[1] + j]
        assert (
            f"round {number} over: you {h:+d}, Joy {j:+d}; "
            f"match: you {totals[0]:+d}, Joy {totals[1]:+d}"
        ) in host_err.splitlines()
        assert (
            f"round {number} over: you {j:+d}, {host_name} {h:+d}; "
            f"match: you {totals[1]:+d}, {host_name} {totals[0]:+d}"
        ) in joiner_err.splitlines()
    assert len(verdict.round_scores) == 2
    # The result and the file, once each.
    for err, mine, theirs, other in (
        (host_err, totals[0], totals[1], "Joy"),
        (joiner_err, totals[1], totals[0], host_name),
    ):
        if mine > theirs:
            assert f"you win the match, {mine} to {theirs}" in err
        elif mine < theirs:
            assert f"{other} wins the match, {theirs} to {mine}" in err
        else:
            assert f"the match is a draw, {mine} to {theirs}" in err
    assert host_err.count(str(host_file)) == 1 and f"match saved in: {host_file}" in host_err
    assert (
        joiner_err.count(str(joiner_file)) == 1 and f"match saved in: {joiner_file}" in joiner_err
    )
    # The moves are not told: one line for each thing a person wants to know.
    assert "draw pile" not in host_err + joiner_err
    assert "Traceback" not in host_err + joiner_err


def _one(pattern: str, text: str) -> tuple[str, ...]:
    found = re.search(pattern, text)
    assert found is not None, (pattern, text)
    return found.groups()


class ScriptedClient:
    """A :class:`~lcnet.protocol.client.MatchClient` that hands out the updates it is
    given, then stops (status ``OVER``); the bot never has a move to make."""

    def __init__(self, updates: list[Update], path: Path) -> None:
        names = MappingProxyType({Seat.HOST: "Hal", Seat.JOINER: "Bea"})
        prints = MappingProxyType(
            {Seat.HOST: "AAAA-BBBB-CCCC-DDDD", Seat.JOINER: "1111-2222-3333-4444"}
        )
        self._state = MatchState(seat=Seat.HOST, names=names, fingerprints=prints, frames=9)
        self._updates = [dataclasses.replace(update, state=self._state) for update in updates]
        self._status = Status.PLAYING
        self._path = path

    @property
    def seat(self) -> Seat:
        return Seat.HOST

    @property
    def state(self) -> MatchState:
        return self._state

    @property
    def status(self) -> Status:
        return self._status

    @property
    def replay_path(self) -> Path | None:
        return self._path

    async def next_update(self) -> Update:
        update = self._updates.pop(0)
        if update.status is not None:
            self._status = update.status
        return update

    async def play(self, turn: Turn) -> None:
        raise AssertionError("no move is due")

    async def resign(self) -> None:
        raise AssertionError("a bot does not resign")

    async def rematch(self, ok: bool, *, wait: float | None = None) -> bool:
        return False


def test_a_bot_says_when_the_opponent_goes_and_comes_back_and_whom_it_turned_away(
    tmp_path: Path,
) -> None:
    path = tmp_path / "replays" / "0badcafe-host.lcnet"
    impostor = UserError("'Bea' is known here with another key: turned away")
    client = ScriptedClient(
        [
            Update(status=Status.DISCONNECTED),
            Update(status=Status.PLAYING),
            Update(notice="turned away a peer: it signs as nobody this host expects"),
            Update(warning=impostor),
            Update(status=Status.DISCONNECTED),
            Update(status=Status.OVER),
        ],
        path,
    )
    said: list[str] = []
    code = asyncio.run(drive_bot(client, "random", said.append, narrate=narrator(client)))
    assert code == 0
    assert said[0].startswith("Bea is disconnected. Wait: the match goes on when they reconnect")
    assert said[1] == "Bea is back; the match goes on"
    assert said[2] == "turned away a peer: it signs as nobody this host expects"
    assert said[3] == str(impostor)
    assert said[-1].startswith("the match stopped before its end; continue it later with: ")
    assert said[-1].endswith(f" resume {path}")


def test_a_bot_refused_by_a_busy_host_says_why_once(tmp_path: Path) -> None:
    busy = UserError("the host is busy with another match")
    client = ScriptedClient([Update(failure=busy), Update(status=Status.OVER)], tmp_path / "x")
    said: list[str] = []
    asyncio.run(drive_bot(client, "random", said.append, narrate=narrator(client)))
    assert said.count(str(busy)) == 1
    assert busy.shown  # the command does not say it again as it ends

"""Another match on the same connection with the seats swapped (PROTOCOL.md §6.7).

Real sockets on loopback, real files, real signatures: two bots agree to a
rematch and play it, one that wants none ends it for both, and a person in
line mode asks for one and plays it against ``lcnet play``'s bot.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import nacl.signing
import pytest
import zmq.asyncio

from lcnet.audit import verdict as audit
from lcnet.deck import hashing
from lcnet.errors import UNREACHABLE_TEXT, Refused, UserError
from lcnet.game.seat import Seat
from lcnet.link import rematch
from lcnet.link.liveness import Timing
from lcnet.protocol import wire
from lcnet.protocol.events import MatchOptions
from lcnet.protocol.session import Session
from lcnet.run.netmatch import Player, host_match, join_match, new_master_secret
from lcnet.store.replayfile import read_replay
from tests.netutil import (
    DEADLINE,
    LOOPBACK,
    TIMING_ARGS,
    LocalPeer,
    finish,
    local_joiner,
    spawn,
)

FAST = Timing(ping_interval=0.2, peer_timeout=5.0, connect_timeout=15.0)


def _bots(
    tmp_path: Path, host_rematches: int, joiner_rematches: int, said: list[str] | None = None
) -> tuple[int, int]:
    """A host bot and a joiner bot, in this process over loopback, each with
    its own identity and folder; their exit codes (``said``: the host's lines)."""
    players = [
        Player(
            bot="greedy",
            rematches=count,
            replays=tmp_path / side,
            home=tmp_path / f"{side}-home",
            timing=FAST,
            say=(said.append if said is not None and side == "host" else lambda text: None),
        )
        for side, count in (("host", host_rematches), ("joiner", joiner_rematches))
    ]
    for player in players:
        player.replays.mkdir()

    async def main() -> tuple[int, int]:
        listening: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        host = asyncio.create_task(
            host_match(
                bind=LOOPBACK,
                port=0,
                options=MatchOptions(suits=5, rounds=1),
                player=players[0],
                on_listening=lambda port, _: listening.set_result(port),
            )
        )
        async with asyncio.timeout(DEADLINE):
            port = await listening
            joiner = await join_match(host=LOOPBACK, port=port, player=players[1])
            return await host, joiner

    return asyncio.run(main())


def _files(directory: Path) -> dict[str, Path]:
    """The replay files of a folder by seat and order: ``host``, ``joiner``."""
    return {read_replay(path).header.seat: path for path in directory.glob("*.lcnet")}


@pytest.mark.net
def test_two_bots_play_a_rematch_on_one_connection_with_the_seats_swapped(tmp_path: Path) -> None:
    assert _bots(tmp_path, 1, 1) == (0, 0)
    # Each program has two files: the first match in its seat, the rematch in the other.
    mine, theirs = _files(tmp_path / "host"), _files(tmp_path / "joiner")
    assert set(mine) == set(theirs) == {"host", "joiner"}
    first = (mine["host"], theirs["joiner"])
    second = (theirs["host"], mine["joiner"])
    for pair in (first, second):
        verdicts = [audit.audit_file(path) for path in pair]
        assert all(v.kind is audit.VerdictKind.VALID for v in verdicts), verdicts
        a, b = (read_replay(path) for path in pair)
        assert a.frames == b.frames, "both players' files of a match hold the same frames"
    one, two = read_replay(first[0]), read_replay(second[0])
    assert two.header.extra["rematch_of"] == hashing.game_id(one.frames[0]).hex()
    assert hashing.game_id(two.frames[0]) != hashing.game_id(one.frames[0])
    # The seats are swapped: the first match's joiner hosts the second.
    host_key = wire.decode_frame(one.frames[1]).message
    joiner_key = wire.decode_frame(one.frames[0]).message
    new_host = wire.decode_frame(two.frames[1]).message
    new_joiner = wire.decode_frame(two.frames[0]).message
    assert isinstance(host_key, wire.Welcome) and isinstance(new_host, wire.Welcome)
    assert isinstance(joiner_key, wire.Hello) and isinstance(new_joiner, wire.Hello)
    assert new_host.key == joiner_key.key and new_joiner.key == host_key.key
    assert (new_host.suits, new_host.rounds) == (host_key.suits, host_key.rounds)


@pytest.mark.net
def test_a_bot_that_wants_no_rematch_ends_it_for_both(tmp_path: Path) -> None:
    said: list[str] = []
    assert _bots(tmp_path, 1, 0, said) == (0, 0)
    assert "the opponent does not want another match" in said  # the host's bot says so
    assert list(_files(tmp_path / "host")) == ["host"]
    assert list(_files(tmp_path / "joiner")) == ["joiner"]


def _play_typed(tmp_path: Path, typed: bytes) -> tuple[int, str, str]:
    """``lcnet play`` against medium in line mode, ``typed`` on its standard input."""

    async def main() -> tuple[int, str, str]:
        args = ["play", "--bot", "medium", "--rounds", "1", *TIMING_ARGS]
        return await finish(await spawn(args, tmp_path / "home", tmp_path, typed=True), typed)

    return asyncio.run(main())


@pytest.mark.net
def test_a_person_in_line_mode_asks_for_a_rematch_and_plays_it(tmp_path: Path) -> None:
    typed = b"resign\nagain\nresign\nquit\n"

    code, out, err = _play_typed(tmp_path, typed)
    assert code == 0, err
    assert "another match, with the seats swapped" in out.lower()
    assert out.count("Type 'again' for it") == 2  # after each match
    files = sorted((tmp_path / "replays").glob("*.lcnet"))
    assert len(files) == 4, "two matches, each saved by both sides"
    assert all(audit.audit_file(path).kind is audit.VerdictKind.VALID for path in files)
    seats = sorted(read_replay(path).header.seat for path in files)
    assert seats == ["host", "host", "joiner", "joiner"]
    assert out.count("you resigned") == 2


def _finished_host(options: MatchOptions) -> tuple[Session, nacl.signing.SigningKey]:
    """A host's session that knows its joiner's key (what check_opening reads)."""
    me, them = nacl.signing.SigningKey.generate(), nacl.signing.SigningKey.generate()
    session = Session.host(me, new_master_secret(), name="h", options=options)
    session.keys[Seat.JOINER] = bytes(them.verify_key)
    return session, them


def _welcome(key: nacl.signing.SigningKey, suits: int, rounds: int) -> wire.Frame:
    message = wire.Welcome(
        v=list(wire.PROTOCOL_VERSION),
        name="j",
        key=bytes(key.verify_key),
        suits=suits,
        rounds=rounds,
        coin=bytes(32),
    )
    return wire.make_frame(message, key, seq=1, prev=bytes(32), game=bytes(32))


def test_the_rematch_must_be_the_same_opponent_with_the_same_options() -> None:
    finished, opponent = _finished_host(MatchOptions(suits=6, rounds=2))
    assert rematch.check_opening(finished, _welcome(opponent, 6, 2)) is None
    other = rematch.check_opening(finished, _welcome(nacl.signing.SigningKey.generate(), 6, 2))
    assert other is not None and "another key" in other
    changed = rematch.check_opening(finished, _welcome(opponent, 5, 2))
    assert changed is not None and "same options" in changed


def test_the_next_session_swaps_the_seat_and_keeps_the_options() -> None:
    finished, _ = _finished_host(MatchOptions(suits=6, rounds=2))
    key = nacl.signing.SigningKey.generate()
    after_host = rematch.next_session(finished, key, new_master_secret())
    assert after_host.seat is Seat.JOINER
    joiner = Session.joiner(key, new_master_secret(), name="j")
    joiner.options = MatchOptions(suits=6, rounds=2)  # as its welcome would have set them
    after_joiner = rematch.next_session(joiner, key, new_master_secret())
    assert after_joiner.seat is Seat.HOST
    assert after_joiner.options == MatchOptions(suits=6, rounds=2)


@pytest.mark.net
def test_in_line_mode_the_question_takes_only_its_answers(tmp_path: Path) -> None:
    # A word that is not an answer is told so (not taken for a turn); "no" leaves.
    typed = b"resign\nplay r7, draw deck\nno\n"

    code, out, err = _play_typed(tmp_path, typed)
    assert code == 0, err
    assert "error: the match is over; type 'again' for another one, or 'quit'" in out
    assert "not a turn" not in out
    assert len(list((tmp_path / "replays").glob("*.lcnet"))) == 2  # one match, both sides


# ------------------------------------------------- an opponent that vanishes


def _vanish(peer: LocalPeer) -> None:
    """The opponent's program stops dead (killed): no ``rematch`` no, no ``bye``,
    no pong; its connection closes."""
    for task in peer.peer._tasks:
        task.cancel()
    peer.peer._sock.close(linger=0)


def _host_bot_and_vanishing_joiner(
    tmp_path: Path, timing: Timing, *, joiner_agrees: bool
) -> tuple[asyncio.Task[int] | BaseException, list[str]]:
    """A greedy host bot that wants a rematch, in this process; a joiner that plays
    the match to its end (and, ``joiner_agrees``, says yes to another), then
    vanishes. The host's exit code, or what it raised; and what the host said."""
    said: list[str] = []
    player = Player(
        bot="greedy", rematches=1, replays=tmp_path / "host", home=tmp_path / "host-home"
    )
    player.timing, player.say = timing, said.append

    async def main() -> int | BaseException:
        listening: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        host = asyncio.create_task(
            host_match(
                bind=LOOPBACK,
                port=0,
                options=MatchOptions(suits=5, rounds=1),
                player=player,
                on_listening=lambda port, _: listening.set_result(port),
            )
        )
        ctx = zmq.asyncio.Context()
        try:
            async with asyncio.timeout(DEADLINE):
                joiner = local_joiner(tmp_path / "joiner", ctx, await listening, seed=9)
                joiner.peer.start()
                await joiner.play()
                if joiner_agrees:
                    assert await joiner.peer.rematch(True, wait=DEADLINE)
                _vanish(joiner)
                try:
                    return await host
                except UserError as exc:
                    return exc
        finally:
            host.cancel()
            ctx.destroy(linger=0)

    return asyncio.run(main()), said  # type: ignore[return-value]


@pytest.mark.net
def test_a_bot_stops_waiting_for_a_rematch_answer_once_the_opponent_is_gone(
    tmp_path: Path,
) -> None:
    # Before: the bot waited REMATCH_WAIT (600 s) for a program that was gone.
    timing = Timing(ping_interval=0.2, peer_timeout=2.0, connect_timeout=15.0, end_grace=2.0)
    code, said = _host_bot_and_vanishing_joiner(tmp_path, timing, joiner_agrees=False)
    assert code == 0
    assert "no answer to the offer of another match" in said


@pytest.mark.net
def test_a_rematch_opening_left_unanswered_says_so_to_the_side_that_bound_the_socket(
    tmp_path: Path,
) -> None:
    # The first match's host joins the rematch on its own socket: an unanswered
    # hello there is no unreachable host whose address should be checked.
    timing = Timing(ping_interval=0.2, peer_timeout=5.0, connect_timeout=2.0, end_grace=2.0)
    failure, _ = _host_bot_and_vanishing_joiner(tmp_path, timing, joiner_agrees=True)
    assert isinstance(failure, Refused), failure
    assert UNREACHABLE_TEXT not in str(failure) and "address" not in str(failure)
    assert "did not answer its opening" in str(failure)

"""The state machine as one table: what the code runs is what PROTOCOL.md §6.1 says.

One test reads the §6.1 table out of docs/PROTOCOL.md (as the vectors are
read) and compares it row by row with ``lcnet.protocol.transitions.TABLE``; another offers every
phase every transcript message type, signed by the phase's speaker and by
the other player, and checks that each unexpected pair is refused with the
right reason, blaming the right player, and changes nothing else.
"""

from __future__ import annotations

import copy
import re
from functools import cache
from pathlib import Path

import nacl.signing
import pytest

from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.events import FrameDropped
from lcnet.protocol.observer import Observer
from lcnet.protocol.phases import Phase
from lcnet.protocol.session import Session
from lcnet.protocol.transitions import TABLE
from lcnet.store.replayfile import read_replay
from tests.cheaters import Table

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"

SPEAKERS = {
    "host": Seat.HOST,
    "joiner": Seat.JOINER,
    "the player to move": None,
    "the other player": None,
}


def _spec_rows() -> dict[str, tuple[str, str, str]]:
    text = PROTOCOL.read_text(encoding="utf-8")
    section = text.split("### 6.1 Phases", 1)[1].split("###", 1)[0]
    rows: dict[str, tuple[str, str, str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"[A-Z_0-9]+", cells[0]):
            rows[cells[0]] = (cells[1], cells[2], cells[3])
    return rows


def test_the_code_runs_the_state_table_of_the_spec() -> None:
    rows = _spec_rows()
    assert set(rows) == {phase.name for phase in Phase if phase is not Phase.OVER}
    assert TABLE[Phase.OVER].expects is None and not TABLE[Phase.OVER].successors
    for name, (speaker, expects, successors) in rows.items():
        row = TABLE[Phase[name]]
        assert SPEAKERS[speaker] is row.speaker, name
        message_type = re.match(r"`(\w+)`", expects)
        assert message_type is not None and row.expects is not None, name
        assert message_type.group(1) == row.expects.TYPE, name
        pass_number = re.search(r"n=(\d)", expects)
        assert row.pass_number == (int(pass_number.group(1)) if pass_number else None), name
        named = {Phase[word] for word in re.findall(r"\b[A-Z][A-Z_0-9]+\b", successors)}
        assert named == set(row.successors), name


def test_every_phase_is_in_the_table_and_every_successor_is_a_phase() -> None:
    assert set(TABLE) == set(Phase)
    for phase, row in TABLE.items():
        assert all(successor in TABLE for successor in row.successors), phase
        if row.expects is not None:
            handler = row.handler
            assert handler is not None and handler.__module__ == "lcnet.protocol.transitions", phase
            assert handler.__name__ == f"on_{row.expects.TYPE}", phase


def test_a_player_builds_every_frame_itself_but_a_move() -> None:
    """Where a player speaks, the row says what it builds (``build_<type>``);
    a move is the player's decision, and after the end nobody speaks."""
    decided = {phase for phase, row in TABLE.items() if row.builds is None}
    assert decided == {Phase.MOVE, Phase.OVER}
    for phase, row in TABLE.items():
        if row.builds is not None:
            assert row.expects is not None, phase
            assert row.builds.__name__ == f"build_{row.expects.TYPE}", phase


# ------------------------------------------------- every phase, every type

SAMPLES: dict[type[wire.Message], wire.Message] = {
    wire.Hello: wire.Hello(v=[1, 0], name="x", key=bytes(range(32)), coin=bytes(32)),
    wire.Welcome: wire.Welcome(
        v=[1, 0], name="x", key=bytes(range(32)), suits=5, rounds=1, coin=bytes(32)
    ),
    wire.Coin: wire.Coin(nonce=bytes(32)),
    wire.Commit: wire.Commit(round=1, commit=bytes(32)),
    wire.DeckPass: wire.DeckPass(round=1, n=1, points=bytes(32) * 60),
    wire.DealKeys: wire.DealKeys(round=1, keys=(b"\x01" + bytes(31)) * 8),
    wire.MoveMsg: wire.MoveMsg(card=0, discard=True, draw=-1),
    wire.Ack: wire.Ack(),
    wire.Reveal: wire.Reveal(round=1, seed=bytes(32)),
    wire.Result: wire.Result(scores=[[0, 0]], totals=[0, 0]),
}
"""One well-formed message of each transcript type (its content is beside the point)."""


@cache
def _match(directory: Path) -> tuple[list[bytes], dict[Seat, nacl.signing.SigningKey]]:
    table = Table(directory, seed=7, rounds=1)
    table.run()
    table.close()
    assert table.host.sealed
    return read_replay(table.paths[Seat.HOST]).frames, table.keys


@cache
def _observers(directory: Path) -> dict[Phase, Session]:
    """An observer standing at each phase, the first time the match reaches it."""
    frames, _ = _match(directory)
    observer = Observer()
    found = {observer.phase: copy.deepcopy(observer)}
    for raw in frames:
        observer.receive(raw)
        if observer.phase not in found and observer.phase is not Phase.OVER:
            found[observer.phase] = copy.deepcopy(observer)
    return found


@pytest.fixture(scope="module")
def match_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("state-table")


@pytest.mark.slow
@pytest.mark.parametrize("phase", [p for p in Phase if p is not Phase.OVER], ids=lambda p: p.name)
def test_every_unexpected_message_type_is_refused_with_the_reason(
    match_dir: Path, phase: Phase
) -> None:
    observers = _observers(match_dir)
    _, keys = _match(match_dir)
    assert phase in observers
    standing = observers[phase]
    expected = TABLE[phase].expects
    speaker = standing.speaker
    assert speaker is not None
    for message_type, message in SAMPLES.items():
        for signer in Seat:
            if message_type is expected and signer is speaker:
                continue
            observer = copy.deepcopy(standing)
            seq = observer.next_seq
            frame = wire.make_frame(
                message,
                keys[signer],
                seq=seq,
                prev=observer.head if seq else None,
                game=observer.game_id if seq else None,
            )
            turns = len(observer.round.turns) if observer.round else 0
            rounds = observer.round_number
            step = observer.receive(frame.raw)
            where = f"{message_type.TYPE} signed by the {signer} in {phase.name}"
            if signer not in observer.keys:
                # Before its key is known (the hello, the welcome), nothing
                # verifies a frame: it is dropped and nothing changes.
                assert step.accepted is None, where
                assert any(isinstance(e, FrameDropped) for e in step.events), where
                assert observer.next_seq == seq and observer.phase is phase, where
                continue
            dispute = observer.dispute
            assert dispute is not None, where
            assert dispute.offender is signer and dispute.seq == seq, where
            if signer is speaker:
                assert dispute.reason == f"{message_type.TYPE} where {phase.value} was due", where
            else:
                assert dispute.reason.startswith(f"{message_type.TYPE} out of turn"), where
            assert observer.phase is Phase.OVER, where
            assert observer.round_number == rounds, where
            assert (len(observer.round.turns) if observer.round else 0) == turns, where

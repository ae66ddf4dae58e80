"""A cheating peer with every power it really has never gets the honest
player named, and the audit keeps its word (docs/PROTOCOL.md §5–§7).

The property runs random matches from tests/adversary.py (what the cheater
can do, and the invariants, are described there); bench/adversary.py runs
thousands of them. The tests after it are the faults the generator found
first, each rebuilt by hand so that it stays a regression test whatever the
generator draws.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.transcript import FrameHeader
from lcnet.store.replayfile import RecordKind
from tests import adversary
from tests.adversary import AdversaryTable, SeedChoices, fields_of, file_bytes, sign_fields
from tests.cheaters import Table

HOST, JOINER = Seat.HOST, Seat.JOINER


def _report(case: adversary.Case, violations: list[str]) -> str:
    return "\n".join([case.describe(), *violations])


# Shrinking a failing match replays hundreds of matches (minutes): off unless
# ADVERSARY_SHRINK is set. The failure report lists what the cheater did, and
# bench/adversary.py finds the smallest match of each kind.
_PHASES = (
    tuple(Phase)
    if os.environ.get("ADVERSARY_SHRINK")
    else tuple(p for p in Phase if p is not Phase.shrink)
)


@pytest.mark.slow
@settings(
    max_examples=50,  # the suite's share; bench/adversary.py runs 100,000
    deadline=None,
    phases=_PHASES,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_no_cheat_breaks_an_invariant(data: st.DataObject) -> None:
    with adversary.crypto_cache():
        case = adversary.generate(data)
        violations = adversary.check(case)
    assert not violations, _report(case, violations)


@pytest.mark.slow
@pytest.mark.parametrize("first", [0, 10])
def test_seeded_matches_keep_the_invariants(first: int) -> None:
    # The bench's first matches (python bench/adversary.py --seed 0).
    failures = []
    for seed in range(first, first + 10):
        case, violations, _ = adversary.run(seed)
        if violations:
            failures.append(f"seed {seed}: {_report(case, violations)}")
    assert not failures, "\n".join(failures)


@pytest.mark.slow
def test_the_harness_writes_files_as_the_table_does(tmp_path: Path) -> None:
    # The honest player's file is built in memory; byte for byte the Table's.
    table = Table(tmp_path, seed=3)
    table.run()
    table.close()
    for seat in Seat:
        records: list[tuple[int, bytes]] = []
        for step in table.steps[seat]:
            if step.evidence is not None:
                records.append((RecordKind.EVIDENCE, step.evidence.raw))
            if step.accepted is not None:
                records.append((RecordKind.FRAME, step.accepted.raw))
            records.extend((RecordKind.FRAME, f.raw) for f in step.outgoing)
        assert file_bytes(str(seat), records) == table.paths[seat].read_bytes()


# ----------------------------------------------- the faults found first


def _table(
    honest: Seat, seed: int, *, announce: bool = False, plant_on: str = "", **forced: Any
) -> AdversaryTable:
    """A started match: the cheater announces v=[1,1] if told, and plants
    bytes in its next frame of type ``plant_on``; ``forced`` pins its choices."""
    choices = SeedChoices(
        random.Random(seed),
        {"honest": honest, "six_suits": False, "two_rounds": False, "layout": "table", **forced},
    )
    table = AdversaryTable(choices, seed)
    table.adv.announce = announce
    if plant_on:
        table.adv.plant_on = {plant_on}
    table.start()
    return table


def _sign(table: AdversaryTable, message: wire.Message, seq: int) -> bytes:
    """The cheater signs ``message`` for position ``seq`` of the honest transcript."""
    chain = table.honest.chain
    header = FrameHeader(seq, chain[seq - 1].hash, table.honest.game_id)
    return sign_fields(table.keys[table.cheater_seat], fields_of(message, header))


def _record_of(data: bytes, frame: bytes) -> tuple[int, int]:
    """Where the FRAME record holding ``frame`` starts and ends in a file."""
    for start, end, kind in adversary.record_spans(data):
        if kind == RecordKind.FRAME and data[start + 5 : end - 4] == frame:
            return start, end
    raise AssertionError("no such record")


@pytest.mark.slow
def test_evidence_planted_by_the_joiner_proves_nothing_against_the_host() -> None:
    # Known fault 1. The joiner takes the host's move at q, signs a dispute for
    # position q itself, and writes its own file with that dispute at q and
    # the host's real move kept as an EVIDENCE record. The host played its own
    # turn: nothing the host signed is out of place.
    table = _table(HOST, seed=5)
    host_key = table.keys[HOST].verify_key.encode()

    def host_moved(t: AdversaryTable) -> bool:
        return any(
            isinstance(f.message, wire.MoveMsg) and f.signed_by(host_key) for f in t.cheater.chain
        )

    table.relay(until=host_moved)
    chain = table.honest.chain
    q = max(i for i, f in enumerate(chain) if isinstance(f.message, wire.MoveMsg))
    assert chain[q].signed_by(host_key)
    dispute = _sign(table, wire.Dispute(about=q, frame=chain[q].hash, reason="no"), q)
    table.queue.appendleft((HOST, dispute))
    table.relay()
    records = [(RecordKind.FRAME, f.raw) for f in chain[:q]]
    records += [(RecordKind.FRAME, dispute), (RecordKind.EVIDENCE, chain[q].raw)]
    case = table.case(twin=file_bytes("joiner", records))
    violations = adversary.check(case)
    assert not violations, _report(case, violations)


@pytest.mark.slow
def test_a_joiner_announcing_a_newer_minor_version_may_add_fields() -> None:
    # Known fault 2. The joiner announces v=[1,2] and adds an unknown field to
    # its coin frame: the host accepts it and plays on (PROTOCOL §5.5), and
    # the audit of the host's file must accept it too.
    table = _table(HOST, seed=6, announce=True, plant_on="coin", plant_records=1, plant_kind="raw")
    table.relay()
    honest = table.honest
    assert honest.dispute is None and honest.next_seq > 3
    assert honest.peer_minor == 2
    case = table.case(twin=table.cheater_file())
    violations = adversary.check(case)
    assert not violations, _report(case, violations)


@pytest.mark.slow
def test_a_host_announcing_a_newer_minor_version_may_add_fields() -> None:
    # As above, the other way round: the host announces v=[1,1] in its
    # welcome and adds a field to its commit; the joiner plays on.
    table = _table(
        JOINER, seed=6, announce=True, plant_on="commit", plant_records=1, plant_kind="raw"
    )
    table.relay()
    honest = table.honest
    assert honest.dispute is None and honest.next_seq > 4, honest.chain
    case = table.case(twin=table.cheater_file())
    violations = adversary.check(case)
    assert not violations, _report(case, violations)


@pytest.mark.slow
@pytest.mark.parametrize("honest", [HOST, JOINER])
def test_records_planted_in_a_frame_do_not_steer_the_damage_scan(honest: Seat) -> None:
    # Known fault 3. The cheater announces v=[1,1] and plants, in an unknown
    # field of its commit frame, a whole FRAME record holding another frame
    # for the same position. A flipped byte in that commit's record must not
    # make the reader resume at the planted record: repaired from the
    # cheater's file, the honest player's sealed match must not become a
    # broken transcript (nor anything that names the honest player).
    table = _table(
        honest,
        seed=7,
        announce=True,
        plant_on="commit",
        plant_records=1,
        plant_kind="frame-alt",
        alt_type="resign",
        alt_mutate=False,
        plant_field="~",
    )
    table.relay()
    assert table.honest.sealed, "the match must end sealed"
    clean = table.honest_file()
    position = 4 if honest is HOST else 3  # the cheater's commit
    commit = table.honest.chain[position]
    assert isinstance(commit.message, wire.Commit)
    start, end = _record_of(clean, commit.raw)
    planted = clean.find(table.adv.plants[0], start, end)
    assert start < planted
    damaged, touched = adversary.flip(clean, start + 20)
    case = table.case(table.cheater_file(), damaged, touched)
    violations = adversary.check(case)
    assert not violations, _report(case, violations)


@pytest.mark.slow
@pytest.mark.parametrize("twin_ends", ["one frame after the end", "a dispute instead"])
def test_a_forged_twin_cannot_turn_a_sealed_win_into_an_accusation(twin_ends: str) -> None:
    # Known fault 4. The host's file of a sealed match is damaged in its last
    # frame record (the networked layout keeps a NOTE after it, so no frame
    # follows the damage). The joiner's twin holds the real frames and one
    # more, signed after the end, or the joiner's dispute in place of its
    # result. The repair must not make the valid sealed win INVALID naming
    # nobody, nor an unproven accusation of the host (the second is only a
    # doubtful finding of the property; this regression asserts it).
    table = _table(HOST, seed=8, layout="net")
    table.relay()
    honest = table.honest
    assert honest.sealed
    clean = table.honest_file()
    last = honest.chain[-1]
    start, _ = _record_of(clean, last.raw)
    assert adversary.record_spans(clean)[-1][2] == RecordKind.NOTE
    damaged, touched = adversary.flip(clean, start + 20)
    if twin_ends == "one frame after the end":
        frames = [f.raw for f in honest.chain]
        message = wire.Dispute(about=0, frame=last.hash, reason="more")
    else:
        frames = [f.raw for f in honest.chain[:-1]]
        before = honest.chain[-2]
        message = wire.Dispute(about=before.seq or 0, frame=before.hash, reason="wrong result")
    end = wire.decode_frame(frames[-1])
    forged = sign_fields(
        table.keys[JOINER],
        fields_of(message, FrameHeader(len(frames), end.hash, honest.game_id)),
    )
    twin = file_bytes("joiner", [(RecordKind.FRAME, raw) for raw in [*frames, forged]])
    case = table.case(twin, damaged, touched)
    violations, doubts = adversary.examine(case)
    assert not violations and not doubts, _report(case, violations + doubts)


@pytest.mark.slow
def test_comparing_two_files_with_unknown_fields_does_not_crash() -> None:
    # Found by the generator. The joiner announces v=[1,1] and adds a field to
    # its commit; its file and the host's diverge right after that frame.
    # Comparing them must give a verdict, not raise.
    table = _table(
        HOST, seed=9, announce=True, plant_on="commit", plant_records=1, plant_kind="raw"
    )
    table.relay(until=lambda t: t.honest.next_seq > 8)
    chain = table.honest.chain
    assert len(chain) > 8 and table.honest.dispute is None
    other = _sign(table, wire.Resign(), 5)
    twin = file_bytes("joiner", [(RecordKind.FRAME, f.raw) for f in chain[:5]] + [(1, other)])
    case = table.case(twin)
    violations = adversary.check(case)
    assert not violations, _report(case, violations)


@pytest.mark.slow
def test_two_flipped_bytes_do_not_make_the_honest_player_owe_what_it_sent() -> None:
    # Found by the generator (seed 9). Two changed bytes, one in the host's
    # welcome and one in the file's last record, and nothing else: the host's
    # later frames are intact in its file, so no verdict may say that the host
    # owes its welcome (a crash cannot leave two bad places).
    table = _table(HOST, seed=10)
    table.relay(until=lambda t: t.honest.next_seq >= 12)
    clean = table.honest_file()
    spans = adversary.record_spans(clean)
    welcome_start, _, _ = spans[2]  # the magic, the header, frame 0, frame 1
    last_start, last_end, _ = spans[-1]
    damaged, first = adversary.flip(clean, welcome_start + 40)
    damaged, second = adversary.flip(damaged, (last_start + last_end) // 2)
    touched = bytearray(a | b for a, b in zip(first, second, strict=True))
    case = table.case(table.cheater_file(), damaged, touched)
    assert any(p > 1 for p in case.intact_honest_positions)
    violations = adversary.check(case)
    assert not violations, _report(case, violations)


@pytest.mark.slow
def test_a_damaged_length_and_a_torn_end_do_not_hide_frames_the_honest_player_sent() -> None:
    # Found by the generator (seed 2435). In the joiner's file a bit of the
    # length of a NOTE record is flipped, so that the record seems to run past
    # the end, and the last record is cut short. The joiner's commit and the
    # frames after it are intact after that NOTE: no verdict may say that the
    # joiner owes its commit.
    table = _table(JOINER, seed=11, layout="net")
    table.relay(until=lambda t: t.honest.next_seq >= 12)
    clean = table.honest_file()
    spans = adversary.record_spans(clean)
    host_commit = table.honest.chain[3].raw
    index = next(i for i, (a, b, _) in enumerate(spans) if clean[a + 5 : b - 4] == host_commit)
    note, _, kind = spans[index + 1]
    assert kind == RecordKind.NOTE
    damaged, touched = adversary.flip(clean, note + 2, 0x80)  # its length grows by 32768
    cut = spans[-1][0] + 10  # the last record, cut short
    assert note + 32768 > len(clean)
    damaged = damaged[:cut]
    touched[cut:] = b"\x01" * (len(clean) - cut)
    case = table.case(table.cheater_file(), damaged, touched)
    assert 4 in case.intact_honest_positions
    violations = adversary.check(case)
    assert not violations, _report(case, violations)


@pytest.mark.slow
@pytest.mark.parametrize(
    "seed",
    [1009833, 1011790, 1022005, 1031427, 1043982, 3059589],
)
def test_the_faults_the_100_000_match_run_found_stay_fixed(seed: int) -> None:
    # bench/adversary.py --matches 100000 --seed 1000000 found 10 violating
    # matches (2026-12-06): a second welcome announcing 1.2 kept as evidence
    # was ignored by the audit (the joiner's proven dispute read as
    # incomplete), and damage before the owner's key was known read as a torn
    # tail that said the owner owed its hello or welcome. One of each seed shape.
    # The run from seed 3000000 found one more (3059589): a byte deleted from
    # the end of a note's checksum left one that still matched, so the next
    # record (the owner's frame 4) started a byte before the bad record and
    # was not seen: the file read as torn, the owner owing frame 4.
    case, violations, _doubts = adversary.run(seed)
    assert not violations, _report(case, violations)

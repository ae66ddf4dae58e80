"""The answers docs/PROTOCOL.md gives to what a second auditor had to guess.

Each test builds its case with the real code (real sessions, real keys and
signatures, real replay files where it matters) and checks the behaviour the
specification states, section by section. A test marked ``xfail(strict=True)``
pins what the specification requires and lcnet does not do yet.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import nacl.signing
import pytest

from lcnet.audit import verdict as audit
from lcnet.deck import deal, group, hashing
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.events import DisputeRaised, FrameDropped, MatchOptions
from lcnet.protocol.observer import Observer
from lcnet.protocol.session import Session
from tests.cheaters import Cheater, Table, once
from tests.protocol.test_protocol_vectors import spec_frames

HOST, JOINER = Seat.HOST, Seat.JOINER
INVALID, INCOMPLETE, VALID = (
    audit.VerdictKind.INVALID,
    audit.VerdictKind.INCOMPLETE,
    audit.VerdictKind.VALID,
)
OUT_OF_RANGE = group.GROUP_ORDER.to_bytes(32, "little")
"""32 bytes whose value is L: not a scalar (§1.4)."""


# ------------------------------------------------------------------ helpers


def sign_body(body: dict[str, object], key: nacl.signing.SigningKey) -> bytes:
    """A frame of any body (even one the schema refuses), canonically packed and signed."""
    packed = msgpack.packb(dict(sorted(body.items())), use_bin_type=True)
    return wire.sign_frame(packed, key)


def body_of(raw: bytes) -> dict[str, object]:
    body: dict[str, object] = msgpack.unpackb(wire.decode_frame(raw).body, raw=False)
    return body


def played(tmp_path: Path, **options: Any) -> Table:
    table = Table(tmp_path, **options)
    table.run()
    return table


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> Table:
    """One honest match played to its end, shared by the tests that only read it
    (its transcript, keys and files): playing one costs about as much as the
    test itself. A test that feeds either session anything plays its own."""
    table = played(tmp_path_factory.mktemp("honest"))
    table.close()
    return table


def raws(session: Session) -> list[bytes]:
    return [frame.raw for frame in session.chain]


def seq_of(session: Session, kind: str, when: Callable[[wire.Message], bool] = bool) -> int:
    """The position of the first frame of type ``kind`` (whose message satisfies ``when``)."""
    return next(
        f.seq for f in session.chain if f.type == kind and when(f.message) and f.seq is not None
    )


def signer_of(table: Table, raw: bytes) -> Seat:
    frame = wire.decode_frame(raw)
    return next(s for s in Seat if frame.signed_by(bytes(table.keys[s].verify_key)))


def assert_invalid(verdict: audit.Verdict, seq: int, signer: Seat | None) -> None:
    assert verdict.kind is INVALID, verdict.summary
    assert verdict.bad is not None and verdict.bad.seq == seq, verdict.summary
    if signer is None:
        assert verdict.bad.signer is None, verdict.summary
    else:
        assert verdict.bad.signer is not None and verdict.bad.signer.seat is signer, verdict.summary


def other_secrets(
    session: Session, *, global_scalar: bytes | None = None, keys: dict[int, bytes] | None = None
) -> None:
    """A modified client: its round secrets are no longer those its committed seed
    derives, but it uses them consistently (so no live check catches it before a reveal)."""
    track = session.round
    assert track is not None and track.own_deal is not None
    own = track.own_deal
    secrets = own._secrets
    g = global_scalar or secrets.global_scalar
    position_keys = list(secrets.position_keys)
    for position, key in (keys or {}).items():
        position_keys[position] = key
    g_inverse = group.scalar_invert(g)
    own._secrets = dataclasses.replace(
        secrets,
        global_scalar=g,
        position_keys=tuple(position_keys),
        lock_scalars=tuple(group.scalar_mul(k, g_inverse) for k in position_keys),
    )


def careless(session: Session) -> None:
    """A modified client that does not check the other side's seed at its reveal."""
    track = session.round
    assert track is not None and track.own_deal is not None
    own = track.own_deal
    suits = own._table.suit_count

    def verify_reveal(seed: bytes) -> deal.RoundDeck:
        host, joiner = (own._secrets.seed, seed) if own.seat is HOST else (seed, own._secrets.seed)
        own._verified = deal.rebuild_round(suits, host, joiner)
        return own._verified

    own.verify_reveal = verify_reveal  # type: ignore[method-assign]


def both_keys_in(table: Table) -> bool:
    return sum(f.type == "keys" for f in table.joiner.chain) == 2


def round_started(table: Table) -> bool:
    return all(s.round is not None for s in table.sessions.values())


A_SCALAR = hashing.global_scalar(b"\x07" * 32)


# ------------------------------------------------ §6.2 auditing: FRAME records


@pytest.mark.slow
def test_a_complete_honest_match_is_valid(honest: Table) -> None:
    table = honest
    assert table.audit(HOST).kind is VALID


def _reheadered(table: Table, frames: list[bytes], index: int, **header: object) -> bytes:
    body = body_of(frames[index])
    body.update(header)
    return sign_body(body, table.keys[signer_of(table, frames[index])])


BAD_RECORDS: dict[str, Callable[[Table, list[bytes], int], bytes]] = {
    "malformed": lambda t, f, i: f[i][:-1],
    "signed by no player": lambda t, f, i: sign_body(
        body_of(f[i]), nacl.signing.SigningKey(b"\x05" * 32)
    ),
    "wrong prev": lambda t, f, i: _reheadered(t, f, i, prev=bytes(32)),
    "wrong game": lambda t, f, i: _reheadered(t, f, i, game=bytes(32)),
    "a copy of the frame before": lambda t, f, i: f[i - 1],
    "the frame after (a gap)": lambda t, f, i: f[i + 1],
    "a position already held": lambda t, f, i: _reheadered(t, f, i, seq=i - 1),
    "a control frame": lambda t, f, i: (
        wire.make_frame(wire.Ping(n=1), t.keys[HOST], game=wire.decode_frame(f[1]).game).raw
    ),
}


@pytest.mark.parametrize("kind", sorted(BAD_RECORDS))
def test_a_bad_frame_record_is_invalid_with_no_signer_and_ends_the_audit(
    honest: Table, kind: str
) -> None:
    """§6.2 Auditing: steps 1–5 failing on a FRAME record prove nothing against anyone."""
    table = honest
    frames = raws(table.host)
    index = 6
    bad = BAD_RECORDS[kind](table, frames, index)
    records = [*frames[:index], bad, *frames[index + 1 :]]
    verdict = audit.audit_frames(records)
    assert_invalid(verdict, index, None)
    assert "names neither player" in verdict.summary
    assert f"record {index} is not the transcript's next frame" in verdict.summary
    # A proof among the EVIDENCE records, on the transcript before that record,
    # still names its signer: a record that is no frame hides no proof (§6.4).
    equivocation = _reheadered(table, frames, 4, commit=bytes(32))
    verdict = audit.audit_frames(records, [equivocation])
    assert_invalid(verdict, 4, signer_of(table, frames[4]))
    assert "equivocation" in verdict.summary
    assert any(f"transcript at frame {index}" in note for note in verdict.notes)


@pytest.mark.slow
def test_a_frame_record_after_the_end_is_invalid_with_no_signer(tmp_path: Path) -> None:
    table = played(tmp_path)
    last = table.host.chain[-1]
    assert table.host.is_over and last.seq is not None
    extra = wire.make_frame(
        wire.Resign(), table.keys[HOST], seq=last.seq + 1, prev=last.hash, game=last.game
    )
    verdict = audit.audit_frames([*raws(table.host), extra.raw])
    assert_invalid(verdict, last.seq + 1, None)
    # A live peer drops it too.
    before = table.joiner.dropped
    step = table.joiner.receive(extra.raw)
    assert step.accepted is None and table.joiner.dropped == before + 1


# ---------------------------------------- §6.2 steps 4–6: whose key, whose fault


def _opening(seed: int = 3) -> tuple[Session, Session, list[wire.Frame]]:
    """Host and joiner after hello, welcome, coin and the host's commitment."""
    keys = {s: nacl.signing.SigningKey(bytes([seed + s]) * 32) for s in Seat}
    masters = {s: bytes([seed + 10 + s]) * 32 for s in Seat}
    joiner = Session.joiner(keys[JOINER], masters[JOINER], name="Joe")
    host = Session.host(
        keys[HOST], masters[HOST], name="Hana", options=MatchOptions(suits=5, rounds=1)
    )
    hello = joiner.start().outgoing
    welcome = host.receive(hello[0].raw).outgoing
    coin = joiner.receive(welcome[0].raw).outgoing
    commit = host.receive(coin[0].raw).outgoing
    assert [f.type for f in (*hello, *welcome, *coin, *commit)] == [
        "hello",
        "welcome",
        "coin",
        "commit",
    ]
    return host, joiner, list(host.chain)


def test_an_auditor_names_the_non_speaker_who_signed_and_faults_it() -> None:
    host, _, chain = _opening()
    # Position 4 is the joiner's commitment; the host signs one instead.
    assert host._signing_key is not None
    out_of_turn = wire.make_frame(
        wire.Commit(round=1, commit=bytes(32)),
        host._signing_key,
        seq=4,
        prev=chain[-1].hash,
        game=host.game_id,
    )
    verdict = audit.audit_frames([*(f.raw for f in chain), out_of_turn.raw])
    assert_invalid(verdict, 4, HOST)
    assert "out of turn" in verdict.summary
    # A live receiver tries its peer's key only: the host drops a frame signed with
    # its own key, and nothing changes.
    step = host.receive(out_of_turn.raw)
    assert step.accepted is None and any(isinstance(e, FrameDropped) for e in step.events)
    assert host.dispute is None and len(host.chain) == 4


def test_a_signed_frame_off_the_chain_is_dropped_live_and_proves_nothing() -> None:
    host, joiner, chain = _opening()
    assert joiner._signing_key is not None
    stale = wire.make_frame(
        wire.Commit(round=1, commit=bytes(32)),
        joiner._signing_key,
        seq=4,
        prev=chain[1].hash,  # not the hash of frame 3
        game=host.game_id,
    )
    step = host.receive(stale.raw)
    assert step.accepted is None and any(isinstance(e, FrameDropped) for e in step.events)
    assert host.dispute is None and not step.outgoing
    verdict = audit.audit_frames([*(f.raw for f in chain), stale.raw])
    assert_invalid(verdict, 4, None)


# --------------------------------------------------- §3.7 and §5.4: the ack


def test_an_ack_carries_no_position_and_its_key_is_for_the_next_draw(honest: Table) -> None:
    table = honest
    frames = raws(table.host)
    index = seq_of(table.host, "ack", lambda m: isinstance(m, wire.Ack) and m.key is not None)
    observer = Observer()
    for raw in frames[:index]:
        observer.receive(raw)
    assert observer.round is not None
    author = signer_of(table, frames[index])
    observer.receive(frames[index])
    assert observer.round.key_seqs[(author, deal.FIRST_DRAW_POSITION)] == index
    # An ack with a position is malformed: dropped live, no signer in an audit.
    with_pos = _reheadered(table, frames, index, pos=deal.FIRST_DRAW_POSITION)
    with pytest.raises(wire.MalformedFrame):
        wire.decode_frame(with_pos)
    assert_invalid(audit.audit_frames([*frames[:index], with_pos]), index, None)


# ------------------------------------------------------ §3.4: the points field


@pytest.mark.parametrize("length", [60 * 32 + 1, 60 * 32 - 31, 61 * 32, 59 * 32, 0])
def test_a_points_field_of_a_wrong_length_fails_the_schema(honest: Table, length: int) -> None:
    table = honest
    frames = raws(table.host)
    index = seq_of(table.host, "pass")
    bad = _reheadered(table, frames, index, points=(bytes(range(256)) * 10)[:length])
    with pytest.raises(wire.MalformedFrame):
        wire.decode_frame(bad)
    assert_invalid(audit.audit_frames([*frames[:index], bad]), index, None)


def test_a_pass_of_the_other_deck_size_is_a_pass_size_fault(tmp_path: Path) -> None:
    extra = b"".join(deal.card_table(6).points[60:])

    def longer(cheater: Cheater, m: wire.Message) -> wire.Message | None:
        if isinstance(m, wire.DeckPass) and m.n == 1:
            return wire.DeckPass(round=m.round, n=1, points=m.points + extra)
        return None

    table = played(tmp_path, cheater=HOST, tamper=once(longer))
    dispute = table.joiner.dispute
    assert dispute is not None and dispute.offender is HOST
    assert deal.DeckFault.PASS_SIZE.value in dispute.reason
    assert_invalid(table.audit(JOINER), seq_of(table.joiner, "pass"), HOST)


# ------------------------------------------------ §6.1: resign, dispute, OVER


@pytest.mark.slow
def test_a_resigned_match_is_valid(tmp_path: Path) -> None:
    table = Table(tmp_path, hold=frozenset({HOST}))
    table.run()
    assert table.host.awaiting_decision
    table._record(HOST, table.host.resign())
    table.run()
    table.close()
    for seat in Seat:
        verdict = audit.audit_file(table.paths[seat])
        assert verdict.kind is VALID, verdict.summary
        assert verdict.resigned == "Hana" and verdict.winner == "Joe"
    # OVER accepts nothing: a second resignation is dropped.
    last = table.joiner.chain[-1]
    assert last.seq is not None
    again = wire.make_frame(
        wire.Resign(), table.keys[JOINER], seq=last.seq + 1, prev=last.hash, game=last.game
    )
    assert table.host.receive(again.raw).accepted is None


def test_resign_from_coin_on_but_not_at_position_1() -> None:
    host, joiner, chain = _opening()
    assert joiner._signing_key is not None
    at_coin = wire.make_frame(
        wire.Resign(), joiner._signing_key, seq=2, prev=chain[1].hash, game=host.game_id
    )
    verdict = audit.audit_frames([chain[0].raw, chain[1].raw, at_coin.raw])
    assert verdict.kind is VALID and verdict.resigned == "Joe" and verdict.winner == "Hana"
    # At position 1 only the joiner's frames verify: its resign is out of turn,
    # its dispute is accepted (and proves nothing).
    for message, kind in ((wire.Resign(), INVALID), (wire.Dispute(1, bytes(32), "x"), INCOMPLETE)):
        frame = wire.make_frame(
            message, joiner._signing_key, seq=1, prev=chain[0].hash, game=host.game_id
        )
        verdict = audit.audit_frames([chain[0].raw, frame.raw])
        assert verdict.kind is kind, verdict.summary
        if kind is INVALID:
            assert_invalid(verdict, 1, JOINER)


def _false_dispute(table: Table, *, about: int, seed: bytes) -> list[bytes]:
    """The joiner's transcript after the deal, ended by the joiner's dispute of ``about``."""
    chain = table.joiner.chain
    keys_host = seq_of(table.joiner, "keys", lambda m: True) + 1
    frames = [f.raw for f in chain[: keys_host + 1]]
    head = chain[keys_host]
    assert head.seq is not None
    dispute = wire.make_frame(
        wire.Dispute(about=about, frame=chain[min(about, keys_host)].hash, reason="x", seed=seed),
        table.keys[JOINER],
        seq=head.seq + 1,
        prev=head.hash,
        game=head.game,
    )
    return [*frames, dispute.raw]


def _joiner_seed(table: Table) -> bytes:
    track = table.joiner.round
    assert track is not None and track.own_deal is not None
    return track.own_deal._secrets.seed


@pytest.mark.slow
def test_a_dispute_whose_seed_exposes_the_accuser_is_invalid_against_the_accuser(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path)
    table.run(until=round_started)
    seed = _joiner_seed(table)
    other_secrets(table.joiner, global_scalar=A_SCALAR)  # pass 2 no longer from its seed
    table.run(until=both_keys_in)
    keys_host = seq_of(table.joiner, "keys", lambda m: True) + 1
    frames = _false_dispute(table, about=keys_host, seed=seed)
    pass_2 = seq_of(table.joiner, "pass", lambda m: isinstance(m, wire.DeckPass) and m.n == 2)
    verdict = audit.audit_frames(frames)
    assert_invalid(verdict, pass_2, JOINER)
    assert deal.DeckFault.PASS_MISMATCH.value in verdict.summary
    # A seed that does not match the commitment: pinned on the dispute itself.
    wrong = audit.audit_frames(_false_dispute(table, about=keys_host, seed=bytes(32)))
    assert_invalid(wrong, len(frames) - 1, JOINER)
    assert deal.DeckFault.COMMITMENT_MISMATCH.value in wrong.summary
    # The seed is not looked at when `about` is above the dispute's own position.
    beyond = audit.audit_frames(_false_dispute(table, about=len(frames), seed=bytes(32)))
    assert beyond.kind is INCOMPLETE, beyond.summary


@pytest.mark.slow
def test_a_false_dispute_with_an_honest_seed_proves_nothing(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.run(until=both_keys_in)
    keys_host = seq_of(table.joiner, "keys", lambda m: True) + 1
    verdict = audit.audit_frames(_false_dispute(table, about=keys_host, seed=_joiner_seed(table)))
    assert verdict.kind is INCOMPLETE, verdict.summary


# ------------------------------------------------------ §6.4: EVIDENCE records


@pytest.mark.slow
def test_evidence_must_follow_the_transcript_frame_at_seq_minus_1(honest: Table) -> None:
    table = honest
    frames = raws(table.host)
    gid = table.host.game_id
    position = 4  # the joiner's commitment
    assert signer_of(table, frames[position]) is JOINER

    def twin(prev: bytes, seq: int = position) -> bytes:
        return wire.make_frame(
            wire.Commit(round=1, commit=bytes(32)), table.keys[JOINER], seq=seq, prev=prev, game=gid
        ).raw

    on_history = twin(wire.decode_frame(frames[position - 1]).hash)
    verdict = audit.audit_frames(frames, [on_history])
    assert_invalid(verdict, position, JOINER)
    assert "equivocation" in verdict.summary
    # Following the record before it in the file (the last FRAME record) is not enough.
    after_last = twin(wire.decode_frame(frames[-1]).hash)
    assert audit.audit_frames(frames, [after_last]).kind is VALID
    # Nor is a position beyond the transcript.
    beyond = twin(wire.decode_frame(frames[-1]).hash, seq=len(frames))
    assert audit.audit_frames(frames, [beyond]).kind is VALID


# ------------------------------------------------------------ §3.9: the reveal


@pytest.mark.slow
def test_a_pass_mismatch_is_pinned_on_the_pass_frame(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.run(until=round_started)
    other_secrets(table.joiner, global_scalar=A_SCALAR)
    table.run()
    dispute = table.host.dispute
    assert dispute is not None and dispute.offender is JOINER
    pass_2 = seq_of(table.host, "pass", lambda m: isinstance(m, wire.DeckPass) and m.n == 2)
    assert dispute.seq == pass_2
    verdict = table.audit(HOST)
    assert_invalid(verdict, pass_2, JOINER)
    assert deal.DeckFault.PASS_MISMATCH.value in verdict.summary


@pytest.mark.slow
def test_a_key_mismatch_is_pinned_on_the_frame_that_carried_the_key(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.run(until=round_started)
    other_secrets(table.host, keys={8: A_SCALAR})  # a dealing key for the joiner's hand
    table.run()
    keys_host = seq_of(table.joiner, "keys", lambda m: True) + 1
    dispute = table.joiner.dispute
    assert dispute is not None and dispute.offender is HOST and dispute.seq == keys_host
    verdict = table.audit(JOINER)
    assert_invalid(verdict, keys_host, HOST)
    assert deal.DeckFault.KEY_MISMATCH.value in verdict.summary


@pytest.mark.slow
def test_when_both_cheated_the_host_s_reveal_is_checked_first(tmp_path: Path) -> None:
    """The joiner's bad key is the earlier frame, but the host reveals first."""
    table = Table(tmp_path)
    table.run(until=round_started)
    other_secrets(table.joiner, keys={0: A_SCALAR})  # in the joiner's keys frame
    other_secrets(table.host, keys={8: A_SCALAR})  # in the host's keys frame, later
    careless(table.joiner)  # so that both reveals reach the transcript
    table.run()
    keys_joiner = seq_of(table.host, "keys", lambda m: True)
    keys_host = keys_joiner + 1
    assert [f.type for f in table.host.chain[-3:]] == ["reveal", "reveal", "dispute"]
    # Live, the host checks the joiner's reveal and faults the joiner's keys frame...
    dispute = table.host.dispute
    assert dispute is not None and dispute.offender is JOINER and dispute.seq == keys_joiner
    # ...but an auditor checks the host's side at the host's reveal, which comes first.
    assert_invalid(table.audit(HOST), keys_host, HOST)


# -------------------------------------------------- §5.4: text, keys, `about`

PRINTABLE = ["", "Hana", "Zoë 山田", "a b", "🂡"]
NOT_PRINTABLE = [
    "\x00",
    "a\tb",
    "\x7f",
    "\x85",  # C1
    "\u00a0",  # no-break space (Zs)
    "\u200b",  # zero-width space (Cf)
    "\u202e",  # right-to-left override (Cf)
    "\u2028",  # line separator (Zl)
    "\ue000",  # private use (Co)
    "\U000e0001",  # language tag (Cf)
]
UNASSIGNED_IN_14 = "\U0001f6dc"
"""Assigned in Unicode 15.0 (WIRELESS): unassigned, so not printable, in 14.0.0."""


def _hello(name: str) -> bytes:
    key = nacl.signing.SigningKey(b"\x01" * 32)
    body = {
        "t": "hello",
        "seq": 0,
        "v": [1, 0],
        "name": name,
        "key": bytes(key.verify_key),
        "coin": bytes(32),
    }
    return sign_body(body, key)


@pytest.mark.parametrize("name", PRINTABLE)
def test_printable_names_are_accepted(name: str) -> None:
    assert Observer().receive(_hello(name)).accepted is not None


@pytest.mark.parametrize("name", NOT_PRINTABLE)
def test_names_that_are_not_printable_fail_the_schema(name: str) -> None:
    with pytest.raises(wire.MalformedFrame):
        wire.decode_frame(_hello(name))
    assert_invalid(audit.audit_frames([_hello(name)]), 0, None)


@pytest.mark.xfail(
    sys.version_info >= (3, 12),
    strict=True,
    reason="wire.py uses str.isprintable(), whose Unicode database is the running Python's "
    "(15.0 from Python 3.12): lcnet's schema then differs from the specified Unicode 14.0.0",
)
def test_printable_is_unicode_14() -> None:
    with pytest.raises(wire.MalformedFrame):
        wire.decode_frame(_hello(UNASSIGNED_IN_14))


def test_a_welcome_with_the_joiner_s_own_key_is_the_joiner_s_frame() -> None:
    """Only the joiner's key verifies it, so it is the joiner's (§5.4): a live
    joiner drops it, and an auditor names the joiner, never the host (a
    cheating joiner could put such a frame in its own file)."""
    key = nacl.signing.SigningKey(b"\x02" * 32)
    joiner = Session.joiner(key, b"\x03" * 32, name="Joe")
    hello = joiner.start().outgoing[0]
    welcome = wire.make_frame(
        wire.Welcome(
            v=[1, 0], name="Hana", key=bytes(key.verify_key), suits=5, rounds=1, coin=bytes(32)
        ),
        key,
        seq=1,
        prev=hello.hash,
        game=joiner.game_id,
    )
    step = joiner.receive(welcome.raw)
    assert step.accepted is None and not any(isinstance(e, DisputeRaised) for e in step.events)
    assert joiner.next_seq == 1 and joiner.dispute is None
    assert_invalid(audit.audit_frames([hello.raw, welcome.raw]), 1, JOINER)


# ------------------------------------------- §5.5: a frame read by its own version

SPEC_KEYS = (
    nacl.signing.SigningKey(bytes(range(32, 64))),  # the joiner of §8.2
    nacl.signing.SigningKey(bytes(range(32))),  # the host of §8.2
)


def _with_unknown_field(index: int) -> list[bytes]:
    """§8.2's frames up to ``index``, the one at ``index`` re-signed by its signer
    with a field protocol 1.0 does not define (its `v`, if any, still [1, 0])."""
    frames, _, _ = spec_frames()
    body = body_of(frames[index])
    body["x"] = 1
    signer = SPEC_KEYS[0] if index in (0, 2) else SPEC_KEYS[1]
    return [*frames[:index], sign_body(body, signer)]


@pytest.mark.parametrize("index", [0, 1, 2], ids=["hello", "welcome", "coin"])
def test_a_field_the_announced_minor_does_not_define_is_malformed(index: int) -> None:
    """Issue 56, point 7: a `hello` or `welcome` announcing minor 0 is read by
    that announcement like every later frame of its signer (§5.5), by an
    auditor too, which decodes leniently: it fails step 1 and proves nothing,
    as a `coin` with the same field does."""
    frames = _with_unknown_field(index)
    observer = Observer()
    for raw in frames[:index]:
        assert observer.receive(raw).accepted is not None
    step = observer.receive(frames[index])
    assert step.accepted is None and any(isinstance(e, FrameDropped) for e in step.events)
    assert_invalid(audit.audit_frames(frames), index, None)


@pytest.mark.parametrize("index", [0, 1], ids=["hello", "welcome"])
def test_a_hello_or_welcome_is_decoded_by_the_version_it_announces(index: int) -> None:
    """The decoder needs no signer for it: however lenient the reader, a frame
    announcing minor 0 may not carry a field of a later minor; one announcing
    a later minor may."""
    (raw,) = _with_unknown_field(index)[index:]
    with pytest.raises(wire.MalformedFrame, match="unknown field"):
        wire.decode_frame(raw, allow_unknown_fields=True)
    body = body_of(spec_frames()[0][index])
    body["x"], body["v"] = 1, [1, 2]
    newer = sign_body(body, SPEC_KEYS[index])
    assert wire.decode_frame(newer).unknown == {"x"}


# ------------------------------------------------------- §8.2: the coin nonces


def test_the_vector_coin_nonces_come_from_the_masters() -> None:
    frames, _, _ = spec_frames()
    hello, welcome, coin = (wire.decode_frame(raw).message for raw in frames)
    assert isinstance(hello, wire.Hello) and isinstance(welcome, wire.Welcome)
    assert isinstance(coin, wire.Coin)
    host_master, joiner_master = bytes(range(64, 96)), bytes(range(96, 128))
    assert welcome.coin == hashing.coin_nonce(host_master)
    assert coin.nonce == hashing.coin_nonce(joiner_master)
    assert hello.coin == hashing.coin_commitment(coin.nonce)


# ------------------------------------------- §3.6: keys checked where they are sent


def _bad_key_table(tmp_path: Path, kind: str) -> Table:
    def rewrite(cheater: Cheater, m: wire.Message) -> wire.Message | None:
        if kind == "keys" and isinstance(m, wire.DealKeys):
            return wire.DealKeys(round=m.round, keys=OUT_OF_RANGE + m.keys[32:])
        if kind == "ack" and isinstance(m, wire.Ack) and m.key is not None:
            return wire.Ack(key=OUT_OF_RANGE)
        if kind == "move" and isinstance(m, wire.MoveMsg) and m.key is not None:
            return dataclasses.replace(m, key=OUT_OF_RANGE)
        return None

    table = played(tmp_path, cheater=HOST, tamper=once(rewrite))
    dispute = table.joiner.dispute
    assert dispute is not None and dispute.offender is HOST
    assert deal.DeckFault.INVALID_KEY.value in dispute.reason
    return table


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["keys", "ack", "move"])
def test_a_key_out_of_range_is_proven_by_the_receiver_s_dispute(tmp_path: Path, kind: str) -> None:
    table = _bad_key_table(tmp_path, kind)
    dispute = table.joiner.dispute
    assert dispute is not None
    assert_invalid(table.audit(JOINER), dispute.seq, HOST)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["keys", "ack", "move"])
def test_an_auditor_finds_a_key_out_of_range_at_its_frame(tmp_path: Path, kind: str) -> None:
    """§3.6: without the dispute, and without a reveal, the frame itself is the proof."""
    table = _bad_key_table(tmp_path, kind)
    dispute = table.joiner.dispute
    assert dispute is not None
    frames = raws(table.joiner)[: dispute.seq + 1]
    assert_invalid(audit.audit_frames(frames), dispute.seq, HOST)


# ------------------------------------------ §7.2 step 1: whose file a spectator's is


def _opening_with_a_1_2_joiner() -> tuple[bytes, bytes, bytes]:
    """A match's hello (the joiner announcing minor 1.2) and the host's welcome
    to it, signed by the §8.2 keys, and the game id."""
    joiner, host = SPEC_KEYS
    hello = sign_body(
        {
            "t": "hello",
            "seq": 0,
            "v": [1, 2],
            "name": "Joe",
            "key": bytes(joiner.verify_key),
            "coin": bytes(32),
        },
        joiner,
    )
    game = hashing.game_id(hello)
    welcome_body = body_of(spec_frames()[0][1])
    welcome_body.update(prev=hashing.chain_hash(hello), game=game)
    return hello, sign_body(welcome_body, host), game


def _cut_in_a_planted_record(seat: str) -> bytes:
    """A file of ``seat`` whose last record, the joiner's `coin`, is cut off by
    the end of the file just after a FRAME record the joiner planted inside it
    (a field of its announced minor 1.2 holding a copy of the welcome)."""
    from lcnet.store.replayfile import MAGIC, RecordKind, ReplayHeader, encode_record

    joiner, _ = SPEC_KEYS
    hello, welcome, game = _opening_with_a_1_2_joiner()
    planted = encode_record(RecordKind.FRAME, welcome)
    coin = sign_body(
        {
            "t": "coin",
            "seq": 2,
            "prev": hashing.chain_hash(welcome),
            "game": game,
            "nonce": bytes(32),
            "pad": planted,
        },
        joiner,
    )
    header = ReplayHeader(seat=seat, created="2026-12-07T00:00:00Z", software="lcnet test")
    last = encode_record(RecordKind.FRAME, coin)
    cut = last.index(planted) + len(planted) + 3
    return b"".join(
        [
            MAGIC,
            encode_record(RecordKind.HEADER, header.to_payload()),
            encode_record(RecordKind.FRAME, hello),
            encode_record(RecordKind.FRAME, welcome),
            last[:cut],
        ]
    )


@pytest.mark.parametrize("seat", ["host", "joiner"])
def test_a_player_s_crash_torn_file_stays_torn_whatever_its_last_record_holds(
    seat: str,
) -> None:
    from lcnet.store.replayfile import parse_replay

    contents = parse_replay(_cut_in_a_planted_record(seat))
    assert contents.damage == [] and contents.torn is not None and len(contents.frames) == 2


def test_a_spectator_s_file_has_no_owner_so_a_cut_off_record_is_a_torn_tail() -> None:
    """§7.2 step 1: a spectator signs no frame of the transcript, and every
    record of its file may hold bytes a player chose; so nothing after a
    cut-off record can show that the file went on, and the record is a torn
    tail. Here the joiner planted a FRAME record inside its own `coin`."""
    from lcnet.store.replayfile import parse_replay

    contents = parse_replay(_cut_in_a_planted_record("spectator"))
    assert contents.damage == [] and contents.torn is not None and len(contents.frames) == 2


# ------------------------------------- §7.2: damage and a torn end, with a twin


def test_after_damage_a_torn_end_can_be_a_run_a_player_planted() -> None:
    """Why a damaged file that ends cut off is not repaired (§7.2, *Damage and a
    torn end*): the joiner (announcing 1.2) planted in its `coin` a FRAME record
    of another coin and a record whose length runs past the end of the file.
    The host's file is damaged at that coin's length and a crash cut its last
    record: the planted run is read after the damage, the host's own genuine
    frame after the coin is swallowed, and the "torn tail" is the joiner's. A
    twin made by the joiner holds exactly that transcript; nothing in either
    file can show what the host's file really held."""
    from lcnet.store.replayfile import MAGIC, RecordKind, ReplayHeader, encode_record, parse_replay

    joiner, host = SPEC_KEYS
    hello, welcome, game = _opening_with_a_1_2_joiner()

    def coin(nonce: bytes, **extra: object) -> bytes:
        body = {"t": "coin", "seq": 2, "prev": hashing.chain_hash(welcome), "game": game}
        return sign_body({**body, "nonce": nonce, **extra}, joiner)

    other_coin = coin(b"\x09" * 32)
    planted = encode_record(RecordKind.FRAME, other_coin) + (60_000).to_bytes(4, "big") + b"\x02"
    genuine_coin = coin(bytes(32), pad=planted + bytes(16))
    hosts_next = sign_body(  # the host's own frame after the coin (any frame of its)
        {
            "t": "commit",
            "seq": 3,
            "prev": hashing.chain_hash(genuine_coin),
            "game": game,
            "round": 1,
            "commit": b"\x05" * 32,
        },
        host,
    )
    header = ReplayHeader(seat="host", created="2026-12-07T00:00:00Z", software="lcnet test")
    coin_record = bytearray(encode_record(RecordKind.FRAME, genuine_coin))
    coin_record[0] = 0xFF  # the damage: its length is now impossible
    last = encode_record(RecordKind.FRAME, hosts_next)
    data = b"".join(
        [
            MAGIC,
            encode_record(RecordKind.HEADER, header.to_payload()),
            encode_record(RecordKind.FRAME, hello),
            encode_record(RecordKind.FRAME, welcome),
            bytes(coin_record),
            last,
            last[: len(last) // 2],  # a crash cut the host's next record
        ]
    )
    contents = parse_replay(data)
    (damage,) = contents.damage
    assert damage.frames_after == [other_coin]  # the joiner's planted frame, not the host's
    assert hosts_next not in damage.frames_after and contents.frames == [hello, welcome]
    assert contents.torn is not None and contents.torn.offset < data.index(last)
    # The joiner's "twin" agrees with it, and the merged transcript chains.
    from lcnet.audit import repair

    twin = dataclasses.replace(contents, frames=[hello, welcome, other_coin], damage=[], torn=None)
    fix = repair.repair(contents, twin, "twin")
    assert fix.contents is not None and fix.contents.frames == [hello, welcome, other_coin]

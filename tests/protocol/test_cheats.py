"""Every cheat and fault of issue 4, caught by the live session and by the audit.

Each test lets a cheating peer (a modified client with its real key, see
``tests/cheaters.py``) do one thing wrong in an otherwise normal match. The
honest peer must stop with a dispute naming the cheater and the offending
frame, and ``audit`` of the honest peer's replay file must say "invalid" and
name the same frame and signer.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgpack
import nacl.signing
import pytest

from lcnet.audit import compare
from lcnet.audit import verdict as audit
from lcnet.deck import deal, group, hashing
from lcnet.game.cards import ALL_CARDS, Card
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.events import DuplicateIgnored, FrameDropped
from lcnet.store.replayfile import ReplayHeader, read_replay
from lcnet.store.writer import ReplayWriter, write_replay
from tests.cheaters import Cheater, Table, once

HOST, JOINER = Seat.HOST, Seat.JOINER


def assert_caught(
    table: Table,
    cheater: Seat,
    live_reason: str,
    audit_reason: str | None = None,
    *,
    cheater_told: bool = True,
) -> int:
    """The honest peer disputes the cheater's frame; the audit of its file agrees."""
    honest = table.sessions[cheater.other]
    dispute = honest.dispute
    assert dispute is not None, "the honest peer did not notice"
    assert dispute.offender is cheater
    assert dispute.detected_by is cheater.other
    assert live_reason in dispute.reason
    # The honest peer told the cheater, with a signed dispute frame.
    assert table.sessions[cheater].dispute is not None or not cheater_told
    verdict = table.audit(cheater.other)
    assert verdict.kind is audit.VerdictKind.INVALID, verdict.summary
    assert verdict.bad is not None and verdict.bad.signer is not None
    assert verdict.bad.seq == dispute.seq
    assert verdict.bad.signer.seat is cheater
    assert (audit_reason or live_reason) in verdict.bad.reason
    assert verdict.exit_code == 1
    return dispute.seq


def unplayable_card(cheater: Cheater) -> Card | None:
    view = cheater.view()
    assert view is not None
    hidden = cheater.hidden_positions()
    for card in view.hand:
        if card in hidden and not view.can_play(card):
            return card
    return None


def unseen_card(cheater: Cheater) -> Card:
    view = cheater.view()
    assert view is not None
    return view.unseen_cards()[0]


# ------------------------------------------------------------------- moves


@pytest.mark.slow
def test_an_illegal_play(tmp_path: Path) -> None:
    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        card = unplayable_card(c) if isinstance(m, wire.MoveMsg) else None
        if card is None:
            return None
        assert isinstance(m, wire.MoveMsg)
        pos = c.hidden_positions()[card]
        return wire.MoveMsg(card=card.id, discard=False, draw=m.draw, pos=pos, key=c.own_key(pos))

    table = Table(tmp_path, seed=3, cheater=JOINER, tamper=(t := once(rewrite)))
    table.run()
    assert t.done  # type: ignore[attr-defined]
    seq = assert_caught(table, JOINER, "illegal move")
    assert isinstance(table.host.chain[seq].message, wire.MoveMsg)


def test_playing_a_hidden_card_the_player_does_not_hold(tmp_path: Path) -> None:
    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        if not isinstance(m, wire.MoveMsg) or m.pos is None:
            return None
        return wire.MoveMsg(card=unseen_card(c).id, discard=True, draw=m.draw, pos=m.pos, key=m.key)

    table = Table(tmp_path, seed=4, cheater=HOST, tamper=once(rewrite))
    table.run()
    assert_caught(table, HOST, "does not open the card that was named", "opens")


def test_playing_a_card_as_public_that_was_never_taken(tmp_path: Path) -> None:
    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        if not isinstance(m, wire.MoveMsg):
            return None
        return wire.MoveMsg(card=unseen_card(c).id, discard=True, draw=m.draw)

    table = Table(tmp_path, seed=5, cheater=JOINER, tamper=once(rewrite))
    table.run()
    assert_caught(table, JOINER, "took no such card from a discard pile")


def test_drawing_back_the_card_just_discarded(tmp_path: Path) -> None:
    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        if not isinstance(m, wire.MoveMsg):
            return None
        suit = ALL_CARDS[m.card].suit
        return wire.MoveMsg(card=m.card, discard=True, draw=int(suit), pos=m.pos, key=m.key)

    table = Table(tmp_path, seed=6, cheater=HOST, tamper=once(rewrite))
    table.run()
    assert_caught(table, HOST, "cannot be drawn back")


def test_moving_out_of_turn(tmp_path: Path) -> None:
    table = Table(tmp_path, seed=7, cheater=HOST, hold=frozenset({JOINER}))
    table.run()
    honest = table.joiner
    assert honest.awaiting_decision
    cheater = table.sessions[HOST]
    assert isinstance(cheater, Cheater)
    view = cheater.view()
    assert view is not None
    card = view.hand[0]
    pos = cheater.hidden_positions()[card]
    frame = wire.make_frame(
        wire.MoveMsg(card=card.id, discard=True, draw=-1, pos=pos, key=cheater.own_key(pos)),
        table.keys[HOST],
        seq=honest.next_seq,
        prev=honest.head,
        game=honest.game_id,
    )
    table.inject(JOINER, frame.raw)
    table.run()
    # The injected frame never was in the cheater's own chain, so it cannot
    # follow the dispute that answers it.
    assert_caught(table, HOST, "out of turn", cheater_told=False)


@pytest.mark.slow
def test_a_wrong_result(tmp_path: Path) -> None:
    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        if not isinstance(m, wire.Result):
            return None
        scores = [list(s) for s in m.scores]
        scores[0][0] += 10
        return wire.Result(scores=scores, totals=[m.totals[0] + 10, m.totals[1]])

    table = Table(tmp_path, seed=8, cheater=HOST, tamper=once(rewrite))
    table.run()
    seq = assert_caught(table, HOST, "is not the verified")
    assert isinstance(table.joiner.chain[seq].message, wire.Result)


# ------------------------------------------------------------ the chain


def _refused_without_proof(table: Table, cheater: Seat) -> None:
    """The honest peer drops the frame and waits; nothing is proven against anyone."""
    honest = table.sessions[cheater.other]
    assert honest.dispute is None and honest.dropped >= 1
    assert not honest.is_over, "the match stalls: the cheater believes its frame went through"
    verdict = table.audit(cheater.other)
    assert verdict.kind is audit.VerdictKind.INCOMPLETE, verdict.summary
    assert verdict.owed is not None and f"the {cheater}" in verdict.owed


def test_a_wrong_prev_is_refused_but_proves_nothing(tmp_path: Path) -> None:
    # A frame that does not follow the previous one shows only that its signer
    # saw another history: a replay, a stale frame, or a fork made by either
    # side. The peer refuses it; it is no evidence against the signer.
    done: list[int] = []

    def bad_prev(c: Cheater, m: wire.Message, seq: int, prev: bytes | None, game: bytes | None):
        if done or not isinstance(m, wire.MoveMsg):
            return None
        done.append(seq)
        return seq, b"\x00" * 32, game

    table = Table(tmp_path, seed=9, cheater=JOINER, tamper_header=bad_prev)
    table.run()
    assert done
    _refused_without_proof(table, JOINER)


def test_a_frame_from_another_game_is_refused_but_proves_nothing(tmp_path: Path) -> None:
    done: list[int] = []

    def other_game(c: Cheater, m: wire.Message, seq: int, prev: bytes | None, game: bytes | None):
        if done or not isinstance(m, wire.DeckPass):
            return None
        done.append(seq)
        return seq, prev, b"\x11" * 32

    table = Table(tmp_path, seed=10, cheater=HOST, tamper_header=other_game)
    table.run()
    assert done
    _refused_without_proof(table, HOST)


@pytest.mark.slow
def test_copied_frames_in_a_file_prove_nothing_against_their_signer(tmp_path: Path) -> None:
    # A replay file is an unsigned container: whoever holds one can add any
    # frame a player ever signed. Frames of another game, or frames that do
    # not follow their predecessor, must not turn a valid match "invalid".
    first = Table(tmp_path / "a", seed=30)
    first.run()
    second = Table(tmp_path / "b", seed=31)
    second.run()
    first.close()
    second.close()
    contents = read_replay(first.paths[HOST])
    stranger = read_replay(second.paths[HOST]).frames
    forged = tmp_path / "forged.lcnet"
    joe_elsewhere = [
        raw for raw in stranger[5:40] if wire.decode_frame(raw).signed_by(second.keys[JOINER])
    ]
    write_replay(
        forged, ReplayHeader("host", "test", "test"), contents.frames, evidence=joe_elsewhere[:3]
    )
    verdict = audit.audit_file(forged)
    assert verdict.kind is audit.VerdictKind.VALID, verdict.summary


@pytest.mark.slow
def test_a_card_twice_in_the_deck_is_proven_by_the_audit(tmp_path: Path) -> None:
    # The joiner, in pass 2, also puts the card of its own hand position 9 at
    # draw position 16 (another scalar on the same point). The host draws it,
    # later the joiner plays it from position 9: the host sees one card twice.
    # The audit, with the host's seed from its dispute, opens both positions.
    extra = hashing.position_scalar(b"\x07" * 32, 0)

    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        own = c.round.own_deal if c.round is not None else None
        if own is None:
            return None
        assert c.round is not None
        if isinstance(m, wire.DeckPass) and m.n == 2:
            secrets = own._secrets
            points = m.point_list()
            first_pass = c.round.passes[0]
            points[16] = group.mul(
                group.scalar_mul(secrets.global_scalar, extra), first_pass[secrets.permutation[9]]
            )
            return wire.DeckPass(round=m.round, n=2, points=b"".join(points))
        if isinstance(m, wire.Ack) and m.key is not None and own._next_draw - 1 == 16:
            return wire.Ack(key=group.scalar_mul(own._secrets.position_keys[16], extra))
        return None

    for seed in range(40, 80):
        table = Table(
            tmp_path / str(seed), seed=seed, cheater=JOINER, tamper=rewrite, hold=frozenset(Seat)
        )
        table.run()
        if table.host.awaiting_decision:
            break
        table.close()
    host, joiner = table.host, table.joiner
    assert isinstance(joiner, Cheater) and joiner.round is not None
    own = joiner.round.own_deal
    assert own is not None
    twin = own._mine[9]
    view = host.view()
    assert view is not None
    table._record(HOST, host.play(next(t for t in view.legal_turns() if t.draw.from_deck)))
    table.run()
    assert twin in host.view().hand  # type: ignore[union-attr]
    view = joiner.view()
    assert view is not None
    turn = next(t for t in view.legal_turns() if t.put_down.card == twin and t.draw.from_deck)
    table._record(JOINER, joiner.play(turn))
    table.run()
    assert_caught(table, JOINER, "already seen", "one card twice in the deck")


@pytest.mark.slow
def test_two_frames_signed_for_one_position(tmp_path: Path) -> None:
    table = Table(tmp_path, seed=11, cheater=JOINER)

    def acks_from_joiner(t: Table) -> list[int]:
        return [
            i
            for i, (to, raw) in enumerate(t.queue)
            if to is HOST and isinstance(wire.decode_frame(raw).message, wire.Ack)
        ]

    table.run(until=lambda t: bool(acks_from_joiner(t)) and len(t.sent[JOINER]) > 20)
    index = acks_from_joiner(table)[0]
    _, raw = table.queue[index]
    del table.queue[index]
    first = wire.decode_frame(raw)
    table.inject(HOST, first.raw)
    twin = wire.make_frame(
        wire.Ack(key=hashing.position_scalar(b"\x03" * 32, 1)),
        table.keys[JOINER],
        seq=first.seq,
        prev=first.prev,
        game=first.game,
    )
    table.inject(HOST, twin.raw)
    table.run()
    assert_caught(table, JOINER, "equivocation")
    # Two files holding the two frames prove it as well.
    honest = read_replay(table.paths[HOST])
    forged_path = tmp_path / "forged.lcnet"
    assert first.seq is not None
    with ReplayWriter.create(forged_path, ReplayHeader("joiner", "test", "test")) as writer:
        for frame in honest.frames[: first.seq]:
            writer.append_frame(frame)
        writer.append_frame(twin.raw)
    comparison = compare.compare(honest, read_replay(forged_path))
    assert comparison.equivocation is not None
    assert comparison.equivocation.signer is not None
    assert comparison.equivocation.signer.seat is JOINER
    assert comparison.common == first.seq


# ------------------------------------------------------------- the deck


def test_a_deck_pass_with_a_duplicate_point(tmp_path: Path) -> None:
    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        if not isinstance(m, wire.DeckPass) or m.n != 2:
            return None
        points = m.point_list()
        points[5] = points[4]
        return wire.DeckPass(round=m.round, n=m.n, points=b"".join(points))

    table = Table(tmp_path, seed=12, cheater=JOINER, tamper=once(rewrite))
    table.run()
    seq = assert_caught(table, JOINER, "occurs twice")
    assert isinstance(table.host.chain[seq].message, wire.DeckPass)


def test_a_deck_pass_with_a_point_outside_the_group(tmp_path: Path) -> None:
    # A point of small order: on the curve, but not in the prime-order group.
    small_order = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")

    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        if not isinstance(m, wire.DeckPass) or m.n != 1:
            return None
        points = m.point_list()
        points[9] = small_order
        return wire.DeckPass(round=m.round, n=m.n, points=b"".join(points))

    table = Table(tmp_path, seed=13, cheater=HOST, tamper=once(rewrite))
    table.run()
    assert_caught(table, HOST, "not in the prime-order group")


@pytest.mark.slow
def test_a_wrong_drawn_card_key(tmp_path: Path) -> None:
    bogus = hashing.position_scalar(b"\x05" * 32, 0)

    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        if isinstance(m, wire.Ack) and m.key is not None:
            return wire.Ack(key=bogus)
        return None

    table = Table(tmp_path, seed=14, cheater=HOST, tamper=once(rewrite))
    table.run()
    # Only the drawer can open the card; its dispute carries its round seed,
    # with which the audit redoes the opening and proves the key wrong.
    seq = assert_caught(table, HOST, "opens a point that is no card", "opens no card")
    assert isinstance(table.joiner.chain[seq].message, wire.Ack)
    last = table.joiner.chain[-1].message
    assert isinstance(last, wire.Dispute) and last.seed is not None


@pytest.mark.slow
def test_a_bogus_dealing_key(tmp_path: Path) -> None:
    # The joiner deals position 1 of the host's hand with its key for position 0.
    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        if not isinstance(m, wire.DealKeys):
            return None
        keys = m.key_list()
        keys[1] = keys[0]
        return wire.DealKeys(round=m.round, keys=b"".join(keys))

    table = Table(tmp_path, seed=15, cheater=JOINER, tamper=once(rewrite))
    table.run()
    seq = assert_caught(table, JOINER, "opens a point that is no card", "opens no card")
    assert isinstance(table.host.chain[seq].message, wire.DealKeys)


@pytest.mark.slow
def test_a_seed_that_does_not_match_its_commitment(tmp_path: Path) -> None:
    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        if not isinstance(m, wire.Reveal):
            return None
        return wire.Reveal(round=m.round, seed=b"\x42" * 32)

    table = Table(tmp_path, seed=16, cheater=JOINER, tamper=once(rewrite))
    table.run()
    seq = assert_caught(table, JOINER, "does not match its commitment")
    assert isinstance(table.host.chain[seq].message, wire.Reveal)


@pytest.mark.slow
def test_passes_that_the_revealed_seed_does_not_produce(tmp_path: Path) -> None:
    # The host shuffles with a permutation other than its seed's (two cards
    # swapped): the deal works, and the lie shows only when the seed is revealed.
    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        if not isinstance(m, wire.DeckPass) or m.n != 1:
            return None
        assert c.round is not None and c.round.own_deal is not None
        secrets = c.round.own_deal._secrets
        order = list(secrets.permutation)
        order[0], order[1] = order[1], order[0]
        table_points = deal.card_table(5).points
        points = [group.mul(secrets.global_scalar, table_points[j]) for j in order]
        return wire.DeckPass(round=m.round, n=1, points=b"".join(points))

    table = Table(tmp_path, seed=17, cheater=HOST, tamper=once(rewrite))
    table.run()
    seq = assert_caught(table, HOST, "not what the revealed seed produces")
    message = table.joiner.chain[seq].message
    assert isinstance(message, wire.DeckPass) and message.n == 1


# ---------------------------------------------------- undecodable input


@pytest.mark.slow
def test_a_bad_signature_is_dropped_and_changes_nothing(tmp_path: Path) -> None:
    table = Table(tmp_path, seed=18)
    table.run(until=lambda t: len(t.sent[HOST]) >= 6 and any(s is JOINER for s, _ in t.queue))
    raw = table.next_from(HOST)
    broken = raw[:-1] + bytes([raw[-1] ^ 1])
    before = (table.joiner.next_seq, table.joiner.phase, table.joiner.dropped)
    step = table.inject(JOINER, broken)
    assert step.accepted is None and any(isinstance(e, FrameDropped) for e in step.events)
    assert (table.joiner.next_seq, table.joiner.phase) == before[:2]
    assert table.joiner.dropped == before[2] + 1
    table.inject(JOINER, raw)
    table.run()
    assert table.joiner.sealed and table.host.sealed
    # In a file, the same frame makes the audit fail at that position.
    frames = read_replay(table.paths[JOINER]).frames
    index = frames.index(raw)
    verdict = audit.audit_frames([*frames[:index], broken, *frames[index + 1 :]])
    assert verdict.kind is audit.VerdictKind.INVALID
    assert verdict.bad is not None and verdict.bad.seq == index and verdict.bad.signer is None
    assert "signature" in verdict.bad.reason


@pytest.mark.slow
def test_a_frame_signed_by_a_third_key_is_dropped(tmp_path: Path) -> None:
    stranger = nacl.signing.SigningKey(b"\x09" * 32)
    table = Table(tmp_path, seed=19)
    table.run(until=lambda t: len(t.sent[JOINER]) >= 8 and any(s is HOST for s, _ in t.queue))
    raw = table.next_from(JOINER)
    forged = wire.sign_frame(wire.decode_frame(raw).body, stranger)
    step = table.inject(HOST, forged)
    assert step.accepted is None and table.host.dispute is None
    table.inject(HOST, raw)
    table.run()
    assert table.host.sealed
    frames = read_replay(table.paths[HOST]).frames
    index = frames.index(raw)
    verdict = audit.audit_frames([*frames[:index], forged])
    assert verdict.kind is audit.VerdictKind.INVALID and verdict.bad is not None
    assert verdict.bad.seq == index and verdict.bad.signer is None


@pytest.mark.slow
def test_a_replayed_old_frame_is_ignored(tmp_path: Path) -> None:
    table = Table(tmp_path, seed=20)
    table.run(until=lambda t: len(t.sent[HOST]) >= 10)
    old = table.sent[HOST][3]
    before = (table.joiner.next_seq, table.joiner.phase)
    step = table.inject(JOINER, old)
    assert any(isinstance(e, DuplicateIgnored) for e in step.events)
    assert (table.joiner.next_seq, table.joiner.phase) == before
    table.run()
    assert table.joiner.sealed
    frames = read_replay(table.paths[JOINER]).frames
    verdict = audit.audit_frames([*frames[:20], frames[5], *frames[20:]])
    assert verdict.kind is audit.VerdictKind.INVALID
    assert verdict.bad is not None and verdict.bad.seq == 20
    assert "copy of frame 5" in verdict.bad.reason


@pytest.mark.slow
@pytest.mark.parametrize(
    "garbage",
    [
        b"",
        b"\xff" * 10,
        os.urandom(300),
        b"\x00" * (wire.MAX_FRAME_BYTES + 1),
        msgpack.packb([b"x" * 5000, b"y" * 64], use_bin_type=True),
        msgpack.packb({"t": "move"}, use_bin_type=True),
    ],
)
def test_garbage_and_oversized_frames_are_dropped(tmp_path: Path, garbage: bytes) -> None:
    table = Table(tmp_path, seed=21)
    table.run(until=lambda t: len(t.sent[HOST]) >= 4)
    before = (table.joiner.next_seq, table.joiner.phase, table.joiner.dropped)
    step = table.inject(JOINER, garbage)
    assert step.accepted is None and step.outgoing == []
    assert (table.joiner.next_seq, table.joiner.phase) == before[:2]
    assert table.joiner.dropped == before[2] + 1
    table.run()
    assert table.joiner.sealed


@pytest.mark.slow
def test_an_honest_match_audits_valid_from_both_files(tmp_path: Path) -> None:
    table = Table(tmp_path, seed=22, rounds=2, suits=6)
    table.run()
    assert table.host.sealed and table.joiner.sealed
    host_verdict = table.audit(HOST)
    joiner_verdict = audit.audit_file(table.paths[JOINER])
    assert host_verdict.kind is joiner_verdict.kind is audit.VerdictKind.VALID
    assert host_verdict.totals == list(table.host.match.totals)  # type: ignore[union-attr]
    comparison = compare.compare(read_replay(table.paths[HOST]), read_replay(table.paths[JOINER]))
    assert comparison.equivocation is None and comparison.common == len(table.host.chain)


# ------------------------------------------- deferred checks in the audit


def _cut_before_the_dispute(table: Table, honest: Seat) -> list[bytes]:
    table.close()
    frames = read_replay(table.paths[honest]).frames
    assert isinstance(wire.decode_frame(frames[-1]).message, wire.Dispute)
    return frames[:-1]


def test_an_audit_without_the_reveal_still_checks_every_pass_point(tmp_path: Path) -> None:
    # The audit proves pass points valid from the revealed seeds; when the file
    # ends before any reveal (and before the dispute), it checks them one by one.
    small_order = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")

    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        if not isinstance(m, wire.DeckPass) or m.n != 3:
            return None
        points = m.point_list()
        points[20] = small_order
        return wire.DeckPass(round=m.round, n=m.n, points=b"".join(points))

    table = Table(tmp_path, seed=23, cheater=HOST, tamper=once(rewrite))
    table.run()
    frames = _cut_before_the_dispute(table, JOINER)
    verdict = audit.audit_frames(frames)
    assert verdict.kind is audit.VerdictKind.INVALID
    assert verdict.bad is not None and verdict.bad.signer is not None
    assert verdict.bad.signer.seat is HOST and verdict.bad.seq == len(frames) - 1
    assert "not in the prime-order group" in verdict.bad.reason


def test_an_audit_without_the_reveal_still_opens_every_card_played(tmp_path: Path) -> None:
    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        if not isinstance(m, wire.MoveMsg) or m.pos is None:
            return None
        return wire.MoveMsg(card=unseen_card(c).id, discard=True, draw=m.draw, pos=m.pos, key=m.key)

    table = Table(tmp_path, seed=24, cheater=JOINER, tamper=once(rewrite))
    table.run()
    frames = _cut_before_the_dispute(table, HOST)
    verdict = audit.audit_frames(frames)
    assert verdict.kind is audit.VerdictKind.INVALID
    assert verdict.bad is not None and verdict.bad.signer is not None
    assert verdict.bad.signer.seat is JOINER and verdict.bad.seq == len(frames) - 1
    assert isinstance(wire.decode_frame(frames[-1]).message, wire.MoveMsg)

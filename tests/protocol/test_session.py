"""The protocol session: whole matches through two real sessions, views, resume."""

from __future__ import annotations

import functools
import random
from pathlib import Path

import nacl.signing
import pytest

from lcnet.audit import verdict as audit
from lcnet.bots.uniform import RandomBot
from lcnet.errors import LocalProtocolError
from lcnet.game.cards import ALL_CARDS
from lcnet.game.engine import Draw, IllegalMoveError, IllegalReason, PutDown, Round, Turn, View
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.events import (
    MatchEnded,
    MatchOptions,
    MatchStarted,
    RoundStarted,
    RoundVerified,
    TurnPlayed,
)
from lcnet.protocol.phases import Phase
from lcnet.protocol.session import Session
from lcnet.protocol.transitions import turn_of
from lcnet.run import localmatch
from tests.cheaters import Table

HOST, JOINER = Seat.HOST, Seat.JOINER


def local_match(seed: int, *, suits: int = 5, rounds: int = 3) -> dict[Seat, localmatch.Peer]:
    rng = random.Random(seed)
    bots = {s: RandomBot(random.Random(rng.getrandbits(32))) for s in Seat}
    peers = localmatch.new_peers(
        {s: bots[s].choose_turn for s in Seat},
        options=MatchOptions(suits=suits, rounds=rounds),
        rng=rng,
    )
    localmatch.run(peers)
    return peers


@pytest.mark.slow
@pytest.mark.parametrize("suits", [5, 6])
def test_a_whole_match_ends_sealed_with_one_transcript(suits: int) -> None:
    peers = local_match(1, suits=suits, rounds=3)
    host, joiner = peers[HOST].session, peers[JOINER].session
    assert host.sealed and joiner.sealed
    assert [f.raw for f in host.chain] == [f.raw for f in joiner.chain]
    assert host.outcome == joiner.outcome
    assert host.match is not None and len(host.match.round_scores) == 3
    assert len(host.rounds_verified) == 3
    kinds = [type(e) for e in peers[HOST].events]
    assert kinds.count(MatchStarted) == 1
    assert kinds.count(RoundStarted) == kinds.count(RoundVerified) == 3
    assert kinds[-1] is MatchEnded


@pytest.mark.slow
def test_the_first_starter_is_the_coin_and_later_rounds_follow_the_rules() -> None:
    peers = local_match(2, rounds=3)
    host = peers[HOST].session
    assert host.match is not None and host.first_starter is not None
    assert host.match.starters[0] == int(host.first_starter)
    totals = (0, 0)
    for number, scores in enumerate(host.match.round_scores[:-1], start=1):
        totals = (totals[0] + scores[0], totals[1] + scores[1])
        starter = host.match.starters[number]
        if totals[0] != totals[1]:
            assert starter == (0 if totals[0] > totals[1] else 1)
        else:
            assert starter == 1 - host.match.starters[number - 1]


class _FirstDecision(Exception):
    """Raised by a player asked for its first turn: the opening is over."""


def _first_starter(seed: int) -> Seat | None:
    """Who the coin names in a match of ``seed``, found by playing only the opening."""

    def stop(view: View) -> Turn:
        raise _FirstDecision

    peers = localmatch.new_peers(
        {s: stop for s in Seat}, options=MatchOptions(rounds=1), rng=random.Random(seed)
    )
    with pytest.raises(_FirstDecision):
        localmatch.run(peers)
    assert peers[HOST].session.first_starter == peers[JOINER].session.first_starter
    return peers[HOST].session.first_starter


@pytest.mark.slow
def test_coins_fall_both_ways() -> None:
    assert {_first_starter(seed) for seed in range(8)} == {HOST, JOINER}


@pytest.mark.slow
def test_every_view_equals_the_full_information_view() -> None:
    """What a session shows a player is exactly what the engine shows that seat
    when it knows every card: nothing hidden leaks, nothing known is missing."""
    rng = random.Random(3)
    bots = {s: RandomBot(random.Random(int(s))) for s in Seat}
    seen: list[tuple[Seat, int, int, View]] = []

    def decider(seat: Seat) -> localmatch.Decide:
        def decide(view: View) -> Turn:
            track = peers[seat].session.round
            assert track is not None
            seen.append((seat, track.number, len(track.turns), view))
            return bots[seat].choose_turn(view)

        return decide

    peers = localmatch.new_peers(
        {s: decider(s) for s in Seat}, options=MatchOptions(rounds=2, suits=6), rng=rng
    )
    localmatch.run(peers)
    host = peers[HOST].session
    assert host.match is not None
    turns: dict[int, list[TurnPlayed]] = {}
    for event in peers[HOST].events:
        if isinstance(event, TurnPlayed):
            turns.setdefault(event.round, []).append(event)
    assert len(seen) == sum(len(t) for t in turns.values())
    for seat, number, played, view in seen:
        deck = host.rounds_verified[number - 1]
        full = Round.deal(deck.order, host.match.starters[number - 1])
        for event in turns[number][:played]:
            full.push_turn(event.turn, int(event.seat))
        assert view == full.view(int(seat))


@pytest.mark.slow
def test_a_resignation_ends_the_match_for_the_other_player() -> None:
    table_peers = local_match(4, rounds=1)
    del table_peers  # a normal match first, to be sure nothing leaks between sessions
    rng = random.Random(5)
    peers = localmatch.new_peers(
        {s: RandomBot(random.Random(s)).choose_turn for s in Seat},
        options=MatchOptions(rounds=3),
        rng=rng,
    )
    # Run the opening by hand until someone has a move to make, then resign.
    queue = list(peers[JOINER].session.start().outgoing)
    to = HOST
    while not (peers[HOST].session.awaiting_decision or peers[JOINER].session.awaiting_decision):
        frame = queue.pop(0)
        step = peers[to].session.receive(frame.raw)
        queue.extend(step.outgoing)
        to = to.other if step.outgoing else to
    mover = HOST if peers[HOST].session.awaiting_decision else JOINER
    step = peers[mover].session.resign()
    peers[mover.other].session.receive(step.outgoing[0].raw)
    for seat in Seat:
        session = peers[seat].session
        assert session.is_over and session.resigned is mover
        assert session.outcome is not None and session.outcome.winner == int(mover.other)
    verdict = audit.audit_frames([f.raw for f in peers[mover].session.chain])
    assert verdict.kind is audit.VerdictKind.VALID and verdict.resigned is not None


@pytest.mark.slow
def test_playing_out_of_turn_or_illegally_is_refused_locally() -> None:
    peers = local_match(6, rounds=1)
    session = peers[HOST].session
    with pytest.raises(LocalProtocolError):
        session.play(Turn.parse("+r7 deck"))
    with pytest.raises(LocalProtocolError):
        session.resign()


# ------------------------------------------------------------------ resume


def _replay_tail(session: Session, transcript: list[bytes], start: int, seat: Seat) -> None:
    """Continue a resumed session with the rest of an honest transcript and
    check that it sends exactly the frames it sent the first time."""
    expected_own: list[bytes] = []
    index = start
    while index < len(transcript):
        frame = wire.decode_frame(transcript[index])
        author_is_me = False
        try:
            frame.verify(session.keys[seat])
            author_is_me = True
        except wire.BadSignature:
            pass
        if author_is_me:
            if expected_own:
                assert expected_own.pop(0) == transcript[index]
            else:
                assert isinstance(frame.message, wire.MoveMsg) and session.awaiting_decision
                step = session.play(turn_of(frame.message))
                assert step.outgoing[0].raw == transcript[index]
                expected_own.extend(f.raw for f in step.outgoing[1:])
        else:
            step = session.receive(transcript[index])
            assert step.accepted is not None, step.events
            expected_own.extend(f.raw for f in step.outgoing)
        index += 1
    assert not expected_own and session.sealed


@functools.cache
def _honest_two_rounds() -> dict[Seat, localmatch.Peer]:
    """One honest two-round match, played once per test process and only read:
    every resume test cuts the same transcript at its own point."""
    return local_match(random.Random(7).getrandbits(32), rounds=2)


@pytest.mark.slow
@pytest.mark.parametrize("seat", [HOST, JOINER])
@pytest.mark.parametrize("cut_fraction", [0.0, 0.01, 0.02, 0.03, 0.3, 0.6, 0.97, 0.995, 1.0])
def test_resume_from_any_point_of_the_log_continues_identically(
    seat: Seat, cut_fraction: float
) -> None:
    peers = _honest_two_rounds()
    transcript = [f.raw for f in peers[seat].session.chain]
    cut = int(len(transcript) * cut_fraction)
    original = peers[seat].session
    assert original._signing_key is not None and original._own.master_secret is not None
    resumed, step = Session.resume(
        seat,
        original._signing_key,
        original._own.master_secret,
        transcript[:cut],
        name=original.names[seat],
        options=original.options if seat is HOST else None,
    )
    # Whatever was due from this peer at the cut is rebuilt byte for byte.
    due = [f.raw for f in step.outgoing]
    assert due == transcript[cut : cut + len(due)]
    _replay_tail(resumed, transcript, cut + len(due), seat)


@pytest.mark.slow
def test_resume_refuses_a_log_whose_own_frame_was_altered() -> None:
    peers = local_match(8, rounds=1)
    host = peers[HOST].session
    transcript = [f.raw for f in host.chain]
    own_index = next(
        i
        for i, raw in enumerate(transcript)
        if isinstance(wire.decode_frame(raw).message, wire.DeckPass)
    )
    frame = wire.decode_frame(transcript[own_index])
    assert isinstance(frame.message, wire.DeckPass)
    points = frame.message.point_list()
    points[0], points[1] = points[1], points[0]
    assert host._signing_key is not None and host._own.master_secret is not None
    forged = wire.make_frame(
        wire.DeckPass(round=1, n=frame.message.n, points=b"".join(points)),
        host._signing_key,
        seq=frame.seq,
        prev=frame.prev,
        game=frame.game,
    )
    with pytest.raises(LocalProtocolError, match="not what this peer would send"):
        Session.resume(
            HOST,
            host._signing_key,
            host._own.master_secret,
            [*transcript[:own_index], forged.raw],
            name="host",
            options=host.options,
        )


def test_an_illegal_turn_of_ones_own_is_refused_with_the_reason_and_changes_nothing(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path, seed=9, hold=frozenset({JOINER}))
    table.run()
    joiner = table.joiner
    assert joiner.awaiting_decision
    view = joiner.view()
    assert view is not None
    held = {c.id for c in view.hand}
    missing = next(c for c in ALL_CARDS[:60] if c.id not in held)
    chain, head = len(joiner.chain), joiner.head
    with pytest.raises(IllegalMoveError) as caught:
        joiner.play(Turn(PutDown(missing, discard=True), Draw(None)))
    assert caught.value.reason is IllegalReason.CARD_NOT_IN_HAND
    assert (len(joiner.chain), joiner.head) == (chain, head)
    assert joiner.awaiting_decision
    table.play(JOINER)  # a legal turn still goes through
    assert len(joiner.chain) == chain + 1


@pytest.mark.slow
def test_the_session_tells_who_owes_the_next_frame(tmp_path: Path) -> None:
    table = Table(tmp_path, seed=9, hold=frozenset({JOINER}))
    table.run()
    joiner = table.joiner
    assert joiner.awaiting_decision and joiner.phase is Phase.MOVE
    assert "the joiner (Joe) owes a move" in joiner.owed()
    assert table.host.speaker is JOINER
    while not table.host.is_over:  # the joiner's moves are made by hand
        table.play(JOINER)
        table.run()
    assert table.host.sealed
    assert table.host.owed().startswith("nothing")
    events = [e for step in table.steps[HOST] for e in step.events]
    assert any(isinstance(e, TurnPlayed) and e.seat is JOINER for e in events)


def test_what_a_side_may_send_again_is_only_what_it_signed_and_its_sync_says_all() -> None:
    """The adapter resends frames and syncs through these queries alone: a side
    resends only its own frames, and its sync names every frame it holds."""
    peers = local_match(3, rounds=1)
    for seat in Seat:
        session = peers[seat].session
        own = bytes(session.signing_key.verify_key)
        signed = [f.seq for f in session.chain if f.signed_by(own)]
        assert signed and len(signed) < session.next_seq
        assert [seq for seq in range(-1, session.next_seq + 1) if session.own_frame(seq)] == signed
        last = session.last_own_frame()
        assert last is not None and last.seq == signed[-1]
        sync = session.sync()
        assert sync is not None and isinstance(sync.message, wire.Sync)
        assert sync.message.have == session.next_seq and sync.message.head == session.head
        assert session.opponent_known and not session.our_turn  # the match is over


def test_a_joiner_before_its_hello_has_no_sync_no_own_frame_and_no_opponent() -> None:
    session = Session.joiner(nacl.signing.SigningKey(bytes([4]) * 32), bytes(32), name="Ben")
    assert session.sync() is None and session.last_own_frame() is None
    assert session.own_frame(0) is None and not session.opponent_known
    assert session.our_turn  # the hello is the joiner's to send

"""What each frame of a match's transcript does: the state table's handlers.

One function per kind of frame (:data:`TABLE` holds them by phase). Each takes
the transcript it applies to (as a :class:`~lcnet.protocol.phases.TranscriptState`:
the fields a handler may touch, no more), the frame, its
author and the step being built; it checks the frame against everything the
transcript knows (raising :class:`Violation` naming the author) and then
changes the transcript. Player and observer run the same functions: where
they differ (whose cards are known, which deck checks apply) they ask the
transcript (:meth:`~lcnet.protocol.transcript.Transcript.is_own`,
:meth:`~lcnet.protocol.transcript.Transcript.new_round`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from lcnet.deck import deal, group, hashing
from lcnet.deck.deckcheck import RoundTrack
from lcnet.deck.rounddeal import RoundDeal
from lcnet.errors import IllegalMoveError, RemoteProtocolError, Violation
from lcnet.game.cards import ALL_CARDS, Card, deck_size
from lcnet.game.engine import DRAWS, PUT_DOWNS, Match, Round, Turn
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.events import (
    MatchEnded,
    MatchOptions,
    MatchStarted,
    PeerIdentified,
    RoundStarted,
    RoundVerified,
    Step,
    TurnPlayed,
)
from lcnet.protocol.phases import OwnSide, Phase, TranscriptState, Transition


def on_hello(t: TranscriptState, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
    m = frame.message
    assert isinstance(m, wire.Hello)
    _check_version(t, m.v, author, frame.seq)
    if m.key == t.keys.get(Seat.HOST):
        # Two players, two keys (PROTOCOL §5.4): a host never plays itt.
        raise Violation("the joiner uses the host's own key", seat=author, seq=frame.seq)
    _learn_peer(t, author, m.name, m.key, step)
    if m.bot:
        t.bots.add(author)
    t.coin_commitment = m.coin
    t.game_id = hashing.game_id(frame.raw)
    return None


def on_welcome(t: TranscriptState, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
    m = frame.message
    assert isinstance(m, wire.Welcome)
    _check_version(t, m.v, author, frame.seq)
    if m.key == t.keys.get(Seat.JOINER):
        raise Violation("the host uses the joiner's own key", seat=author, seq=frame.seq)
    _learn_peer(t, author, m.name, m.key, step)
    if m.bot:
        t.bots.add(author)
    t.options = MatchOptions(suits=m.suits, rounds=m.rounds)
    t.host_nonce = m.coin
    return None


def on_coin(t: TranscriptState, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
    m = frame.message
    assert isinstance(m, wire.Coin)
    assert t.game_id and t.coin_commitment and t.host_nonce and t.options
    try:
        first = deal.coin_first_player(
            game_id=t.game_id,
            joiner_commitment=t.coin_commitment,
            joiner_nonce=m.nonce,
            host_nonce=t.host_nonce,
        )
    except RemoteProtocolError as exc:
        raise Violation(str(exc), seat=author, seq=frame.seq) from None
    t.first_starter = first
    t.match = Match(rounds=t.options.rounds, suit_count=t.options.suits, first_starter=int(first))
    step.events.append(MatchStarted(t.options, first))
    _start_round(t)
    return None


def _start_round(t: TranscriptState) -> None:
    assert t.match is not None
    number = t.match.rounds_played + 1
    t.round = t.new_round(number, Seat(t.match.start_round()))


def on_commit(t: TranscriptState, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
    m = frame.message
    assert isinstance(m, wire.Commit)
    track = _track_round(t, m.round, author, frame.seq)
    track.commitments[author] = m.commit
    track.deck.commitment(author, m.commit)
    return None


def on_pass(t: TranscriptState, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
    m = frame.message
    assert isinstance(m, wire.DeckPass)
    track = _track_round(t, m.round, author, frame.seq)
    number = TABLE[t.phase].pass_number
    assert number is not None
    if m.n != number:
        raise Violation(f"pass {m.n} where pass {number} was due", seat=author, seq=frame.seq)
    points = tuple(m.point_list())
    track.deck.deck_pass(author, number, points)
    track.passes.append(points)
    if frame.seq is not None:
        track.pass_seqs[number] = frame.seq
    return None


def on_keys(t: TranscriptState, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
    m = frame.message
    assert isinstance(m, wire.DealKeys)
    track = _track_round(t, m.round, author, frame.seq)
    receiver = author.other
    keys = m.key_list()
    for position, key in zip(deal.hand_positions(receiver), keys, strict=True):
        _check_key(key, f"dealing key for position {position}", author, frame.seq)
    for position, key in zip(deal.hand_positions(receiver), keys, strict=True):
        track.keys_given[author][position] = key
        track.hidden[receiver].add(position)
        if frame.seq is not None:
            track.key_seqs[(author, position)] = frame.seq
    track.deck.dealing_keys(author, keys)
    if t.phase is Phase.KEYS_HOST:
        _deal_table(t, track, step)
    return None


def _deal_table(t: TranscriptState, track: RoundTrack, step: Step) -> None:
    """Set up the round's table: known cards where they are, placeholders elsewhere."""
    size = _deck_size(t)
    mine = track.deck.hand
    known = set(mine)
    fillers = iter(c for c in ALL_CARDS[:size] if c not in known)
    hands = {
        seat: list(mine) if t.is_own(seat) else [next(fillers) for _ in range(deal.HAND_SIZE)]
        for seat in Seat
    }
    order = [*hands[Seat.HOST], *hands[Seat.JOINER], *fillers]
    track.table = Round.deal(order, int(track.starter))
    step.events.append(RoundStarted(track.number, track.starter, tuple(sorted(mine))))


def on_move(t: TranscriptState, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
    m = frame.message
    assert isinstance(m, wire.MoveMsg)
    track = t.round
    assert track is not None and track.table is not None
    seq = frame.seq
    if m.card >= _deck_size(t):
        raise Violation(f"card id {m.card} is not in this game", seat=author, seq=seq)
    if m.draw >= _suit_count(t):
        raise Violation(f"there is no discard pile {m.draw} in this game", seat=author, seq=seq)
    card = Card.from_id(m.card)
    turn = turn_of(m)
    table = track.table
    if m.pos is not None:
        assert m.key is not None
        _check_key(m.key, f"key for position {m.pos}", author, seq)
        if not t.is_own(author):
            track.deck.hidden_play(author, card, m.pos, m.key, seq)
            if card not in table.hand(int(author)):
                placeholder = next(
                    c for c in table.hand(int(author)) if not table.holds_public(int(author), c)
                )
                table.exchange(card, placeholder)
        track.hidden[author].discard(m.pos)
        track.seen.add(card)
        track.plays[m.pos] = (author, card)
        if seq is not None:
            track.key_seqs[(author, m.pos)] = seq
    elif not table.holds_public(int(author), card):
        raise Violation(
            f"{card} is played as a public card, but the {author} took no such card "
            "from a discard pile",
            seat=author,
            seq=seq,
        )
    try:
        table.push(turn.put_down, int(author))
        table.check(turn.draw, int(author))
    except IllegalMoveError as exc:
        raise Violation(str(exc), seat=author, seq=seq) from None
    track.pending = (author, turn)
    return None


def on_ack(t: TranscriptState, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
    m = frame.message
    assert isinstance(m, wire.Ack)
    track = t.round
    assert track is not None and track.table is not None and track.pending is not None
    mover, turn = track.pending
    table = track.table
    drawn: Card | None = None
    if turn.draw.from_deck:
        if m.key is None:
            raise Violation(
                "the acknowledgement of a deck draw has no key", seat=author, seq=frame.seq
            )
        position = track.next_draw
        _check_key(m.key, f"key for position {position}", author, frame.seq)
        track.next_draw += 1
        track.keys_given[author][position] = m.key
        track.hidden[mover].add(position)
        if frame.seq is not None:
            track.key_seqs[(author, position)] = frame.seq
        placeholder = table.draw_pile()[0]
        table.push(turn.draw, int(mover))
        drawn = track.deck.draw_key(author, position, m.key)
        if drawn is not None:
            table.exchange(drawn, placeholder)
            track.seen.add(drawn)
    else:
        if m.key is not None:
            raise Violation(
                "the acknowledgement of a pile draw carries a key", seat=author, seq=frame.seq
            )
        assert turn.draw.suit is not None
        drawn = table.discard_pile(turn.draw.suit)[-1]
        table.push(turn.draw, int(mover))
    track.turns.append((mover, turn))
    track.pending = None
    step.events.append(TurnPlayed(track.number, mover, turn, drawn))
    return Phase.REVEAL_HOST if table.is_over else Phase.MOVE


def on_reveal(t: TranscriptState, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
    m = frame.message
    assert isinstance(m, wire.Reveal)
    track = _track_round(t, m.round, author, frame.seq)
    track.seeds[author] = m.seed
    track.deck.reveal(author, m.seed)
    if t.phase is Phase.REVEAL_HOST:
        return None
    verified = _verify_round(t, track, author, frame.seq)
    t.rounds_verified.append(verified)
    assert t.match is not None and track.table is not None
    scores = track.table.scores()
    t.match.record_round(scores)
    step.events.append(RoundVerified(track.number, scores, verified))
    if t.match.is_over:
        return Phase.RESULT_HOST
    _start_round(t)
    return Phase.COMMIT_HOST


def _verify_round(
    t: TranscriptState, track: RoundTrack, author: Seat, seq: int | None
) -> deal.RoundDeck:
    """With both seeds known, check the whole round with full information."""
    verified = track.deck.verified_deck()
    full = Round.deal(verified.order, int(track.starter))
    for mover, turn in track.turns:
        try:
            full.push_turn(turn, int(mover))
        except IllegalMoveError as exc:
            raise Violation(
                f"with every card known, round {track.number} shows an illegal move: {exc}",
                seat=mover,
                seq=seq,
            ) from None
    assert track.table is not None
    if not full.is_over or full.scores() != track.table.scores():
        raise Violation(
            f"round {track.number} does not replay to the same end with every card known",
            seat=author,
            seq=seq,
        )
    return verified


def on_result(t: TranscriptState, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
    m = frame.message
    assert isinstance(m, wire.Result)
    assert t.match is not None
    expected_scores = [list(s) for s in t.match.round_scores]
    if m.scores != expected_scores or m.totals != list(t.match.totals):
        raise Violation(
            f"the result {m.scores} (totals {m.totals}) is not the verified "
            f"{expected_scores} (totals {list(t.match.totals)})",
            seat=author,
            seq=frame.seq,
        )
    if t.phase is Phase.RESULT_HOST:
        return None
    t.sealed = True
    t.outcome = t.match.outcome()
    step.events.append(MatchEnded(t.outcome, tuple(t.match.round_scores), None, sealed=True))
    return None


def _track_round(t: TranscriptState, number: int, author: Seat, seq: int | None) -> RoundTrack:
    track = t.round
    assert track is not None
    if number != track.number:
        raise Violation(f"round {number} where round {track.number} is on", seat=author, seq=seq)
    return track


def _check_version(t: TranscriptState, version: list[int], author: Seat, seq: int | None) -> None:
    if version[0] != wire.PROTOCOL_VERSION[0]:
        raise Violation(
            f"protocol version {version[0]}.{version[1]} (this lcnet speaks "
            f"{wire.PROTOCOL_VERSION[0]}.{wire.PROTOCOL_VERSION[1]})",
            seat=author,
            seq=seq,
        )
    t.minors[author] = version[1]


def _learn_peer(t: TranscriptState, seat: Seat, name: str, key: bytes, step: Step) -> None:
    t.keys[seat] = key
    t.names[seat] = name
    if not t.is_own(seat):
        step.events.append(PeerIdentified(seat, name, key))


def _suit_count(t: TranscriptState) -> int:
    assert t.options is not None
    return t.options.suits


def _deck_size(t: TranscriptState) -> int:
    return deck_size(_suit_count(t))


# ------------------------------------------------------------------ what a player builds


def build_hello(t: TranscriptState, own: OwnSide) -> wire.Message:
    nonce = hashing.coin_nonce(own.master_secret)
    return wire.Hello(
        v=wire.version_for(bot=own.bot),
        name=own.name,
        key=own.key,
        coin=hashing.coin_commitment(nonce),
        bot=True if own.bot else None,
    )


def build_welcome(t: TranscriptState, own: OwnSide) -> wire.Message:
    assert own.options is not None  # a host's
    return wire.Welcome(
        v=wire.version_for(bot=own.bot),
        name=own.name,
        key=own.key,
        suits=own.options.suits,
        rounds=own.options.rounds,
        coin=hashing.coin_nonce(own.master_secret),
        bot=True if own.bot else None,
    )


def build_coin(t: TranscriptState, own: OwnSide) -> wire.Message:
    return wire.Coin(nonce=hashing.coin_nonce(own.master_secret))


def build_commit(t: TranscriptState, own: OwnSide) -> wire.Message:
    track, mine = _own_deal(t)
    return wire.Commit(round=track.number, commit=mine.commitment)


def build_pass(t: TranscriptState, own: OwnSide) -> wire.Message:
    track, mine = _own_deal(t)
    made = mine.make_pass()
    return wire.DeckPass(round=track.number, n=made.number, points=b"".join(made.points))


def build_keys(t: TranscriptState, own: OwnSide) -> wire.Message:
    track, mine = _own_deal(t)
    return wire.DealKeys(round=track.number, keys=b"".join(mine.dealing_keys()))


def build_ack(t: TranscriptState, own: OwnSide) -> wire.Message:
    track, mine = _own_deal(t)
    assert track.pending is not None
    return wire.Ack(key=mine.give_draw().key) if track.pending[1].draw.from_deck else wire.Ack()


def build_reveal(t: TranscriptState, own: OwnSide) -> wire.Message:
    track, mine = _own_deal(t)
    return wire.Reveal(round=track.number, seed=mine.reveal_seed())


def build_result(t: TranscriptState, own: OwnSide) -> wire.Message:
    assert t.match is not None
    return wire.Result(scores=[list(s) for s in t.match.round_scores], totals=list(t.match.totals))


def _own_deal(t: TranscriptState) -> tuple[RoundTrack, RoundDeal]:
    track = t.round
    assert track is not None and track.own_deal is not None  # a player's round
    return track, track.own_deal


# ------------------------------------------------------------------ the table

_T = Transition
TABLE: Final[Mapping[Phase, Transition]] = MappingProxyType(
    {
        Phase.HELLO: _T(Seat.JOINER, wire.Hello, on_hello, (Phase.WELCOME,), build_hello),
        Phase.WELCOME: _T(Seat.HOST, wire.Welcome, on_welcome, (Phase.COIN,), build_welcome),
        Phase.COIN: _T(Seat.JOINER, wire.Coin, on_coin, (Phase.COMMIT_HOST,), build_coin),
        Phase.COMMIT_HOST: _T(
            Seat.HOST, wire.Commit, on_commit, (Phase.COMMIT_JOINER,), build_commit
        ),
        Phase.COMMIT_JOINER: _T(Seat.JOINER, wire.Commit, on_commit, (Phase.PASS_1,), build_commit),
        Phase.PASS_1: _T(Seat.HOST, wire.DeckPass, on_pass, (Phase.PASS_2,), build_pass, 1),
        Phase.PASS_2: _T(Seat.JOINER, wire.DeckPass, on_pass, (Phase.PASS_3,), build_pass, 2),
        Phase.PASS_3: _T(Seat.HOST, wire.DeckPass, on_pass, (Phase.PASS_4,), build_pass, 3),
        Phase.PASS_4: _T(Seat.JOINER, wire.DeckPass, on_pass, (Phase.KEYS_JOINER,), build_pass, 4),
        Phase.KEYS_JOINER: _T(Seat.JOINER, wire.DealKeys, on_keys, (Phase.KEYS_HOST,), build_keys),
        Phase.KEYS_HOST: _T(Seat.HOST, wire.DealKeys, on_keys, (Phase.MOVE,), build_keys),
        Phase.MOVE: _T(None, wire.MoveMsg, on_move, (Phase.ACK,), None),  # the player decides
        Phase.ACK: _T(None, wire.Ack, on_ack, (Phase.MOVE, Phase.REVEAL_HOST), build_ack),
        Phase.REVEAL_HOST: _T(
            Seat.HOST, wire.Reveal, on_reveal, (Phase.REVEAL_JOINER,), build_reveal
        ),
        Phase.REVEAL_JOINER: _T(
            Seat.JOINER,
            wire.Reveal,
            on_reveal,
            (Phase.COMMIT_HOST, Phase.RESULT_HOST),
            build_reveal,
        ),
        Phase.RESULT_HOST: _T(
            Seat.HOST, wire.Result, on_result, (Phase.RESULT_JOINER,), build_result
        ),
        Phase.RESULT_JOINER: _T(Seat.JOINER, wire.Result, on_result, (Phase.OVER,), build_result),
        Phase.OVER: _T(None, None, None, (), None),
    }
)
"""The state machine as data (docs/PROTOCOL.md §6.1, which a test compares with it),
with what a player builds where it speaks and has no choice to make.

In every phase but HELLO, WELCOME and OVER the speaker may send ``resign``
instead, and either player ``dispute`` (both end the match: OVER)."""


def turn_of(m: wire.MoveMsg) -> Turn:
    # The engine's interned moves: index 0 of DRAWS is the draw pile (-1 on the wire).
    return Turn(PUT_DOWNS[m.card * 2 + m.discard], DRAWS[m.draw + 1])


def _check_key(key: bytes, item: str, author: Seat, seq: int | None) -> None:
    """Every key a frame carries must be a scalar in 1 … L−1 (PROTOCOL §1.4, §3.6).

    Anyone can check that, an auditor included, so a key out of range is a
    violation by the frame's signer at that very frame, whoever opens it.
    """
    if not group.is_scalar(key):
        raise Violation(f"{item}: {deal.DeckFault.INVALID_KEY.value}", seat=author, seq=seq)

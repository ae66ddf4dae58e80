"""Specification tests for lcnet.deck.deal: two honest sides wired together in memory.

Cheats and faults are in test_deal_cheats.py, the statistics of the shuffle
in test_deal_uniformity.py; the helpers here are shared with them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from lcnet.deck import group, hashing
from lcnet.deck.deal import (
    FIRST_DRAW_POSITION,
    HAND_SIZE,
    DeckFault,
    DeckProtocolError,
    DeckSecrets,
    RevealedKey,
    RoundDeck,
    Seat,
    audit_round,
    card_table,
    check_pass,
    coin_first_player,
    hand_positions,
    open_with_keys,
    pass_author,
    rebuild_round,
)
from lcnet.deck.rounddeal import RoundDeal
from lcnet.errors import LocalProtocolError, RemoteProtocolError
from lcnet.game.cards import ALL_CARDS, Card, deck_size, format_cards

GAME_ID = hashing.game_id(b"lcnet test vector frame")
MASTER_HOST = bytes(range(0, 32))
MASTER_JOINER = bytes(range(32, 64))


# --- helpers shared with the other deal tests -------------------------------


@dataclass
class Transcript:
    """What went over the wire in a round, as an auditor would read it."""

    commitments: list[bytes] = field(default_factory=list)
    passes: list[tuple[bytes, ...]] = field(default_factory=list)
    keys: list[RevealedKey] = field(default_factory=list)


def make_sides(suit_count: int = 5, round_number: int = 1) -> tuple[RoundDeal, RoundDeal]:
    host = RoundDeal.from_master(
        seat=Seat.HOST,
        suit_count=suit_count,
        game_id=GAME_ID,
        round_number=round_number,
        master_secret=MASTER_HOST,
    )
    joiner = RoundDeal.from_master(
        seat=Seat.JOINER,
        suit_count=suit_count,
        game_id=GAME_ID,
        round_number=round_number,
        master_secret=MASTER_JOINER,
    )
    return host, joiner


def exchange_commitments(host: RoundDeal, joiner: RoundDeal) -> None:
    host.receive_commitment(joiner.commitment)
    joiner.receive_commitment(host.commitment)


def run_passes(host: RoundDeal, joiner: RoundDeal, transcript: Transcript | None = None) -> None:
    """The four passes, each sent by its author and received by the other side."""
    sides = {Seat.HOST: host, Seat.JOINER: joiner}
    for number in range(1, 5):
        author = sides[pass_author(number)]
        deck_pass = author.make_pass()
        assert deck_pass.number == number
        sides[pass_author(number).other].receive_pass(number, deck_pass.points)
        if transcript is not None:
            transcript.passes.append(deck_pass.points)


def deal_hands(host: RoundDeal, joiner: RoundDeal, transcript: Transcript | None = None) -> None:
    from_joiner = joiner.dealing_keys()
    from_host = host.dealing_keys()
    host.open_hand(from_joiner)
    joiner.open_hand(from_host)
    if transcript is not None:
        transcript.keys += [
            RevealedKey(Seat.JOINER, p, k)
            for p, k in zip(hand_positions(Seat.HOST), from_joiner, strict=True)
        ]
        transcript.keys += [
            RevealedKey(Seat.HOST, p, k)
            for p, k in zip(hand_positions(Seat.JOINER), from_host, strict=True)
        ]


def dealt_sides(suit_count: int = 5) -> tuple[RoundDeal, RoundDeal]:
    host, joiner = make_sides(suit_count)
    exchange_commitments(host, joiner)
    run_passes(host, joiner)
    deal_hands(host, joiner)
    return host, joiner


def expected_deck(suit_count: int = 5, round_number: int = 1) -> RoundDeck:
    return rebuild_round(
        suit_count,
        hashing.round_seed(MASTER_HOST, GAME_ID, round_number),
        hashing.round_seed(MASTER_JOINER, GAME_ID, round_number),
    )


# --- a whole honest round ---------------------------------------------------


@pytest.mark.parametrize("suit_count", [5, 6])
def test_each_side_sees_exactly_its_own_eight_cards(suit_count: int) -> None:
    host, joiner = dealt_sides(suit_count)
    deck = expected_deck(suit_count)
    assert host.hand == deck.hand(Seat.HOST)
    assert joiner.hand == deck.hand(Seat.JOINER)
    assert set(host.hidden_positions.values()) == set(hand_positions(Seat.HOST))
    assert set(joiner.hidden_positions.values()) == set(hand_positions(Seat.JOINER))
    assert not set(host.hand) & set(joiner.hand)


def _play_round(
    suit_count: int, rng: random.Random
) -> tuple[RoundDeal, RoundDeal, Transcript, dict[Seat, list[tuple[int, Card]]]]:
    """A whole round: every turn puts down a hidden card and draws from the deck."""
    transcript = Transcript()
    host, joiner = make_sides(suit_count)
    transcript.commitments = [host.commitment, joiner.commitment]
    exchange_commitments(host, joiner)
    run_passes(host, joiner, transcript)
    deal_hands(host, joiner, transcript)
    sides = {Seat.HOST: host, Seat.JOINER: joiner}
    opened = {seat: list(zip(hand_positions(seat), sides[seat].hand, strict=True)) for seat in Seat}
    mover = Seat.HOST
    while True:
        me, other = sides[mover], sides[mover.other]
        card = rng.choice(me.hand)
        shown = me.reveal_card(card)
        other.verify_played(card, shown.position, shown.key)
        transcript.keys.append(RevealedKey(mover, shown.position, shown.key))
        given = other.give_draw()
        opened[mover].append((given.position, me.open_draw(given.position, given.key)))
        transcript.keys.append(RevealedKey(mover.other, given.position, given.key))
        if me.next_draw_position is None:
            assert other.next_draw_position is None
            return host, joiner, transcript, opened
        mover = mover.other


@pytest.mark.slow
@pytest.mark.parametrize("suit_count", [5, 6])
def test_every_card_is_dealt_exactly_once_over_a_whole_round(suit_count: int) -> None:
    _, _, _, opened = _play_round(suit_count, random.Random(suit_count))
    cards = [card for seat in Seat for _, card in opened[seat]]
    positions = [position for seat in Seat for position, _ in opened[seat]]
    assert sorted(cards) == sorted(ALL_CARDS[: deck_size(suit_count)])
    assert sorted(positions) == list(range(deck_size(suit_count)))


@pytest.mark.slow
@pytest.mark.parametrize("suit_count", [5, 6])
def test_the_reconstruction_agrees_with_what_each_side_saw(suit_count: int) -> None:
    host, joiner, _, opened = _play_round(suit_count, random.Random(7))
    host_view = host.verify_reveal(joiner.reveal_seed())
    joiner_view = joiner.verify_reveal(host.reveal_seed())
    assert host_view == joiner_view == expected_deck(suit_count)
    for seat in Seat:
        for position, card in opened[seat]:
            assert host_view.order[position] == card
    assert host.verified_deck == host_view


@pytest.mark.slow
@pytest.mark.parametrize("suit_count", [5, 6])
def test_an_auditor_rebuilds_the_same_round_from_the_transcript(suit_count: int) -> None:
    host, joiner, transcript, _ = _play_round(suit_count, random.Random(3))
    deck = audit_round(
        suit_count=suit_count,
        game_id=GAME_ID,
        round_number=1,
        commitments=transcript.commitments,
        seeds=[host.reveal_seed(), joiner.reveal_seed()],
        passes=transcript.passes,
        revealed_keys=transcript.keys,
    )
    assert deck == expected_deck(suit_count)


def test_the_draw_pile_is_taken_in_increasing_positions_from_sixteen() -> None:
    host, joiner = dealt_sides()
    assert host.next_draw_position == FIRST_DRAW_POSITION == 16
    first = joiner.give_draw()
    assert first.position == 16
    assert host.open_draw(first.position, first.key) == expected_deck().draw_pile[0]
    second = host.give_draw()
    assert second.position == 17
    assert joiner.open_draw(second.position, second.key) == expected_deck().draw_pile[1]


def test_a_played_hidden_card_is_verified_by_the_other_side() -> None:
    host, joiner = dealt_sides()
    card = host.hand[3]
    shown = host.reveal_card(card)
    assert shown.position == 3
    joiner.verify_played(card, shown.position, shown.key)
    assert card not in host.hand


def test_a_drawn_card_joins_the_hand() -> None:
    host, joiner = dealt_sides()
    given = joiner.give_draw()
    card = host.open_draw(given.position, given.key)
    assert card in host.hand
    assert host.hidden_positions[card] == given.position


def test_rounds_of_one_game_get_different_decks() -> None:
    assert expected_deck(round_number=1) != expected_deck(round_number=2)


def test_commitments_differ_by_seat_and_round() -> None:
    host, joiner = make_sides()
    host_round_2, _ = make_sides(round_number=2)
    assert len({host.commitment, joiner.commitment, host_round_2.commitment}) == 3


# --- the card table ---------------------------------------------------------


@pytest.mark.parametrize("suit_count", [5, 6])
def test_every_card_has_its_own_valid_point(suit_count: int) -> None:
    table = card_table(suit_count)
    assert table.size == deck_size(suit_count)
    assert len(set(table.points)) == table.size
    assert all(group.is_valid_point(point) for point in table.points)
    for card in ALL_CARDS[: table.size]:
        assert table.card_at(table.point_of(card)) == card


def test_the_three_wagers_of_a_suit_have_different_points() -> None:
    table = card_table(5)
    wagers = [Card.parse(text) for text in ("gH1", "gH2", "gH3")]
    assert len({table.point_of(card) for card in wagers}) == 3


def test_a_purple_card_is_no_card_of_a_five_suit_game() -> None:
    purple = Card.parse("p7")
    assert card_table(5).card_at(card_table(6).point_of(purple)) is None


def test_the_card_table_is_built_once() -> None:
    assert card_table(5) is card_table(5)


def test_card_points_vector() -> None:
    table = card_table(6)
    assert table.point_of(Card.parse("yH1")).hex() == (
        "6ea52b1e152d485e06ede82b8e5404598e27762adf932ed020bb24afb53b24fa"
    )
    assert table.point_of(Card.parse("yH2")).hex() == (
        "b21125b5548ab8347525a28187feaa3edcef45e3174332b73bf77a09e0f17358"
    )
    assert table.point_of(Card.parse("r10")).hex() == (
        "6cdffd18ead8842dba4d717df29eff8d37d7d7d49b3b7bf262970b2a817048e5"
    )
    assert table.point_of(Card.parse("p10")).hex() == (
        "f108f1f03b831bb0df42988f6b86712556bd0954c0c664e91c8cb7819696e413"
    )


# --- deck vectors (docs/PROTOCOL.md §8.1) -----------------------------------

DECK_VECTOR = (
    "w5 rH3 rH1 wH1 wH2 y10 y4 w3 w9 b4 rH2 r7 b8 g10 b3 y7 b7 w6 g8 g2 r9 g9 w4 g3 r8 yH3 "
    "b5 r10 g4 gH1 r4 r3 g7 b6 gH2 bH1 r2 w8 w10 yH1 y8 y3 r5 bH3 w7 y6 w2 r6 y9 yH2 y2 bH2 "
    "g5 y5 b10 gH3 b2 wH3 b9 g6"
)

PASS_VECTORS = {
    1: (
        "05128f70d7b61d1f01601165336848fd293c5662286796cc6d9cdd198dcd96af",
        "ecea1f204a4f17cc87dd08e3127594878cc92e014831ce77d39b015b282aa471",
    ),
    2: (
        "fd0b8de8d0bb30552a7655f6637becd3c52155a2e8d9aa210eec469382e1b5ab",
        "5da26132ec7b0241fcbe0e70a4de5248993a17db553e267660662aa2064760b3",
    ),
    3: (
        "9f7282ac3ebdd981b848bdbd888aefe39e2408cc7536bb0185e2aca7b69afc7c",
        "a8787dfc8493c42ef45dfda51cd83950d8f8c252cc9f9a855dfc2cbb1201c08f",
    ),
    4: (
        "12c6e94d373d8009bae72f26af87c6fa21ce256e381598e7e8521bb75a32df27",
        "0543fdc283fd82130d38e53ee9062ae9f0be8f1d096855bfdbdd508020be2f3c",
    ),
}


def test_deck_order_vector() -> None:
    assert format_cards(expected_deck().order) == DECK_VECTOR


def test_pass_vectors() -> None:
    host, joiner = make_sides()
    exchange_commitments(host, joiner)
    transcript = Transcript()
    run_passes(host, joiner, transcript)
    for number, (first, last) in PASS_VECTORS.items():
        points = transcript.passes[number - 1]
        assert (points[0].hex(), points[59].hex()) == (first, last)


def test_docs_protocol_md_prints_the_pass_vectors() -> None:
    spec = (Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md").read_text()
    assert all(point in spec for pair in PASS_VECTORS.values() for point in pair)


def test_the_last_pass_is_both_keys_times_the_card_point() -> None:
    host_secrets = DeckSecrets.derive(hashing.round_seed(MASTER_HOST, GAME_ID, 1), 60)
    joiner_secrets = DeckSecrets.derive(hashing.round_seed(MASTER_JOINER, GAME_ID, 1), 60)
    both = group.scalar_mul(host_secrets.position_keys[0], joiner_secrets.position_keys[0])
    point = group.mul(both, card_table(5).point_of(expected_deck().order[0]))
    assert point.hex() == PASS_VECTORS[4][0]


def test_rebuild_follows_both_permutations() -> None:
    host_seed = hashing.round_seed(MASTER_HOST, GAME_ID, 1)
    joiner_seed = hashing.round_seed(MASTER_JOINER, GAME_ID, 1)
    host_perm = hashing.permutation(host_seed, 60)
    joiner_perm = hashing.permutation(joiner_seed, 60)
    deck = rebuild_round(5, host_seed, joiner_seed)
    assert all(deck.order[i].id == host_perm[joiner_perm[i]] for i in range(60))
    assert deck.draw_pile == deck.order[16:]
    assert deck.position_of(deck.order[20]) == 20


# --- observers without secrets ----------------------------------------------


def test_an_observer_checks_a_pass_like_a_side_does() -> None:
    host, joiner = make_sides()
    exchange_commitments(host, joiner)
    transcript = Transcript()
    run_passes(host, joiner, transcript)
    for number, points in enumerate(transcript.passes, start=1):
        assert check_pass(number, list(points), 60) == points
    bad = list(transcript.passes[3])
    bad[6] = bytes(32)
    with pytest.raises(DeckProtocolError) as caught:
        check_pass(4, bad, 60)
    assert caught.value.fault is DeckFault.INVALID_POINT
    assert caught.value.seat is Seat.JOINER
    assert caught.value.position == 6


def test_an_observer_opens_a_position_with_both_keys() -> None:
    host, joiner = make_sides()
    exchange_commitments(host, joiner)
    transcript = Transcript()
    run_passes(host, joiner, transcript)
    host_keys = DeckSecrets.derive(hashing.round_seed(MASTER_HOST, GAME_ID, 1), 60).position_keys
    joiner_keys = DeckSecrets.derive(
        hashing.round_seed(MASTER_JOINER, GAME_ID, 1), 60
    ).position_keys
    last = transcript.passes[3]
    deck = expected_deck()
    assert open_with_keys(5, last[20], host_keys[20], joiner_keys[20]) == deck.order[20]
    assert open_with_keys(5, last[20], host_keys[21], joiner_keys[20]) is None
    assert open_with_keys(5, last[20], bytes(32), joiner_keys[20]) is None
    assert open_with_keys(5, bytes(32), host_keys[20], joiner_keys[20]) is None


# --- the coin ---------------------------------------------------------------


def test_the_coin_vector_lets_the_host_start() -> None:
    nonce = bytes(range(64, 96))
    first = coin_first_player(
        game_id=GAME_ID,
        joiner_commitment=hashing.coin_commitment(nonce),
        joiner_nonce=nonce,
        host_nonce=bytes(range(96, 128)),
    )
    assert first is Seat.HOST


def test_the_coin_falls_both_ways() -> None:
    results = set()
    for i in range(16):
        nonce = bytes([i]) * 32
        results.add(
            coin_first_player(
                game_id=GAME_ID,
                joiner_commitment=hashing.coin_commitment(nonce),
                joiner_nonce=nonce,
                host_nonce=bytes(32),
            )
        )
    assert results == {Seat.HOST, Seat.JOINER}


def test_a_coin_nonce_that_does_not_match_its_commitment_is_the_joiners_fault() -> None:
    with pytest.raises(RemoteProtocolError) as caught:
        coin_first_player(
            game_id=GAME_ID,
            joiner_commitment=hashing.coin_commitment(bytes(32)),
            joiner_nonce=bytes([1]) * 32,
            host_nonce=bytes(32),
        )
    assert caught.value.author == "joiner"


def test_a_malformed_host_coin_nonce_is_the_hosts_fault() -> None:
    with pytest.raises(RemoteProtocolError) as caught:
        coin_first_player(
            game_id=GAME_ID,
            joiner_commitment=hashing.coin_commitment(bytes(32)),
            joiner_nonce=bytes(32),
            host_nonce=b"short",
        )
    assert caught.value.author == "host"


# --- misuse by our own code is a LocalProtocolError -------------------------


def test_no_pass_before_both_commitments() -> None:
    host, _ = make_sides()
    with pytest.raises(LocalProtocolError):
        host.make_pass()


def test_a_side_cannot_make_the_other_sides_pass() -> None:
    host, joiner = make_sides()
    exchange_commitments(host, joiner)
    with pytest.raises(LocalProtocolError):
        joiner.make_pass()
    host.make_pass()
    with pytest.raises(LocalProtocolError):
        host.make_pass()


def test_passes_are_received_in_order() -> None:
    host, joiner = make_sides()
    exchange_commitments(host, joiner)
    first = host.make_pass()
    with pytest.raises(LocalProtocolError):
        joiner.receive_pass(3, first.points)
    with pytest.raises(LocalProtocolError):
        host.receive_pass(1, first.points)


def test_no_keys_before_the_four_passes() -> None:
    host, joiner = make_sides()
    exchange_commitments(host, joiner)
    with pytest.raises(LocalProtocolError):
        host.dealing_keys()
    with pytest.raises(LocalProtocolError):
        joiner.open_hand([bytes(32)] * HAND_SIZE)


def test_no_turn_before_both_hands_are_dealt() -> None:
    host, joiner = make_sides()
    exchange_commitments(host, joiner)
    run_passes(host, joiner)
    host.open_hand(joiner.dealing_keys())
    with pytest.raises(LocalProtocolError):
        host.give_draw()


def test_a_hand_is_opened_once() -> None:
    host, joiner = dealt_sides()
    with pytest.raises(LocalProtocolError):
        host.open_hand(joiner.dealing_keys())


def test_a_side_reveals_only_its_own_hidden_cards() -> None:
    host, joiner = dealt_sides()
    with pytest.raises(LocalProtocolError):
        host.reveal_card(joiner.hand[0])
    card = host.hand[0]
    host.reveal_card(card)
    with pytest.raises(LocalProtocolError):
        host.reveal_card(card)


def test_no_key_for_a_draw_from_an_empty_pile() -> None:
    host, joiner = dealt_sides()
    while host.next_draw_position is not None:
        given = joiner.give_draw()
        host.open_draw(given.position, given.key)
    with pytest.raises(LocalProtocolError):
        joiner.give_draw()
    with pytest.raises(LocalProtocolError):
        host.open_draw(60, bytes(32))


def test_no_more_keys_after_the_seed_is_revealed() -> None:
    host, _ = dealt_sides()
    host.reveal_seed()
    with pytest.raises(LocalProtocolError):
        host.give_draw()
    with pytest.raises(LocalProtocolError):
        host.reveal_card(host.hand[0])


def test_no_seed_reveal_before_the_other_commitment() -> None:
    host, _ = make_sides()
    with pytest.raises(LocalProtocolError):
        host.reveal_seed()


def test_a_commitment_is_received_once() -> None:
    host, joiner = make_sides()
    host.receive_commitment(joiner.commitment)
    with pytest.raises(LocalProtocolError):
        host.receive_commitment(joiner.commitment)


def test_a_reveal_is_verified_once() -> None:
    host, joiner = dealt_sides()
    host.verify_reveal(joiner.reveal_seed())
    with pytest.raises(LocalProtocolError):
        host.verify_reveal(joiner.reveal_seed())


@pytest.mark.parametrize(
    ("game_id", "round_number", "master_secret"),
    [
        (b"short", 1, MASTER_HOST),
        (GAME_ID, 0, MASTER_HOST),
        (GAME_ID, 1, b"short"),
    ],
)
def test_bad_parameters_are_refused(
    game_id: bytes, round_number: int, master_secret: bytes
) -> None:
    with pytest.raises(LocalProtocolError):
        RoundDeal.from_master(
            seat=Seat.HOST,
            suit_count=5,
            game_id=game_id,
            round_number=round_number,
            master_secret=master_secret,
        )


def test_pass_numbers_and_authors() -> None:
    assert [pass_author(n) for n in (1, 2, 3, 4)] == [
        Seat.HOST,
        Seat.JOINER,
        Seat.HOST,
        Seat.JOINER,
    ]
    with pytest.raises(LocalProtocolError):
        pass_author(5)


def test_dealing_positions() -> None:
    assert list(hand_positions(Seat.HOST)) == list(range(8))
    assert list(hand_positions(Seat.JOINER)) == list(range(8, 16))


def test_seats_name_themselves() -> None:
    assert str(Seat.HOST) == "host"
    assert Seat.JOINER.other is Seat.HOST

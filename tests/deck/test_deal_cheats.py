"""Every cheat and fault of the masked deck is caught, with the right error and author.

A cheating side here is an honest :class:`RoundDeal` whose outgoing data a
test helper alters the way a modified client would (it signs what it sends,
so the altered data is its own). Only the honest side's verdict is checked.
"""

from __future__ import annotations

from collections.abc import Callable

import nacl.bindings
import pytest

from lcnet.deck import group, hashing
from lcnet.deck.deal import (
    HAND_SIZE,
    DeckFault,
    DeckProtocolError,
    DeckSecrets,
    Seat,
    audit_round,
    card_table,
    pass_author,
)
from lcnet.deck.rounddeal import RoundDeal
from lcnet.errors import LocalProtocolError, RemoteProtocolError
from lcnet.game.cards import Card
from tests.deck.test_deal import (
    GAME_ID,
    MASTER_HOST,
    MASTER_JOINER,
    dealt_sides,
    exchange_commitments,
    expected_deck,
    make_sides,
)

TWO = (2).to_bytes(32, "little")
"""A scalar that changes a mask without making it a card point's."""

IDENTITY = bytes([1]) + bytes(31)
ORDER_8_POINT = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
NON_CANONICAL = b"\xff" * 31 + b"\x7f"  # y = 2²⁵⁵-1 ≥ p
NOT_ON_CURVE = bytes([2]) + bytes(31)  # y = 2 has no x on edwards25519
L_BYTES = group.GROUP_ORDER.to_bytes(32, "little")


def secrets(seat: Seat, size: int = 60) -> DeckSecrets:
    master = MASTER_HOST if seat is Seat.HOST else MASTER_JOINER
    return DeckSecrets.derive(hashing.round_seed(master, GAME_ID, 1), size)


def mixed_order_point() -> bytes:
    """A curve point of order 8·L: a card point plus a torsion point."""
    return bytes(nacl.bindings.crypto_core_ed25519_add(card_table(5).points[0], ORDER_8_POINT))


Tamper = Callable[[tuple[bytes, ...]], list[object]]


def play_passes(
    host: RoundDeal, joiner: RoundDeal, tamper: dict[int, Tamper] | None = None
) -> None:
    """The four passes, with pass ``n`` altered by ``tamper[n]`` on its way."""
    sides = {Seat.HOST: host, Seat.JOINER: joiner}
    for number in range(1, 5):
        points: list[object] = list(sides[pass_author(number)].make_pass().points)
        if tamper and number in tamper:
            points = tamper[number](tuple(points))
        sides[pass_author(number).other].receive_pass(number, points)


def started_sides() -> tuple[RoundDeal, RoundDeal]:
    host, joiner = make_sides()
    exchange_commitments(host, joiner)
    return host, joiner


def replaced(points: tuple[bytes, ...], position: int, value: object) -> list[object]:
    out: list[object] = list(points)
    out[position] = value
    return out


def assert_fault(
    error: pytest.ExceptionInfo[DeckProtocolError],
    fault: DeckFault,
    author: Seat,
    position: int | None = None,
) -> None:
    assert error.value.fault is fault
    assert error.value.seat is author
    assert error.value.author == str(author)
    assert f"(by {author})" in str(error.value)
    if position is not None:
        assert error.value.position == position


# --- a received pass is checked at once -------------------------------------

# Each entry: how the pass is altered, the fault, the position named.
PASS_FAULTS: dict[str, tuple[Tamper, DeckFault, int | None]] = {
    "one point missing": (lambda p: list(p[:-1]), DeckFault.PASS_SIZE, None),
    "one point too many": (lambda p: [*p, p[0]], DeckFault.PASS_SIZE, None),
    "empty": (lambda p: [], DeckFault.PASS_SIZE, None),
    "duplicate point": (lambda p: replaced(p, 5, p[0]), DeckFault.DUPLICATE_POINT, 5),
    "identity point": (lambda p: replaced(p, 7, IDENTITY), DeckFault.INVALID_POINT, 7),
    "small-order point": (lambda p: replaced(p, 8, ORDER_8_POINT), DeckFault.INVALID_POINT, 8),
    "mixed-order point": (
        lambda p: replaced(p, 9, mixed_order_point()),
        DeckFault.INVALID_POINT,
        9,
    ),
    "non-canonical point": (
        lambda p: replaced(p, 10, NON_CANONICAL),
        DeckFault.INVALID_POINT,
        10,
    ),
    "point not on the curve": (
        lambda p: replaced(p, 11, NOT_ON_CURVE),
        DeckFault.INVALID_POINT,
        11,
    ),
    "random bytes": (
        lambda p: replaced(p, 12, hashing.chain_hash(b"noise")),
        DeckFault.INVALID_POINT,
        12,
    ),
    "short entry": (lambda p: replaced(p, 13, p[13][:31]), DeckFault.MALFORMED_POINT, 13),
    "long entry": (lambda p: replaced(p, 14, p[14] + b"\0"), DeckFault.MALFORMED_POINT, 14),
    "text entry": (lambda p: replaced(p, 15, "point"), DeckFault.MALFORMED_POINT, 15),
    "integer entry": (lambda p: replaced(p, 16, 17), DeckFault.MALFORMED_POINT, 16),
    "missing entry": (lambda p: replaced(p, 17, None), DeckFault.MALFORMED_POINT, 17),
}


def test_the_random_bytes_used_below_are_not_a_valid_point() -> None:
    assert not group.is_valid_point(hashing.chain_hash(b"noise"))
    assert not group.is_valid_point(mixed_order_point())


@pytest.mark.slow
@pytest.mark.parametrize("number", [1, 2, 3, 4])
@pytest.mark.parametrize("case", list(PASS_FAULTS))
def test_a_bad_pass_is_refused_naming_the_pass_and_its_author(number: int, case: str) -> None:
    tamper, fault, position = PASS_FAULTS[case]
    host, joiner = started_sides()
    with pytest.raises(DeckProtocolError) as caught:
        play_passes(host, joiner, {number: tamper})
    assert_fault(caught, fault, pass_author(number), position)
    assert caught.value.item.startswith(f"pass {number}")
    assert caught.value.pass_number == number


@pytest.mark.parametrize("number", [1, 4])
def test_a_pass_that_is_not_a_list_is_refused(number: int) -> None:
    host, joiner = started_sides()
    with pytest.raises(DeckProtocolError) as caught:
        play_passes(host, joiner, {number: lambda p: b"".join(p)})
    assert_fault(caught, DeckFault.PASS_SIZE, pass_author(number))


def test_the_lowest_invalid_position_is_named() -> None:
    host, joiner = started_sides()

    def two_bad(points: tuple[bytes, ...]) -> list[object]:
        return replaced(tuple(replaced(points, 40, IDENTITY)), 3, NOT_ON_CURVE)

    with pytest.raises(DeckProtocolError) as caught:
        play_passes(host, joiner, {2: two_bad})
    assert_fault(caught, DeckFault.INVALID_POINT, Seat.JOINER, 3)


def test_a_malformed_entry_is_named_before_an_earlier_duplicate() -> None:
    host, joiner = started_sides()

    def both(points: tuple[bytes, ...]) -> list[object]:
        return replaced(tuple(replaced(points, 3, points[0])), 10, b"short")

    with pytest.raises(DeckProtocolError) as caught:
        play_passes(host, joiner, {1: both})
    assert_fault(caught, DeckFault.MALFORMED_POINT, Seat.HOST, 10)


def test_a_side_refuses_everything_after_a_fault() -> None:
    host, joiner = started_sides()
    with pytest.raises(DeckProtocolError):
        play_passes(host, joiner, {2: PASS_FAULTS["duplicate point"][0]})
    with pytest.raises(LocalProtocolError):
        host.make_pass()
    with pytest.raises(LocalProtocolError):
        host.reveal_seed()


def test_a_malformed_commitment_is_refused() -> None:
    host, _ = make_sides()
    with pytest.raises(DeckProtocolError) as caught:
        host.receive_commitment(b"short")
    assert_fault(caught, DeckFault.MALFORMED_COMMITMENT, Seat.JOINER)


# --- keys that open positions -----------------------------------------------


def test_a_bogus_dealing_key_opens_no_card() -> None:
    host, joiner = started_sides()
    play_passes(host, joiner)
    keys = list(joiner.dealing_keys())
    keys[3] = hashing.global_scalar(b"bogus")
    with pytest.raises(DeckProtocolError) as caught:
        host.open_hand(keys)
    assert_fault(caught, DeckFault.NOT_A_CARD, Seat.JOINER, 3)


@pytest.mark.slow
@pytest.mark.parametrize(
    "bad_key",
    [bytes(32), L_BYTES, b"\xff" * 32, b"short", "text", None],
    ids=["zero", "L", "above L", "short", "text", "missing"],
)
def test_a_malformed_key_is_refused(bad_key: object) -> None:
    host, joiner = started_sides()
    play_passes(host, joiner)
    keys: list[object] = list(host.dealing_keys())
    keys[2] = bad_key
    with pytest.raises(DeckProtocolError) as caught:
        joiner.open_hand(keys)
    assert_fault(caught, DeckFault.INVALID_KEY, Seat.HOST, 10)


@pytest.mark.slow
@pytest.mark.parametrize("count", [0, HAND_SIZE - 1, HAND_SIZE + 1])
def test_dealing_keys_must_be_one_per_card(count: int) -> None:
    host, joiner = started_sides()
    play_passes(host, joiner)
    keys = (list(joiner.dealing_keys()) * 2)[:count]
    with pytest.raises(DeckProtocolError) as caught:
        host.open_hand(keys)
    assert_fault(caught, DeckFault.KEY_COUNT, Seat.JOINER)


def _duplicate_hosts_first_card_at(position: int) -> tuple[RoundDeal, RoundDeal, bytes]:
    """A joiner who puts a second copy of the card at position 0 at ``position``.

    It masks the copy with ``2·g_B`` instead of ``g_B``, so the pass check
    sees distinct points, and doubles its key for ``position`` so that the
    host still opens a card point there: ``(k_A · 2k_B)⁻¹ · 2·k_A·k_B·P``.
    Returns the sides and the joiner's forged key for ``position``.
    """
    host, joiner = started_sides()
    play_passes(host, joiner, {2: lambda p: replaced(p, position, group.mul(TWO, p[0]))})
    forged = group.scalar_mul(TWO, secrets(Seat.JOINER).position_keys[position])
    return host, joiner, forged


def test_a_dealing_key_that_opens_a_card_already_seen_is_caught() -> None:
    host, joiner, forged = _duplicate_hosts_first_card_at(1)
    keys = list(joiner.dealing_keys())
    keys[1] = forged
    with pytest.raises(DeckProtocolError) as caught:
        host.open_hand(keys)
    assert_fault(caught, DeckFault.CARD_ALREADY_SEEN, Seat.JOINER, 1)
    assert str(expected_deck().order[0]) in str(caught.value)


def test_a_draw_key_that_opens_a_card_already_seen_is_caught() -> None:
    host, joiner, forged = _duplicate_hosts_first_card_at(16)
    host.open_hand(joiner.dealing_keys())
    joiner.open_hand(host.dealing_keys())
    given = joiner.give_draw()
    assert given.position == 16
    with pytest.raises(DeckProtocolError) as caught:
        host.open_draw(16, forged)
    assert_fault(caught, DeckFault.CARD_ALREADY_SEEN, Seat.JOINER, 16)


def test_a_bogus_draw_key_opens_no_card() -> None:
    host, joiner = dealt_sides()
    given = host.give_draw()
    with pytest.raises(DeckProtocolError) as caught:
        joiner.open_draw(given.position, hashing.global_scalar(b"bogus"))
    assert_fault(caught, DeckFault.NOT_A_CARD, Seat.HOST, 16)


def test_a_draw_key_for_another_position_is_refused() -> None:
    host, joiner = dealt_sides()
    given = joiner.give_draw()
    with pytest.raises(DeckProtocolError) as caught:
        host.open_draw(given.position + 1, given.key)
    assert_fault(caught, DeckFault.WRONG_POSITION, Seat.JOINER)


# --- hidden cards put down --------------------------------------------------


def test_a_key_that_does_not_open_the_named_card_is_caught() -> None:
    host, joiner = dealt_sides()
    shown = host.reveal_card(host.hand[3])
    with pytest.raises(DeckProtocolError) as caught:
        joiner.verify_played(expected_deck().order[4], shown.position, shown.key)
    assert_fault(caught, DeckFault.WRONG_CARD, Seat.HOST, 3)


def test_a_bogus_key_for_a_played_card_is_caught() -> None:
    host, joiner = dealt_sides()
    card = host.hand[0]
    with pytest.raises(DeckProtocolError) as caught:
        joiner.verify_played(card, 0, hashing.global_scalar(b"bogus"))
    assert_fault(caught, DeckFault.WRONG_CARD, Seat.HOST, 0)


def test_a_malformed_key_for_a_played_card_is_refused() -> None:
    host, joiner = dealt_sides()
    with pytest.raises(DeckProtocolError) as caught:
        joiner.verify_played(host.hand[0], 0, bytes(32))
    assert_fault(caught, DeckFault.INVALID_KEY, Seat.HOST, 0)


def test_a_card_outside_the_game_is_refused() -> None:
    host, joiner = dealt_sides()
    shown = host.reveal_card(host.hand[0])
    with pytest.raises(DeckProtocolError) as caught:
        joiner.verify_played(Card.parse("p5"), shown.position, shown.key)
    assert_fault(caught, DeckFault.WRONG_CARD, Seat.HOST, 0)


@pytest.mark.slow
@pytest.mark.parametrize(
    "position", [9, 30, 60, -1], ids=["joiner's hand", "draw pile", "past the end", "negative"]
)
def test_playing_a_position_one_does_not_hold_is_refused(position: int) -> None:
    host, joiner = dealt_sides()
    key = secrets(Seat.HOST).position_keys[min(max(position, 0), 59)]
    with pytest.raises(DeckProtocolError) as caught:
        joiner.verify_played(host.hand[0], position, key)
    assert_fault(caught, DeckFault.POSITION_NOT_HELD, Seat.HOST)


def test_a_card_cannot_be_played_twice() -> None:
    host, joiner = dealt_sides()
    card = host.hand[0]
    shown = host.reveal_card(card)
    joiner.verify_played(card, shown.position, shown.key)
    with pytest.raises(DeckProtocolError) as caught:
        joiner.verify_played(card, shown.position, shown.key)
    assert_fault(caught, DeckFault.POSITION_NOT_HELD, Seat.HOST)


def test_playing_a_second_copy_of_a_card_the_other_holds_is_caught() -> None:
    """The host forges, in pass 1, a copy of the joiner's first card where its first draw lands."""
    deck = expected_deck()
    stolen = deck.order[8]  # dealt to the joiner
    host_secrets = secrets(Seat.HOST)
    source = hashing.permutation(secrets(Seat.JOINER).seed, 60)[16]  # D1 index that lands at 16
    double_mask = group.scalar_mul(TWO, host_secrets.global_scalar)
    copy = group.mul(double_mask, card_table(5).point_of(stolen))
    host, joiner = started_sides()
    play_passes(host, joiner, {1: lambda p: replaced(p, source, copy)})
    host.open_hand(joiner.dealing_keys())
    joiner.open_hand(host.dealing_keys())
    assert stolen in joiner.hand
    assert joiner.give_draw().position == 16
    forged = group.scalar_mul(TWO, host_secrets.position_keys[16])
    with pytest.raises(DeckProtocolError) as caught:
        joiner.verify_played(stolen, 16, forged)
    assert_fault(caught, DeckFault.CARD_ALREADY_SEEN, Seat.HOST, 16)


# --- the seed reveal --------------------------------------------------------


def test_a_seed_that_does_not_match_its_commitment_is_caught() -> None:
    host, _ = dealt_sides()
    with pytest.raises(DeckProtocolError) as caught:
        host.verify_reveal(hashing.round_seed(MASTER_JOINER, GAME_ID, 2))
    assert_fault(caught, DeckFault.COMMITMENT_MISMATCH, Seat.JOINER)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [b"", b"x" * 31, "text"], ids=["empty", "short", "text"])
def test_a_malformed_seed_is_refused(seed: object) -> None:
    _, joiner = dealt_sides()
    with pytest.raises(DeckProtocolError) as caught:
        joiner.verify_reveal(seed)
    assert_fault(caught, DeckFault.MALFORMED_SEED, Seat.HOST)


def _swap(points: tuple[bytes, ...], i: int, j: int) -> list[object]:
    out: list[object] = list(points)
    out[i], out[j] = out[j], out[i]
    return out


def test_a_host_shuffle_that_is_not_its_seeds_is_caught_at_the_reveal() -> None:
    """Swapping two positions of pass 1 (an attempt to bias the deal) passes every live check."""
    host, joiner = started_sides()
    play_passes(host, joiner, {1: lambda p: _swap(p, 20, 41)})
    host.open_hand(joiner.dealing_keys())
    joiner.open_hand(host.dealing_keys())
    with pytest.raises(DeckProtocolError) as caught:
        joiner.verify_reveal(host.reveal_seed())
    assert_fault(caught, DeckFault.PASS_MISMATCH, Seat.HOST, 20)
    assert caught.value.item == "pass 1 position 20"


def test_a_joiner_shuffle_that_is_not_its_seeds_is_caught_at_the_reveal() -> None:
    host, joiner = started_sides()
    play_passes(host, joiner, {2: lambda p: _swap(p, 33, 50)})
    host.open_hand(joiner.dealing_keys())
    joiner.open_hand(host.dealing_keys())
    with pytest.raises(DeckProtocolError) as caught:
        host.verify_reveal(joiner.reveal_seed())
    assert_fault(caught, DeckFault.PASS_MISMATCH, Seat.JOINER, 33)


def test_a_card_swapped_for_a_second_copy_of_another_is_caught_at_the_reveal() -> None:
    """The host replaces one card by a differently masked copy of another, deep in the pile."""
    host_secrets = secrets(Seat.HOST)
    source = hashing.permutation(secrets(Seat.JOINER).seed, 60)[40]  # lands at position 40
    copied = Card.parse("yH2")
    assert host_secrets.permutation[source] != copied.id
    copy = group.mul(
        group.scalar_mul(TWO, host_secrets.global_scalar), card_table(5).point_of(copied)
    )
    host, joiner = started_sides()
    play_passes(host, joiner, {1: lambda p: replaced(p, source, copy)})
    host.open_hand(joiner.dealing_keys())
    joiner.open_hand(host.dealing_keys())
    for _ in range(4):  # a few honest draws, none reaching position 40
        given = host.give_draw()
        joiner.open_draw(given.position, given.key)
    with pytest.raises(DeckProtocolError) as caught:
        joiner.verify_reveal(host.reveal_seed())
    assert_fault(caught, DeckFault.PASS_MISMATCH, Seat.HOST, source)


def test_a_lock_pass_that_is_not_the_seeds_is_caught_at_the_reveal() -> None:
    host, joiner = started_sides()
    play_passes(host, joiner, {4: lambda p: replaced(p, 50, group.mul(TWO, p[50]))})
    host.open_hand(joiner.dealing_keys())
    joiner.open_hand(host.dealing_keys())
    with pytest.raises(DeckProtocolError) as caught:
        host.verify_reveal(joiner.reveal_seed())
    assert_fault(caught, DeckFault.PASS_MISMATCH, Seat.JOINER, 50)
    assert caught.value.item == "pass 4 position 50"
    assert caught.value.pass_number == 4


def test_a_revealed_key_that_differs_from_the_derived_one_is_caught() -> None:
    """The joiner locks position 3 with 2·k_B,3 and sends that key: it opens the right card."""
    host, joiner = started_sides()
    play_passes(host, joiner, {4: lambda p: replaced(p, 3, group.mul(TWO, p[3]))})
    keys = list(joiner.dealing_keys())
    keys[3] = group.scalar_mul(TWO, keys[3])
    assert host.open_hand(keys) == expected_deck().hand(Seat.HOST)
    joiner.open_hand(host.dealing_keys())
    with pytest.raises(DeckProtocolError) as caught:
        host.verify_reveal(joiner.reveal_seed())
    assert_fault(caught, DeckFault.KEY_MISMATCH, Seat.JOINER, 3)
    assert caught.value.item == "key for position 3"
    assert caught.value.pass_number is None


def test_a_host_key_that_differs_from_the_derived_one_is_caught() -> None:
    host, joiner = started_sides()
    play_passes(host, joiner, {3: lambda p: replaced(p, 9, group.mul(TWO, p[9]))})
    host.open_hand(joiner.dealing_keys())
    keys = list(host.dealing_keys())
    keys[1] = group.scalar_mul(TWO, keys[1])  # the key for position 9
    assert joiner.open_hand(keys) == expected_deck().hand(Seat.JOINER)
    with pytest.raises(DeckProtocolError) as caught:
        joiner.verify_reveal(host.reveal_seed())
    assert_fault(caught, DeckFault.KEY_MISMATCH, Seat.HOST, 9)


def test_an_honest_reveal_after_an_early_stop_still_verifies() -> None:
    host, joiner = started_sides()
    host_pass = host.make_pass()
    joiner.receive_pass(1, host_pass.points)
    deck = joiner.verify_reveal(host.reveal_seed())
    assert deck == expected_deck()


def test_a_dispute_error_is_a_remote_protocol_error() -> None:
    assert issubclass(DeckProtocolError, RemoteProtocolError)


# --- the same verdicts from an auditor's seat -------------------------------


def test_an_auditor_names_a_seed_that_does_not_match_its_commitment() -> None:
    host, joiner = dealt_sides()
    with pytest.raises(DeckProtocolError) as caught:
        audit_round(
            suit_count=5,
            game_id=GAME_ID,
            round_number=1,
            commitments=[host.commitment, joiner.commitment],
            seeds=[host.reveal_seed(), hashing.round_seed(MASTER_JOINER, GAME_ID, 2)],
            passes=host.passes,
            revealed_keys=[],
        )
    assert_fault(caught, DeckFault.COMMITMENT_MISMATCH, Seat.JOINER)


def test_an_auditor_names_the_first_wrong_pass() -> None:
    host, joiner = started_sides()
    play_passes(host, joiner, {2: lambda p: _swap(p, 5, 6)})
    with pytest.raises(DeckProtocolError) as caught:
        audit_round(
            suit_count=5,
            game_id=GAME_ID,
            round_number=1,
            commitments=[host.commitment, joiner.commitment],
            seeds=[host.reveal_seed(), joiner.reveal_seed()],
            passes=host.passes,
            revealed_keys=[],
        )
    assert_fault(caught, DeckFault.PASS_MISMATCH, Seat.JOINER, 5)

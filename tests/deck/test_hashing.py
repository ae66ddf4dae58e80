"""Specification tests for lcnet.deck.hashing: encodings, domain separation, known answers.

The known-answer vectors here are the ones printed in docs/PROTOCOL.md §8.1;
another implementation that reproduces them derives exactly what lcnet does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lcnet.deck import group, hashing
from lcnet.deck.deal import card_table, rebuild_round
from lcnet.deck.hashing import Purpose
from lcnet.game.cards import Card, format_cards
from lcnet.store import identity

# --- the inputs of the vectors (docs/PROTOCOL.md §8.1) ----------------------

FRAME = b"lcnet test vector frame"
GAME_ID = bytes.fromhex("e7e05140a19c6731f96d409509d88c71579052cea2b4c22ee2a147869c3bc5d5")
MASTER_HOST = bytes(range(0, 32))
MASTER_JOINER = bytes(range(32, 64))
SEED_HOST = bytes.fromhex("6c6cd44995224b01ffa549a15fc172eddce4d998ae386064f39e2ec9e4091c50")
SEED_JOINER = bytes.fromhex("2fa59c8a52af8c3162ce24768a04ab78a939d5eb4c32ac12ea82d795b21920c5")
JOINER_NONCE = bytes(range(64, 96))
HOST_NONCE = bytes(range(96, 128))
# The Ed25519 public key of the all-zero seed (RFC 8032 style test key).
PUBLIC_KEY = bytes.fromhex("3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29")

PERMUTATION_HOST_60 = (
    6, 55, 35, 58, 12, 51, 40, 37, 29, 30, 16, 28, 8, 20, 43, 4, 53, 22, 14, 19,
    0, 7, 18, 45, 15, 11, 5, 38, 31, 54, 52, 3, 47, 1, 26, 46, 59, 13, 39, 42,
    48, 32, 2, 56, 34, 17, 33, 57, 27, 24, 41, 49, 36, 25, 23, 10, 9, 21, 44, 50,
)  # fmt: skip
PERMUTATION_JOINER_60 = (
    9, 59, 40, 49, 53, 25, 26, 11, 44, 45, 51, 43, 57, 32, 10, 12, 13, 28, 23, 38,
    3, 35, 8, 6, 47, 42, 22, 36, 50, 52, 16, 30, 58, 19, 7, 4, 5, 46, 2, 20,
    56, 15, 29, 18, 41, 21, 48, 1, 55, 33, 31, 37, 39, 0, 54, 27, 24, 34, 17, 14,
)  # fmt: skip
PERMUTATION_HOST_72 = (
    21, 30, 11, 2, 16, 4, 40, 29, 68, 65, 8, 27, 52, 56, 6, 69, 42, 7, 19, 33,
    32, 67, 70, 31, 22, 55, 48, 58, 34, 57, 71, 35, 14, 41, 24, 50, 63, 25, 60, 13,
    46, 37, 64, 44, 17, 36, 15, 43, 61, 1, 3, 49, 47, 66, 38, 28, 10, 23, 9, 53,
    18, 26, 5, 59, 51, 39, 54, 12, 45, 0, 62, 20,
)  # fmt: skip


# --- encoding ---------------------------------------------------------------


def test_an_integer_is_eight_bytes_big_endian() -> None:
    assert hashing.encode_int(0) == bytes(8)
    assert hashing.encode_int(258) == bytes.fromhex("0000000000000102")
    assert hashing.encode_int(2**64 - 1) == b"\xff" * 8


@pytest.mark.parametrize("value", [-1, 2**64, True])
def test_an_integer_outside_the_encodable_range_is_refused(value: int) -> None:
    with pytest.raises(ValueError):
        hashing.encode_int(value)


def test_a_byte_string_is_prefixed_with_its_four_byte_length() -> None:
    assert hashing.encode_bytes(b"") == bytes(4)
    assert hashing.encode_bytes(b"abc") == bytes.fromhex("00000003") + b"abc"


def test_the_tag_is_a_length_prefixed_first_field() -> None:
    assert Purpose.CARD.tag == b"lcnet/v1/card"
    assert hashing.encode(Purpose.CARD) == bytes.fromhex("0000000d") + b"lcnet/v1/card"


def test_encoding_of_a_card_input_matches_the_specification() -> None:
    encoded = hashing.encode(Purpose.CARD, 4, 10, 1)
    assert encoded.hex() == (
        "0000000d6c636e65742f76312f636172640000000000000004000000000000000a0000000000000001"
    )


def test_length_prefixes_keep_field_boundaries_apart() -> None:
    assert hashing.encode(Purpose.CHAIN, b"ab", b"c") != hashing.encode(Purpose.CHAIN, b"a", b"bc")


def test_fields_other_than_bytes_and_int_are_refused() -> None:
    with pytest.raises(TypeError):
        hashing.encode(Purpose.CHAIN, "text")  # type: ignore[arg-type]


def test_every_purpose_has_its_own_tag() -> None:
    tags = [purpose.tag for purpose in Purpose]
    assert len(set(tags)) == len(tags)
    assert all(tag.startswith(hashing.TAG_PREFIX) for tag in tags)


def test_digest_is_blake2b_of_the_encoding_with_the_requested_length() -> None:
    data = hashing.encode(Purpose.CHAIN, FRAME)
    assert hashing.digest(Purpose.CHAIN, FRAME) == hashlib.blake2b(data, digest_size=32).digest()
    wide = hashing.digest(Purpose.CHAIN, FRAME, size=64)
    assert wide == hashlib.blake2b(data, digest_size=64).digest()


def test_the_same_bytes_under_two_purposes_hash_differently() -> None:
    assert hashing.chain_hash(FRAME) != hashing.game_id(FRAME)


# --- known answers ----------------------------------------------------------


def test_game_id_vector() -> None:
    assert hashing.game_id(FRAME) == GAME_ID


def test_chain_hash_vector() -> None:
    assert hashing.chain_hash(FRAME).hex() == (
        "1d40a03831fc7cb5f126dfd48ea8066e6a85ed1f20f7078ee94af5800007b1be"
    )


def test_round_seed_vectors() -> None:
    assert hashing.round_seed(MASTER_HOST, GAME_ID, 1) == SEED_HOST
    assert hashing.round_seed(MASTER_JOINER, GAME_ID, 1) == SEED_JOINER
    assert hashing.round_seed(MASTER_HOST, GAME_ID, 2).hex() == (
        "55d5330bceb0ef1f293f7aa22ae2497b1d3d612c85cc03a2c446e09a830963ea"
    )


def test_seed_commitment_vectors() -> None:
    assert hashing.seed_commitment(GAME_ID, 1, 0, SEED_HOST).hex() == (
        "be03f39b06ab2ce773f643423ef94d860cd4b154e0aca9042a35a8e310449f77"
    )
    assert hashing.seed_commitment(GAME_ID, 1, 1, SEED_JOINER).hex() == (
        "eb50c8a6139f6a0fa3d788a3459d7d77f35831b71048c00211526c6742299544"
    )


def test_permutation_vectors() -> None:
    assert hashing.permutation(SEED_HOST, 60) == PERMUTATION_HOST_60
    assert hashing.permutation(SEED_JOINER, 60) == PERMUTATION_JOINER_60
    assert hashing.permutation(SEED_HOST, 72) == PERMUTATION_HOST_72


def test_global_scalar_vectors() -> None:
    assert hashing.global_scalar(SEED_HOST).hex() == (
        "c0649fbaeaf4ce4ecfe30045fbe0fafcfaba050b4f9c64528d0b30e81a32f403"
    )
    assert hashing.global_scalar(SEED_JOINER).hex() == (
        "35781fa7b2f8f245977af448a95d9620abe48522ca1ad81c9be0f098542fa003"
    )


def test_position_scalar_vectors() -> None:
    assert hashing.position_scalar(SEED_HOST, 0).hex() == (
        "01c8ad3d211d15ce17fffed634edc108e5b8aaabbfaa2c855594f6d9282df208"
    )
    assert hashing.position_scalar(SEED_HOST, 16).hex() == (
        "7f9afbd384aa2dca32e2ff77a3182e1cfc2823a0f6f375f421f0358ef9a01202"
    )
    assert hashing.position_scalar(SEED_JOINER, 0).hex() == (
        "fe4de9ad60628bcf830496fd30167bf475c19fb9c7efc8cd5058de0689a4820f"
    )


@pytest.mark.parametrize(
    ("suit", "rank", "copy", "expected"),
    [
        (0, 0, 1, "2553499e0d46bad1aee3437b3737c0f078e827fec51b0a239381aad76de4515c"),
        (0, 0, 2, "f2245e5b878af2a5950d2a9f50ada95f148b1f264f1ca784a5afd3db35f47d15"),
        (0, 0, 3, "524f9717787e5b4fa0c9e29136bc3ada5ef4a8e3bee5495596c44b8430490770"),
        (0, 2, 1, "441d643f381118fa653d280b4837f154fb7109d646a351eb609219d37c2f3b97"),
        (4, 10, 1, "ef93a9f6f44af4a5bc09c01c3271db93d168a0f90b20b319ceade34251c32eec"),
        (5, 10, 1, "1a1cef8a0ad9174f07f9978f1d4fc657924b33344ebc55f5614b8c85220fe5fe"),
    ],
)
def test_card_uniform_vectors(suit: int, rank: int, copy: int, expected: str) -> None:
    assert hashing.card_uniform(suit, rank, copy).hex() == expected


def test_coin_nonce_vector() -> None:
    assert hashing.coin_nonce(MASTER_HOST).hex() == (
        "3aad13f3031f25982bb027857495775649789d1273ae49dc9d49ddeeb8d9b323"
    )


def test_coin_vectors() -> None:
    assert hashing.coin_commitment(JOINER_NONCE).hex() == (
        "76f486b816e93fe2253a7508f3ee1f79e96082a1e8e5ca2b0d177aa32345b278"
    )
    assert hashing.coin_bit(GAME_ID, JOINER_NONCE, HOST_NONCE) == 0


def test_fingerprint_digest_vector() -> None:
    assert hashing.fingerprint_digest(PUBLIC_KEY).hex() == "0a4194053e944a30"


def test_the_fingerprint_is_its_digest_in_groups_read_aloud() -> None:
    assert hashing.fingerprint(PUBLIC_KEY) == "0A41-9405-3E94-4A30"
    assert identity.fingerprint is hashing.fingerprint  # where it used to live


# --- scalars ----------------------------------------------------------------


@settings(max_examples=50)
@given(st.binary(min_size=32, max_size=32), st.integers(min_value=0, max_value=71))
def test_derived_scalars_are_reduced_and_non_zero(seed: bytes, position: int) -> None:
    assert group.is_scalar(hashing.global_scalar(seed))
    assert group.is_scalar(hashing.position_scalar(seed, position))


def test_a_scalar_is_the_wide_digest_reduced_mod_l() -> None:
    wide = hashing.digest(Purpose.GLOBAL_SCALAR, SEED_HOST, 0, size=64)
    expected = int.from_bytes(wide, "little") % group.GROUP_ORDER
    assert hashing.global_scalar(SEED_HOST) == expected.to_bytes(32, "little")


def test_a_zero_scalar_is_re_derived_with_the_next_counter() -> None:
    counters: list[int] = []

    def wide_digest(counter: int) -> bytes:
        counters.append(counter)
        # Counter 0 gives L itself, which reduces to zero.
        return group.GROUP_ORDER.to_bytes(64, "little") if counter == 0 else bytes([7]) + bytes(63)

    assert hashing.nonzero_scalar(wide_digest) == bytes([7]) + bytes(31)
    assert counters == [0, 1]


# --- permutations -----------------------------------------------------------


@settings(max_examples=40)
@given(st.binary(min_size=32, max_size=32), st.integers(min_value=1, max_value=80))
def test_a_permutation_holds_every_index_once(seed: bytes, size: int) -> None:
    assert sorted(hashing.permutation(seed, size)) == list(range(size))


def test_different_seeds_give_different_permutations() -> None:
    assert hashing.permutation(SEED_HOST, 60) != hashing.permutation(SEED_JOINER, 60)


def test_the_random_words_depend_on_the_deck_size() -> None:
    words_60 = hashing.permutation_words(SEED_HOST, 60)
    words_61 = hashing.permutation_words(SEED_HOST, 61)
    assert [next(words_60) for _ in range(4)] != [next(words_61) for _ in range(4)]


def test_uniform_below_rejects_words_at_or_above_the_largest_multiple() -> None:
    limit = 2**32 - 2**32 % 3  # 4294967295: one word value must be rejected
    words: Iterator[int] = iter([limit, 2**32 - 1, 5])
    assert hashing.uniform_below(3, words) == 2
    assert next(words, None) is None


def test_uniform_below_keeps_a_word_just_under_the_limit() -> None:
    limit = 2**32 - 2**32 % 60
    assert hashing.uniform_below(60, iter([limit - 1])) == (limit - 1) % 60


def test_permutation_words_are_the_wide_digests_cut_in_four_byte_words() -> None:
    words = hashing.permutation_words(SEED_HOST, 60)
    first_block = hashing.digest(Purpose.PERMUTATION, SEED_HOST, 60, 0, size=64)
    second_block = hashing.digest(Purpose.PERMUTATION, SEED_HOST, 60, 1, size=64)
    drawn = [next(words) for _ in range(17)]
    assert drawn[0] == int.from_bytes(first_block[:4], "big")
    assert drawn[15] == int.from_bytes(first_block[60:], "big")
    assert drawn[16] == int.from_bytes(second_block[:4], "big")


def test_a_permutation_of_impossible_size_is_refused() -> None:
    with pytest.raises(ValueError):
        hashing.permutation(SEED_HOST, 0)


# --- the specification prints the same vectors ------------------------------


def test_docs_protocol_md_prints_these_vectors() -> None:
    spec = " ".join(
        (Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md").read_text().split()
    )
    spec = spec.replace(" | ", " ")
    values = [
        GAME_ID.hex(),
        hashing.chain_hash(FRAME).hex(),
        SEED_HOST.hex(),
        SEED_JOINER.hex(),
        hashing.round_seed(MASTER_HOST, GAME_ID, 2).hex(),
        hashing.seed_commitment(GAME_ID, 1, 0, SEED_HOST).hex(),
        hashing.seed_commitment(GAME_ID, 1, 1, SEED_JOINER).hex(),
        hashing.coin_commitment(JOINER_NONCE).hex(),
        hashing.coin_nonce(MASTER_HOST).hex(),
        hashing.fingerprint(PUBLIC_KEY),
        hashing.global_scalar(SEED_HOST).hex(),
        hashing.global_scalar(SEED_JOINER).hex(),
        hashing.position_scalar(SEED_HOST, 0).hex(),
        hashing.position_scalar(SEED_HOST, 16).hex(),
        hashing.position_scalar(SEED_JOINER, 0).hex(),
        " ".join(map(str, PERMUTATION_HOST_60)),
        " ".join(map(str, PERMUTATION_JOINER_60)),
        " ".join(map(str, PERMUTATION_HOST_72)),
        format_cards(rebuild_round(5, SEED_HOST, SEED_JOINER).order),
    ]
    for text in ("yH1", "yH2", "yH3", "y2", "r10", "p10"):
        card = Card.parse(text)
        values.append(hashing.card_uniform(int(card.suit), card.rank, card.copy).hex())
    for text in ("yH1", "yH2", "r10", "p10"):
        values.append(card_table(6).point_of(Card.parse(text)).hex())
    missing = [value for value in values if value not in spec]
    assert not missing

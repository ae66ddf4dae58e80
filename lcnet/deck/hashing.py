"""Every hash lcnet computes: domain-separated BLAKE2b derivations.

Each purpose has its own tag, and every input is encoded so that no two
different inputs of one purpose give the same bytes (docs/PROTOCOL.md §1–2
is the normative text; this module is its reference implementation):

* a *byte string* is its length as 4 bytes big-endian, then its bytes;
* an *integer* (``0 .. 2⁶⁴-1``) is 8 bytes big-endian;
* the *tag* is the byte string ``b"lcnet/v1/" + purpose`` (ASCII), always
  the first field.

The hash of a purpose and fields is BLAKE2b (RFC 7693, no key, salt or
personalisation) of the concatenated encodings, with the digest length set
to 32 bytes (or 64 bytes for scalars). A scalar is the 64-byte digest read
little-endian and reduced mod ``L``; the last field of a scalar derivation
is a counter, 0 first, and a zero scalar is re-derived with the next counter.

Nothing here does I/O or keeps state; the secrets come from the caller.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Callable, Iterator
from typing import Final

from lcnet.deck import group

TAG_PREFIX: Final = b"lcnet/v1/"
"""Starts every tag; a new protocol version changes it, so old and new hashes never collide."""

DIGEST_SIZE: Final = 32
"""Bytes in a seed, commitment, chain hash or game id: 128-bit collision resistance."""

WIDE_DIGEST_SIZE: Final = group.WIDE_SCALAR_SIZE
"""Bytes of digest reduced into one scalar (64, so the bias mod L is about 2⁻²⁵⁹)."""

FINGERPRINT_SIZE: Final = 8
"""Bytes of a key fingerprint: 16 hex digits are still easy to read aloud."""

MAX_FIELD_SIZE: Final = 2**32 - 1
"""The longest byte-string field: its length must fit the 4-byte prefix."""

MAX_INTEGER: Final = 2**64 - 1
"""The largest integer field: integers are encoded in 8 bytes."""

PERMUTATION_WORD_SIZE: Final = 4
"""Bytes per random word drawn while shuffling: 32 bits, far above any deck size."""

MAX_PERMUTATION_SIZE: Final = 2**16
"""Largest permutation: keeps the rejection rate of a 32-bit word below 2⁻¹⁶."""


class Purpose(enum.Enum):
    """Why a hash is computed; the value is the purpose part of its tag."""

    CARD = "card"
    ROUND_SEED = "round-seed"
    COMMIT = "commit"
    PERMUTATION = "permutation"
    GLOBAL_SCALAR = "global-scalar"
    POSITION_SCALAR = "position-scalar"
    COIN_NONCE = "coin-nonce"
    COIN_COMMIT = "coin-commit"
    COIN = "coin"
    CHAIN = "chain"
    GAME_ID = "game-id"
    FINGERPRINT = "fingerprint"

    @property
    def tag(self) -> bytes:
        """The tag bytes (before their length prefix)."""
        return TAG_PREFIX + self.value.encode("ascii")


Field = bytes | int


def encode_bytes(data: bytes) -> bytes:
    """A byte-string field: 4-byte big-endian length, then the bytes."""
    if len(data) > MAX_FIELD_SIZE:
        raise ValueError(f"a hashed field holds at most {MAX_FIELD_SIZE} bytes")
    return len(data).to_bytes(4, "big") + data


def encode_int(value: int) -> bytes:
    """An integer field: 8 bytes big-endian, unsigned."""
    if isinstance(value, bool) or not 0 <= value <= MAX_INTEGER:
        raise ValueError(f"a hashed integer is in 0 .. 2**64-1, not {value!r}")
    return value.to_bytes(8, "big")


def encode(purpose: Purpose, *fields: Field) -> bytes:
    """The exact bytes hashed for ``purpose`` and ``fields``: the tag, then each field."""
    parts = [encode_bytes(purpose.tag)]
    for item in fields:
        if isinstance(item, bytes):
            parts.append(encode_bytes(item))
        elif isinstance(item, int):
            parts.append(encode_int(item))
        else:
            raise TypeError(f"a hashed field is bytes or int, not {type(item).__name__}")
    return b"".join(parts)


def digest(purpose: Purpose, *fields: Field, size: int = DIGEST_SIZE) -> bytes:
    """BLAKE2b with a ``size``-byte output of the encoded purpose and fields."""
    return hashlib.blake2b(encode(purpose, *fields), digest_size=size).digest()


def derive_scalar(purpose: Purpose, *fields: Field) -> bytes:
    """A non-zero scalar: ``H64(purpose, *fields, counter) mod L``, first non-zero counter."""
    return nonzero_scalar(lambda counter: digest(purpose, *fields, counter, size=WIDE_DIGEST_SIZE))


def nonzero_scalar(wide_digest: Callable[[int], bytes]) -> bytes:
    """The first non-zero reduction of ``wide_digest(0)``, ``wide_digest(1)``, …

    A zero happens with probability about 2⁻²⁵²; the counter makes the rule
    total, so two implementations never disagree on what comes next.
    """
    counter = 0
    while True:
        scalar = group.reduce_scalar(wide_digest(counter))
        if any(scalar):
            return scalar
        counter += 1


# --- the masked deck ---------------------------------------------------------


def card_uniform(suit: int, rank: int, copy: int) -> bytes:
    """The 32 bytes mapped to a card's point: ``H32("card", suit, rank, copy)``.

    ``rank`` is 0 for a wager (copies 1–3) and 2..10 for number cards (copy 1),
    as in :class:`lcnet.game.cards.Card`.
    """
    return digest(Purpose.CARD, suit, rank, copy)


def round_seed(master_secret: bytes, game_id: bytes, round_number: int) -> bytes:
    """A side's seed for one round: ``H32("round-seed", master, game_id, round)``."""
    return digest(Purpose.ROUND_SEED, master_secret, game_id, round_number)


def seed_commitment(game_id: bytes, round_number: int, seat: int, seed: bytes) -> bytes:
    """A side's seed commitment: ``H32("commit", game_id, round, seat, seed)``."""
    return digest(Purpose.COMMIT, game_id, round_number, seat, seed)


def permutation(seed: bytes, size: int) -> tuple[int, ...]:
    """The shuffle a seed gives for ``size`` items: Fisher–Yates, unbiased.

    Start from ``[0, 1, …, size-1]``; for ``i`` from ``size-1`` down to 1,
    draw ``j`` uniform in ``0..i`` and swap items ``i`` and ``j``. The result
    ``perm`` means: output position ``i`` takes input item ``perm[i]``.
    """
    if not 1 <= size <= MAX_PERMUTATION_SIZE:
        raise ValueError(f"a permutation has 1 .. {MAX_PERMUTATION_SIZE} items, not {size}")
    words = permutation_words(seed, size)
    items = list(range(size))
    for i in range(size - 1, 0, -1):
        j = uniform_below(i + 1, words)
        items[i], items[j] = items[j], items[i]
    return tuple(items)


def permutation_words(seed: bytes, size: int) -> Iterator[int]:
    """The random words a shuffle draws from, in order.

    The byte stream is ``H64("permutation", seed, size, 0) ‖ H64(…, 1) ‖ …``,
    cut into 4-byte big-endian unsigned words.
    """
    block = 0
    while True:
        data = digest(Purpose.PERMUTATION, seed, size, block, size=WIDE_DIGEST_SIZE)
        for start in range(0, len(data), PERMUTATION_WORD_SIZE):
            yield int.from_bytes(data[start : start + PERMUTATION_WORD_SIZE], "big")
        block += 1


def uniform_below(bound: int, words: Iterator[int]) -> int:
    """A uniform integer in ``0 .. bound-1`` by rejection sampling 32-bit words.

    Words at or above ``limit``, the largest multiple of ``bound`` not above
    2³², are skipped, so every residue is equally likely.
    """
    span = 1 << (8 * PERMUTATION_WORD_SIZE)
    limit = span - span % bound
    for word in words:
        if word < limit:
            return word % bound
    raise AssertionError("the word stream of a permutation never ends")


def global_scalar(seed: bytes) -> bytes:
    """The scalar ``g`` a side shuffles with: ``H64("global-scalar", seed, counter) mod L``."""
    return derive_scalar(Purpose.GLOBAL_SCALAR, seed)


def position_scalar(seed: bytes, position: int) -> bytes:
    """The key ``k_i`` of a deck position: ``H64("position-scalar", seed, i, counter) mod L``."""
    return derive_scalar(Purpose.POSITION_SCALAR, seed, position)


# --- the coin ----------------------------------------------------------------


def coin_nonce(master_secret: bytes) -> bytes:
    """A side's coin nonce, derived from its master secret: ``H32("coin-nonce", master)``.

    Derived rather than drawn so that a peer restarting from its log and its
    master secret reveals the very nonce it committed to.
    """
    return digest(Purpose.COIN_NONCE, master_secret)


def coin_commitment(nonce: bytes) -> bytes:
    """The joiner's commitment to its coin nonce: ``H32("coin-commit", nonce)``."""
    return digest(Purpose.COIN_COMMIT, nonce)


def coin_bit(game_id: bytes, joiner_nonce: bytes, host_nonce: bytes) -> int:
    """The coin: low bit of the first byte of ``H32("coin", game_id, joiner_nonce, host_nonce)``."""
    return digest(Purpose.COIN, game_id, joiner_nonce, host_nonce)[0] & 1


# --- transcript and identity -------------------------------------------------


def chain_hash(frame: bytes) -> bytes:
    """What the next message quotes as ``prev``: ``H32("chain", frame)`` of the exact bytes."""
    return digest(Purpose.CHAIN, frame)


def game_id(first_frame: bytes) -> bytes:
    """A match's id: ``H32("game-id", first_frame)`` of the exact bytes of its first frame."""
    return digest(Purpose.GAME_ID, first_frame)


def fingerprint_digest(public_key: bytes) -> bytes:
    """The bytes a key fingerprint shows: the first 8 bytes of ``H32("fingerprint", key)``."""
    return digest(Purpose.FINGERPRINT, public_key)[:FINGERPRINT_SIZE]


FINGERPRINT_GROUP: Final = 4
"""Hex digits per group of a fingerprint, the size people read aloud comfortably."""


def fingerprint(public_key: bytes) -> str:
    """A public key's fingerprint: 16 upper-case hex digits in groups of 4, ``3F2A-9C1B-…``."""
    text = fingerprint_digest(public_key).hex().upper()
    return "-".join(text[i : i + FINGERPRINT_GROUP] for i in range(0, len(text), FINGERPRINT_GROUP))

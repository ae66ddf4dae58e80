"""Masked-deck costs: a round's deal on both sides, the reveal check, signatures.

    python bench/deal.py [--repeat N]

Prints one figure per line as ``name: value unit``. The multiplications of
a pass are spread over the CPUs (``lcnet.run.threads``, as the command line does), so the times
depend on the number of cores as well as on their speed:

* ``deal_both_sides_<n>``: one round's deck work for host and joiner together
  (seed derivations, four passes, the check of every received pass, both
  hands dealt and opened), median of N rounds (default 15), then the fastest;
* ``deal_both_sides_<n>_cost``: the same in units of one scalar
  multiplication (on one thread) timed just before and after each round, a
  figure that drifts less with the machine's load: multiply by the cost of
  one multiplication on an idle core to predict the time there (with as
  many cores as here);
* ``reveal_check_<seat>_<n>``: one side checking the other's revealed seed
  (commitment, its keys, its two passes); ``audit_round_<n>``: a third party
  re-checking all four passes from both seeds;
* ``deal_floor_<n>``: the libsodium work the deal cannot avoid, on one
  core, from the per-operation costs measured just before: (4n + 16) scalar
  multiplications and n validity checks (the pass the host only opens
  position by position); ``reveal_check_floor_<n>``: 2n multiplications;
* Ed25519 sign and verify rates, and the raw cost of one scalar
  multiplication, validity check, inversion and card-point mapping.

The card table is built before timing: it is built once per process.
Default run: about 5 seconds.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import nacl.bindings
from nacl.signing import SigningKey

from lcnet.deck import group, hashing
from lcnet.deck.deal import (
    HAND_SIZE,
    RevealedKey,
    Seat,
    audit_round,
    card_table,
    hand_positions,
    pass_author,
)
from lcnet.deck.rounddeal import RoundDeal
from lcnet.run import threads

GAME_ID = hashing.game_id(b"bench/deal.py")
QUICK_MULTS = 40
"""Multiplications timed around each deal to express it in multiplications."""

SIGNED_MESSAGE_SIZE = 256
"""Bytes per signed message: about a MOVE or ACK body with its envelope."""


def timed(repeat: int, step: Callable[[], object]) -> tuple[float, float]:
    """(median, fastest) seconds of ``repeat`` calls of ``step``."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        step()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), min(samples)


def per_call(calls: int, step: Callable[[], object]) -> float:
    """Seconds per call of ``step``, best of 5 batches (the least disturbed)."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            step()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def deal_round(suit_count: int, round_number: int) -> tuple[RoundDeal, RoundDeal]:
    """Everything both sides do for one round's deal, in protocol order."""
    sides = {
        seat: RoundDeal.from_master(
            seat=seat,
            suit_count=suit_count,
            game_id=GAME_ID,
            round_number=round_number,
            master_secret=bytes([seat + 1]) * 32,
        )
        for seat in Seat
    }
    host, joiner = sides[Seat.HOST], sides[Seat.JOINER]
    host.receive_commitment(joiner.commitment)
    joiner.receive_commitment(host.commitment)
    for number in range(1, 5):
        made = sides[pass_author(number)].make_pass()
        sides[pass_author(number).other].receive_pass(number, made.points)
    host.open_hand(joiner.dealing_keys())
    joiner.open_hand(host.dealing_keys())
    return host, joiner


def reveal_check_time(suit_count: int, checker: Seat) -> float:
    """Seconds ``checker`` spends checking the other side's seed after a dealt round."""
    sides = dict(zip(Seat, deal_round(suit_count, 1), strict=True))
    seed = sides[checker.other].reveal_seed()
    start = time.perf_counter()
    sides[checker].verify_reveal(seed)
    return time.perf_counter() - start


def primitive_costs() -> tuple[float, float]:
    """Seconds per scalar multiplication and per validity check, measured now."""
    point = card_table(5).points[0]
    scalar = hashing.global_scalar(b"bench")
    mult = per_call(300, lambda: nacl.bindings.crypto_scalarmult_ed25519_noclamp(scalar, point))
    check = per_call(300, lambda: nacl.bindings.crypto_core_ed25519_is_valid_point(point))
    return mult, check


def quick_mult_cost() -> float:
    """Seconds per scalar multiplication over a short burst (about 5 ms)."""
    point = card_table(5).points[0]
    scalar = hashing.global_scalar(b"bench")
    start = time.perf_counter()
    for _ in range(QUICK_MULTS):
        nacl.bindings.crypto_scalarmult_ed25519_noclamp(scalar, point)
    return (time.perf_counter() - start) / QUICK_MULTS


def bench_deck(suit_count: int, repeat: int) -> None:
    size = card_table(suit_count).size
    # Measured right before the deal so that both see the same machine state:
    # on a shared machine the cost of one multiplication drifts by tens of percent.
    mult, check = primitive_costs()
    times, ratios = [], []
    for round_number in range(1, repeat + 1):
        before = quick_mult_cost()
        start = time.perf_counter()
        deal_round(suit_count, round_number)
        elapsed = time.perf_counter() - start
        times.append(elapsed)
        ratios.append(elapsed / ((before + quick_mult_cost()) / 2))
    median, best = statistics.median(times), min(times)
    floor = (4 * size + 2 * HAND_SIZE) * mult + size * check
    print(f"deal_both_sides_{size}: {median * 1e3:.1f} ms (fastest {best * 1e3:.1f} ms)")
    print(f"deal_both_sides_{size}_cost: {statistics.median(ratios):.0f} scalar mults")
    print(f"deal_floor_{size}: {floor * 1e3:.1f} ms (scalar mult {mult * 1e6:.0f} us)")
    floor_mults = 4 * size + 2 * HAND_SIZE + size * check / mult
    print(f"deal_floor_{size}_cost: {floor_mults:.0f} scalar mults")

    for checker in Seat:
        times = [reveal_check_time(suit_count, checker) for _ in range(max(3, repeat // 3))]
        print(
            f"reveal_check_{checker}_{size}: {statistics.median(times) * 1e3:.1f} ms "
            f"(fastest {min(times) * 1e3:.1f} ms)"
        )
    print(f"reveal_check_floor_{size}: {2 * size * mult * 1e3:.1f} ms")

    host, joiner = deal_round(suit_count, 1)
    keys = [
        RevealedKey(Seat.JOINER, p, k)
        for p, k in zip(hand_positions(Seat.HOST), joiner.dealing_keys(), strict=True)
    ] + [
        RevealedKey(Seat.HOST, p, k)
        for p, k in zip(hand_positions(Seat.JOINER), host.dealing_keys(), strict=True)
    ]

    def audit() -> None:
        audit_round(
            suit_count=suit_count,
            game_id=GAME_ID,
            round_number=1,
            commitments=[host.commitment, joiner.commitment],
            seeds=[host.reveal_seed(), joiner.reveal_seed()],
            passes=host.passes,
            revealed_keys=keys,
        )

    median, best = timed(max(3, repeat // 3), audit)
    print(f"audit_round_{size}: {median * 1e3:.1f} ms (fastest {best * 1e3:.1f} ms)")


def bench_primitives() -> None:
    scalar = hashing.global_scalar(b"bench")
    mult, check = primitive_costs()
    invert = per_call(300, lambda: group.scalar_invert(scalar))
    mapping = per_call(300, lambda: group.from_uniform(scalar))
    print(f"scalar_mult: {mult * 1e6:.0f} us")
    print(f"point_validity_check: {check * 1e6:.0f} us")
    print(f"scalar_invert: {invert * 1e6:.0f} us")
    print(f"card_point_from_uniform: {mapping * 1e6:.0f} us")

    key = SigningKey(bytes(32))
    message = bytes(SIGNED_MESSAGE_SIZE)
    signed = key.sign(message)
    sign = per_call(500, lambda: key.sign(message))
    verify = per_call(500, lambda: key.verify_key.verify(signed))
    print(f"ed25519_sign_rate: {1 / sign:.0f} messages/s")
    print(f"ed25519_verify_rate: {1 / verify:.0f} messages/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="rounds per deal figure")
    args = parser.parse_args()
    threads.install()  # as the command line does: batches over the CPUs
    for suit_count in (5, 6):
        card_table(suit_count)
        bench_deck(suit_count, args.repeat)
    bench_primitives()


if __name__ == "__main__":
    main()

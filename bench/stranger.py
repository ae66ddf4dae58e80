"""A stranger at the socket, at length: raw ZMTP against host, joiner and spectator.

    python bench/stranger.py [--seed S] [--campaigns N] [--actions A] [--burst B]
                             [--timeout T]

Each campaign runs, in child processes on 127.0.0.1 (tests/zmtp.py):

* a seeded stranger's A actions (connect/close churn, resets, half-open
  connections, unread floods, floods of every message kind, oversized and
  malformed frames, bad greetings; B messages a flood, about) against an idle
  ``lcnet host``, which then plays a whole match with an honest bot joiner;
* the same against a host while it plays a bot joiner (hellos included);
* a hostile listener against ``lcnet join`` and ``lcnet watch``, each told
  to give up after T seconds without an answer.

It prints one figure a line: connections, messages and bytes sent, crashes
(an exit by a signal, a traceback, or a target stopped at the deadline),
honest matches completed with valid files, the joiners and spectators that
ended by themselves, and the largest growth of a target's resident memory.
The default (2 campaigns) takes about a minute on an idle machine of 2
cores; ``--campaigns 20`` is the long run.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/NAME.py`: the checkout's packages
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests import zmtp


async def campaign(directory: Path, seed: int, args: argparse.Namespace) -> list[zmtp.Outcome]:
    outcomes = []
    for mid_match in (False, True):
        where = directory / ("mid" if mid_match else "idle")
        outcomes.append(
            await zmtp.against_host(
                where, seed, args.actions, mid_match=mid_match, burst=args.burst
            )
        )
    for target in ("join", "watch"):
        outcomes.append(
            await zmtp.against_dealer(
                directory / target, seed, target, args.timeout, burst=args.burst
            )
        )
    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--campaigns", type=int, default=2)
    parser.add_argument("--actions", type=int, default=60, help="stranger actions a host campaign")
    parser.add_argument("--burst", type=int, default=200, help="messages a flood, about")
    parser.add_argument("--timeout", type=float, default=4.0, help="joiner's and spectator's")
    args = parser.parse_args()
    started = time.monotonic()
    outcomes: list[zmtp.Outcome] = []
    with tempfile.TemporaryDirectory(prefix="lcnet-stranger-") as tmp:
        for n in range(args.campaigns):
            outcomes += asyncio.run(campaign(Path(tmp) / str(n), args.seed + n, args))
    total = zmtp.Tally()
    for outcome in outcomes:
        total.add(outcome.tally)
    hosts = [o for o in outcomes if "host" in o.target]
    dealers = [o for o in outcomes if "host" not in o.target]
    crashed = [o for o in outcomes if o.crashed]
    print(f"campaigns: {args.campaigns}")
    print(f"connections: {total.connections}")
    print(f"connections refused or closed by the target: {total.refused}")
    print(f"messages: {total.messages}")
    print(f"bytes sent: {total.bytes_sent / 1e6:.1f} MB")
    print(f"crashes: {len(crashed)}")
    print(f"honest matches completed: {sum(o.honest_ok for o in hosts)} of {len(hosts)}")
    ended = sum(o.honest_ok for o in dealers)
    print(f"joiners and spectators that ended by themselves: {ended} of {len(dealers)}")
    print(f"host rss growth, largest: {max(o.rss_after_kib - o.rss_before_kib for o in hosts)} KiB")
    print(f"joiner/spectator peak rss, largest: {max(o.rss_after_kib for o in dealers)} KiB")
    slowest = max(o.seconds for o in dealers)
    print(
        f"joiner/spectator longest run: {slowest:.1f} s (told to give up after {args.timeout:g} s)"
    )
    print(f"seconds: {time.monotonic() - started:.0f} s")
    for outcome in crashed:
        print(
            f"crash: {outcome.target}: exit {outcome.exit_code}: {outcome.said!r}", file=sys.stderr
        )
    for outcome in outcomes:
        if not outcome.honest_ok and not outcome.crashed:
            print(f"not completed: {outcome.target}: {outcome.said!r}", file=sys.stderr)


if __name__ == "__main__":
    main()

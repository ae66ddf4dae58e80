"""Forged announcements against the browser's parsing: the long run.

    python bench/forged_announcements.py [--answers N] [--seed S]

Makes N answers as strangers on a LAN would give them (random names, keys,
fingerprints and TXT fields, control characters, oversize values, copies of
another game's instance name, DNS messages with bytes changed on the way:
the generator of tests/net/test_forged_announcements.py), sends each through
zeroconf's encoder and decoder and the search's reading of it, and checks
each game found the way the test does:
no crash, every listing line printable and bounded, every forgery (and only
a forgery) flagged, never picked by name. No socket is opened. Prints one
figure per line:

* ``answers``: announcements made;
* ``games``: games the search made of them (the others are no lcnet game);
* ``forgeries_flagged``: games flagged forged, out of the games whose
  instance name is not their own record's label (they must be equal);
* ``failures``: announcements that crashed the reader or broke a check;
* ``answers_per_second``: the rate of the whole pipeline.

Nothing network-wide: runs anywhere in well under a minute by default.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.net.test_forged_announcements import check, own_label, random_answer  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=20_000, help="announcements to make")
    parser.add_argument("--seed", type=int, default=56, help="the generator's seed")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    games = forged = not_own = failures = 0
    start = time.perf_counter()
    for _ in range(args.answers):
        announcement = random_answer(rng)
        try:
            found = check(announcement)
        except Exception:  # a crash or a broken check: counted, the first one shown
            if failures == 0:
                traceback.print_exc(file=sys.stderr)
            failures += 1
            continue
        games += len(found)
        forged += sum(g.forged is not None for g in found)
        not_own += sum(not own_label(g.instance, g) for g in found)
    seconds = time.perf_counter() - start
    print(f"answers: {args.answers} answers")
    print(f"games: {games} games")
    print(f"forgeries_flagged: {forged} of {not_own} games")
    print(f"failures: {failures} answers")
    print(f"answers_per_second: {args.answers / seconds:.0f} answers/s")
    return 1 if failures or forged != not_own else 0


if __name__ == "__main__":
    sys.exit(main())

"""How long ``lcnet replay FILE --analyze`` takes on the sample match.

    python bench/analyze.py [--deals N] [--file REPLAY ...]

Runs the analysis ``--analyze`` runs (lcnet.review.analysis.analyze_record, the
default deals and seed 0) on each file's owner's turns, once each, in this
process, and prints per file the turns analysed, the wall seconds, the CPU
seconds (the analysis runs in one thread, so on a quiet machine the two
agree; on a busy one the CPU time is what a quiet one would take) and the
milliseconds of CPU a turn, one figure per line as ``name: value unit``.
The defaults (both players' files of the sample match) take about half a
minute on two quiet cores; the figure is for the README's promise of how
long the sample takes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lcnet.bots import advice  # noqa: E402
from lcnet.game.seat import Seat  # noqa: E402
from lcnet.review import analysis, positions  # noqa: E402
from lcnet.store.replayfile import read_replay  # noqa: E402

SAMPLES = [ROOT / "replays" / f"sample-complete-{seat}.lcnet" for seat in ("host", "joiner")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=advice.ANALYSIS_DEALS)
    parser.add_argument("--file", type=Path, nargs="+", default=SAMPLES)
    args = parser.parse_args()
    print(f"deals: {args.deals} per turn")
    for path in args.file:
        contents = read_replay(path)
        record = positions.load_contents(contents)
        seat = Seat[contents.header.seat.upper()]
        start, cpu = time.perf_counter(), time.process_time()
        result = analysis.analyze_record(record, seat, deals=args.deals)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        name = path.stem.replace("-", "_")
        turns = len(result.turns)
        print(f"{name}_turns: {turns} turns")
        print(f"{name}_seconds: {seconds:.2f} s")
        print(f"{name}_cpu_seconds: {cpu:.2f} s")
        print(f"{name}_cpu_per_turn: {1000 * cpu / turns:.0f} ms")


if __name__ == "__main__":
    main()

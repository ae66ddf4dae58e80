"""How long ``lcnet`` takes to start: each command as a fresh process.

    python bench/startup.py [--runs N] [--file REPLAY]

Runs bare ``python -c pass`` and ``python -m lcnet --help``, ``--version``
and ``audit FILE`` (this checkout's lcnet, with the same interpreter), each
``--runs`` times, interleaved so that a change in the machine's load falls
on all of them alike. Prints the median wall time of each, and of each
command how much it takes above bare Python, one figure per line as
``name: value unit``. The audit line includes the audit of the file itself
(a sealed 3-round match by default), so it is a ceiling, not a start-up.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "replays" / "sample-complete-host.lcnet"


def commands(replay: Path) -> dict[str, list[str]]:
    python = [sys.executable]
    lcnet = [*python, "-m", "lcnet"]
    return {
        "python_bare": [*python, "-c", "pass"],
        "lcnet_help": [*lcnet, "--help"],
        "lcnet_version": [*lcnet, "--version"],
        "lcnet_audit": [*lcnet, "audit", str(replay)],
    }


def wall_time(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 3):  # audit: 0 valid, 3 incomplete
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.decode()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="runs of each command (default 20)")
    parser.add_argument("--file", type=Path, default=SAMPLE, help="the replay file to audit")
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT))  # this checkout, not an installed lcnet
    argvs = commands(args.file)
    times: dict[str, list[float]] = {name: [] for name in argvs}
    for argv in argvs.values():
        wall_time(argv, env)  # warm the file cache and the .pyc files
    for _ in range(args.runs):
        for name, argv in argvs.items():
            times[name].append(wall_time(argv, env))
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    bare = medians["python_bare"]
    for name, value in medians.items():
        print(f"{name}: {value:.1f} ms")
    for name, value in medians.items():
        if name != "python_bare":
            print(f"{name}_above_bare: {value - bare:.1f} ms")


if __name__ == "__main__":
    main()

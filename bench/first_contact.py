"""How long first contact takes to fail when nothing listens at the address.

    python bench/first_contact.py [--runs N]

Runs ``lcnet join 127.0.0.1:PORT`` (a new process, as a player types it)
against a port nothing listens on (bound by the system and closed again),
N times, and prints the median and the slowest wall time from the start of
the process to its exit with the error, and the same for the refusal alone
inside one process (no interpreter start, no identity loading)::

    join_refused: 0.45 s
    join_refused_max: 0.52 s
    refusal_in_process: 0.3 ms

Everything stays on 127.0.0.1; each run gets its own temporary LCNET_HOME.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LOOPBACK = "127.0.0.1"
EXPECTED = "nothing is listening at"


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        port: int = probe.getsockname()[1]
    return port


def one_join(home: Path) -> float:
    env = dict(os.environ, LCNET_HOME=str(home))
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "lcnet", "join", f"{LOOPBACK}:{closed_port()}"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        cwd=home,
        timeout=120,
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 1 or done.stderr.count(EXPECTED) != 1:
        raise SystemExit(f"unexpected result ({done.returncode}): {done.stderr!r}")
    return elapsed


def in_process(runs: int) -> float:
    from lcnet.errors import NetError
    from lcnet.net.addresses import probe_listener

    async def once() -> float:
        port = closed_port()
        started = time.perf_counter()
        try:
            await probe_listener(LOOPBACK, port, 30.0)
        except NetError:
            return time.perf_counter() - started
        raise SystemExit("something listens on the closed port")

    return statistics.median(asyncio.run(once()) for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        times = []
        for run in range(args.runs):
            home = Path(tmp) / f"home{run}"
            home.mkdir(mode=0o700)
            times.append(one_join(home))
    print(f"join_refused: {statistics.median(times):.2f} s")
    print(f"join_refused_max: {max(times):.2f} s")
    print(f"refusal_in_process: {in_process(args.runs) * 1000:.1f} ms")


if __name__ == "__main__":
    main()

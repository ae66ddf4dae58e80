"""How long ``lcnet`` takes to start: each command as a fresh process.

    python bench/startup.py [--runs N] [--file REPLAY]

Runs bare ``python -c pass``, the floor of a host or joiner (Python with
the libraries every match imports: asyncio, pyzmq, PyNaCl, msgpack), and
``python -m lcnet --help``, ``--version``, ``audit FILE`` and ``host`` (this
checkout's lcnet, with the same interpreter), each ``--runs`` times,
interleaved so that a change in the machine's load falls on all of them
alike. ``host`` is timed from its start to its "waiting for an opponent"
line (on 127.0.0.1, an OS-chosen port, not announced; then stopped by its
pid): what a player waits for. Prints the median wall time of each, and of
each command how much it takes above bare Python, one figure per line as
``name: value unit``. The audit line includes the audit of the file itself
(a sealed 3-round match by default), so it is a ceiling, not a start-up.

Bytecode is cached as an installed package's is: where the machine forbids
bytecode files (PYTHONDONTWRITEBYTECODE), in a temporary folder instead.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "replays" / "sample-complete-host.lcnet"
FLOOR = "import asyncio, zmq.asyncio, nacl.signing, msgpack"
"""What every host and joiner imports beside lcnet: its start cannot be faster."""
READY = b"waiting for an opponent"


def commands(replay: Path) -> dict[str, list[str]]:
    python = [sys.executable]
    lcnet = [*python, "-m", "lcnet"]
    return {
        "python_bare": [*python, "-c", "pass"],
        "python_floor": [*python, "-c", FLOOR],
        "lcnet_help": [*lcnet, "--help"],
        "lcnet_version": [*lcnet, "--version"],
        "lcnet_audit": [*lcnet, "audit", str(replay)],
        "lcnet_host_ready": [
            *lcnet,
            "host",
            *("--bind", "127.0.0.1", "--port", "0", "--no-announce", "--name", "Ada"),
        ],
    }


def ready_time(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from the start of ``argv`` to its "waiting" line; then stopped by its pid."""
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [*argv, "--replays", os.path.join(folder, "replays")],
            env=dict(env, LCNET_HOME=folder),
            stdin=subprocess.PIPE,  # open and silent: a player in line mode, thinking
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                if READY in line:
                    return time.perf_counter() - start
            raise SystemExit(f"{' '.join(argv)} ended ({proc.wait()}) before it waited")
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def wall_time(argv: list[str], env: dict[str, str]) -> float:
    if "host" in argv:
        return ready_time(argv, env)
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
    if env.pop("PYTHONDONTWRITEBYTECODE", None):
        # As an installed package has its bytecode: cached (here, for this run).
        env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="lcnet-bench-pycache-")
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

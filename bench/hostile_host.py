"""`lcnet watch` against a hostile host: crashes, run time, file size, memory.

    python bench/hostile_host.py [--runs N] [--seed S] [--timeout T]

Run i starts a hostile host (tests/hostile_host.py: a real ROUTER on
127.0.0.1 that lies with real signed frames, in the way seed S + i draws
among its kinds: bad signatures, reordering, lies in ``sync``, evidence
first, evidence floods, silence, stalls, a drip of useless messages,
malformed and oversized messages, frames after the end, ``busy``) and runs
``lcnet watch 127.0.0.1:PORT --timeout T`` against it as a separate process,
then checks the spectator's property (tests/hostile_host.py, ``check``):
no crash (no traceback, an exit status ``lcnet watch --help`` lists), an
end within the timeout plus a bound, a bounded file whose audit is the
verdict printed and whose exit status it is, no honest player blamed,
nothing unescaped printed. Any one run is reproduced with ``--runs 1
--seed S+i``.

Prints one figure per line as ``name: value unit``: runs, crashes, runs
that broke the property, the longest run past its timeout, the largest
file, the largest resident memory of a spectator. The defaults (one run of
each kind) take about 40 s on two cores.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    from tests import hostile_host
except ImportError:  # run as a script from anywhere: the checkout's tests package
    sys.path.append(str(Path(__file__).resolve().parent.parent))
    from tests import hostile_host

from lcnet.audit import verdict as audit
from lcnet.cli.watch import EXIT_CODES
from lcnet.errors import ExitCode
from lcnet.textsafe import shown
from lcnet.watch.spectator import AFTER_FAULT_FRAMES, MAX_EVIDENCE

DEADLINE_EXTRA = 60.0
"""Seconds past the timeout after which a spectator is stopped (and counted as a hang)."""


def _spectate(port: int, timeout: float, home: Path) -> tuple[int, float, float, int, str, str]:
    """``lcnet watch`` as a child: its status, when it started and ended
    (wall clock, as file times are), max RSS (KiB), stdout, stderr."""
    env = dict(os.environ, LCNET_HOME=str(home / "home"))
    out_path, err_path = home / "out", home / "err"
    started = time.time()
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "lcnet",
                "watch",
                f"{hostile_host.LOOPBACK}:{port}",
                "--timeout",
                f"{timeout:g}",
                "--replays",
                str(home / "replays"),
            ],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=env,
        )
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.time() - started > timeout + DEADLINE_EXTRA:
                os.kill(proc.pid, signal.SIGKILL)
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    return (
        proc.returncode,
        started,
        time.time(),
        usage.ru_maxrss,
        out_path.read_text(errors="replace"),
        err_path.read_text(errors="replace"),
    )


def one_run(seed: int, timeout: float) -> tuple[hostile_host.Run, list[str], int, int, float]:
    """Run ``seed``: the run, what it broke, its file's bytes, the spectator's max
    RSS (KiB), and how long it ran after it last kept a frame (its file's
    time; its start if it kept none), less its timeout."""
    scenario = hostile_host.scenario_for(seed, hostile_host.play)
    with tempfile.TemporaryDirectory(prefix="lcnet-hostile-") as tmp:
        home = Path(tmp)
        with hostile_host.HostileHost(scenario) as host:
            code, started, ended, rss, out, err = _spectate(host.port, timeout, home)
        seconds = ended - started
        files = sorted((home / "replays").glob("*.lcnet"))
        path = files[0] if files else None
        past = ended - (path.stat().st_mtime if path is not None else started) - timeout
        verdict = audit.audit_file(path) if path is not None else None
        crashed = None
        if "Traceback" in err or code not in EXIT_CODES:
            crashed = f"exit status {code}: {err.strip().splitlines()[-1:] or ''}"
        run = hostile_host.Run(
            scenario=scenario.name,
            seconds=seconds,
            timeout=timeout,
            verdict=verdict,
            path=path,
            lines=(out + err).splitlines(),
            crashed=crashed,
            exit_code=code,
        )
        problems = hostile_host.check(
            run, scenario.match, max_evidence=MAX_EVIDENCE, after_end=AFTER_FAULT_FRAMES
        )
        if crashed is None and verdict is not None and code != ExitCode.REFUSED:
            if shown(verdict.summary) not in out.splitlines():
                problems.append("the verdict printed is not the file's")
            if code != verdict.exit_code:
                problems.append(f"exit status {code} for the file's verdict {verdict.exit_code}")
        size = path.stat().st_size if path is not None else 0
    return run, problems, size, rss, past


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=len(hostile_host.SCENARIOS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=2.0)
    parser.add_argument("--verbose", action="store_true", help="one line a run, on stderr")
    args = parser.parse_args()
    crashes = broken = 0
    worst_over = -float("inf")
    max_bytes = max_rss = 0
    max_seconds = 0.0
    kinds: set[str] = set()
    for i in range(args.runs):
        seed = args.seed + i
        run, problems, size, rss, past = one_run(seed, args.timeout)
        kinds.add(run.scenario)
        crashes += run.crashed is not None
        broken += bool(problems)
        worst_over = max(worst_over, past)
        max_bytes = max(max_bytes, size)
        max_seconds = max(max_seconds, run.seconds)
        max_rss = max(max_rss, rss)
        if args.verbose:
            print(
                f"seed {seed} ({run.scenario}): exit {run.exit_code}, {run.seconds:.2f} s "
                f"({past:+.2f} s past the timeout after its last frame), "
                f"{size} bytes, {rss / 1024:.1f} MiB",
                file=sys.stderr,
            )
        for problem in problems:
            print(f"seed {seed} ({run.scenario}): {problem}", file=sys.stderr)
    print(f"runs: {args.runs} spectators ({len(kinds)} kinds of hostile host)")
    print(f"crashes: {crashes} runs")
    print(f"property_broken: {broken} runs")
    print(f"timeout: {args.timeout:g} s")
    print(f"max_run_time: {max_seconds:.2f} s")
    print(f"max_end_past_timeout_after_last_frame: {worst_over:.2f} s (start-up included)")
    print(f"max_file: {max_bytes} bytes")
    print(f"max_rss: {max_rss / 1024:.1f} MiB")


if __name__ == "__main__":
    main()

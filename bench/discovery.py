"""Finding a game on the LAN: how long `lcnet games` takes to see a host.

    python bench/discovery.py [--runs N]        (as root: it makes network namespaces)

Builds two network namespaces joined by a veth pair (tests/netns.py), runs
``lcnet host --bot random`` bound to 10.77.0.1 in one and searches from the
other, so every packet stays on the pair. Prints one figure per line:

* ``games_found``: from the start of a search (a fresh mDNS cache, as in a
  new ``lcnet games``) to the moment the game is resolved (name, key,
  address, options), with the host already announced — median and slowest
  of N searches;
* ``games_found_host_just_started``: the same, but the search starts the
  moment a fresh host says it listens (so it includes the host's probing
  of its name) — median and slowest of N hosts;
* ``games_command_wall``: the whole ``lcnet games`` command with its default
  listening time (process start included), and how many of the N runs
  listed the game.

Not root, or no ``ip``: says why and prints nothing else.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lcnet.net import discovery  # noqa: E402
from tests.netns import ADDRESS_A, Lan, NamespacesUnavailable, two_namespaces  # noqa: E402


async def search_until_found(limit: float) -> float | None:
    """Seconds from the start of a search to the first game resolved (None: none in ``limit``)."""
    start = time.perf_counter()
    found = asyncio.Event()
    search = asyncio.create_task(discovery.find_games(limit, on_found=lambda _: found.set()))
    waiter = asyncio.create_task(found.wait())
    await asyncio.wait({search, waiter}, return_when=asyncio.FIRST_COMPLETED)
    elapsed = time.perf_counter() - start
    waiter.cancel()
    search.cancel()
    for task in (search, waiter):
        with contextlib.suppress(asyncio.CancelledError, discovery.NoGamesFound):
            await task
    return elapsed if found.is_set() else None


def inner(limit: float) -> None:
    """Run inside the searching namespace: print the seconds to the first game."""
    elapsed = asyncio.run(search_until_found(limit))
    print("none" if elapsed is None else f"{elapsed:.4f}", flush=True)


def env_for(home: Path) -> dict[str, str]:
    env = dict(os.environ, LCNET_HOME=str(home))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def start_host(lan: Lan, directory: Path) -> subprocess.Popen[str]:
    args = ["host", "--bot", "random", "--bind", ADDRESS_A, "--port", "0"]
    args += ["--replays", str(directory / "replays")]
    proc = subprocess.Popen(
        [*Lan.exec_in(lan.a), sys.executable, "-m", "lcnet", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env_for(directory / "home"),
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if "announcing the game" in line:
            return proc
    raise SystemExit(f"the host did not announce (exit {proc.wait()})")


def stop_host(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def search(lan: Lan, home: Path, limit: float) -> float | None:
    result = subprocess.run(
        [*Lan.exec_in(lan.b), sys.executable, __file__, "--inner", str(limit)],
        capture_output=True,
        text=True,
        env=env_for(home),
        timeout=limit + 60,
    )
    text = result.stdout.strip()
    if result.returncode != 0 or not text:
        raise SystemExit(f"the search failed: {result.stderr.strip()[-500:]}")
    return None if text == "none" else float(text)


def line(name: str, samples: list[float | None]) -> str:
    seen = [s for s in samples if s is not None]
    if not seen:
        return f"{name}: none found in {len(samples)} runs"
    return (
        f"{name}: {statistics.median(seen):.2f} s (slowest {max(seen):.2f} s, "
        f"found in {len(seen)} of {len(samples)} runs)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--inner", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner is not None:
        inner(args.inner)
        return
    try:
        with two_namespaces() as lan, tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            host = start_host(lan, work / "host")
            try:
                # The host's probing and first announcements are over after ~2 s;
                # the searches then see the steady state.
                search(lan, work / "warm", 5.0)
                warm = [search(lan, work / f"s{i}", 5.0) for i in range(args.runs)]
                walls: list[float | None] = []
                for i in range(args.runs):
                    start = time.perf_counter()
                    result = subprocess.run(
                        [*Lan.exec_in(lan.b), sys.executable, "-m", "lcnet", "games"],
                        capture_output=True,
                        text=True,
                        env=env_for(work / f"g{i}"),
                        timeout=60,
                    )
                    wall = time.perf_counter() - start
                    walls.append(wall if result.returncode == 0 else None)
            finally:
                stop_host(host)
            fresh: list[float | None] = []
            for i in range(args.runs):
                host = start_host(lan, work / f"host{i}")
                try:
                    fresh.append(search(lan, work / f"f{i}", 10.0))
                finally:
                    stop_host(host)
    except NamespacesUnavailable as exc:
        print(f"bench/discovery.py needs network namespaces: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    print(line("games_found", warm))
    print(line("games_found_host_just_started", fresh))
    print(line("games_command_wall", walls))


if __name__ == "__main__":
    main()

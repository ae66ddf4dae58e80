"""A LAN evening across three machines (network namespaces), as issue 57 tells
it: a host killed mid-match with two spectators watching, the spectators
told within seconds, the host resumed and the match finished, a rematch the
spectators follow into files of their own; a line said by a player, seen on
both players' screens and by a spectator; a bad option refused before any
socket or file. Every program is a real ``lcnet`` process with its own
identity; traffic stays on the namespaces' veth pairs.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

import pytest

from lcnet.audit import verdict as audit
from lcnet.errors import ExitCode
from lcnet.store.replayfile import read_replay
from tests.net.test_lan import spawn_in
from tests.netns import ADDRESS_A, Lan, Lan3
from tests.netutil import (
    DEADLINE,
    HOST_TIMING_ARGS,
    TIMING_ARGS,
    finish,
    spawn_listening,
    stop,
)

pytestmark = pytest.mark.timeout(300)


async def _listening(
    lan: Lan3, args: list[str], directory: Path
) -> tuple[asyncio.subprocess.Process, int]:
    return await spawn_listening(args, directory / "home", directory, prefix=Lan.exec_in(lan.a))


class Lines:
    """A process's standard output, read line by line as it comes."""

    def __init__(self, proc: asyncio.subprocess.Process, *, stderr: bool = False) -> None:
        self.proc = proc
        self.lines: list[str] = []
        stream = proc.stderr if stderr else proc.stdout
        assert stream is not None
        self._task = asyncio.ensure_future(self._read(stream))

    async def _read(self, stream: asyncio.StreamReader) -> None:
        while raw := await stream.readline():
            self.lines.append(raw.decode(errors="replace").rstrip("\n"))

    async def stop_reading(self) -> None:
        """Leave the rest of the stream to another reader (``finish``)."""
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def wait_for(self, needle: str) -> None:
        async with asyncio.timeout(DEADLINE):
            while not any(needle in line for line in self.lines):
                if self._task.done():
                    raise AssertionError(f"ended before {needle!r}: {self.lines[-5:]}")
                await asyncio.sleep(0.05)

    async def end(self) -> tuple[int, str]:
        try:
            async with asyncio.timeout(DEADLINE):
                await self._task
                assert self.proc.stderr is not None
                err = (await self.proc.stderr.read()).decode(errors="replace")
                return await self.proc.wait(), err
        except TimeoutError:
            last = self.lines[-12:]
            raise AssertionError(f"still running after {DEADLINE:g} s: {last}") from None


def _replays(directory: Path) -> list[Path]:
    return sorted((directory / "replays").glob("*.lcnet"))


@pytest.mark.net
def test_spectators_are_told_of_a_killed_host_wait_for_it_and_follow_the_rematch(
    lan3: Lan3, tmp_path: Path
) -> None:
    rematch = ["--rematch", "1"]

    async def main() -> tuple[list[Lines], list[str]]:
        host_args = ["host", "--bind", ADDRESS_A, "--port", "0", "--rounds", "2", "--no-announce"]
        host_args += ["--bot", "random", *rematch, "--replays", str(tmp_path / "h" / "replays")]
        host, port = await _listening(lan3, [*host_args, *HOST_TIMING_ARGS], tmp_path / "h")
        where = f"{ADDRESS_A}:{port}"
        procs = [host]
        try:
            spectators = []
            for name in ("s1", "s2"):
                replays = str(tmp_path / name / "replays")
                proc = await spawn_in(
                    lan3.c, ["watch", where, "--replays", replays], tmp_path / name
                )
                procs.append(proc)
                spectators.append(Lines(proc))
            joiner_args = ["join", where, "--bot", "random", *rematch, *TIMING_ARGS]
            joiner_args += ["--replays", str(tmp_path / "j" / "replays")]
            joiner = await spawn_in(lan3.b, joiner_args, tmp_path / "j")
            procs.append(joiner)
            # Mid-match for sure: the joiner is frozen when it says round 1 is over
            # (the second round cannot go on without it), and the host is killed.
            # (Not at a spectator's line: a spectator may lag behind the players.)
            joiner_says = Lines(joiner, stderr=True)
            await joiner_says.wait_for("round 1 over")
            os.kill(joiner.pid, signal.SIGSTOP)
            await joiner_says.stop_reading()
            os.kill(host.pid, signal.SIGKILL)
            assert await host.wait() == -signal.SIGKILL
            for spectator in spectators:
                await spectator.wait_for("no answer from the host")
            os.kill(joiner.pid, signal.SIGCONT)
            resume = ["resume", str(_replays(tmp_path / "h")[0]), "--bot", "random", *rematch]
            resumed, again = await _listening(lan3, [*resume, *HOST_TIMING_ARGS], tmp_path / "h")
            procs.append(resumed)
            assert again == port
            joined, _, joiner_err = await finish(joiner)
            assert joined == 0, joiner_err
            code, _, host_err = await finish(resumed)
            assert code == 0, host_err
            ends = [await spectator.end() for spectator in spectators]
            for status, err in ends:
                assert status == 0, err
            return spectators, [err for _, err in ends]
        finally:
            for proc in procs:
                if proc.returncode is None:
                    os.kill(proc.pid, signal.SIGCONT)
                await stop(proc)

    spectators, errs = asyncio.run(main())
    # Two matches, each in a file of every program's: the players' and both spectators'.
    by_game: dict[bytes, list[list[bytes]]] = {}
    for side in ("h", "j", "s1", "s2"):
        files = _replays(tmp_path / side)
        assert len(files) == 2, (side, files)
        for path in files:
            frames = read_replay(path).frames
            by_game.setdefault(frames[0], []).append(frames)
            verdict = audit.audit_file(path)
            assert verdict.kind is audit.VerdictKind.VALID, (path, verdict.summary)
    assert len(by_game) == 2
    for copies in by_game.values():
        assert len(copies) == 4 and all(frames == copies[0] for frames in copies)
    for spectator, err in zip(spectators, errs, strict=True):
        lines = spectator.lines
        silent = next(i for i, line in enumerate(lines) if "no answer from the host" in line)
        back = next(i for i, line in enumerate(lines) if line == "the host answers again")
        assert silent < back
        assert any("both do: the seats swap" in line for line in lines), lines[-10:]
        assert "the players play another match" in err


@pytest.mark.net
def test_a_line_said_is_seen_on_both_screens_and_by_a_spectator(lan3: Lan3, tmp_path: Path) -> None:
    async def main() -> tuple[str, str, list[str], int, str]:
        # A person hosts in line mode: says a line, then resigns at its first move.
        host_args = ["host", "--bind", ADDRESS_A, "--port", "0", "--rounds", "1", "--no-announce"]
        host_args += ["--name", "Ada", "--replays", str(tmp_path / "h" / "replays")]
        host, port = await spawn_listening(
            [*host_args, *HOST_TIMING_ARGS],
            tmp_path / "h" / "home",
            tmp_path / "h",
            typed=True,
            prefix=Lan.exec_in(lan3.a),
        )
        where = f"{ADDRESS_A}:{port}"
        procs = [host]
        try:
            # A bad bot option on the joiner's machine: refused before any socket or file.
            bad = await spawn_in(
                lan3.b,
                ["join", where, "--bot", "hard:foo=1", "--replays", str(tmp_path / "bad")],
                tmp_path / "bad",
            )
            bad_code, _, bad_err = await finish(bad)
            replays = str(tmp_path / "s" / "replays")
            watcher = await spawn_in(lan3.c, ["watch", where, "--replays", replays], tmp_path / "s")
            procs.append(watcher)
            seen = Lines(watcher)
            joiner_args = ["join", where, "--bot", "random", *TIMING_ARGS]
            joiner_args += ["--replays", str(tmp_path / "j" / "replays")]
            joiner = await spawn_in(lan3.b, joiner_args, tmp_path / "j")
            procs.append(joiner)
            _, host_out, _ = await finish(host, b"say hello from the host machine\nresign\n")
            _, joiner_out, joiner_err = await finish(joiner)
            status, watch_err = await seen.end()
            assert status == 0, (watch_err, seen.lines[-5:], host_out[-800:])
            return host_out, joiner_out + joiner_err, seen.lines, bad_code, bad_err
        finally:
            for proc in procs:
                await stop(proc)

    host_out, joiner_out, watched, bad_code, bad_err = asyncio.run(main())
    assert "you say: hello from the host machine" in host_out
    # The joiner was started with --bot: its hello says so, and both screens mark it.
    assert any(
        line.startswith("opponent: ") and line.endswith(", a bot (its program says so)")
        for line in host_out.splitlines()
    ), host_out
    assert any("joiner: " in line and "(a bot, its program says)" in line for line in watched), (
        watched
    )
    assert "Ada says: hello from the host machine" in joiner_out
    assert "Ada (host) says: hello from the host machine" in watched, "\n".join(watched)
    assert bad_code == ExitCode.USAGE and "--bot" in bad_err
    assert not (tmp_path / "bad").exists() or not list((tmp_path / "bad").rglob("*.lcnet*"))

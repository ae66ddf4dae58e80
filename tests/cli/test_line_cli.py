"""The line mode as a user meets it: real ``lcnet`` processes on loopback, fed
through standard input (an empty one, /dev/null, and the README's example)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
from pathlib import Path

import pytest

from lcnet.audit import verdict as audit
from lcnet.cli.play import EPILOG
from tests.netutil import LOOPBACK, TIMING_ARGS, finish, lcnet_env

ROOT = Path(__file__).resolve().parents[2]
EMPTY_INPUT_DEADLINE = 60.0
"""Ends a test whose process would wait forever (it times nothing)."""


async def run_with_stdin(args: list[str], stdin: int, tmp_path: Path) -> tuple[int, str, str]:
    """``python -m lcnet ARGS`` with ``stdin`` (a file descriptor) as its standard input."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "lcnet",
        *args,
        stdin=stdin,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=lcnet_env(tmp_path / "home"),
        cwd=tmp_path,
    )
    try:
        async with asyncio.timeout(EMPTY_INPUT_DEADLINE):
            out, err = await proc.communicate()
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def files_left(tmp_path: Path) -> list[str]:
    replays = tmp_path / "replays"
    return sorted(p.name for p in replays.iterdir()) if replays.is_dir() else []


@pytest.mark.slow
def test_lcnet_play_with_dev_null_starts_no_match_and_leaves_no_file(tmp_path: Path) -> None:
    with open(os.devnull, "rb") as null:
        code, out, err = asyncio.run(
            run_with_stdin(
                ["play", "--bot", "random", "--rounds", "1", *TIMING_ARGS], null.fileno(), tmp_path
            )
        )
    assert code == 2, err
    assert "standard input is empty, so no match was started" in err
    assert files_left(tmp_path) == []
    assert "your move" not in out


@pytest.mark.slow
def test_an_empty_pipe_starts_no_match_either(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    os.close(write_end)  # the writer is gone before lcnet starts: an empty pipe
    try:
        code, _out, err = asyncio.run(
            run_with_stdin(
                ["play", "--bot", "random", "--rounds", "1", *TIMING_ARGS], read_end, tmp_path
            )
        )
    finally:
        os.close(read_end)
    assert code == 2, err
    assert "no match was started" in err
    assert files_left(tmp_path) == []


@pytest.mark.slow
def test_lcnet_host_with_dev_null_stops_instead_of_waiting_forever(tmp_path: Path) -> None:
    with open(os.devnull, "rb") as null:
        code, _out, err = asyncio.run(
            run_with_stdin(
                ["host", "--bind", LOOPBACK, "--port", "0", "--ping-interval", "0.2"],
                null.fileno(),
                tmp_path,
            )
        )
    assert code == 2, err
    assert "standard input is empty" in err
    assert "listening on" not in err
    assert files_left(tmp_path) == []


def readme_example() -> str:
    """The printf of the README's line-mode example."""
    text = (ROOT / "README.md").read_text()
    found = re.search(r"`printf '([^']*)' \| lcnet play([^`]*)`", text)
    assert found is not None, "the README shows a piped lcnet play"
    assert f"printf '{found[1]}' | lcnet play{found[2]}" in EPILOG.replace("\\\\", "\\")
    return found[0]


@pytest.mark.slow
def test_the_readme_line_mode_example_works(tmp_path: Path) -> None:
    example = readme_example()
    found = re.fullmatch(r"`printf '([^']*)' \| lcnet play([^`]*)`", example)
    assert found is not None
    typed = found[1].encode().decode("unicode_escape").encode()
    args = ["play", *found[2].split(), "--rounds", "1", *TIMING_ARGS]

    async def main() -> tuple[int, str, str]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "lcnet",
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=lcnet_env(tmp_path / "home"),
            cwd=tmp_path,
        )
        return await finish(proc, typed)

    code, out, err = asyncio.run(main())
    assert code == 0, err
    assert "error" not in out
    assert "discards" in out  # the table
    assert "you resigned" in out
    files = sorted((tmp_path / "replays").glob("*.lcnet"))
    assert len(files) == 2 and not list((tmp_path / "replays").glob("*.secret"))
    host, joiner = files  # one match: the same name but the seat
    assert host.name.removesuffix("host.lcnet") == joiner.name.removesuffix("joiner.lcnet")
    assert audit.audit_file(files[0]).kind is audit.VerdictKind.VALID

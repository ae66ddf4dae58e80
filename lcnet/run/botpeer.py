"""``lcnet play``: a built-in bot as the host, in a process of its own.

The bot hosts on loopback (``lcnet host --bot SPEC --no-announce``, with its
own identity under LCNET_HOME/bots), and the person joins it through the
whole protocol (:func:`lcnet.run.netmatch.join_match`); ``lcnet resume`` brings
the bot back for an unfinished match.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from pathlib import Path
from typing import Final

from lcnet.deck import hashing
from lcnet.errors import ExitCode, UserError
from lcnet.game.seat import Seat
from lcnet.link.rematch import MAX_REMATCHES
from lcnet.protocol.events import MatchOptions
from lcnet.run.netmatch import (
    Player,
    check_own_key,
    check_replays_dir,
    join_match,
    key_of,
    player_identity,
    read_ready_port,
    refuse_empty_input,
    resume_match,
)
from lcnet.store import identity
from lcnet.store.replayfile import (
    ReplayContents,
)

BOT_PEER_START_TIMEOUT: Final = 30.0
"""Seconds for the bot's process to start listening (a cold Python start is ~1 s)."""

BOT_PEER_EXIT_TIMEOUT: Final = 10.0
"""Seconds the bot's process gets to finish on its own before it is stopped."""


def bot_home(spec: str) -> Path:
    """Where a built-in bot keeps its own identity (so it is a distinct, known peer)."""
    name = spec.split(":")[0]
    return identity.home_dir() / "bots" / name


class BotPeerProcess:
    """A built-in bot playing the host's seat in a process of its own, on loopback."""

    def __init__(self, proc: asyncio.subprocess.Process, port: int, lines: list[str]) -> None:
        self.proc = proc
        self.port = port
        self.lines = lines
        self._drain: asyncio.Task[None] | None = None

    @classmethod
    async def start(cls, arguments: list[str], spec: str) -> BotPeerProcess:
        """Run ``lcnet <arguments> --bot SPEC --bind 127.0.0.1`` and wait until it
        listens (it writes its port on a pipe: ``--ready-fd``)."""
        env = dict(os.environ)
        env["LCNET_HOME"] = str(bot_home(spec))
        ready_read, ready_write = os.pipe()
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "lcnet",
                *arguments,
                "--bot",
                spec,
                "--name",
                f"{spec.split(':')[0]} bot",
                "--ready-fd",
                str(ready_write),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                pass_fds=(ready_write,),
            )
        except BaseException:
            os.close(ready_read)
            raise
        finally:
            os.close(ready_write)  # the child's copy is the only one: its end is EOF
        peer = cls(proc, 0, [])
        peer._drain = asyncio.get_running_loop().create_task(peer._keep_reading())
        port = None
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(BOT_PEER_START_TIMEOUT):
                port = await read_ready_port(ready_read)
        if port is None:
            await peer.stop()
            lines = peer.lines
            # Its own error, without its command's name (the bot speaks of itself as "this").
            said = [line.split(": ", 1)[1] if line.startswith("lcnet ") else line for line in lines]
            detail = "; ".join(said[-2:]) or "it stopped without a word"
            raise UserError(f"the {spec.split(':')[0]} bot could not start its side: {detail}")
        peer.port = port
        return peer

    async def _keep_reading(self) -> None:
        assert self.proc.stderr is not None
        while raw := await self.proc.stderr.readline():
            self.lines.append(raw.decode(errors="replace").rstrip())
            del self.lines[:-50]

    async def stop(self, *, finishing: bool = True) -> None:
        """Give the process time to finish (``finishing``: the match ended, so it
        will; else it would wait for the player forever), then stop it by its
        process id. Its replay file is safe either way: each frame is on disk
        before it is sent, and resuming recovers any frame still in flight."""
        proc = self.proc
        if finishing:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), BOT_PEER_EXIT_TIMEOUT)
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), 3.0)
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
        if self._drain is not None:
            # The process has ended: what it still said is read to the end.
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(self._drain, BOT_PEER_EXIT_TIMEOUT)


PLAY_REMATCHES: Final = MAX_REMATCHES
"""How many more matches ``lcnet play``'s bot agrees to (as many as a person
would ask, and as many as ``--rematch`` allows: its bot runs with it)."""


async def play_against_bot(*, spec: str, options: MatchOptions, player: Player) -> int:
    """``lcnet play``: a person (joiner) against a built-in bot (host, its own process)."""
    arguments = [
        "host",
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
        "--suits",
        str(options.suits),
        "--rounds",
        str(options.rounds),
        "--replays",
        str(player.replays),
        "--ping-interval",
        str(player.timing.ping_interval),
        "--peer-timeout",
        str(player.timing.peer_timeout),
        "--no-announce",  # a match on this machine: nothing to tell the network
        "--rematch",  # the person's bot plays again as often as the person asks
        str(PLAY_REMATCHES),
    ]
    refuse_empty_input(player)
    check_replays_dir(player.replays)
    bot = await BotPeerProcess.start(arguments, spec)
    player.extra_header = {"opponent_bot": spec}
    code = None
    try:
        code = await join_match(host="127.0.0.1", port=bot.port, player=player)
        return code
    finally:
        await bot.stop(finishing=_match_ended(code))


async def resume_against_bot(
    path: Path, contents: ReplayContents, *, spec: str, player: Player
) -> int:
    """Resume an ``lcnet play`` match: the bot resumes its own file in its own process."""
    if not contents.frames:
        raise UserError(f"{path} holds no frame of a match")
    game = hashing.game_id(contents.frames[0]).hex()[:8]
    # The person joins the first match; in a rematch the seats are swapped (the
    # bot, which bound the socket, then sits in the joiner's seat).
    seat = Seat.HOST if contents.header.seat == "host" else Seat.JOINER
    # ``GAME-SEAT.lcnet``, or ``STAMP-GAME-SEAT.lcnet`` as older versions named it.
    bot_files = sorted(path.parent.glob(f"*{game}-{seat.other}.lcnet"))
    if not bot_files:
        raise UserError(f"the bot's replay file ({game}-{seat.other}.lcnet) is not next to {path}")
    check_own_key(path, contents, seat, player_identity(player), player)
    _check_bot_side(bot_files[0], spec, seat.other)
    arguments = [
        "resume",
        str(bot_files[0]),
        "--port",
        "0",
        "--ping-interval",
        str(player.timing.ping_interval),
        "--peer-timeout",
        str(player.timing.peer_timeout),
    ]
    bot = await BotPeerProcess.start(arguments, spec)
    code = None
    try:
        code = await resume_match(path, contents, player=player, connect_to=("127.0.0.1", bot.port))
        return code
    finally:
        await bot.stop(finishing=_match_ended(code))


def _match_ended(code: int | None) -> bool:
    """Whether the player's side ended the match (so the bot's side ends it too),
    from its exit code (``None``: it stopped on an error)."""
    return code is not None and code != ExitCode.UNFINISHED


def _check_bot_side(bot_file: Path, spec: str, seat: Seat) -> None:
    """Say in plain words why the bot cannot resume its side, before starting it."""
    from lcnet.store.replayfile import ReplayFileError, read_replay
    from lcnet.store.writer import secret_path

    bot = f"the {spec.split(':')[0]} bot"
    if not secret_path(bot_file).exists():
        raise UserError(
            f"{bot}'s side of this match cannot be continued: its private side file "
            f"{secret_path(bot_file)} is missing"
        )
    try:
        played_with = key_of(read_replay(bot_file), seat)
    except ReplayFileError as exc:
        raise UserError(f"{bot}'s side of this match cannot be continued: {exc}") from None
    home = bot_home(spec)
    if played_with is None:
        return
    if not identity.identity_exists(home):
        raise UserError(
            f"{bot}'s side of this match was played by a bot with the key "
            f"{hashing.fingerprint(played_with)}, and there is no {bot} in {home}: resume it "
            "with the lcnet home (LCNET_HOME) the match was played with"
        )
    now = identity.load_identity(home).public_key
    if now != played_with:
        raise UserError(
            f"{bot}'s side of this match was played by a bot with the key "
            f"{hashing.fingerprint(played_with)}; {bot} here has the key "
            f"{hashing.fingerprint(now)} (in {home}): resume it with the lcnet home "
            "(LCNET_HOME) the match was played with"
        )

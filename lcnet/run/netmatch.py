"""Running a networked match end to end: identity, files, socket, and who plays.

Shared by ``lcnet host``, ``join``, ``play`` and ``resume``: load (or create)
the user's identity, make the match's replay file and private side file,
open the socket, and hand the match to the player — the full-screen board,
the plain line mode (when standard input is not a terminal), or a built-in
bot. When the match ends the side file is deleted; when it is interrupted,
the files stay and ``lcnet resume FILE`` continues it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Protocol

import zmq.asyncio

from lcnet import __version__
from lcnet.bots import make_bot
from lcnet.deck import deal, hashing
from lcnet.errors import ExitCode, LocalProtocolError, Refused, Unreachable, UserError
from lcnet.game.seat import Seat
from lcnet.invocation import command
from lcnet.link import rematch
from lcnet.link.audience import DEFAULT_SPECTATORS
from lcnet.link.liveness import Timing
from lcnet.net import choosing, discovery
from lcnet.net.addresses import EVERY_ADDRESS, join_addresses, probe_listener
from lcnet.net.peer import NetPeer
from lcnet.net.sockets import CLOSE_LINGER_MS, bind_host, bound_host, connect_joiner
from lcnet.protocol import wire
from lcnet.protocol.client import MatchClient, Update
from lcnet.protocol.events import DisputeRaised, MatchEnded, MatchOptions
from lcnet.protocol.session import Session
from lcnet.protocol.status import Status
from lcnet.store import identity
from lcnet.store.replayfile import ReplayContents, ReplayHeader
from lcnet.store.writer import ReplayWriter, delete_secret, read_secret, write_secret

DEFAULT_REPLAYS: Final = Path("replays")
"""Where replay files go unless --replays says otherwise (relative to the working directory)."""


class FrontEnd(Protocol):
    """How a person plays: the full screen or the line mode of :mod:`lcnet.ui`.

    The command line chooses it and gives it in :attr:`Player.front_end`, so
    that the network layer imports no user interface.
    """

    @property
    def says_where_saved(self) -> bool:
        """Whether it tells the player itself where the match is saved (the line
        mode does; the full screen is gone by the end, so the match says it)."""
        ...

    def refuse_to_start(self) -> None:
        """Raise :class:`UsageError` now if the person could not play at all (an
        empty standard input in line mode), before anything starts."""
        ...

    async def run(self, client: MatchClient) -> int:
        """Play ``client``'s side until the match ends or the person leaves: the exit code."""
        ...


@dataclass
class Player:
    """Who makes this side's moves, and how the program talks to its user."""

    bot: str | None = None
    """A bot spec (``mcts``, ``greedy:...``), or ``None`` for a person."""
    replays: Path = DEFAULT_REPLAYS
    timing: Timing = field(default_factory=Timing)
    say: Callable[[str], None] = lambda text: print(text, file=sys.stderr, flush=True)
    """Status lines for the user (standard error, so standard output stays the game's)."""
    home: Path | None = None
    """LCNET_HOME override (tests); ``None`` uses the environment."""
    name: str | None = None
    """A display name for this match instead of the identity's."""
    extra_header: dict[str, Any] = field(default_factory=dict)
    accept_new_key: str | None = None
    """A fingerprint the player accepts as a known opponent's new key (--accept-new-key)."""
    front_end: FrontEnd | None = None
    """How a person plays this side (needed unless ``bot`` plays it)."""
    spectators: int = DEFAULT_SPECTATORS
    """For a host: how many may watch its match (``lcnet watch``; 0 forbids it)."""
    rematches: int = 0
    """For a bot: how many more matches it agrees to play after this one, on
    the same connection with the seats swapped (``--rematch``)."""
    narrate: Callable[[MatchClient], Callable[[Update], Sequence[str]]] | None = None
    """For a bot: what makes, for each match, the lines that tell its user what
    happens (who joined, the scores, the opponent gone and back, refusals, the
    result and the file); the command line gives the line mode's sentences.
    ``None``: the bot says only the client's notices."""
    ready_fd: int | None = None
    """A file descriptor (``--ready-fd``, for programs that start lcnet) on which a
    host writes the port it listens on, as one decimal line, and closes it once it
    listens: the start-up signal for a program, which the human text is not."""


PROBE_SECONDS: Final = 3.0
"""How long a resumed joiner looks for its host before it says that nothing
answers there (it goes on waiting for the host to be resumed)."""


def new_master_secret() -> bytes:
    """A fresh per-game master secret (docs/PROTOCOL.md §2.1), from the operating
    system's random source: drawn here, at the edge, never inside the deck."""
    return secrets.token_bytes(deal.MASTER_SECRET_SIZE)


def signal_ready(player: Player, port: int) -> None:
    """Tell the program that started this one the port it listens on (see ``ready_fd``)."""
    fd = player.ready_fd
    if fd is None:
        return
    player.ready_fd = None  # once
    try:
        os.write(fd, f"{port}\n".encode("ascii"))
    except OSError as exc:
        raise UserError(f"--ready-fd {fd}: cannot write to it ({exc.strerror})") from None
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


async def read_ready_port(fd: int) -> int | None:
    """The port a child started with ``--ready-fd`` wrote on the pipe read by ``fd``
    (which this closes), or ``None`` if it closed the pipe (or ended) without one."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    pipe = os.fdopen(fd, "rb", buffering=0)
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
    try:
        line = await reader.readline()
    finally:
        transport.close()
    text = line.decode("ascii", errors="replace").strip()
    return int(text) if text.isdigit() else None


Listening = Callable[[int, Sequence[str]], None]
"""Told, once a host listens, its port and where the opponent can reach it
(``ADDRESS:PORT`` each, as ``lcnet join`` reads it)."""


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


GAME_NAME_DIGITS: Final = 8
"""Hex digits of the game id in a replay file's name."""


def replay_name(session: Session) -> str:
    """``GAME-SEAT.lcnet``: the same match part in both players' files.

    The name is made from what both players share, the game id (the hash of
    the first frame), so the host's and the joiner's files of one match
    differ only in their seat. No time is in the name: the two programs'
    clocks never agree to the second (nor do they start in the same second),
    and no frame carries a time. When the match started is in the file's
    header (``created``); listings sort by it.
    """
    assert session.game_id is not None
    return f"{session.game_id.hex()[:GAME_NAME_DIGITS]}-{session.seat}.lcnet"


def _writer_factory(
    player: Player, master: bytes, header_extra: dict[str, Any]
) -> Callable[[Session], ReplayWriter]:
    def open_writer(session: Session) -> ReplayWriter:
        path = player.replays / replay_name(session)
        extra = dict(header_extra)
        extra.update(player.extra_header)
        if player.bot is not None:
            extra["bot"] = player.bot  # a bot's file is not offered to a person to resume
        header = ReplayHeader(
            seat=str(session.seat),
            created=_now(),
            software=f"lcnet {__version__}",
            extra=extra,
        )
        # The side file first: no frame may depend on a secret not yet on disk.
        write_secret(path, {"master": master, "seat": str(session.seat)})
        return ReplayWriter.create(path, header)

    return open_writer


def check_replays_dir(directory: Path) -> bool:
    """Fail now, in one sentence, if matches cannot be saved in ``directory``;
    whether it made the folder (see :func:`forget_if_unused`)."""
    made = not directory.exists()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / f".lcnet-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise UserError(
            f"cannot save matches in {directory}: {reason}; choose another place with --replays"
        ) from None
    return made


def forget_if_unused(directory: Path, made: bool) -> None:
    """A replays folder this program ``made`` for a match that saved nothing in it
    (nobody joined, the host turned this joiner away, nothing listened) goes
    again: an empty folder left behind only says that something was kept."""
    if made:
        with contextlib.suppress(OSError):  # not empty (a match was saved), or gone
            directory.rmdir()


def refuse_empty_input(player: Player) -> None:
    """Stop before anything starts if the person's front end could not play
    (in line mode, an empty standard input: :meth:`FrontEnd.refuse_to_start`).

    ``lcnet play < /dev/null`` would otherwise start a match (files, a bot's
    process, a deal) only to leave it at once; ``lcnet host < /dev/null``
    would wait for an opponent whose moves nobody could answer.
    """
    if player.bot is None and player.front_end is not None:
        player.front_end.refuse_to_start()


def player_identity(player: Player) -> identity.Identity:
    me = identity.load_identity(player.home)
    if player.name is not None:
        me = identity.Identity(identity.validate_name(player.name), me.signing_key)
    return me


# ------------------------------------------------------------------ running


NextMatch = Callable[[Session], tuple[Session, Callable[[Session], ReplayWriter]]]
"""The session and replay file of the match agreed after a finished one (a rematch)."""


async def run_client(peer: NetPeer, player: Player, next_match: NextMatch | None = None) -> int:
    """Let the player (its bot, or a person through its front end) play
    ``peer``'s side to the end (or until it quits); then, as long as both
    players want another match (``next_match`` makes it), the next one on the
    same connection. The exit code is the last match's."""
    front_end = player.front_end
    while True:
        again = False
        try:
            peer.start()
            if player.bot is not None:
                narrate = player.narrate(peer) if player.narrate is not None else None
                code = await drive_bot(
                    peer, player.bot, player.say, rematch=player.rematches > 0, narrate=narrate
                )
            elif front_end is not None:
                code = await front_end.run(peer)
            else:
                raise LocalProtocolError("a person plays this side, but no front end was given")
            offer = peer.state.rematch
            again = next_match is not None and offer is not None and offer.agreed
            if peer.session.is_over and not again:
                await peer.wait_closed()
        finally:
            await peer.aclose(keep_socket=again)
        # The line mode (and a bot that narrates) has said where the match is
        # saved; the full screen is gone by now.
        if player.bot is not None:
            said = player.narrate is not None
        else:
            said = front_end is not None and front_end.says_where_saved
        _finish(peer, player, announce=not said)
        if peer.failure is not None:
            raise peer.failure
        if not again or next_match is None:
            return code
        player.rematches -= 1
        session, open_writer = next_match(peer.session)
        if player.bot is not None:
            player.say(f"another match, the seats swapped: this side is the {session.seat} now")
        peer = peer.successor(session, open_writer)


def _next_match(player: Player, me: identity.Identity, extra: dict[str, Any]) -> NextMatch:
    """How this side makes the rematch of a finished match: a new master
    secret, the other seat, a replay file of its own that names the match
    before (``rematch_of``) and says, as the first one did, where the
    connection is (so that ``lcnet resume`` finds it again)."""

    def after(finished: Session) -> tuple[Session, Callable[[Session], ReplayWriter]]:
        master = new_master_secret()
        session = rematch.next_session(finished, me.signing_key, master)
        assert finished.game_id is not None
        header = {**extra, "rematch_of": finished.game_id.hex()}
        if session.options is not None:
            header.update(suits=session.options.suits, rounds=session.options.rounds)
        return session, _writer_factory(player, master, header)

    return after


def _finish(peer: NetPeer, player: Player, *, announce: bool) -> None:
    """Tidy the files after a match: drop the side file once it is over."""
    path = peer.replay_path
    session = peer.session
    if path is None:
        return
    stopped = session.opening and isinstance(peer.failure, Refused)
    if (
        peer.seat.other not in session.keys
        or (len(session.chain) <= 2 and not session.is_over)
        or stopped
    ):
        # The opponent never answered (a lone hello), or the joiner never went
        # past the host's welcome (it refused it, or went away), or the host
        # gave up on a stalled opening: no match started.
        path.unlink(missing_ok=True)
        delete_secret(path)
        return
    if session.is_over:
        delete_secret(path)
    if not announce:
        return
    if session.is_over:
        outcome = session.outcome
        if player.bot is not None and outcome is not None and session.dispute is None:
            names = {seat: session.names.get(seat, str(seat)) for seat in Seat}
            won = "a draw" if outcome.winner is None else f"{names[Seat(outcome.winner)]} wins"
            gave_up = session.resigned
            resigned = f", {names[gave_up]} resigned" if gave_up is not None else ""
            player.say(
                f"the match is over: {names[Seat.HOST]} {outcome.totals[0]}, "
                f"{names[Seat.JOINER]} {outcome.totals[1]}: {won}{resigned}"
            )
        player.say(f"match saved: {path}")
        if session.dispute is not None:
            player.say(f"the match stopped on a dispute; check it with: {command()} audit {path}")
    else:
        player.say(f"match not finished; it is saved in {path}")
        bot = f" --bot {shlex.quote(player.bot)}" if player.bot is not None else ""
        player.say(f"continue it later with: {command()} resume {shlex.quote(str(path))}{bot}")


async def drive_bot(
    client: MatchClient,
    spec: str,
    say: Callable[[str], None],
    *,
    rematch: bool = False,
    narrate: Callable[[Update], Sequence[str]] | None = None,
) -> int:
    """A built-in bot plays ``client``'s side. A bot that searches thinks in a
    worker thread, so that the connection stays responsive; a quick one plays
    in place (handing it to a thread would cost more than its turn). At the
    end it says whether it wants another match (``rematch``), and waits for
    the opponent's answer (at most :data:`REMATCH_WAIT`) if it does.

    ``narrate`` turns each update into the lines its user reads (``say``);
    without it, only the client's notices are said. Every update is told
    before the bot leaves: the end of the match (the result and the file, a
    dispute, why it stopped) is in the updates, already queued by then."""
    bot = make_bot(spec)
    told_end = False

    def tell(update: Update) -> None:
        nonlocal told_end
        if narrate is None:
            if update.notice:
                say(update.notice)
        else:
            for line in narrate(update):
                say(line)
            if isinstance(update.failure, UserError):
                update.failure.shown = True  # said once, here
        told_end = told_end or _ends(update)

    while True:
        state = client.state
        if state.awaiting_decision:
            view = state.view
            assert view is not None
            if bot.quick:
                turn = bot.choose_turn(view)
            else:
                turn = await asyncio.to_thread(bot.choose_turn, view)
            if client.state.awaiting_decision:  # a dispute or a resignation may have come
                await client.play(turn)
            continue
        if state.is_over or client.status is Status.OVER:
            if narrate is not None:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(END_TOLD_WAIT):
                        while not told_end:
                            tell(await client.next_update())
            agreed = await client.rematch(rematch, wait=REMATCH_WAIT)
            offer = client.state.rematch
            if rematch and not agreed and offer is not None:
                say(
                    "the opponent does not want another match"
                    if offer.theirs is False
                    else "no answer to the offer of another match"
                )
            return _exit_code(client)
        tell(await client.next_update())


def _ends(update: Update) -> bool:
    """Whether ``update`` tells the end of the match: its result, a dispute, or
    why the client stopped."""
    return (
        isinstance(update.event, MatchEnded | DisputeRaised)
        or update.status in (Status.OVER, Status.DISPUTE)
        or update.failure is not None
    )


END_TOLD_WAIT: Final = 10.0
"""Seconds a narrating bot gives the updates that tell the end of its match
(they are queued before its client says the match is over: a bound, not a wait)."""


REMATCH_WAIT: Final = 120.0
"""Seconds a bot that wants another match waits for the opponent's answer (a
person may look at the result for a while first). The wait ends sooner when
the opponent is gone: silent, answering no ping, for the peer timeout
(:class:`lcnet.link.liveness.OpponentGone`); an opponent that leaves says no."""


def _exit_code(client: MatchClient) -> int:
    state = client.state
    failed = state.dispute is not None or state.failure is not None
    return ExitCode.FAILED if failed else ExitCode.OK


# ------------------------------------------------------------------ commands


async def host_match(
    *,
    bind: str,
    port: int,
    options: MatchOptions,
    player: Player,
    on_listening: Listening | None = None,
    announce: bool = False,
) -> int:
    """Host a new match; ``announce``: tell the LAN about it (see :mod:`lcnet.net.discovery`)."""
    refuse_empty_input(player)
    made = check_replays_dir(player.replays)
    try:
        return await _host_match(bind, port, options, player, on_listening, announce)
    finally:
        forget_if_unused(player.replays, made)


async def _host_match(
    bind: str,
    port: int,
    options: MatchOptions,
    player: Player,
    on_listening: Listening | None,
    announce: bool,
) -> int:
    me = player_identity(player)
    context = zmq.asyncio.Context()
    announcers: list[discovery.Announcer] = []
    try:
        sock, actual = bind_host(context, bind, port)
        addresses = join_addresses(bound_host(sock), actual)
        if on_listening is not None:
            on_listening(actual, addresses)
        signal_ready(player, actual)
        extra = {
            "role": "host",
            "bind": bind,
            "port": actual,
            "suits": options.suits,
            "rounds": options.rounds,
        }

        def new_match() -> tuple[Session, Callable[[Session], ReplayWriter]]:
            """A fresh match to wait in (again, after a stalled opening), announced."""
            master = new_master_secret()
            session = Session.host(
                me.signing_key, master, name=me.name, options=options, bot=player.bot is not None
            )
            open_writer = _writer_factory(player, master, extra)
            if announce:
                for earlier in announcers:
                    earlier.withdraw()  # that match's opening stalled: it is not played
                announcer = _announce(sock, actual, me, options, player, again=bool(announcers))
                if announcer is not None:
                    announcers.append(announcer)
                open_writer = _marking_playing(announcer, open_writer)
            return session, open_writer

        session, open_writer = new_match()
        peer = NetPeer(
            session,
            sock,
            writer=open_writer,
            timing=player.timing,
            peer_check=identity.tofu_check(player.home, accept_new_key=player.accept_new_key),
            fresh_game=identity.game_ledger(player.home),
            restart=new_match,
            spectators=player.spectators,
            on_audience=lambda count: announcers[-1].watching(count) if announcers else None,
        )
        peer.addresses = tuple(addresses)
        return await run_client(peer, player, _next_match(player, me, extra))
    finally:
        for announcer in announcers:
            await announcer.aclose()  # the goodbye, also on errors and Ctrl-C
        context.destroy(linger=CLOSE_LINGER_MS)


def _announce(
    sock: zmq.asyncio.Socket,
    port: int,
    me: identity.Identity,
    options: MatchOptions,
    player: Player,
    *,
    again: bool = False,
) -> discovery.Announcer | None:
    """Start announcing the game where the socket is bound (none for loopback);
    ``again``: after a stalled opening, quietly (a full screen may own the terminal)."""
    bound = bound_host(sock)
    interfaces = discovery.announce_interfaces(bound)
    if not interfaces:
        if again:
            return None
        player.say(
            f"not announced on the local network: bound to {bound}, which no other "
            "machine can reach through an interface of this one"
        )
        return None
    announcer = discovery.Announcer(
        interfaces,
        name=me.name,
        fingerprint=me.fingerprint,
        port=port,
        suits=options.suits,
        rounds=options.rounds,
        say=(lambda _: None) if again else player.say,
    )
    announcer.start()
    return announcer


def _marking_playing(
    announcer: discovery.Announcer | None, open_writer: Callable[[Session], ReplayWriter]
) -> Callable[[Session], ReplayWriter]:
    """``open_writer``, which also announces the game as being played (with whom):
    a host opens its replay file when it accepts its opponent's hello, i.e. when
    the match starts. Nobody can join it then; spectators can find it."""

    def open_and_mark(session: Session) -> ReplayWriter:
        key = session.keys.get(Seat.JOINER)
        if announcer is not None and key is not None:
            name = session.names.get(Seat.JOINER, "?")
            announcer.playing(name, hashing.fingerprint(key))
        return open_writer(session)

    return open_and_mark


async def join_match(
    *, host: str, port: int, player: Player, announced: discovery.Game | None = None
) -> int:
    """Join the host at ``host:port``; ``announced``: the game as found on the
    LAN, whose announced key the host must sign with."""
    refuse_empty_input(player)
    made = check_replays_dir(player.replays)
    try:
        return await _join_match(host, port, player, announced)
    finally:
        forget_if_unused(player.replays, made)


async def _join_match(
    host: str, port: int, player: Player, announced: discovery.Game | None
) -> int:
    me = player_identity(player)
    # Nothing listening there is said now, once, before any screen or file.
    await probe_listener(host, port, player.timing.connect_timeout)
    master = new_master_secret()
    session = Session.joiner(me.signing_key, master, name=me.name, bot=player.bot is not None)
    context = zmq.asyncio.Context()
    try:
        sock = connect_joiner(context, host, port)
        extra = {"role": "joiner", "host": host, "port": port}
        check = identity.tofu_check(player.home, accept_new_key=player.accept_new_key)
        if announced is not None:
            check = choosing.announced_key_check(announced, then=check)
        peer = NetPeer(
            session,
            sock,
            writer=_writer_factory(player, master, extra),
            timing=player.timing,
            peer_check=check,
        )
        return await run_client(peer, player, _next_match(player, me, extra))
    finally:
        context.destroy(linger=CLOSE_LINGER_MS)


async def resume_match(
    path: Path,
    contents: ReplayContents,
    *,
    player: Player,
    connect_to: tuple[str, int] | None = None,
    port: int | None = None,
    on_listening: Listening | None = None,
) -> int:
    """Continue an unfinished match from its replay file and side file.

    A host listens again where it listened (or on ``port``), and says where
    (the port it really listens on); a joiner connects again where it
    connected (or to ``connect_to``).
    """
    seat = {"host": Seat.HOST, "joiner": Seat.JOINER}.get(contents.header.seat)
    if seat is None:
        raise UserError(f"{path} is not a player's replay file (seat {contents.header.seat!r})")
    secrets = read_secret(path)
    master = secrets.get("master")
    if not isinstance(master, bytes) or len(master) != deal.MASTER_SECRET_SIZE:
        raise UserError(f"the side file of {path} holds no valid master secret")
    me = player_identity(player)
    check_own_key(path, contents, seat, me, player)
    options = options_from(contents)
    # The name it was played under (`--name`), not this identity's name now:
    # this side's frames must be rebuilt exactly as they were sent.
    name = name_of(contents, seat) or me.name
    try:
        session, due = Session.resume(
            seat, me.signing_key, master, contents.frames, name=name, options=options
        )
    except Exception:  # the file's frames, or its side file, do not rebuild the match
        raise UserError(
            f"cannot resume {path}: its frames do not rebuild a match with its side file "
            f"({path}.secret); check the file with: {command()} audit {path}"
        ) from None
    if session.is_over:
        raise UserError(
            f"the match in {path} is already over; see it with: {command()} replay {path}"
        )
    extra = contents.header.extra
    # The socket's side: the seat's, but in a rematch (PROTOCOL.md §6.7), which swaps the seats.
    role = {"host": Seat.HOST, "joiner": Seat.JOINER}.get(str(extra.get("role")), seat)
    writer, _ = ReplayWriter.reopen(path)
    for frame in due.outgoing:  # frames owed at the crash: record them before sending
        writer.append_frame(frame.raw)
    context = zmq.asyncio.Context()
    addresses: list[str] = []
    try:
        if role is Seat.HOST:
            bind = str(extra.get("bind", EVERY_ADDRESS))
            if port is None:
                port = int(extra.get("port", 0))
            sock, actual = bind_host(context, bind, port)
            addresses = join_addresses(bound_host(sock), actual)
            if on_listening is not None:
                on_listening(actual, addresses)
            signal_ready(player, actual)
        else:
            if connect_to is None:
                address = extra.get("host")
                port_value = extra.get("port")
                if not isinstance(address, str) or not isinstance(port_value, int):
                    raise UserError(f"{path} does not say where the host was")
                connect_to = (address, port_value)
            try:  # said at once: the wait that follows may be long
                await probe_listener(*connect_to, min(PROBE_SECONDS, player.timing.connect_timeout))
            except Unreachable as exc:
                player.say(
                    f"{exc}; waiting for the host to resume the match "
                    "(Ctrl-C stops, and the match stays saved)"
                )
            sock = connect_joiner(context, *connect_to)
        peer = NetPeer(
            session,
            sock,
            writer=writer,
            timing=player.timing,
            peer_check=identity.tofu_check(player.home, accept_new_key=player.accept_new_key),
            spectators=player.spectators,
            role=role,
        )
        peer.addresses = tuple(addresses)
        player.say(f"resuming {path}: {session.owed()}")
        keep = {k: v for k, v in extra.items() if k in ("role", "bind", "port", "host")}
        return await run_client(peer, player, _next_match(player, me, keep))
    finally:
        context.destroy(linger=CLOSE_LINGER_MS)


def check_own_key(
    path: Path, contents: ReplayContents, seat: Seat, me: identity.Identity, player: Player
) -> None:
    """Refuse, in plain words, a file this identity did not play."""
    played_with = key_of(contents, seat)
    if played_with is not None and played_with != me.public_key:
        raise UserError(
            f"cannot resume {path}: its {seat} played with the key "
            f"{hashing.fingerprint(played_with)}, and this identity's key is {me.fingerprint} "
            f"(in {player.home or identity.home_dir()}): resume it where it was played"
        )


def key_of(contents: ReplayContents, seat: Seat) -> bytes | None:
    """The key ``seat`` presented in the file (its hello or welcome), if the file holds it."""
    opening = _opening(contents, seat)
    return opening.key if opening is not None else None


def name_of(contents: ReplayContents, seat: Seat) -> str | None:
    """The name ``seat`` played under in the file (its hello or welcome), if it holds it."""
    opening = _opening(contents, seat)
    return opening.name if opening is not None else None


def _opening(contents: ReplayContents, seat: Seat) -> wire.Hello | wire.Welcome | None:
    wanted = wire.Hello if seat is Seat.JOINER else wire.Welcome
    for raw in contents.frames[:2]:
        with contextlib.suppress(wire.MalformedFrame):
            message = wire.decode_frame(raw, allow_unknown_fields=True).message
            if isinstance(message, wanted):
                return message
    return None


def options_from(contents: ReplayContents) -> MatchOptions | None:
    """The options the host offered: from the welcome frame, or the header if the
    host stopped before sending it."""
    for raw in contents.frames[:2]:
        with contextlib.suppress(wire.MalformedFrame):
            message = wire.decode_frame(raw).message
            if isinstance(message, wire.Welcome):
                return MatchOptions(suits=message.suits, rounds=message.rounds)
    extra = contents.header.extra
    suits, rounds = extra.get("suits"), extra.get("rounds")
    if isinstance(suits, int) and isinstance(rounds, int):
        return MatchOptions(suits=suits, rounds=rounds)
    return None

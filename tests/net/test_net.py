"""Play over real sockets on 127.0.0.1: whole matches, crashes, faults, strangers."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
from pathlib import Path

import msgpack
import nacl.signing
import pytest
import zmq
import zmq.asyncio

from lcnet.audit import verdict as audit
from lcnet.bots import make_bot
from lcnet.deck import hashing
from lcnet.errors import ExitCode
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.events import MatchOptions
from lcnet.protocol.phases import Phase
from lcnet.protocol.status import Status
from lcnet.store import identity
from lcnet.store.identity import KeyChanged
from lcnet.store.replayfile import read_replay
from tests.netutil import (
    DEADLINE,
    FAST,
    HOST_TIMING_ARGS,
    LOOPBACK,
    TIMING_ARGS,
    LocalPeer,
    Proxy,
    finish,
    local_host,
    local_joiner,
    refusing_port,
    replay_file,
    spawn,
    spawn_host,
    stop,
    wait_line,
)

HOST, JOINER = Seat.HOST, Seat.JOINER


async def spawn_bot_joiner(directory: Path, port: int) -> asyncio.subprocess.Process:
    """``lcnet join --bot random`` to the host at ``port`` on loopback."""
    args = ["join", f"{LOOPBACK}:{port}", "--bot", "random", *TIMING_ARGS]
    args += ["--replays", str(directory / "replays")]
    return await spawn(args, directory / "home", directory)


def assert_valid_pair(first: Path, second: Path) -> None:
    a, b = read_replay(first), read_replay(second)
    assert a.frames == b.frames, "the two files must hold the same transcript"
    for path in (first, second):
        verdict = audit.audit_file(path)
        assert verdict.kind is audit.VerdictKind.VALID, verdict.summary


@pytest.mark.net
@pytest.mark.parametrize(("suits", "rounds"), [(5, 1), (6, 3)])
def test_two_processes_play_a_whole_match(tmp_path: Path, suits: int, rounds: int) -> None:
    async def main() -> None:
        host, port = await spawn_host(tmp_path / "h", bot="greedy", suits=suits, rounds=rounds)
        try:
            joiner = await spawn(
                [
                    "join",
                    f"{LOOPBACK}:{port}",
                    "--bot",
                    "greedy",
                    "--replays",
                    str(tmp_path / "j" / "replays"),
                    *TIMING_ARGS,
                ],
                tmp_path / "j" / "home",
                tmp_path,
            )
            code, _, err = await finish(joiner)
            assert code == 0, err
            host_code, _, host_err = await finish(host)
            assert host_code == 0, host_err
        finally:
            await stop(host)
        host_file, joiner_file = replay_file(tmp_path / "h"), replay_file(tmp_path / "j")
        assert_valid_pair(host_file, joiner_file)
        assert not list((tmp_path / "h" / "replays").glob("*.secret")), "side file left behind"
        verdict = audit.audit_file(host_file)
        assert verdict.options == {"suits": suits, "rounds": rounds}

    asyncio.run(main())


def _kill_when(point: str, victim: asyncio.subprocess.Process):  # type: ignore[no-untyped-def]
    """A hook that SIGKILLs the victim when the surviving session reaches ``point``."""
    done: list[bool] = []

    def hook(local: LocalPeer) -> None:
        session = local.session
        track = session.round
        reached = False
        if point == "deal":
            reached = track is not None and len(track.passes) >= 2 and track.table is None
        elif point == "mid-round":
            reached = track is not None and len(track.turns) >= 12
        elif point == "reveal":
            reached = session.phase in (Phase.REVEAL_HOST, Phase.REVEAL_JOINER)
        if reached and not done:
            done.append(True)
            os.kill(victim.pid, signal.SIGKILL)

    hook.done = done  # type: ignore[attr-defined]
    return hook


@pytest.mark.net
@pytest.mark.parametrize(
    ("point", "victim"),
    # The wiring of a kill and a resume, each point and each seat at least
    # once; the session tests resume both seats from every point of a log.
    [("deal", HOST), ("mid-round", JOINER), ("reveal", HOST), ("reveal", JOINER)],
)
def test_a_killed_peer_resumes_and_nothing_is_lost(
    tmp_path: Path, victim: Seat, point: str
) -> None:
    async def main() -> None:
        ctx = zmq.asyncio.Context()
        victim_dir = tmp_path / "victim"
        try:
            if victim is HOST:
                proc, port = await spawn_host(victim_dir, rounds=2)
                local = local_joiner(tmp_path / "local", ctx, port, seed=1)
            else:
                local, port = local_host(
                    tmp_path / "local", ctx, options=MatchOptions(rounds=2), seed=2
                )
                proc = await spawn(
                    [
                        "join",
                        f"{LOOPBACK}:{port}",
                        "--bot",
                        "random",
                        "--replays",
                        str(victim_dir / "replays"),
                        *TIMING_ARGS,
                    ],
                    victim_dir / "home",
                    tmp_path,
                )
            local.peer.start()
            hook = _kill_when(point, proc)
            survivor = asyncio.create_task(local.play(hook=hook))
            killed = await proc.wait()
            assert killed == -signal.SIGKILL and hook.done  # type: ignore[attr-defined]
            resumed = await spawn(
                ["resume", str(replay_file(victim_dir)), "--bot", "random", *TIMING_ARGS],
                victim_dir / "home",
                tmp_path,
            )
            code, _, err = await finish(resumed)
            assert code == 0, err
            await asyncio.wait_for(survivor, DEADLINE)
            assert local.session.sealed
        finally:
            await local.peer.aclose()
            ctx.term()
        assert_valid_pair(local.path, replay_file(victim_dir))

    asyncio.run(main())


@pytest.mark.net
def test_a_dropped_connection_is_restored_and_the_match_completes(tmp_path: Path) -> None:
    async def main() -> None:
        ctx = zmq.asyncio.Context()
        host, port = local_host(tmp_path / "h", ctx, options=MatchOptions(rounds=1), seed=3)
        proxy = Proxy(port)
        await proxy.start()
        joiner = local_joiner(tmp_path / "j", ctx, proxy.port, seed=4)
        cuts: list[int] = []

        def cut_now_and_then(local: LocalPeer) -> None:
            track = local.session.round
            if (
                track is not None
                and len(track.turns) in (5, 30, 60)
                and len(track.turns) not in cuts
            ):
                cuts.append(len(track.turns))
                proxy.cut()

        try:
            host.peer.start()
            joiner.peer.start()
            await asyncio.gather(host.play(hook=cut_now_and_then), joiner.play())
        finally:
            await proxy.close()
            await host.peer.aclose()
            await joiner.peer.aclose()
            ctx.term()
        assert cuts and proxy.connections >= 1 + len(cuts)
        assert host.session.sealed and joiner.session.sealed
        assert_valid_pair(host.path, joiner.path)

    asyncio.run(main())


@pytest.mark.net
def test_a_peer_that_stops_responding_is_noticed_and_welcome_back(tmp_path: Path) -> None:
    async def main() -> None:
        ctx = zmq.asyncio.Context()
        local, port = local_host(tmp_path / "local", ctx, options=MatchOptions(rounds=1), seed=5)
        proc = await spawn_bot_joiner(tmp_path / "j", port)
        frozen: list[bool] = []

        def freeze(peer: LocalPeer) -> None:
            track = peer.session.round
            if track is not None and len(track.turns) >= 10 and not frozen:
                frozen.append(True)
                os.kill(proc.pid, signal.SIGSTOP)

        try:
            local.peer.start()
            game = asyncio.create_task(local.play(hook=freeze))
            await asyncio.wait_for(local.status_seen[Status.DISCONNECTED].wait(), DEADLINE)
            assert not local.session.is_over
            os.kill(proc.pid, signal.SIGCONT)
            await asyncio.wait_for(game, DEADLINE)
            code, _, err = await finish(proc)
            assert code == 0, err
        finally:
            await stop(proc)
            await local.peer.aclose()
            ctx.term()
        assert Status.DISCONNECTED in local.statuses
        later = local.statuses[local.statuses.index(Status.DISCONNECTED) :]
        assert Status.PLAYING in later, "the opponent counts as back once it answers"
        assert local.session.sealed

    asyncio.run(main())


def _stranger_hello(
    version: list[int], *, key: nacl.signing.SigningKey | None = None, name: str = "stranger"
) -> bytes:
    key = key or nacl.signing.SigningKey(b"\x33" * 32)
    body = {
        "t": "hello",
        "seq": 0,
        "v": version,
        "name": name,
        "key": bytes(key.verify_key),
        "coin": hashing.coin_commitment(b"\x44" * 32),
    }
    return wire.sign_frame(msgpack.packb(dict(sorted(body.items())), use_bin_type=True), key)


async def _ask(ctx: zmq.asyncio.Context, port: int, *frames: bytes) -> wire.Frame:
    """Send frames from a fresh DEALER and wait for the host's answer."""
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(f"tcp://{LOOPBACK}:{port}")
    try:
        for frame in frames:
            await sock.send(frame)
        raw = await asyncio.wait_for(sock.recv(), DEADLINE)
        return wire.decode_frame(raw)
    finally:
        sock.close()


@pytest.mark.net
def test_a_third_peer_is_turned_away_and_the_match_goes_on(tmp_path: Path) -> None:
    async def main() -> None:
        ctx = zmq.asyncio.Context()
        host, port = local_host(tmp_path / "h", ctx, options=MatchOptions(rounds=1), seed=6)
        joiner = local_joiner(tmp_path / "j", ctx, port, seed=7)
        answered: list[wire.Frame] = []

        async def intrude() -> None:
            while host.session.round is None or host.session.round.table is None:
                await host.status_seen[Status.PLAYING].wait()
                await asyncio.sleep(0)
            answered.append(await _ask(ctx, port, _stranger_hello([1, 0])))

        try:
            host.peer.start()
            joiner.peer.start()
            await asyncio.gather(host.play(), joiner.play(), intrude())
        finally:
            await host.peer.aclose()
            await joiner.peer.aclose()
            ctx.term()
        (busy,) = answered
        assert isinstance(busy.message, wire.Busy)
        assert "already playing" in busy.message.reason
        assert host.peer.turned_away == 1
        assert host.session.sealed and joiner.session.sealed
        assert_valid_pair(host.path, joiner.path)

    asyncio.run(main())


@pytest.mark.net
def test_garbage_and_oversized_frames_change_nothing(tmp_path: Path) -> None:
    async def main() -> None:
        ctx = zmq.asyncio.Context()
        host, port = local_host(tmp_path / "h", ctx, options=MatchOptions(rounds=1), seed=8)
        joiner = local_joiner(tmp_path / "j", ctx, port, seed=9)
        junk = ctx.socket(zmq.DEALER)
        junk.setsockopt(zmq.LINGER, 0)
        junk.connect(f"tcp://{LOOPBACK}:{port}")
        huge = ctx.socket(zmq.DEALER)
        huge.setsockopt(zmq.LINGER, 0)
        huge.connect(f"tcp://{LOOPBACK}:{port}")

        async def attack() -> None:
            await host.status_seen[Status.PLAYING].wait()
            for payload in (b"", b"\xc1\xc1", os.urandom(300), os.urandom(10_000)):
                await junk.send(payload)
            await junk.send_multipart([b"one", b"two", b"three"])
            await huge.send(os.urandom(200_000))  # beyond ZMQ_MAXMSGSIZE: cut off unread
            with socket.create_connection((LOOPBACK, port), timeout=DEADLINE) as raw:
                raw.sendall(b"GET / HTTP/1.0\r\n\r\n" + os.urandom(500))

        try:
            host.peer.start()
            joiner.peer.start()
            await asyncio.gather(host.play(), joiner.play(), attack())
        finally:
            junk.close()
            huge.close()
            await host.peer.aclose()
            await joiner.peer.aclose()
            ctx.term()
        assert host.peer.dropped >= 5
        assert host.session.dispute is None and host.session.sealed
        assert_valid_pair(host.path, joiner.path)

    asyncio.run(main())


@pytest.mark.net
def test_a_peer_of_another_protocol_version_is_refused_clearly(tmp_path: Path) -> None:
    async def main() -> None:
        ctx = zmq.asyncio.Context()
        host, port = local_host(tmp_path / "h", ctx, options=MatchOptions(rounds=1), seed=10)
        try:
            host.peer.start()
            answer = await _ask(ctx, port, _stranger_hello([2, 0]))
            assert isinstance(answer.message, wire.Busy)
            assert "protocol 2.0" in answer.message.reason
            assert host.session.next_seq == 0 and host.session.dispute is None
            # ... and the host still takes a real opponent afterwards.
            joiner = local_joiner(tmp_path / "j", ctx, port, seed=11)
            joiner.peer.start()
            await asyncio.gather(host.play(), joiner.play())
            await joiner.peer.aclose()
        finally:
            await host.peer.aclose()
            ctx.term()
        assert host.session.sealed

    asyncio.run(main())


@pytest.mark.net
def test_a_failed_joiner_stops_its_timers_and_the_event_loop_goes_on(tmp_path: Path) -> None:
    """Once a side failed (here a joiner refusing a known name's new key), its link
    is closed and has nothing more to time. Its pump loop used to go on with a
    deadline in the past: a monitor poll without a timeout, whose ``await`` never
    yields, in a loop that starved every other task of the program for good (the
    full-screen UI, and the timers that would have ended the wait)."""

    async def main() -> None:
        ctx = zmq.asyncio.Context()
        known = tmp_path / "known"
        other = bytes(nacl.signing.SigningKey(b"\x33" * 32).verify_key)
        identity.check_peer("local host", other, known)
        host, port = local_host(tmp_path / "h", ctx, options=MatchOptions(rounds=1), seed=50)
        joiner = local_joiner(
            tmp_path / "j", ctx, port, seed=51, peer_check=identity.tofu_check(known)
        )
        try:
            host.peer.start()
            joiner.peer.start()
            async with asyncio.timeout(DEADLINE):
                while joiner.peer.failure is None:
                    await joiner.peer.next_update()
            _, pump = joiner.peer._tasks  # the receive loop and the pump loop
            # Past the link's next ping: the loop runs timers, and the pump has ended.
            await asyncio.wait_for(asyncio.sleep(3 * FAST.ping_interval), DEADLINE)
            assert pump.done()
        finally:
            await joiner.peer.aclose()
            await host.peer.aclose()
            ctx.term()
        assert isinstance(joiner.peer.failure, KeyChanged)

    asyncio.run(main())


@pytest.mark.net
def test_joining_a_host_of_another_protocol_version_fails_in_one_sentence(tmp_path: Path) -> None:
    async def main() -> None:
        ctx = zmq.asyncio.Context()
        router = ctx.socket(zmq.ROUTER)
        router.setsockopt(zmq.LINGER, 0)
        port = router.bind_to_random_port(f"tcp://{LOOPBACK}")
        proc = await spawn(
            ["join", f"{LOOPBACK}:{port}", "--bot", "random", *TIMING_ARGS],
            tmp_path / "home",
            tmp_path,
        )
        try:
            ident, hello = await asyncio.wait_for(router.recv_multipart(), DEADLINE)
            key = nacl.signing.SigningKey(b"\x55" * 32)
            body = {
                "t": "welcome",
                "seq": 1,
                "prev": hashing.chain_hash(hello),
                "game": hashing.game_id(hello),
                "v": [2, 3],
                "name": "future",
                "key": bytes(key.verify_key),
                "suits": 5,
                "rounds": 3,
                "coin": b"\x01" * 32,
            }
            raw = wire.sign_frame(msgpack.packb(dict(sorted(body.items())), use_bin_type=True), key)
            await router.send_multipart([ident, raw])
            code, _, err = await finish(proc)
        finally:
            await stop(proc)
            router.close()
            ctx.term()
        assert code == ExitCode.VERSION
        assert "speaks lcnet protocol 2.3" in err
        assert "Traceback" not in err

    asyncio.run(main())


@pytest.mark.net
def test_cli_errors_are_one_clear_sentence(tmp_path: Path) -> None:
    async def main() -> None:
        busy = socket.socket()
        busy.bind((LOOPBACK, 0))
        busy.listen()
        port = busy.getsockname()[1]
        try:
            proc = await spawn(
                ["host", "--bind", LOOPBACK, "--port", str(port), "--bot", "random"],
                tmp_path / "home",
                tmp_path,
            )
            code, _, err = await finish(proc)
            assert code == 1 and "already in use" in err and "Traceback" not in err
        finally:
            busy.close()
        with refusing_port() as closed_port:
            proc = await spawn(
                [
                    "join",
                    f"{LOOPBACK}:{closed_port}",
                    "--bot",
                    "random",
                    "--connect-timeout",
                    "1",
                    "--ping-interval",
                    "0.2",
                ],
                tmp_path / "home",
                tmp_path,
            )
            code, _, err = await finish(proc)
        assert code == ExitCode.UNREACHABLE and "nothing is listening at" in err
        assert "Traceback" not in err
        # Nothing worth keeping was saved, and the folder made for it went again.
        assert not (tmp_path / "replays").exists()
        home = tmp_path / "broken-home"
        home.mkdir(mode=0o700)
        key_files = list((tmp_path / "home").iterdir())
        assert key_files
        for path in key_files:
            if path.is_file():
                target = home / path.name
                target.write_bytes(b"not a key at all")
                target.chmod(0o600)
        proc = await spawn(
            ["host", "--port", "0", "--bind", LOOPBACK, "--bot", "random"], home, tmp_path
        )
        code, _, err = await finish(proc)
        assert code == 1 and "Traceback" not in err and err.strip()

    asyncio.run(main())


@pytest.mark.net
def test_host_and_join_never_offer_to_resume_an_unfinished_match(
    tmp_path: Path, refused_port: int
) -> None:
    """Resuming is only ever explicit (`lcnet resume`): hosting or joining starts anew."""
    import random

    from lcnet.bots.uniform import RandomBot
    from lcnet.run import localmatch
    from lcnet.run.saved import unfinished_matches
    from lcnet.store.replayfile import ReplayHeader
    from lcnet.store.writer import write_replay, write_secret

    closed = refused_port
    rng = random.Random(12)
    peers = localmatch.new_peers(
        {s: RandomBot(random.Random(int(s))).choose_turn for s in Seat},
        options=MatchOptions(rounds=1),
        rng=rng,
        names={HOST: "Hana", JOINER: "Joe"},
    )
    localmatch.run(peers)
    replays = tmp_path / "replays"
    extras = {
        HOST: {"role": "host", "bind": LOOPBACK, "port": 0},
        JOINER: {"role": "joiner", "host": LOOPBACK, "port": closed},
    }
    for seat in Seat:
        frames = [f.raw for f in peers[seat].session.chain][:60]  # stopped mid-round
        path = replays / f"20261129-120000-abcdef01-{seat}.lcnet"
        write_replay(
            path,
            ReplayHeader(str(seat), "2026-11-29T12:00:00Z", "test", extra=extras[seat]),
            frames,
        )
        write_secret(path, {"master": peers[seat].master, "seat": str(seat)})
    finished = replays / "20261128-120000-00000000-host.lcnet"
    write_replay(finished, ReplayHeader("host", "2026-11-28T12:00:00Z", "test"), [])

    theirs, mine = unfinished_matches(replays)  # same start: the joiner's name sorts last
    assert mine.opponent == "Joe" and mine.path.name.endswith("-host.lcnet")
    assert theirs.opponent == "Hana" and theirs.role == "joiner"

    async def main() -> None:
        proc = await spawn(
            [
                "host",
                "--bind",
                LOOPBACK,
                "--port",
                "0",
                "--bot",
                "random",
                "--replays",
                str(replays),
                *HOST_TIMING_ARGS,
            ],
            tmp_path / "home",
            tmp_path,
        )
        seen: list[str] = []
        try:
            from tests.netutil import wait_line

            await wait_line(proc, "waiting for an opponent", seen)
        finally:
            await stop(proc)
        assert not any("unfinished" in line or "resume" in line for line in seen), seen
        joiner = await spawn(
            ["join", f"{LOOPBACK}:{closed}", "--bot", "random", "--replays", str(replays)],
            tmp_path / "home",
            tmp_path,
        )
        code, _, err = await finish(joiner)
        assert code == ExitCode.UNREACHABLE and "nothing is listening" in err
        assert "unfinished" not in err and "resume" not in err, err

    asyncio.run(main())


@pytest.mark.net
def test_lcnet_play_in_line_mode_through_a_pipe(tmp_path: Path) -> None:
    async def main() -> tuple[int, str, str]:
        args = ["play", "--bot", "random", "--rounds", "1", *TIMING_ARGS]
        proc = await spawn(args, tmp_path / "home", tmp_path, typed=True)
        return await finish(proc, b"help\n+zz deck\nresign\n")

    code, out, err = asyncio.run(main())
    assert code == 0, err
    assert "not a turn" in out  # a bad command is explained, then asked again
    assert "resign" in out
    files = sorted((tmp_path / "replays").glob("*.lcnet"))
    assert len(files) == 2, "two real peers, two replay files"
    assert not list((tmp_path / "replays").glob("*.secret"))
    assert_valid_pair(*files)
    verdict = audit.audit_file(files[0])
    assert verdict.resigned is not None


@pytest.mark.net
def test_a_poisonous_message_does_not_stop_the_host(tmp_path: Path) -> None:
    async def main() -> None:
        ctx = zmq.asyncio.Context()
        host, port = local_host(tmp_path / "h", ctx, options=MatchOptions(rounds=1), seed=13)
        joiner = local_joiner(tmp_path / "j", ctx, port, seed=14)
        poison = wire.sign_frame(
            msgpack.packb({"t": "ping", b"x": 1}, use_bin_type=True),
            nacl.signing.SigningKey(b"\x66" * 32),
        )
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(f"tcp://{LOOPBACK}:{port}")

        async def attack() -> None:
            await sock.send(poison)  # before the match ...
            await host.status_seen[Status.PLAYING].wait()
            await sock.send(poison)  # ... and during it

        try:
            host.peer.start()
            await attack_then(attack(), host, joiner)
        finally:
            sock.close()
            await host.peer.aclose()
            await joiner.peer.aclose()
            ctx.term()
        assert host.peer.dropped >= 2 and host.session.sealed

    async def attack_then(attack: object, host: LocalPeer, joiner: LocalPeer) -> None:
        joiner.peer.start()
        await asyncio.gather(attack, host.play(), joiner.play())  # type: ignore[arg-type]

    asyncio.run(main())


@pytest.mark.net
def test_a_host_turns_away_replayed_own_key_and_changed_key_hellos(tmp_path: Path) -> None:
    from lcnet.store import identity

    async def main() -> None:
        ctx = zmq.asyncio.Context()
        home = tmp_path / "host"
        try:
            proc, port = await spawn_host(home)
            first = local_joiner(tmp_path / "j1", ctx, port, seed=15)
            first.peer.start()
            await first.play()
            await first.peer.aclose()
            assert first.session.sealed
            assert (await finish(proc))[0] == 0
            old_hello = first.session.chain[0].raw

            proc, port = await spawn_host(home)  # the same host, a new match
            replayed = await _ask(ctx, port, old_hello)
            assert isinstance(replayed.message, wire.Busy)
            assert "already played" in replayed.message.reason

            me = identity.load_identity(home / "home")
            own = _stranger_hello([1, 0], key=me.signing_key, name="mirror")
            answer = await _ask(ctx, port, own)
            assert isinstance(answer.message, wire.Busy) and "own key" in answer.message.reason

            impostor = _stranger_hello([1, 0], name="local joiner")  # a known name, a new key
            answer = await _ask(ctx, port, impostor)
            assert isinstance(answer.message, wire.Busy) and "local joiner" in answer.message.reason

            # The real joiner again: the same key, and (as every real hello) a fresh secret.
            again = local_joiner(tmp_path / "j2", ctx, port, seed=15, fresh_master=True)
            again.peer.start()
            await again.play()
            await again.peer.aclose()
            assert again.session.sealed
            assert (await finish(proc))[0] == 0
        finally:
            ctx.term()

    asyncio.run(main())


@pytest.mark.net
def test_resuming_a_play_match_finds_the_bot_and_tells_of_a_silent_host(
    tmp_path: Path, refused_port: int
) -> None:
    async def run(args: list[str], typed: bytes) -> tuple[int, str, str]:
        proc = await spawn([*args, *TIMING_ARGS], tmp_path / "home", tmp_path, typed=True)
        return await finish(proc, typed)

    async def main() -> None:
        code, out, _ = await run(["play", "--bot", "random", "--rounds", "1"], b"quit\n")
        assert code == 3 and "lcnet resume" in out
        replays = tmp_path / "replays"
        joiner_file = next(replays.glob("*-joiner.lcnet"))
        bot_file = next(replays.glob("*-host.lcnet"))
        # A bot file named as older versions did (a time stamp first) is found too.
        moved = replays / ("19990101-000000-" + bot_file.name)
        bot_file.rename(moved)
        Path(str(bot_file) + ".secret").rename(Path(str(moved) + ".secret"))

        # Nothing listens at the recorded address: the resumed joiner says so.
        dead_port = refused_port  # nothing listens at the recorded address
        proc = await spawn(
            [
                "resume",
                str(joiner_file),
                "--connect",
                f"{LOOPBACK}:{dead_port}",
                "--bot",
                "random",
                *TIMING_ARGS,
            ],
            tmp_path / "home",
            tmp_path,
        )
        seen: list[str] = []
        try:
            await wait_line(proc, "nothing is listening at", seen)  # at once
            await wait_line(proc, "no answer from the opponent", seen)
        finally:
            await stop(proc)

        code, out, err = await run(["resume", str(joiner_file)], b"resign\n")
        assert code == 0, err
        assert_valid_pair(joiner_file, moved)

    asyncio.run(main())


def test_the_hosted_games_ledger_remembers_ids_in_a_private_file(tmp_path: Path) -> None:
    home = tmp_path / "new" / ".lcnet"
    fresh = identity.game_ledger(home)
    assert fresh(b"\x01" * 32)
    assert fresh(b"\x02" * 32)
    assert not fresh(b"\x01" * 32)  # a replayed hello's game id
    assert not identity.game_ledger(home)(b"\x02" * 32)  # remembered across runs
    ledger = home / identity.GAMES_FILE
    assert ledger.read_text().split() == [(b"\x01" * 32).hex(), (b"\x02" * 32).hex()]
    assert ledger.stat().st_mode & 0o777 == 0o600
    assert home.stat().st_mode & 0o777 == home.parent.stat().st_mode & 0o777 == 0o700


@pytest.mark.net
def test_a_lone_hello_no_longer_holds_the_host_which_then_plays_the_next_joiner(
    tmp_path: Path,
) -> None:
    """Issue 44, point 5, over real sockets: a peer says a signed hello, takes
    the host's welcome and goes silent. Past the opening timeout the host
    turns it away (it sees why), drops the match's files, waits again, and
    plays the next joiner to the end."""
    from lcnet.protocol.session import Session

    async def main() -> tuple[wire.Frame, tuple[int, str, str], tuple[int, str, str]]:
        host, port = await spawn_host(tmp_path / "h", extra=["--opening-timeout", "1"])
        ctx = zmq.asyncio.Context()
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(f"tcp://{LOOPBACK}:{port}")
        try:
            stalled = Session.joiner(nacl.signing.SigningKey(b"\x35" * 32), b"\x36" * 32, name="x")
            (hello,) = stalled.start().outgoing
            await sock.send(hello.raw)
            async with asyncio.timeout(DEADLINE):
                welcome = wire.decode_frame(await sock.recv())
                assert isinstance(welcome.message, wire.Welcome)
                while True:  # pings, then the host's word that it gave up
                    frame = wire.decode_frame(await sock.recv())
                    if isinstance(frame.message, wire.Busy):
                        break
            joiner = await spawn_bot_joiner(tmp_path / "j", port)
            joined = await finish(joiner)
            hosted = await finish(host)
        finally:
            sock.close()
            ctx.term()
            await stop(host)
        return frame, joined, hosted

    busy, (code, _, err), (host_code, _, host_err) = asyncio.run(main())
    assert isinstance(busy.message, wire.Busy)
    assert "went no further for 1 s" in busy.message.reason, busy.message.reason
    assert code == 0, err
    assert host_code == 0, host_err
    assert "x took the opening no further for 1 s" in host_err
    # One file: the match played; nothing of the abandoned opening is kept.
    (kept,) = (tmp_path / "h" / "replays").iterdir()
    assert audit.audit_file(kept).kind is audit.VerdictKind.VALID
    assert_valid_pair(kept, replay_file(tmp_path / "j"))


@pytest.mark.net
def test_a_player_who_quits_says_so_and_the_other_side_knows_at_once(tmp_path: Path) -> None:
    """Issue 44, point 12: a clean quit sends a ``bye``; the opponent shows
    it as disconnected (its clock stands still, so no timeout can say so),
    and the match stays resumable: both files hold the same transcript."""

    async def main() -> tuple[LocalPeer, LocalPeer]:
        ctx = zmq.asyncio.Context()
        host, port = local_host(tmp_path / "h", ctx, seed=81, clock=lambda: 0.0)
        joiner = local_joiner(tmp_path / "j", ctx, port, seed=82)
        player = make_bot("random", 3)
        try:
            host.peer.start()
            joiner.peer.start()
            hosting = asyncio.ensure_future(host.play())
            async with asyncio.timeout(DEADLINE):
                while len(joiner.session.chain) < 24:  # a few moves into round 1
                    if joiner.session.awaiting_decision:
                        view = joiner.session.view()
                        assert view is not None
                        await joiner.peer.play(player.choose_turn(view))
                    else:
                        await joiner.peer.next_update()
                await host.status_seen[Status.PLAYING].wait()
                await joiner.peer.aclose()  # the player quits
                await host.status_seen[Status.DISCONNECTED].wait()
            hosting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await hosting
        finally:
            await host.peer.aclose()
            ctx.term()
        return host, joiner

    host, joiner = asyncio.run(main())
    assert any("the opponent quit; the match is saved" in n for n in host.notices), host.notices
    assert not host.session.is_over and not joiner.session.is_over
    theirs = read_replay(joiner.path).frames
    assert read_replay(host.path).frames[: len(theirs)] == theirs


@pytest.mark.net
def test_a_stranger_s_hello_of_another_version_cannot_stop_a_rematch_s_bound_side(
    tmp_path: Path,
) -> None:
    """In a rematch the seats swap but the sockets do not: the side in the
    joiner's seat may hold the bound socket, which strangers reach. A hello
    of another major version from one is turned away; it does not stop the
    match as an incompatible host would stop a joiner."""
    from lcnet.net.peer import NetPeer
    from lcnet.net.sockets import bind_host
    from lcnet.protocol.session import Session

    key = nacl.signing.SigningKey(bytes([3]) * 32)
    session = Session.joiner(key, bytes(32), name="Ben")  # the joiner's seat ...

    async def main() -> tuple[object, bytes, int]:
        context = zmq.asyncio.Context()
        sock, port = bind_host(context, LOOPBACK, 0)
        peer = NetPeer(
            session,
            sock,
            writer=None,  # nothing is recorded: a stranger's frame is no step
            timing=FAST,
            role=HOST,  # ... and the bound socket
        )
        stranger = context.socket(zmq.DEALER)
        stranger.setsockopt(zmq.LINGER, 0)
        stranger.connect(f"tcp://{LOOPBACK}:{port}")
        try:
            peer.start()
            stranger_key = nacl.signing.SigningKey(bytes([9]) * 32)
            hello = wire.Hello(
                v=[wire.PROTOCOL_VERSION[0] + 1, 0],
                name="Eve",
                key=bytes(stranger_key.verify_key),
                coin=bytes(32),
            )
            await stranger.send(wire.make_frame(hello, stranger_key, seq=0).raw)
            answer = b""
            async with asyncio.timeout(DEADLINE):
                while peer.failure is None and not answer:
                    if await stranger.poll(100):
                        answer = await stranger.recv()
            return peer.failure, answer, peer.turned_away
        finally:
            await peer.aclose()
            stranger.close(0)
            context.term()

    failure, answer, turned_away = asyncio.run(main())
    assert failure is None
    busy = wire.decode_frame(answer).message
    assert isinstance(busy, wire.Busy) and "version" in busy.reason
    assert turned_away == 1

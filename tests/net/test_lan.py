"""A real two-machine LAN: two network namespaces joined by a veth pair.

``lcnet host`` runs in one namespace and ``lcnet games`` / ``lcnet join`` in
the other: the game is found by multicast DNS over the pair, joined and
played to the end. Everything sent stays inside the namespaces made here
(see tests/netns.py); where they cannot be made (not root, no ``ip``), the
tests skip and say why.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path

import pytest

from lcnet.audit import verdict as audit
from lcnet.errors import ExitCode
from lcnet.store import identity
from lcnet.store.replayfile import read_replay
from tests.netns import (
    ADDRESS_A,
    ADDRESS_B,
    Lan,
    Lan3,
)
from tests.netutil import (
    DEADLINE,
    HOST_TIMING_ARGS,
    TIMING_ARGS,
    finish,
    lcnet_env,
    replay_file,
    spawn,
    spawn_listening,
    stop,
)


async def spawn_in(
    namespace: str, args: list[str], directory: Path, *, typed: bool = False
) -> asyncio.subprocess.Process:
    """``python -m lcnet ARGS`` inside ``namespace``, with its own LCNET_HOME."""
    return await spawn(
        args, directory / "home", directory, typed=typed, prefix=Lan.exec_in(namespace)
    )


async def spawn_lan_host(
    lan: Lan, directory: Path, *extra: str, typed: bool = False
) -> tuple[asyncio.subprocess.Process, int]:
    """``lcnet host`` bound to the first namespace's address; returns it and its port."""
    args = ["host", "--bind", ADDRESS_A, "--port", "0", "--rounds", "1"]
    args += ["--replays", str(directory / "replays"), *HOST_TIMING_ARGS, *extra]
    return await spawn_listening(
        args, directory / "home", directory, typed=typed, prefix=Lan.exec_in(lan.a)
    )


async def run_script(
    namespace: str, script: str, *args: str, home: Path, typed: bool = True
) -> asyncio.subprocess.Process:
    """``python -c SCRIPT ARGS`` inside ``namespace`` (a forger, a rogue, a
    watcher: a peer that is not lcnet), with standard input to end it if
    ``typed``."""
    return await asyncio.create_subprocess_exec(
        *Lan.exec_in(namespace),
        sys.executable,
        "-c",
        script,
        *args,
        stdin=asyncio.subprocess.PIPE if typed else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=lcnet_env(home),
    )


def join_args(directory: Path) -> list[str]:
    return ["join", "--pick", "1", "--bot", "random", "--replays", str(directory / "replays")]


@pytest.mark.net
def test_a_game_is_found_joined_and_played_across_two_namespaces(lan: Lan, tmp_path: Path) -> None:
    async def main() -> None:
        host, port = await spawn_lan_host(lan, tmp_path / "h", "--bot", "random", "--suits", "6")
        try:
            games = await spawn_in(lan.b, ["games", "--json"], tmp_path / "j")
            code, out, err = await finish(games)
            assert code == 0, err
            (game,) = json.loads(out)
            me = identity.load_identity(tmp_path / "h" / "home")
            assert game["name"] == me.name and game["fingerprint"] == me.fingerprint
            assert (game["address"], game["port"]) == (ADDRESS_A, port)
            assert (game["suits"], game["rounds"], game["state"]) == (6, 1, "waiting")
            assert game["protocol"] == "1.1" and game["joinable"]

            joiner = await spawn_in(
                lan.b, [*join_args(tmp_path / "j"), *TIMING_ARGS], tmp_path / "j"
            )
            code, _, err = await finish(joiner)
            assert code == 0, err
            assert f"connecting to {me.name} at {ADDRESS_A}:{port}" in err
            host_code, _, host_err = await finish(host)
            assert host_code == 0, host_err
        finally:
            await stop(host)
        host_file, joiner_file = replay_file(tmp_path / "h"), replay_file(tmp_path / "j")
        assert read_replay(host_file).frames == read_replay(joiner_file).frames
        for path in (host_file, joiner_file):
            verdict = audit.audit_file(path)
            assert verdict.kind is audit.VerdictKind.VALID, verdict.summary
            assert verdict.options == {"suits": 6, "rounds": 1}

    asyncio.run(main())


@pytest.mark.net
def test_a_match_being_played_is_announced_as_such_and_a_spectator_finds_it(
    lan: Lan, tmp_path: Path
) -> None:
    async def main() -> None:
        # A person hosts (line mode, standard input from this test).
        host, port = await spawn_lan_host(lan, tmp_path / "h", typed=True)
        joiner = watcher = None
        try:
            joiner = await spawn_in(
                lan.b, [*join_args(tmp_path / "j"), *TIMING_ARGS], tmp_path / "j"
            )
            # The host opens its replay file when it accepts the hello: the match has started.
            replays = tmp_path / "h" / "replays"
            async with asyncio.timeout(DEADLINE):
                while not list(replays.glob("*.lcnet")):
                    await asyncio.sleep(0.05)
            joiner_me = identity.load_identity(tmp_path / "j" / "home")
            async with asyncio.timeout(DEADLINE):
                while True:  # the update to "playing" follows the start closely
                    games = await spawn_in(
                        lan.b, ["games", "--json", "--timeout", "2"], tmp_path / "g"
                    )
                    code, out, err = await finish(games)
                    assert code == 0, (out, err)
                    (game,) = json.loads(out)
                    if game["state"] == "playing":
                        break
            assert not game["joinable"] and game["watchable"]
            assert game["opponent"] == {
                "name": joiner_me.name,
                "fingerprint": joiner_me.fingerprint,
            }
            assert (game["address"], game["port"]) == (ADDRESS_A, port)
            # No address: the spectator finds the one match being played.
            watcher = await spawn_in(
                lan.b, ["watch", "--replays", str(tmp_path / "s" / "replays")], tmp_path / "s"
            )
            async with asyncio.timeout(DEADLINE):  # it has the transcript up to the deal
                assert watcher.stdout is not None
                while b"round 1 begins" not in await watcher.stdout.readline():
                    pass
            async with asyncio.timeout(DEADLINE):  # and the announcement counts it
                while True:
                    games = await spawn_in(
                        lan.b, ["games", "--json", "--timeout", "2"], tmp_path / "g"
                    )
                    code, out, err = await finish(games)
                    assert code == 0, (out, err)
                    (game,) = json.loads(out)
                    if game["watchers"] == 1:
                        break
            host_code, _, host_err = await finish(host, b"resign\n")
            assert host_code == 0, host_err
            code, _, err = await finish(joiner)
            assert code == 0, err
            watch_code, watch_out, watch_err = await finish(watcher)
            assert watch_code == 0, (watch_out, watch_err)
        finally:
            for proc in (host, joiner, watcher):
                if proc is not None:
                    await stop(proc)
        for path in (replay_file(tmp_path / "h"), replay_file(tmp_path / "j")):
            verdict = audit.audit_file(path)
            assert verdict.kind is audit.VerdictKind.VALID, verdict.summary
            assert verdict.resigned is not None
        assert (
            read_replay(replay_file(tmp_path / "s")).frames
            == read_replay(replay_file(tmp_path / "h")).frames
        )
        assert "resigned" in watch_out

    asyncio.run(main())


FORGER = """
import asyncio, sys
from lcnet.net.discovery import Announcer

async def main():
    announcer = Announcer([sys.argv[1]], name="Alice", fingerprint=sys.argv[2],
                          port=int(sys.argv[3]), suits=5, rounds=1, say=print)
    announcer.start()
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await announcer.aclose()

asyncio.run(main())
"""


@pytest.mark.net
def test_a_host_that_signs_with_another_key_than_announced_is_refused(
    lan: Lan, tmp_path: Path
) -> None:
    alice = identity.load_identity(tmp_path / "alice")  # the player the joiner means to meet
    mallory_dir = tmp_path / "m"

    async def main() -> None:
        # Mallory hosts without announcing, and announces her port as Alice's game.
        host, port = await spawn_lan_host(lan, mallory_dir, "--bot", "random", "--no-announce")
        forger = await run_script(
            lan.a, FORGER, ADDRESS_A, alice.fingerprint, str(port), home=tmp_path / "forger"
        )
        try:
            assert forger.stdout is not None
            async with asyncio.timeout(DEADLINE):
                assert b"announcing" in await forger.stdout.readline()
            joiner = await spawn_in(
                lan.b, [*join_args(tmp_path / "j"), *TIMING_ARGS], tmp_path / "j"
            )
            code, _, err = await finish(joiner)
        finally:
            await stop(host)
            if forger.returncode is None:
                await finish(forger, b"")
            await stop(forger)
        mallory = identity.load_identity(mallory_dir / "home")
        assert code == ExitCode.KEY_CHANGED, err
        assert "IMPOSTOR" in err and alice.fingerprint in err and mallory.fingerprint in err
        assert "Traceback" not in err
        assert not list((tmp_path / "j" / "replays").glob("*")), "nothing is kept"
        known = identity.known_peers(tmp_path / "j" / "home")
        assert mallory.public_key not in known.values(), "the impostor's key is not remembered"

    asyncio.run(main())


WATCHER = """
import asyncio, sys
from zeroconf.asyncio import AsyncServiceBrowser, AsyncZeroconf

async def main():
    zc = AsyncZeroconf(interfaces=[sys.argv[1]])
    def changed(zeroconf, service_type, name, state_change):
        print(state_change.name, name, flush=True)
    browser = AsyncServiceBrowser(zc.zeroconf, ["_lcnet._tcp.local."], handlers=[changed])
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await browser.async_cancel()
    await zc.async_close()

asyncio.run(main())
"""


@pytest.mark.net
def test_a_host_stopped_with_ctrl_c_says_goodbye_to_the_network(lan: Lan, tmp_path: Path) -> None:
    async def main() -> None:
        host, _ = await spawn_lan_host(lan, tmp_path / "h", "--bot", "random")
        watcher = await run_script(lan.b, WATCHER, ADDRESS_B, home=tmp_path / "w")
        try:
            assert watcher.stdout is not None
            async with asyncio.timeout(DEADLINE):
                assert (await watcher.stdout.readline()).startswith(b"Added ")
                host.send_signal(signal.SIGINT)
                code, _, err = await finish(host)
                # Without the goodbye, the watcher would keep the game for its TTL (120 s).
                assert (await watcher.stdout.readline()).startswith(b"Removed ")
            assert code == 130 and "Traceback" not in err, err
        finally:
            await stop(host)
            if watcher.returncode is None:
                await finish(watcher, b"")
            await stop(watcher)

    asyncio.run(main())


ROGUE = """
import asyncio, json, socket, sys
from zeroconf import DNSAddress, DNSOutgoing, DNSPointer, DNSService, DNSText
from zeroconf.asyncio import AsyncZeroconf

TYPE, RESPONSE, IN, FLUSH = "_lcnet._tcp.local.", 0x8400, 1, 0x8000

def txt(fields):
    items = [f"{k}={v}".encode() for k, v in fields.items()]
    return b"".join(bytes([len(item)]) + item for item in items)

async def main():
    address, answers = sys.argv[1], json.loads(sys.argv[2])
    zc = AsyncZeroconf(interfaces=[address])
    print("announcing", flush=True)

    async def shout():  # unasked answers, with the cache-flush bit, four times a second
        while True:
            out = DNSOutgoing(RESPONSE)
            for a in answers:
                name = a["instance"] + "." + TYPE
                out.add_answer_at_time(DNSPointer(TYPE, 12, IN, 120, name), 0)
                out.add_answer_at_time(
                    DNSService(name, 33, IN | FLUSH, 120, 0, 0, a["port"], "rogue.local."), 0)
                out.add_answer_at_time(DNSText(name, 16, IN | FLUSH, 120, txt(a["txt"])), 0)
            out.add_answer_at_time(
                DNSAddress("rogue.local.", 1, IN | FLUSH, 120, socket.inet_aton(address)), 0)
            zc.zeroconf.async_send(out)
            await asyncio.sleep(0.25)

    task = asyncio.create_task(shout())
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    task.cancel()
    await zc.async_close()

asyncio.run(main())
"""


@pytest.mark.net
def test_a_rogue_announcer_is_shown_for_what_it_is_and_the_real_game_is_played(
    lan: Lan, tmp_path: Path
) -> None:
    """Issue 44, points 2–4: a LAN neighbour announces a game under the host's
    own service name with another key, one under a look-alike name, and one
    with control characters in its name and TXT record. The joiner, who has
    played Alice before, sees every game for what it is, no byte of the
    rogue's reaches its terminal, a pick by the name is refused, and the game
    picked by Alice's fingerprint is Alice's."""
    alice = identity.set_name("Alice", tmp_path / "h" / "home")
    identity.trust_peer("Alice", alice.public_key, tmp_path / "j" / "home")
    rogue_fp = "AAAA-BBBB-CCCC-DDDD"

    def txt(name: str) -> dict[str, str]:
        return dict(name=name, fp=rogue_fp, suits="5", rounds="3", v="1.0", state="waiting")

    answers = [
        {"instance": f"Alice ({alice.fingerprint[:9]})", "port": 4000, "txt": txt("Alice")},
        {"instance": "Alicе (AAAA-BBBB)", "port": 4001, "txt": txt("Alicе")},
        {"instance": "Ev\x1b[31mil\x07\r", "port": 4002, "txt": txt("Evil")},
        {"instance": "Evil two", "port": 4003, "txt": txt("Ev\x1b[2Jil\x07")},
    ]

    async def main() -> None:
        host, port = await spawn_lan_host(lan, tmp_path / "h", "--bot", "random")
        rogue = await run_script(
            lan.a, ROGUE, ADDRESS_A, json.dumps(answers), home=tmp_path / "rogue"
        )
        try:
            assert rogue.stdout is not None
            async with asyncio.timeout(DEADLINE):
                assert b"announcing" in await rogue.stdout.readline()
            games = await spawn_in(lan.b, ["games", "--json", "--timeout", "3"], tmp_path / "j")
            code, out, err = await finish(games)
            assert code == 0, err
            assert "\x1b" not in out + err and "\x07" not in out + err and "Traceback" not in err
            listed = json.loads(out)
            real = [g for g in listed if g["fingerprint"] == alice.fingerprint]
            assert [(g["name"], g["port"], g["known"]) for g in real] == [("Alice", port, True)]
            assert real[0]["warnings"] == ["2 keys answer as 'Alice' or a look-alike"]
            rogues = [g for g in listed if g["fingerprint"] == rogue_fp]
            assert {g["port"] for g in rogues} >= {4000, 4001}, listed
            assert all(g["warnings"] and not g["known"] for g in rogues), listed
            assert {g["name"] for g in listed} == {"Alice", "Alicе"}, "no control character"

            by_name = await spawn_in(
                lan.b, [*join_args(tmp_path / "j"), "--pick", "Alice"], tmp_path / "j"
            )
            code, _, err = await finish(by_name)
            assert code == ExitCode.USAGE and "games answer to 'Alice'" in err, err
            assert "\x1b" not in err and "Traceback" not in err

            args = [*join_args(tmp_path / "j"), "--pick", alice.fingerprint, *TIMING_ARGS]
            joiner = await spawn_in(lan.b, args, tmp_path / "j")
            code, _, err = await finish(joiner)
            assert code == 0, err
            assert f"connecting to Alice at {ADDRESS_A}:{port}" in err
            host_code, _, host_err = await finish(host)
            assert host_code == 0, host_err
        finally:
            await stop(host)
            if rogue.returncode is None:
                await finish(rogue, b"")
            await stop(rogue)
        verdict = audit.audit_file(replay_file(tmp_path / "j"))
        assert verdict.kind is audit.VerdictKind.VALID, verdict.summary

    asyncio.run(main())


STALLER = """
import asyncio, sys
import nacl.signing, zmq, zmq.asyncio
from lcnet.protocol import wire
from lcnet.protocol.session import Session

async def main():
    ctx = zmq.asyncio.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(sys.argv[1])
    session = Session.joiner(nacl.signing.SigningKey(b"\\x35" * 32), b"\\x36" * 32, name="x")
    (hello,) = session.start().outgoing
    await sock.send(hello.raw)
    while True:  # take the welcome, send nothing more, until the host gives up
        frame = wire.decode_frame(await sock.recv())
        print(frame.message.TYPE, flush=True)
        if isinstance(frame.message, wire.Busy):
            break
    sock.close()
    ctx.term()

asyncio.run(main())
"""


@pytest.mark.net
def test_a_host_that_gave_up_a_stalled_opening_is_announced_again(lan: Lan, tmp_path: Path) -> None:
    async def main() -> None:
        host, port = await spawn_lan_host(
            lan, tmp_path / "h", "--bot", "random", "--opening-timeout", "1"
        )
        try:
            staller = await run_script(
                lan.b, STALLER, f"tcp://{ADDRESS_A}:{port}", home=tmp_path / "s", typed=False
            )
            code, out, err = await finish(staller)
            assert code == 0 and out.split()[0] == "welcome" and out.split()[-1] == "busy", err
            games = await spawn_in(lan.b, ["games", "--json", "--timeout", "3"], tmp_path / "g")
            code, out, err = await finish(games)
            assert code == 0, err
            (game,) = json.loads(out)
            assert (game["port"], game["state"]) == (port, "waiting")
        finally:
            await stop(host)

    asyncio.run(main())


@pytest.mark.net
def test_a_spectator_on_another_machine_watches_and_checks_the_match(
    lan: Lan, tmp_path: Path
) -> None:
    # The host in one namespace; the joiner and a spectator in the other, each
    # its own program with its own identity, over the veth pair.
    async def main() -> None:
        host, port = await spawn_lan_host(lan, tmp_path / "h", "--bot", "random")
        try:
            watcher = await spawn_in(
                lan.b,
                ["watch", f"{ADDRESS_A}:{port}", "--replays", str(tmp_path / "s" / "replays")],
                tmp_path / "s",
            )
            joiner = await spawn_in(
                lan.b,
                [
                    "join",
                    f"{ADDRESS_A}:{port}",
                    "--bot",
                    "random",
                    *TIMING_ARGS,
                    "--replays",
                    str(tmp_path / "j" / "replays"),
                ],
                tmp_path / "j",
            )
            code, _, err = await finish(joiner)
            assert code == 0, err
            watch_code, out, watch_err = await finish(watcher)
            assert watch_code == 0, watch_err
            host_code, _, host_err = await finish(host)
            assert host_code == 0, host_err
        finally:
            await stop(host)
        host_file = replay_file(tmp_path / "h")
        spectator_file = replay_file(tmp_path / "s")
        assert read_replay(spectator_file).frames == read_replay(host_file).frames
        verdict = audit.audit_file(spectator_file)
        assert verdict.kind is audit.VerdictKind.VALID, verdict.summary
        assert out.splitlines()[-1] == verdict.summary
        assert "the match is over" in out

    asyncio.run(main())


STALLED_SPECTATOR = """
import sys, zmq, nacl.signing
from lcnet.protocol import wire
key = nacl.signing.SigningKey(bytes(32))
sock = zmq.Context().socket(zmq.DEALER)
sock.setsockopt(zmq.RCVHWM, 1)
sock.connect(f"tcp://{sys.argv[1]}")
watch = wire.Watch(v=[1, 0], name="Stuck", key=bytes(key.verify_key), have=0)
sock.send(wire.make_frame(watch, key, game=bytes(32)).raw)
sys.stdin.read()  # never reads a frame: the host must not wait for it
"""


@pytest.mark.net
def test_three_machines_host_joiner_and_spectators(lan3: Lan3, tmp_path: Path) -> None:
    async def main() -> None:
        host, port = await spawn_lan_host(
            lan3, tmp_path / "h", "--bot", "random", "--rounds", "3", "--no-announce"
        )
        where = f"{ADDRESS_A}:{port}"
        stalled = watcher = joiner = None
        try:
            watcher = await spawn_in(
                lan3.c,
                ["watch", where, "--replays", str(tmp_path / "s" / "replays")],
                tmp_path / "s",
            )
            stalled = await run_script(lan3.c, STALLED_SPECTATOR, where, home=tmp_path / "x")
            joiner_replays = str(tmp_path / "j" / "replays")
            joiner = await spawn_in(
                lan3.b,
                ["join", where, "--bot", "random", *TIMING_ARGS, "--replays", joiner_replays],
                tmp_path / "j",
            )
            code, _, err = await finish(joiner)
            assert code == 0, err
            host_code, _, host_err = await finish(host)
            assert host_code == 0, host_err
            watch_code, out, watch_err = await finish(watcher)
            assert watch_code == 0, watch_err
        finally:
            for proc in (host, joiner, watcher):
                if proc is not None:
                    await stop(proc)
            if stalled is not None:
                await finish(stalled, b"")
        frames = read_replay(replay_file(tmp_path / "h")).frames
        assert read_replay(replay_file(tmp_path / "j")).frames == frames
        spectator_file = replay_file(tmp_path / "s")
        assert read_replay(spectator_file).frames == frames
        verdict = audit.audit_file(spectator_file)
        assert verdict.kind is audit.VerdictKind.VALID, verdict.summary
        assert verdict.summary == audit.audit_file(replay_file(tmp_path / "h")).summary
        assert sum(" over, deck verified" in line for line in out.splitlines()) == 3
        assert f"lcnet: saving the match to {spectator_file}" in watch_err

    asyncio.run(main())


@pytest.mark.net
def test_an_address_nobody_has_on_the_lan_is_said_in_the_system_s_words(
    lan: Lan, tmp_path: Path
) -> None:
    # `lcnet join 10.77.0.99` gave Python's own text: "Connect call failed
    # ('10.77.0.99', 48150)" (issue 57, point 8). The address is in the test
    # namespaces' /24, which has nobody there, so nothing leaves the pair.
    absent = "10.77.0.99"

    async def main() -> None:
        join = await spawn_in(lan.b, ["join", absent, "--bot", "random"], tmp_path / "j")
        code, _, err = await finish(join)
        assert code == ExitCode.UNREACHABLE, err
        assert "Connect call failed" not in err and "('" not in err, err
        assert f"cannot reach {absent}:" in err and "check the address" in err, err

    asyncio.run(main())

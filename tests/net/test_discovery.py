"""Finding games on the LAN, without the network: the interface rule, the TXT
record, picking, and the announced-key check over loopback.

Nothing here creates an mDNS socket: the interface lists are given, and the
searches that need a network run in tests/net/test_lan.py inside namespaces.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest
import zmq
import zmq.asyncio

from lcnet.cli import main
from lcnet.errors import ExitCode
from lcnet.game.seat import Seat
from lcnet.net import choosing, discovery
from lcnet.net.discovery import Game, Interface
from lcnet.net.sockets import bind_host
from lcnet.protocol import wire
from lcnet.protocol.events import MatchOptions
from lcnet.run import botpeer, netmatch
from lcnet.store import identity, names
from tests.netutil import LOOPBACK, local_host, local_joiner

MACHINE = [
    Interface("127.0.0.1", 8),
    Interface("192.168.1.20", 24),
    Interface("10.9.0.5", 16),
    Interface("::1", 128),
    Interface("fe80::1", 64),
]
FP = "3F2A-9C1B-0000-ABCD"


def game(**changes: object) -> Game:
    fields: dict[str, object] = {
        "instance": "Alice (3F2A-9C1B)",
        "name": "Alice",
        "fingerprint": FP,
        "addresses": ("192.168.1.20",),
        "port": 48150,
        "suits": 5,
        "rounds": 3,
        "protocol": wire.PROTOCOL_VERSION,  # what this lcnet announces
        "state": "waiting",
    }
    fields.update(changes)
    return Game(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("bound", "expected"),
    [
        ("127.0.0.1", []),
        ("127.0.1.1", []),
        ("::1", []),
        ("[::1]", []),
        ("localhost", []),  # a name: nothing (the host announces the address it bound)
        ("0.0.0.0", ["192.168.1.20", "10.9.0.5"]),
        ("*", ["192.168.1.20", "10.9.0.5"]),
        ("192.168.1.20", ["192.168.1.20"]),
        ("192.168.1.99", []),  # not an address of this machine
        ("fe80::1", ["fe80::1"]),
    ],
)
def test_a_host_announces_only_on_the_interfaces_it_is_bound_to(
    bound: str, expected: list[str]
) -> None:
    assert discovery.announce_interfaces(bound, MACHINE) == expected


def test_a_search_looks_on_ipv4_interfaces_other_than_loopback() -> None:
    assert discovery.browse_interfaces(MACHINE) == ["192.168.1.20", "10.9.0.5"]
    assert discovery.browse_interfaces([Interface("127.0.0.1", 8)]) == []


@pytest.mark.net
def test_a_host_bound_to_loopback_starts_no_announcer(tmp_path: Path) -> None:
    said: list[str] = []

    async def main_() -> discovery.Announcer | None:
        ctx = zmq.asyncio.Context()
        sock, port = bind_host(ctx, LOOPBACK, 0)
        try:
            me = identity.load_identity(tmp_path / "home")
            player = netmatch.Player(say=said.append)
            return netmatch._announce(sock, port, me, MatchOptions(), player)
        finally:
            sock.close(linger=0)
            ctx.term()

    assert asyncio.run(main_()) is None
    assert said and "not announced" in said[0] and "127.0.0.1" in said[0]


def test_lcnet_play_tells_its_bot_host_not_to_announce() -> None:
    import inspect

    assert '"--no-announce"' in inspect.getsource(botpeer.play_against_bot)


def test_the_txt_record_round_trips_and_bad_records_are_ignored() -> None:
    txt = discovery.txt_record("Alice", FP, 6, 2, "waiting")
    raw = {k.encode(): v.encode() for k, v in txt.items()}
    found = discovery.game_from_record("Alice (3F2A-9C1B)", raw, ["10.0.0.1"], 5000)
    assert found == game(addresses=("10.0.0.1",), port=5000, suits=6, rounds=2)
    assert found is not None and found.joinable and found.where == "10.0.0.1:5000"
    for key, bad in [
        (b"suits", b"7"),
        (b"rounds", b"0"),
        (b"fp", b"not a fingerprint"),
        (b"state", b"sleeping"),
        (b"v", b"one"),
        (b"name", b"   "),
    ]:
        assert discovery.game_from_record("x", {**raw, key: bad}, ["10.0.0.1"], 5000) is None
    assert discovery.game_from_record("x", {**raw, b"name": None}, ["10.0.0.1"], 5000) is None
    assert discovery.game_from_record("x", raw, [], 5000) is None
    assert discovery.game_from_record("x", raw, ["10.0.0.1"], None) is None
    future = discovery.game_from_record("x", {**raw, b"v": b"2.0"}, ["10.0.0.1"], 5000)
    assert future is not None and not future.joinable and "protocol 2.0" in future.status
    busy = discovery.game_from_record("x", {**raw, b"state": b"busy"}, ["10.0.0.1"], 5000)
    assert busy is not None and not busy.joinable and busy.status == "busy"


def test_an_instance_name_fits_one_dns_label() -> None:
    label = names.instance_label("É" * 32, FP)
    assert len(label.encode()) <= names.MAX_LABEL_BYTES
    assert label.endswith("(3F2A-9C1B)")
    assert "." not in names.instance_label("a.b", FP)


def test_addresses_in_a_network_of_this_machine_come_first() -> None:
    order = discovery.prefer_reachable(["127.0.0.1", "172.16.0.9", "fe80::2", "10.9.3.4"], MACHINE)
    assert order == ["10.9.3.4", "fe80::2", "172.16.0.9", "127.0.0.1"]


def test_a_game_is_picked_by_number_name_or_fingerprint() -> None:
    games = discovery.sort_games(
        [
            game(name="Zoe", fingerprint="1111-2222-3333-4444", instance="z"),
            game(name="Bob", fingerprint="AAAA-BBBB-CCCC-DDDD", instance="b", state="busy"),
            game(name="Alice", instance="a"),
        ]
    )
    assert [g.name for g in games] == ["Alice", "Zoe", "Bob"]  # joinable first
    assert choosing.pick(games, "2").name == "Zoe"
    assert choosing.pick(games, "zoe").name == "Zoe"
    assert choosing.pick(games, "aaaa-bbbb-cccc-dddd").name == "Bob"
    assert choosing.pick(games, "AAAABBBBCCCCDDDD").name == "Bob"
    for wrong in ("0", "4", "Carol", "3F"):
        with pytest.raises(discovery.UserError):
            choosing.pick(games, wrong)
    # A fingerprint's start is ground in seconds (issue 44, point 1): it picks
    # nothing, and the refusal names the games it matched.
    for prefix in ("aaaa-bb", "AAAA-BBBB-CCCC"):
        with pytest.raises(discovery.UserError, match="whole fingerprint") as refused:
            choosing.pick(games, prefix)
        assert "Bob at" in str(refused.value) and "AAAA-BBBB-CCCC-DDDD" in str(refused.value)


@pytest.mark.slow
def test_lcnet_games_with_nowhere_to_look_exits_4(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(discovery, "machine_interfaces", lambda: [Interface("127.0.0.1", 8)])
    assert main(["games", "--json"]) == ExitCode.NO_GAMES
    out, err = capsys.readouterr()
    assert json.loads(out) == [] and "no network interface other than loopback" in err
    assert main(["games", "--timeout", "0"]) == 2


def test_join_without_an_address_and_without_a_terminal_explains_how_to_pick(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def found(seconds: float) -> list[Game]:
        return [game()]

    monkeypatch.setattr(discovery, "find_games", found)
    monkeypatch.setattr("sys.stdin", open("/dev/null"))  # noqa: SIM115
    assert main(["join", "--bot", "random"]) == 2
    err = capsys.readouterr().err
    assert "Alice" in err and FP in err and "192.168.1.20:48150" in err
    assert "lcnet join ADDRESS:PORT" in err and "--pick" in err
    assert main(["join", "192.168.1.20", "--pick", "1"]) == 2


@pytest.mark.net
def test_a_host_that_signs_with_another_key_than_announced_is_refused(tmp_path: Path) -> None:
    """The announced-key check, through NetPeer's peer check, over loopback."""

    async def main_() -> None:
        ctx = zmq.asyncio.Context()
        host, port = local_host(tmp_path / "h", ctx, options=MatchOptions(rounds=1), seed=21)
        announced = game(fingerprint=identity.fingerprint(b"\x07" * 32))
        checked: list[str] = []

        def then(seat: Seat, name: str, key: bytes) -> None:
            checked.append(name)

        joiner = local_joiner(
            tmp_path / "j",
            ctx,
            port,
            seed=22,
            peer_check=choosing.announced_key_check(announced, then=then),
        )
        try:
            host.peer.start()
            joiner.peer.start()
            await asyncio.wait_for(joiner.play(), 60)
        finally:
            await host.peer.aclose()
            await joiner.peer.aclose()
            ctx.term()
        failure = joiner.peer.failure
        assert isinstance(failure, discovery.AnnouncedKeyMismatch)
        assert announced.fingerprint in str(failure)
        assert identity.fingerprint(bytes(host.key.verify_key)) in str(failure)
        assert Seat.HOST not in joiner.session.keys, "the welcome was not taken"
        assert checked == [], "trust on first use never saw (nor remembered) the impostor"

    asyncio.run(main_())


@pytest.mark.net
def test_the_announced_key_lets_the_right_host_through(tmp_path: Path) -> None:
    async def main_() -> None:
        ctx = zmq.asyncio.Context()
        host, port = local_host(tmp_path / "h", ctx, options=MatchOptions(rounds=1), seed=23)
        announced = game(fingerprint=identity.fingerprint(bytes(host.key.verify_key)))
        joiner = local_joiner(
            tmp_path / "j", ctx, port, seed=24, peer_check=choosing.announced_key_check(announced)
        )
        try:
            host.peer.start()
            joiner.peer.start()
            await asyncio.wait_for(asyncio.gather(host.play(), joiner.play()), 120)
        finally:
            await host.peer.aclose()
            await joiner.peer.aclose()
            ctx.term()
        assert joiner.peer.failure is None and joiner.session.sealed

    asyncio.run(main_())


def txt(fields: dict[str, str]) -> bytes:
    """A TXT record's bytes: length-prefixed ``key=value`` strings (RFC 6763 §6)."""
    items = [f"{k}={v}".encode() for k, v in fields.items()]
    return b"".join(bytes([len(item)]) + item for item in items)


ROGUE_FP = "AAAA-BBBB-CCCC-DDDD"


def announced(name: str, fingerprint: str) -> bytes:
    return txt(discovery.txt_record(name, fingerprint, 5, 3, "waiting"))


def test_every_answer_for_one_name_is_listed_with_its_own_key_and_address() -> None:
    # The host and a copycat both answer for "Alice (3F2A-9C1B)" (issue 44, point 3).
    host = discovery.server_prefix(FP) + "48150.local."
    answer = discovery.Answer(
        "Alice (3F2A-9C1B)",
        texts=(announced("Alice", FP), announced("Alice", ROGUE_FP)),
        services=((host, 48150), ("rogue.local.", 4000)),
        addresses={host.lower(): ("192.168.1.20",), "rogue.local.": ("192.168.1.66",)},
    )
    found = {(g.fingerprint, g.where) for g in discovery.games_from_answer(answer, MACHINE)}
    # The host's record goes with its own service; the copycat's, which names
    # no host of its key, with every service (joining a wrong pair is refused).
    assert found == {
        (FP, "192.168.1.20:48150"),
        (ROGUE_FP, "192.168.1.20:48150"),
        (ROGUE_FP, "192.168.1.66:4000"),
    }


def test_a_txt_record_is_read_as_rfc_6763_says() -> None:
    data = txt({"name": "Alice", "fp": FP}) + b"\x04flag" + txt({"NAME": "Mallory"})
    assert discovery.decode_txt(data) == {b"name": b"Alice", b"fp": FP.encode(), b"flag": None}
    assert discovery.decode_txt(b"\x09truncated") == {b"truncated": None}


def test_games_are_marked_against_the_known_peers_and_each_other(tmp_path: Path) -> None:
    alice = identity.load_identity(tmp_path / "alice")
    real = game(name="Alice", fingerprint=alice.fingerprint)
    twin = game(name="Alice", fingerprint=ROGUE_FP, addresses=("192.168.1.66",))
    cyrillic = game(name="Alicе", fingerprint="1111-2222-3333-4444", port=4002)
    bob = game(name="Bob", fingerprint="5555-6666-7777-8888", port=4003)
    known = {"Alice": alice.public_key}

    marked = {g.port: g for g in choosing.assess([real, bob], known)}
    assert marked[real.port].known and marked[real.port].warnings == ()
    assert not marked[bob.port].known and marked[bob.port].warnings == ()
    assert marked[real.port].note() == "known" and marked[bob.port].note() == ""

    marked = {(g.fingerprint, g.port): g for g in choosing.assess([real, twin, cyrillic], known)}
    mine, copy, lookalike = (marked[g.fingerprint, g.port] for g in (real, twin, cyrillic))
    assert mine.known and mine.warnings == ("3 keys answer as 'Alice' or a look-alike",)
    assert not copy.known and copy.warnings[0] == "not the key known for Alice"
    assert "looks like Alice, known here" in lookalike.warnings
    assert "mixes scripts (CYRILLIC, LATIN)" in lookalike.warnings
    assert all(g.to_json()["warnings"] == list(g.warnings) for g in (mine, copy, lookalike))


def test_a_name_picks_only_an_unflagged_game_that_alone_answers_to_it() -> None:
    alice, bob = game(name="Alice"), game(name="Bob", fingerprint="5555-6666-7777-8888")
    assert choosing.pick([alice, bob], "alice") is alice
    # A look-alike is never picked by the name it imitates, nor by its own,
    # without the player confirming it.
    cyrillic = game(name="Alicе", fingerprint=ROGUE_FP)
    with pytest.raises(choosing.NeedsConfirmation, match="looks like it") as asked:
        choosing.pick([cyrillic, bob], "Alice")
    assert asked.value.game is cyrillic
    flagged = choosing.assess([cyrillic, bob], {})
    with pytest.raises(choosing.NeedsConfirmation, match="mixes scripts"):
        choosing.pick(flagged, "Alicе")
    # Two games that answer to one name (or a look-alike): a name picks neither.
    twin = game(name="Alice", fingerprint=ROGUE_FP, addresses=("192.168.1.66",))
    for games in ([alice, twin], [alice, cyrillic]):
        with pytest.raises(discovery.UserError, match="2 games answer to 'Alice'"):
            choosing.pick(games, "Alice")
    # The number or the whole fingerprint still picks any of them.
    assert choosing.pick([alice, twin], ROGUE_FP) is twin
    assert choosing.pick([alice, cyrillic], "2") is cyrillic


def test_a_pick_that_several_games_answer_to_is_a_usage_error_listing_them(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    alice = game(name="Alice")
    twin = game(name="Alice", fingerprint=ROGUE_FP, addresses=("192.168.1.66",))

    async def found(seconds: float) -> list[Game]:
        return [alice, twin]

    monkeypatch.setattr(discovery, "find_games", found)
    replays = ["--replays", str(tmp_path / "r")]
    assert main(["join", "--pick", "Alice", "--bot", "random", *replays]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "--pick Alice: 2 games answer to 'Alice'" in err
    assert f"1. Alice at 192.168.1.20:48150, key {FP}" in err
    assert f"2. Alice at 192.168.1.66:48150, key {ROGUE_FP}" in err
    assert "Pick one exactly by its number or its whole fingerprint" in err
    assert not (tmp_path / "r").exists()


def test_an_answer_whose_name_holds_control_characters_is_left_out() -> None:
    server = discovery.server_prefix(FP) + "48150.local."
    answer = discovery.Answer(
        "Ev\x1b[31mil\x07",
        texts=(announced("Evil", FP),),
        services=((server, 48150),),
        addresses={server.lower(): ("192.168.1.20",)},
    )
    assert discovery.games_from_answer(answer, MACHINE) == []
    clean = dataclasses.replace(answer, instance="Evil (3F2A-9C1B)")
    assert [g.name for g in discovery.games_from_answer(clean, MACHINE)] == ["Evil"]
    # A TXT record's name with control characters is no game either.
    bad = dataclasses.replace(clean, texts=(announced("Ev\x1bil", FP),))
    assert discovery.games_from_answer(bad, MACHINE) == []


def test_a_match_being_played_is_announced_with_its_opponent() -> None:
    other = "0A0B-0C0D-0E0F-1011"
    txt = discovery.txt_record("Alice", FP, 5, 3, discovery.PLAYING, ("Bob", other))
    raw = {k.encode(): v.encode() for k, v in txt.items()}
    found = discovery.game_from_record("Alice (3F2A-9C1B)", raw, ["10.0.0.1"], 5000)
    assert found is not None and found.opponent == ("Bob", other)
    assert found.watchable and not found.joinable
    assert found.status == f"playing Bob ({other})"
    assert found.to_json()["opponent"] == {"name": "Bob", "fingerprint": other}
    watched = discovery.txt_record("Alice", FP, 5, 3, discovery.PLAYING, ("Bob", other), 3)
    raw_watched = {k.encode(): v.encode() for k, v in watched.items()}
    seen = discovery.game_from_record("y", raw_watched, ["10.0.0.1"], 5000)
    assert seen is not None and seen.watchers == 3 and seen.status.endswith(", 3 watching")
    odd = discovery.game_from_record("y", {**raw_watched, b"watch": b"-1"}, ["10.0.0.1"], 5000)
    assert odd is not None and odd.watchers == 0
    # An opponent that is not a valid name and fingerprint is left out, not trusted.
    bad = discovery.game_from_record("x", {**raw, b"ofp": b"nonsense"}, ["10.0.0.1"], 5000)
    assert bad is not None and bad.opponent is None and bad.watchable


def test_the_listing_suggests_join_for_waiting_games_and_watch_for_played_ones() -> None:
    # `lcnet games` suggested `lcnet join` for a game already being played,
    # which its host only turns away (issue 57, point 8).
    from lcnet.cli.games import what_to_do

    playing = game(state="playing", opponent=("Bob", "0000-1111-2222-3333"))
    assert [h.split()[0] for h in what_to_do([playing])] == ["watch"]
    assert [h.split()[0] for h in what_to_do([game()])] == ["join"]
    assert [h.split()[0] for h in what_to_do([game(), playing])] == ["join", "watch"]


def test_watch_with_nothing_played_names_the_games_that_wait() -> None:
    # `lcnet watch` without an address said "no lcnet match is being played"
    # while a game waited for its player (issue 57, point 8).
    from lcnet.cli.games import nothing_to_watch

    said = nothing_to_watch([game(name="Ali\x1bce")], 1.5)
    assert "being played yet" in said and "1 game(s) wait for an opponent" in said
    assert "Ali\\x1bce at 192.168.1.20:48150" in said
    assert "wait for" not in nothing_to_watch([], 1.5)

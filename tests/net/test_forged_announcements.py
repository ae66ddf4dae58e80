"""Forged announcements: a game answering under a service name that is not its own.

An lcnet host announces itself as ``NAME (XXXX-XXXX)``, its player's name and
the start of its key's fingerprint (issue 56, point 6). Anyone on the LAN can
answer under that very name with another key in the TXT record: such an
answer is a forgery, listed as such, never picked by name and never joined
without a warning, and the real game stays listed beside it.

The generator (:func:`random_answer`) makes announcements as a stranger
would: random names, fingerprints and keys, TXT fields with control
characters and oversize values, duplicate and nameless items, some DNS
messages with bytes changed on the way, and runs them through the browser's
parsing, from the DNS packet (zeroconf's own encoder and decoder) to the
listing. ``bench/forged_announcements.py`` runs it long.

The one test that needs a network runs inside two network namespaces (as
root, made and removed here, see tests/netns.py): nothing is sent anywhere
else.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import socket
import string
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lcnet.cli import games as games_cli
from lcnet.deck import hashing
from lcnet.errors import ExitCode, UserError
from lcnet.net import choosing, discovery
from lcnet.net.discovery import SERVICE_TYPE, Answer, Game, Interface
from lcnet.protocol import wire
from lcnet.store import identity, names
from tests.netns import ADDRESS_A, Lan, NamespacesUnavailable, two_namespaces
from tests.netutil import DEADLINE, finish, stop

MACHINE = [Interface("127.0.0.1", 8), Interface("192.168.1.20", 24)]
REAL_FP = "3F2A-9C1B-0000-ABCD"
ROGUE_FP = "AAAA-BBBB-CCCC-DDDD"
LISTING_LINE_LIMIT = 1200
"""No line of a listing grows past this, whatever a stranger announces: a name
is at most 32 characters, a warning quotes at most 70 of an instance name."""


def txt(fields: dict[str, str]) -> bytes:
    """A TXT record's bytes: length-prefixed ``key=value`` strings (RFC 6763 §6)."""
    items = [f"{k}={v}".encode() for k, v in fields.items()]
    return b"".join(bytes([len(item)]) + item for item in items)


def announced(name: str, fingerprint: str, state: str = discovery.WAITING) -> bytes:
    return txt(discovery.txt_record(name, fingerprint, 5, 3, state))


def answer_for(instance: str, *records: tuple[bytes, str, int, str]) -> Answer:
    """An answer holding, per (TXT, server, port, address), a TXT and a service record."""
    return Answer(
        instance,
        texts=tuple(r[0] for r in records),
        services=tuple((r[1], r[2]) for r in records),
        addresses={r[1].lower(): (r[3],) for r in records},
    )


REAL_SERVER = discovery.server_prefix(REAL_FP) + "48150.local."
ROGUE_SERVER = discovery.server_prefix(ROGUE_FP) + "4000.local."
REAL_LABEL = names.instance_label("Alice", REAL_FP)


def copycat_answer() -> Answer:
    """Alice's game and a rogue answering under Alice's own instance name."""
    return answer_for(
        REAL_LABEL,
        (announced("Alice", REAL_FP), REAL_SERVER, 48150, "192.168.1.20"),
        (announced("Alice", ROGUE_FP), ROGUE_SERVER, 4000, "192.168.1.66"),
    )


# ------------------------------------------------------------ the rule


@pytest.mark.parametrize(
    "instance",
    [REAL_LABEL, f"{REAL_LABEL}-2", f"{REAL_LABEL}-17", "Alice (3f2a-9c1b)"],
    ids=["as-announced", "renamed-2", "renamed-17", "lowercase"],
)
def test_a_host_s_own_instance_name_is_no_forgery(instance: str) -> None:
    assert names.forgery(instance, "Alice", REAL_FP) is None


@pytest.mark.parametrize(
    ("instance", "why"),
    [
        ("Alice (AAAA-BBBB)", "carries the fingerprint AAAA-BBBB, but its key is 3F2A-9C1B"),
        ("Alice", "carries no key fingerprint"),
        ("Alice (3F2A-9C1B)-0", "carries no key fingerprint"),
        ("Alice (3F2A-9C1B) extra", "carries no key fingerprint"),
        ("Bob (3F2A-9C1B)", "is not that of 'Alice'"),
    ],
)
def test_an_instance_name_that_is_not_its_record_s_is_a_forgery(instance: str, why: str) -> None:
    reason = names.forgery(instance, "Alice", REAL_FP)
    assert reason is not None and why in reason, reason


def test_a_long_name_s_instance_name_is_the_host_s_own() -> None:
    # Cut to one DNS label at a character boundary, dots made blanks: as announced.
    name = "Ålice.in.wonderland" + "é" * 13
    label = names.instance_label(identity.validate_name(name), REAL_FP)
    assert len(label.encode()) <= names.MAX_LABEL_BYTES
    assert names.forgery(label, name, REAL_FP) is None


# -------------------------------------------------- a rogue under the host's name


def test_a_rogue_under_the_host_s_instance_name_is_forged_and_the_real_game_stays() -> None:
    found = {g.fingerprint: g for g in discovery.games_from_answer(copycat_answer(), MACHINE)}
    assert set(found) == {REAL_FP, ROGUE_FP}
    real, rogue = found[REAL_FP], found[ROGUE_FP]
    assert real.forged is None and real.where == "192.168.1.20:48150"
    assert rogue.forged is not None and "copies another game's name" in rogue.forged
    assert rogue.warnings[0].startswith("forged announcement: ")
    assert rogue.to_json()["forged"] == rogue.forged and real.to_json()["forged"] is None


def test_an_address_a_copycat_gives_the_host_s_own_target_does_not_hide_the_host() -> None:
    """The rogue answers for the host's target name too, with its own address
    first: the real game is listed at each address (joining the wrong one is
    refused by the key check), never only at the rogue's."""
    answer = Answer(
        REAL_LABEL,
        texts=(announced("Alice", REAL_FP), announced("Alice", ROGUE_FP)),
        services=((REAL_SERVER, 48150),),
        addresses={REAL_SERVER.lower(): ("192.168.1.66", "192.168.1.20", "10.9.9.9")},
    )
    found = {(g.fingerprint, g.where) for g in discovery.games_from_answer(answer, MACHINE)}
    assert (REAL_FP, "192.168.1.20:48150") in found
    assert (REAL_FP, "192.168.1.66:48150") in found
    # The address outside this machine's networks is kept to try after each.
    assert all(g.addresses[-1] == "10.9.9.9" for g in discovery.games_from_answer(answer, MACHINE))
    # One address in reach: one game, as before.
    alone = dataclasses.replace(answer, addresses={REAL_SERVER.lower(): ("192.168.1.20",)})
    assert len([g for g in discovery.games_from_answer(alone, MACHINE) if not g.forged]) == 1


def test_a_first_time_joiner_is_warned_of_a_forgery_alone_on_the_network() -> None:
    """The issue's case: the real game out of sight, nothing known here; the
    forgery still carries its warning, on every screen."""
    (rogue,) = discovery.games_from_answer(
        answer_for(REAL_LABEL, (announced("Alice", ROGUE_FP), ROGUE_SERVER, 4000, "10.0.0.9")),
        MACHINE,
    )
    (marked,) = choosing.assess([rogue], {})
    assert marked.forged is not None and not marked.known
    assert marked.warnings[0] == names.forged_warning(marked.forged)
    assert marked.note().startswith("FORGED ! forged announcement")
    listed = games_cli.listing([marked])
    assert "FORGED" in listed
    assert games_cli.explain([marked]) == games_cli.FORGED + "\n" + games_cli.FLAGGED


def test_a_forgery_is_never_picked_by_name() -> None:
    games = discovery.sort_games(
        choosing.assess(discovery.games_from_answer(copycat_answer(), MACHINE), {})
    )
    alone = [g for g in games if g.forged]
    with pytest.raises(UserError, match="forged announcement") as refused:
        choosing.pick(alone, "Alice")
    assert not isinstance(refused.value, choosing.NeedsConfirmation)
    with pytest.raises(UserError, match="2 games answer to 'Alice'"):
        choosing.pick(games, "Alice")
    # The real game sorts first; the forgery is still there by number or key.
    assert games[0].fingerprint == REAL_FP and games[1].forged
    assert choosing.pick(games, "2") is games[1]
    assert choosing.pick(games, ROGUE_FP) is games[1]


def test_joining_a_forgery_by_its_number_says_so_first(capsys: pytest.CaptureFixture[str]) -> None:
    games = discovery.sort_games(discovery.games_from_answer(copycat_answer(), MACHINE))
    picked = games_cli._choose(games, "2")
    assert picked.forged is not None
    err = capsys.readouterr().err
    assert "joining a flagged game, as picked: forged announcement" in err


def test_at_a_terminal_a_forgery_picked_by_number_needs_a_typed_yes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    games = discovery.sort_games(discovery.games_from_answer(copycat_answer(), MACHINE))
    typed = iter(["Alice", "2", "no", "2", "yes"])
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(typed))
    assert games_cli._choose(games, None) is games[1]
    err = capsys.readouterr().err
    assert "2 games answer to 'Alice'" in err
    assert err.count("is flagged: forged announcement") == 2, err


def test_watching_a_lone_forgery_is_not_done_without_asking(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``lcnet watch`` takes the only match being played without asking, unless
    it is flagged: a forgery is picked as any flagged game (here, with no
    terminal, not at all)."""
    playing = announced("Alice", ROGUE_FP, discovery.PLAYING)
    (rogue,) = discovery.games_from_answer(
        answer_for(REAL_LABEL, (playing, ROGUE_SERVER, 4000, "10.0.0.9")), MACHINE
    )
    monkeypatch.setattr(games_cli, "_look", lambda seconds: [rogue])
    watched: list[tuple[str, int]] = []

    def watch(address: str, port: int) -> int:
        watched.append((address, port))
        return 0

    class Args:
        look = 0.1
        pick = None

    monkeypatch.setattr("sys.stdin", open("/dev/null"))  # noqa: SIM115 - closed by pytest
    with pytest.raises(UserError, match="standard input is not a terminal"):
        games_cli.watch_found(Args(), watch)  # type: ignore[arg-type]
    assert watched == [] and "FORGED" in capsys.readouterr().err


# ------------------------------------------------------------ the generator

FAKE_KEYS = [bytes([i]) * 32 for i in range(1, 9)]
CONTROL = ["\x1b[31m", "\x07", "\r", "\x08", "\u202e", "\x00", "\x9b", "\u2028", "\ufeff"]


def _fingerprint(rng: random.Random) -> str:
    return hashing.fingerprint(rng.choice(FAKE_KEYS))


def _text(rng: random.Random, limit: int = 40) -> str:
    """Random text: printable letters, other scripts, control characters, or oversize."""
    kind = rng.randrange(6)
    if kind == 0:
        return "".join(
            rng.choice(string.ascii_letters + " .-_") for _ in range(rng.randint(1, limit))
        )
    if kind == 1:
        return rng.choice(["Alice", "Alicе", "ΑΙice", "Ａlice", "Bob", "ボブ", "Zoë"])
    if kind == 2:
        return rng.choice(["Alice", "Ev", ""]) + rng.choice(CONTROL) + "il"
    if kind == 3:
        return "W" * rng.randint(33, 300)
    if kind == 4:
        return "".join(chr(rng.randint(0x20, 0x2FFF)) for _ in range(rng.randint(1, 12)))
    return rng.choice([" Alice ", "", " ", "Alice\n"])


def _field(rng: random.Random, good: str) -> str:
    """``good`` usually; otherwise a wrong value a stranger might put there."""
    if rng.random() < 0.88:
        return good
    return rng.choice(
        [
            "",
            "-1",
            "٥",
            " 5",
            "9" * rng.randint(5, 240),
            "1.0.0",
            "x.y",
            "1_0",
            _text(rng),
            good.lower(),
            good + rng.choice(CONTROL),
        ]
    )


@dataclass(frozen=True)
class Announcement:
    """One made-up answer: its instance name and, per TXT record, the TXT, the
    service's target and port, and that target's address."""

    instance: str
    records: list[tuple[bytes, str, int, str]]
    flips: tuple[tuple[int, int], ...] = ()
    """Bytes of the DNS message changed on the way: (where, modulo its length; new value)."""


def own_label(instance: str, game: Game) -> bool:
    """Whether ``instance`` is a name the host of ``game`` announces: its label,
    or the label renamed after a clash (``-2`` … ``-99``), in any case."""
    label = names.instance_label(game.name, game.fingerprint)
    own = {label, *(f"{label}-{n}" for n in range(2, 100))}
    return instance.lower() in {n.lower() for n in own}


def random_answer(rng: random.Random) -> Announcement:
    """An answer under one instance name, as strangers on a LAN may give it."""
    owner_name, owner_fp = rng.choice(["Alice", "Bob", _text(rng, 32)]), _fingerprint(rng)
    label_name = owner_name.strip()
    shape = rng.randrange(6)
    if shape == 0:
        instance = names.instance_label(label_name, owner_fp)
    elif shape == 1:
        instance = names.instance_label(label_name, owner_fp) + f"-{rng.randint(2, 99)}"
    elif shape == 2:  # a copycat: the owner's name with another key's fingerprint
        instance = names.instance_label(label_name, _fingerprint(rng))
    elif shape == 3:
        instance = names.instance_label(label_name, owner_fp).lower()
    else:
        instance = _text(rng, 60)
    records = []
    for n in range(rng.randint(1, 4)):
        own = n == 0 or rng.random() < 0.3
        name = owner_name if own else _text(rng, 32)
        fp = owner_fp if own else _fingerprint(rng)
        state = rng.choice([*discovery.STATES, "gone", ""])
        fields = {
            "name": _field(rng, name),
            "fp": _field(rng, fp),
            "suits": _field(rng, rng.choice(["5", "6"])),
            "rounds": _field(rng, str(rng.randint(1, 20))),
            "v": _field(rng, rng.choice(["1.0", "1.3", "2.0", "0.9"])),
            "state": _field(rng, state),
        }
        if rng.random() < 0.5:
            fields |= {
                "oname": _field(rng, _text(rng, 32)),
                "ofp": _field(rng, _fingerprint(rng)),
                "watch": _field(rng, str(rng.randint(0, 9))),
            }
        items = [f"{k}={v}".encode()[:255] for k, v in fields.items()]
        for _ in range(rng.randint(0, 3)):  # extra, nameless, repeated or undecodable items
            items.insert(
                rng.randint(0, len(items)),
                rng.choice([b"flag", b"=x", b"NAME=Mallory", b"fp=" + fp.encode(), b"\xff=\xfe"]),
            )
        data = b"".join(bytes([len(item)]) + item for item in items)
        if rng.random() < 0.1:
            data = data[: rng.randint(0, len(data))]  # cut short
        server = (
            discovery.server_prefix(fp) + f"{rng.randint(1, 65535)}.local."
            if rng.random() < 0.7
            else rng.choice(["rogue.local.", discovery.server_prefix(owner_fp) + "1.local."])
        )
        port = rng.choice([rng.randint(1, 65535), 0, 65535])
        address = rng.choice(["192.168.1.66", "10.1.2.3", "127.0.0.1", "fe80::1"])
        records.append((data, server, port, address))
    flips: tuple[tuple[int, int], ...] = ()
    if rng.random() < 0.2:  # a message damaged or tampered with on the way
        flips = tuple(
            (rng.randrange(1 << 16), rng.randrange(256)) for _ in range(rng.randint(1, 6))
        )
    return Announcement(instance, records, flips)


def through_dns(announcement: Announcement) -> list[Game]:
    """The games a search makes of ``announcement``, sent as one mDNS response
    (zeroconf's encoder) and read back as the browser reads it: zeroconf's
    decoder, then every record kept, then :func:`discovery.games_from_answer`.
    An announcement DNS cannot carry (a label over 63 bytes) is read directly."""
    from zeroconf import DNSAddress, DNSOutgoing, DNSPointer, DNSService, DNSText
    from zeroconf._protocol.incoming import DNSIncoming

    name = f"{announcement.instance}.{SERVICE_TYPE}"
    out = DNSOutgoing(0x8400)
    out.add_answer_at_time(DNSPointer(SERVICE_TYPE, 12, 1, 120, name), 0)
    for data, server, port, address in announcement.records:
        out.add_answer_at_time(DNSText(name, 16, 1, 120, data), 0)
        out.add_answer_at_time(DNSService(name, 33, 1, 120, 0, 0, port, server), 0)
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        kind = 28 if ":" in address else 1
        packed = socket.inet_pton(family, address)
        out.add_answer_at_time(DNSAddress(server, kind, 1, 120, packed), 0)
    try:
        packets = out.packets()
    except Exception:  # zeroconf refuses to encode it: no DNS message can carry it
        return discovery.games_from_answer(
            answer_for(announcement.instance, *announcement.records), MACHINE
        )
    answers = discovery._Answers()
    aliases: list[str] = []
    for packet in packets:
        damaged = bytearray(packet)
        for where, value in announcement.flips:
            damaged[where % len(damaged)] = value
        for record in DNSIncoming(bytes(damaged)).answers():
            answers.add(record)
            if record.type == 12:
                aliases.append(record.alias)  # type: ignore[attr-defined]
    return [g for alias in aliases for g in discovery.games_from_answer(answers.answer(alias))]


def check(announcement: Announcement) -> list[Game]:
    """The reader's duties towards one announcement; raises AssertionError if
    one is not met, and lets any other exception out (a crash)."""
    games = through_dns(announcement)
    marked = discovery.sort_games(choosing.assess(games, {"Alice": FAKE_KEYS[0]}))
    for game in marked:
        assert game.name == identity.validate_name(game.name)
        assert (game.forged is None) == own_label(game.instance, game), game
        if game.forged:
            assert game.warnings[0] == names.forged_warning(game.forged)
        assert 1 <= game.rounds <= wire.MAX_ROUNDS and game.suits in (5, 6)
        json.dumps(game.to_json())
    if marked:
        for line in games_cli.listing(marked).splitlines():
            assert line.isprintable() and len(line) <= LISTING_LINE_LIMIT, line
        for choice in ["1", "Alice", announcement.instance, REAL_FP, "3F2A", ""]:
            try:
                picked = choosing.pick(marked, choice)
            except UserError:
                continue
            assert choice.isdigit() or not picked.forged or picked.fingerprint == choice
    return marked


@pytest.mark.slow
@settings(max_examples=300)
@given(st.randoms(use_true_random=False))
def test_no_announcement_crashes_the_browser_or_reaches_the_screen_raw(
    rng: random.Random,
) -> None:
    check(random_answer(rng))


@pytest.mark.slow
def test_the_generator_makes_forgeries_and_honest_games_alike() -> None:
    """The property above is not vacuous: both kinds come out of the parser."""
    rng = random.Random(56)
    forged = honest = 0
    for _ in range(400):
        for game in check(random_answer(rng)):
            forged += game.forged is not None
            honest += game.forged is None
    assert forged > 20 and honest > 20, (forged, honest)


# ------------------------------------------------------------ on a real LAN


@pytest.fixture
def lan() -> Iterator[Lan]:
    try:
        with two_namespaces() as made:
            yield made
    except NamespacesUnavailable as exc:
        pytest.skip(f"no network namespaces here: {exc}")


@pytest.mark.slow
def test_a_first_time_joiner_sees_the_forgery_and_the_real_game(lan: Lan, tmp_path: Path) -> None:
    """The issue's attack across two namespaces: a rogue announces Alice's own
    instance name with its own key, as Alice's name; a joiner who never met
    Alice lists both, the real one clean and the rogue FORGED, cannot pick
    either by the name, and is warned before connecting to the rogue."""
    from tests.net.test_lan import ROGUE, join_args, run_script, spawn_in, spawn_lan_host

    alice = identity.set_name("Alice", tmp_path / "h" / "home")
    fields = dict(name="Alice", fp=ROGUE_FP, suits="5", rounds="3", v="1.0", state="waiting")
    answers = [{"instance": f"Alice ({alice.fingerprint[:9]})", "port": 4000, "txt": fields}]

    async def main() -> None:
        host, port = await spawn_lan_host(lan, tmp_path / "h", "--bot", "random")
        rogue = await run_script(
            lan.a, ROGUE, ADDRESS_A, json.dumps(answers), home=tmp_path / "rogue"
        )
        try:
            assert rogue.stdout is not None
            async with asyncio.timeout(DEADLINE):
                assert b"announcing" in await rogue.stdout.readline()
            listed: dict[str, dict[str, object]] = {}
            for _ in range(5):  # until both answered (a busy machine may be slow to)
                games = await spawn_in(lan.b, ["games", "--json", "--timeout", "3"], tmp_path / "j")
                code, out, err = await finish(games)
                assert code == 0, err
                listed = {g["fingerprint"]: g for g in json.loads(out)}
                if {alice.fingerprint, ROGUE_FP} <= set(listed):
                    break
            real, forged = listed[alice.fingerprint], listed[ROGUE_FP]
            assert (real["port"], real["forged"], real["known"]) == (port, None, False), real
            assert forged["forged"] and "copies another game's name" in forged["forged"], forged
            assert forged["warnings"][0].startswith("forged announcement")

            text = await spawn_in(lan.b, ["games", "--timeout", "3"], tmp_path / "j")
            code, out, err = await finish(text)
            assert code == 0 and "FORGED" in out and games_cli.FORGED in out, out + err

            for _ in range(5):  # a search on a busy machine may hear neither at first
                by_name = await spawn_in(
                    lan.b, [*join_args(tmp_path / "j"), "--pick", "Alice"], tmp_path / "j"
                )
                code, _, err = await finish(by_name)
                if code != ExitCode.NO_GAMES:
                    break
            # Refused by the name: both answer to it (or, if this search heard
            # only the rogue, because it is forged).
            if "games answer to 'Alice'" in err:
                assert code == ExitCode.USAGE, err  # the name picks no one game
            else:
                assert code == 1 and "not picked by name" in err, err

            # By its fingerprint, it is joined only after the warning (nobody
            # listens at the rogue's port, so it fails after that).
            args = [*join_args(tmp_path / "j"), "--pick", ROGUE_FP, "--connect-timeout", "2"]
            for _ in range(5):  # until this search heard the rogue (a busy machine)
                to_rogue = await spawn_in(lan.b, args, tmp_path / "j")
                code, _, err = await finish(to_rogue)
                warned = err.find("joining a flagged game, as picked: forged announcement")
                if warned >= 0:
                    break
            assert code != 0 and 0 <= warned < err.find("connecting to Alice"), err
        finally:
            await stop(host)
            if rogue.returncode is None:
                await finish(rogue, b"")
            await stop(rogue)

    asyncio.run(main())

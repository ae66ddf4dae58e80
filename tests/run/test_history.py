"""``lcnet history``: the record of who beat whom, from real signed matches.

The matches are played here by two real sessions (random bots, real keys and
signatures, the whole masked deal), written as their players' files; the
record must count each valid, finished match once, from the file owner's
side, by key rather than by name, and leave out every other file.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections import deque
from pathlib import Path

import nacl.signing
import pytest

from lcnet.bots.uniform import RandomBot
from lcnet.cli import main
from lcnet.game.seat import Seat
from lcnet.protocol.events import MatchOptions
from lcnet.protocol.session import Session
from lcnet.run import history as history_module
from lcnet.run.history import history, records
from lcnet.store.replayfile import ReplayHeader
from lcnet.store.writer import write_replay

SAMPLES = Path(__file__).resolve().parents[2] / "replays"


def _key(n: int) -> nacl.signing.SigningKey:
    return nacl.signing.SigningKey(bytes([n]) * 32)


ADA, BEN, CY, FAKE_BEN = _key(1), _key(2), _key(3), _key(4)
NAMES = {ADA: "Ada", BEN: "Ben", CY: "Cy", FAKE_BEN: "Ben"}


def play_match(
    folder: Path,
    name: str,
    *,
    host: nacl.signing.SigningKey,
    joiner: nacl.signing.SigningKey,
    resigns: Seat | None,
    seed: int,
    created: str,
    stop_after: int | None = None,
) -> dict[Seat, Path]:
    """A one-round match between ``host`` and ``joiner``: played out by random
    bots, or ended by ``resigns`` at its first chance, or cut after
    ``stop_after`` frames; both players' files, named ``name-SEAT.lcnet``."""
    rng = random.Random(seed)
    sessions = {
        Seat.HOST: Session.host(
            host, rng.randbytes(32), name=NAMES[host], options=MatchOptions(rounds=1)
        ),
        Seat.JOINER: Session.joiner(joiner, rng.randbytes(32), name=NAMES[joiner]),
    }
    bots = {seat: RandomBot(random.Random(rng.getrandbits(64))) for seat in Seat}
    queue: deque[tuple[Seat, bytes]] = deque()

    def after(seat: Seat, outgoing: list[bytes]) -> None:
        queue.extend((seat.other, raw) for raw in outgoing)
        session = sessions[seat]
        if session.is_over:
            return
        if resigns is seat and session.speaker is seat and session.round is not None:
            after(seat, [f.raw for f in session.resign().outgoing])
        elif session.awaiting_decision:
            view = session.view()
            assert view is not None
            after(seat, [f.raw for f in session.play(bots[seat].choose_turn(view)).outgoing])

    after(Seat.JOINER, [f.raw for f in sessions[Seat.JOINER].start().outgoing])
    while queue:
        to, raw = queue.popleft()
        after(to, [f.raw for f in sessions[to].receive(raw).outgoing])
    paths = {}
    for seat, session in sessions.items():
        frames = [f.raw for f in session.chain][:stop_after]
        header = ReplayHeader(seat=str(seat), created=created, software="test")
        paths[seat] = write_replay(folder / f"{name}-{seat}.lcnet", header, frames)
    return paths


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Ada's matches, and both sides' files of each (the opponents' in 'theirs')."""
    root = tmp_path_factory.mktemp("matches")
    mine, theirs = root / "mine", root / "theirs"
    mine.mkdir()
    theirs.mkdir()
    plan = [
        # name, host, joiner, who resigns, seed
        ("m1", ADA, BEN, Seat.JOINER, 1),  # Ben resigns: Ada wins
        ("m2", BEN, ADA, Seat.JOINER, 2),  # Ada resigns: Ada loses
        ("m3", ADA, CY, None, 3),  # played out
        ("m4", FAKE_BEN, ADA, Seat.HOST, 4),  # another key named Ben resigns: Ada wins
    ]
    for n, (name, host, joiner, resigns, seed) in enumerate(plan):
        paths = play_match(
            root,
            name,
            host=host,
            joiner=joiner,
            resigns=resigns,
            seed=seed,
            created=f"2026-12-0{n + 1}T20:00:00Z",
        )
        ada = Seat.HOST if host is ADA else Seat.JOINER
        shutil.move(paths[ada], mine / paths[ada].name)
        shutil.move(paths[ada.other], theirs / paths[ada.other].name)
    # An unfinished match (cut after its deal began), an invalid one, a
    # torn-off copy of a sample, a file that is no replay, and a copy of m1.
    cut = play_match(
        root,
        "m5",
        host=ADA,
        joiner=CY,
        resigns=None,
        seed=5,
        created="2026-12-05T20:00:00Z",
        stop_after=40,
    )
    shutil.move(cut[Seat.HOST], mine / cut[Seat.HOST].name)
    shutil.copy(SAMPLES / "sample-cheated-host.lcnet", mine / "cheated.lcnet")
    shutil.copy(SAMPLES / "sample-incomplete-joiner.lcnet", mine / "incomplete.lcnet")
    (mine / "junk.lcnet").write_bytes(b"not a replay file at all")
    shutil.copy(mine / "m1-host.lcnet", mine / "m1-copy.lcnet")
    return root


@pytest.mark.slow
def test_the_record_counts_each_valid_finished_match_once_by_key(
    played: Path, tmp_path: Path
) -> None:
    matches = history([played / "mine"], home=tmp_path)
    by_file = {m.path.name: m for m in matches}
    assert by_file["m1-host.lcnet"].result == "won"
    assert by_file["m1-host.lcnet"].resigned == "opponent"
    assert by_file["m2-joiner.lcnet"].result == "lost"
    assert by_file["m2-joiner.lcnet"].resigned == "me"
    assert by_file["m4-joiner.lcnet"].result == "won"
    played_out = by_file["m3-host.lcnet"]
    assert played_out.verdict == "valid" and played_out.resigned is None
    assert played_out.score is not None and played_out.rounds_played == 1
    expected = {1: "won", 0: "drawn", -1: "lost"}[
        (played_out.score[0] > played_out.score[1]) - (played_out.score[0] < played_out.score[1])
    ]
    assert played_out.result == expected
    # Not counted: unfinished, invalid, unreadable, and the copy.
    assert by_file["m5-host.lcnet"].verdict == "incomplete"
    assert by_file["cheated.lcnet"].verdict == "invalid"
    assert by_file["incomplete.lcnet"].verdict == "incomplete"
    assert by_file["junk.lcnet"].verdict == "unreadable"
    (copy,) = [m for m in matches if m.copy_of is not None]  # one of the two counts
    assert {copy.path.name, copy.copy_of.name} == {"m1-copy.lcnet", "m1-host.lcnet"}
    assert sum(m.counts for m in matches) == 4
    # Newest first.
    assert [m.created for m in matches] == sorted((m.created for m in matches), reverse=True)

    (record,) = records(matches)
    assert record.player.name == "Ada"
    wins = 2 + (expected == "won")
    losses = 1 + (expected == "lost")
    assert (record.overall.won, record.overall.drawn, record.overall.lost) == (
        wins,
        int(expected == "drawn"),
        losses,
    )
    # The two players called Ben are two opponents: one won, one lost against Ada.
    bens = sorted(
        (tally.won, tally.lost)
        for opponent, tally in record.against.values()
        if opponent.name == "Ben"
    )
    assert bens == [(1, 0), (1, 1)]
    assert len(record.against) == 3


@pytest.mark.slow
def test_each_side_of_a_folder_keeps_its_own_record(played: Path, tmp_path: Path) -> None:
    # The opponents' files, in one folder: each owner's record, from their side.
    owners = {r.player.fingerprint: r for r in records(history([played / "theirs"], home=tmp_path))}
    assert len(owners) == 3
    ben = next(r for r in owners.values() if r.player.name == "Ben" and r.overall.played == 2)
    assert (ben.overall.won, ben.overall.lost) == (1, 1)


def test_a_verdict_is_remembered_and_checked_again_when_the_file_changes(
    played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "f"
    folder.mkdir()
    shutil.copy(played / "mine" / "m1-host.lcnet", folder / "a.lcnet")
    first = history([folder], home=tmp_path)
    assert [m.result for m in first] == ["won"]
    assert (tmp_path / history_module.CACHE_FILE).exists()

    import lcnet.audit.verdict

    def no_audit(*args: object) -> None:
        raise AssertionError("audited again")

    with monkeypatch.context() as patch:
        patch.setattr(lcnet.audit.verdict, "audit_contents", no_audit)
        assert history([folder], home=tmp_path) == first  # remembered

    # The file changes (cut short): it is audited again, and no longer counts.
    data = (folder / "a.lcnet").read_bytes()
    (folder / "a.lcnet").write_bytes(data[: len(data) // 2])
    (again,) = history([folder], home=tmp_path)
    assert again.verdict == "incomplete" and not again.counts


def test_a_damaged_cache_is_rebuilt_not_trusted(played: Path, tmp_path: Path) -> None:
    folder = tmp_path / "f"
    folder.mkdir()
    shutil.copy(played / "mine" / "m2-joiner.lcnet", folder / "b.lcnet")
    (tmp_path / history_module.CACHE_FILE).write_text("{not json")
    assert [m.result for m in history([folder], home=tmp_path)] == ["lost"]


@pytest.mark.slow
def test_the_command_lists_the_matches_and_the_record(
    played: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)  # no replays/ here: only --replays
    assert main(["history", "--replays", str(played / "mine"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sum(m["counts"] for m in out["matches"]) == 4
    (record,) = out["records"]
    assert record["player"]["name"] == "Ada" and len(record["against"]) == 3

    assert main(["history", "--replays", str(played / "mine")]) == 0
    text = capsys.readouterr().out
    assert "m1-host.lcnet" in text and "won" in text and "(they resigned)" in text
    assert "Record of Ada" in text or "Your record" in text
    assert "junk.lcnet" in text and "invalid" in text
    assert "Not in any record" in text

    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    assert main(["history"]) == 0
    assert "No saved match in replays/" in capsys.readouterr().out


def test_a_bot_s_side_is_left_out_only_where_its_opponent_s_file_tells_the_match(
    played: Path, tmp_path: Path
) -> None:
    from lcnet.store.replayfile import read_replay

    folder = tmp_path / "f"
    folder.mkdir()
    # An `lcnet play` match: the person's file and the bot's, side by side.
    person, bot = played / "mine" / "m1-host.lcnet", played / "theirs" / "m1-joiner.lcnet"
    shutil.copy(person, folder / "person.lcnet")
    write_replay(
        folder / "bot.lcnet",
        ReplayHeader(
            seat="joiner", created="2026-12-01T20:00:00Z", software="t", extra={"bot": "easy"}
        ),
        read_replay(bot).frames,
    )
    assert [m.path.name for m in history([folder], home=tmp_path)] == ["person.lcnet"]
    # Alone (a host that let a bot play: `lcnet host --bot`), the bot's file is listed.
    (folder / "person.lcnet").unlink()
    (alone,) = history([folder], home=tmp_path)
    assert alone.path.name == "bot.lcnet" and alone.bot == "easy" and alone.result == "lost"


@pytest.mark.slow
def test_matches_begun_in_the_same_second_are_listed_in_the_order_they_ended(
    tmp_path: Path,
) -> None:
    # A quick rematch starts in the second the match before it ended.
    first = play_match(
        tmp_path,
        "z-first",
        host=ADA,
        joiner=BEN,
        resigns=Seat.JOINER,
        seed=5,
        created="2026-12-07T02:48:23Z",
    )
    second = play_match(
        tmp_path,
        "a-second",
        host=BEN,
        joiner=ADA,
        resigns=Seat.HOST,
        seed=6,
        created="2026-12-07T02:48:23Z",
    )
    os.utime(first[Seat.HOST], (1_000_000, 1_000_000))
    os.utime(second[Seat.JOINER], (1_000_060, 1_000_060))
    mine = tmp_path / "mine"
    mine.mkdir()
    for path in (first[Seat.HOST], second[Seat.JOINER]):
        shutil.copy2(path, mine / path.name)
    listed = [m.path.name for m in history([mine], home=tmp_path / "home")]
    assert listed == [second[Seat.JOINER].name, first[Seat.HOST].name]  # newest first


def test_a_file_being_written_is_listed_as_being_played_and_not_remembered(
    played: Path, tmp_path: Path
) -> None:
    """Whether a file is being played is asked of the descriptor that reads it
    (the writer's lock), never of its name again (which a FIFO could take)."""
    from lcnet.store.writer import ReplayWriter

    folder = tmp_path / "f"
    folder.mkdir()
    header = ReplayHeader(seat="host", created="2026-12-07T10:00:00Z", software="t")
    writer = ReplayWriter.create(folder / "now.lcnet", header)
    try:
        (now,) = history([folder], home=tmp_path)
        assert now.playing and now.verdict == "incomplete"
        assert not (tmp_path / history_module.CACHE_FILE).exists()
    finally:
        writer.close()
    (after,) = history([folder], home=tmp_path)
    assert not after.playing


def test_a_file_reached_twice_is_listed_once_by_its_own_name(played: Path, tmp_path: Path) -> None:
    folder = tmp_path / "f"
    folder.mkdir()
    shutil.copy(played / "mine" / "m1-host.lcnet", folder / "real.lcnet")
    os.symlink("real.lcnet", folder / "a-link.lcnet")  # sorts first, is listed second
    assert [m.path.name for m in history([folder, folder], home=tmp_path)] == ["real.lcnet"]


def _with_header(source: Path, target: Path, *, seat: str | None = None, **extra: object) -> Path:
    """``source``'s frames under a header of this seat with these fields, as
    `lcnet watch` (seat ``spectator``), `lcnet play` (``opponent_bot``) and
    `--bot` (``bot``) write it."""
    from lcnet.store.replayfile import read_replay

    contents = read_replay(source)
    header = ReplayHeader(
        seat=seat or contents.header.seat,
        created=contents.header.created,
        software="t",
        extra=extra,
    )
    return write_replay(target, header, contents.frames)


@pytest.mark.slow
def test_a_spectator_s_folder_lists_the_matches_watched_apart_and_in_no_record(
    played: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Issue 57, point 6: a spectator's machine said "No saved match".
    watched = tmp_path / "watched"
    watched.mkdir()
    theirs = played / "theirs"
    _with_header(played / "mine" / "m1-host.lcnet", watched / "m1.lcnet", seat="spectator")
    _with_header(theirs / "m3-joiner.lcnet", watched / "m3.lcnet", seat="spectator")
    _with_header(played / "mine" / "m5-host.lcnet", watched / "w\x1b[2J.lcnet", seat="spectator")
    monkeypatch.setenv("LCNET_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)  # no replays/ here: only --replays

    matches = history([watched], home=tmp_path / "home")
    assert len(matches) == 3 and all(m.watched and not m.counts for m in matches)
    assert records(matches) == []
    by_file = {m.path.name: m for m in matches}
    m1 = by_file["m1.lcnet"]
    assert (m1.host, m1.joiner) == (
        history_module.Player("Ada", m1.host.fingerprint if m1.host else ""),
        history_module.Player("Ben", m1.joiner.fingerprint if m1.joiner else ""),
    )
    assert m1.winner == "host" and m1.resigned == "joiner" and m1.me is None
    assert by_file["w\x1b[2J.lcnet"].verdict == "incomplete"

    assert main(["history", "--replays", str(watched)]) == 0
    text = capsys.readouterr().out
    assert "No saved match" not in text and "Matches in" not in text
    assert "Matches watched (lcnet watch)" in text and "in no record" in text
    assert "Ada won" in text and "(Ben resigned)" in text
    assert "unfinished" in text and " won, " not in text  # no record
    assert "w\\x1b[2J.lcnet" in text and "\x1b" not in text

    assert main(["history", "--replays", str(watched), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["records"] == [] and all(m["watched"] for m in out["matches"])
    assert not any(m["counts"] for m in out["matches"])

    # With a match of one's own, the record counts it alone; the watched stay apart.
    shutil.copy(played / "mine" / "m2-joiner.lcnet", watched / "mine.lcnet")
    assert main(["history", "--replays", str(watched)]) == 0
    text = capsys.readouterr().out
    record, watched_part = text.split("Matches watched", 1)
    assert (
        "mine.lcnet" in record and "Record of Ada" in record and "0 won, 0 drawn, 1 lost" in record
    )
    assert "m1.lcnet" in watched_part and "mine.lcnet" not in watched_part
    assert "Not in any record" not in text  # the watched are not "left out": they are apart


def test_bot_matches_are_marked_and_kept_apart_from_the_record_against_people(
    played: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "f"
    folder.mkdir()
    mine = played / "mine"
    shutil.copy(mine / "m1-host.lcnet", folder / "people.lcnet")  # Ada beats Ben
    # Ada against `lcnet play`'s bot (its name in the header, as `play` writes it).
    _with_header(mine / "m2-joiner.lcnet", folder / "played.lcnet", opponent_bot="hard")
    # Ada's key, but a bot played her side (`lcnet host --bot medium`).
    _with_header(mine / "m4-joiner.lcnet", folder / "hosted.lcnet", bot="medium:time=1")
    monkeypatch.setenv("LCNET_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)

    matches = history([folder], home=tmp_path / "home")
    assert all(m.counts for m in matches)
    person, bot = records(matches)
    assert person.bot is None and (person.overall.won, person.overall.lost) == (1, 0)
    assert [o.name for o, _ in person.against.values()] == ["Ben"]
    assert {name: (t.won, t.lost) for name, t in person.against_bots.items()} == {"hard": (0, 1)}
    assert bot.bot == "medium" and bot.player == person.player
    assert (bot.overall.won, bot.overall.lost) == (1, 0) and not bot.against_bots

    assert main(["history", "--replays", str(folder)]) == 0
    text = capsys.readouterr().out
    rows = {line.split()[-1]: line for line in text.splitlines() if line.endswith(".lcnet")}
    assert "opponent (hard)" in rows["played.lcnet"]
    assert "yours (medium)" in rows["hosted.lcnet"]
    assert "  -  " in rows["people.lcnet"]
    assert "Record of Ada" in text and "against people: 1 won, 0 drawn, 0 lost" in text
    assert "against bots (lcnet play): 0 won, 0 drawn, 1 lost" in text
    assert "against the hard bot: 0 won, 0 drawn, 1 lost" in text
    assert "Record of the medium bot that played as Ada" in text

    assert main(["history", "--replays", str(folder), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    by_bot = {r["bot"]: r for r in out["records"]}
    assert by_bot[None]["overall"] == {"won": 1, "drawn": 0, "lost": 0}
    assert by_bot[None]["against_bots"] == [{"bot": "hard", "won": 0, "drawn": 0, "lost": 1}]
    assert by_bot["medium"]["overall"] == {"won": 1, "drawn": 0, "lost": 0}


def test_a_bot_named_in_a_hostile_header_is_shown_escaped(
    played: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "f"
    folder.mkdir()
    _with_header(played / "mine" / "m1-host.lcnet", folder / "a.lcnet", opponent_bot="\x1b]0;x\x07")
    _with_header(played / "mine" / "m2-joiner.lcnet", folder / "b.lcnet", bot="\x1b[2J" * 100)
    monkeypatch.setenv("LCNET_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    assert main(["history", "--replays", str(folder)]) == 0
    text = capsys.readouterr().out
    assert "\x1b" not in text and "\x07" not in text
    assert "opponent (\\x1b]0;x\\x07)" in text
    assert max(len(line) for line in text.splitlines()) < 400  # a long name is cut

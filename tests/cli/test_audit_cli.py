"""``lcnet audit`` and ``lcnet selfplay --replays``: verdicts, JSON and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lcnet.cli import main
from lcnet.store.replayfile import read_replay


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("replays")
    assert (
        main(
            [
                "selfplay",
                "--games",
                "1",
                "--bots",
                "random,random",
                "--rounds",
                "1",
                "--seed",
                "5",
                "--replays",
                str(directory),
            ]
        )
        == 0
    )
    host = directory / "selfplay-5-0000-host.lcnet"
    joiner = directory / "selfplay-5-0000-joiner.lcnet"
    torn = directory / "torn.lcnet"
    torn.write_bytes(host.read_bytes()[:5000])
    return {"host": host, "joiner": joiner, "torn": torn, "dir": directory}


@pytest.mark.slow
def test_selfplay_writes_both_files_and_no_side_files(files: dict[str, Path]) -> None:
    names = sorted(p.name for p in files["dir"].iterdir())
    assert "selfplay-5-0000-host.lcnet" in names and "selfplay-5-0000-joiner.lcnet" in names
    assert not [n for n in names if n.endswith(".secret")]  # the match is over
    assert read_replay(files["host"]).frames == read_replay(files["joiner"]).frames


@pytest.mark.slow
def test_a_complete_match_is_valid(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", str(files["host"])]) == 0
    out = capsys.readouterr().out
    assert "VALID" in out and "sealed by both players" in out


@pytest.mark.slow
def test_json_verdict(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(files["joiner"]), "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["verdict"] == "valid"
    assert set(verdict["players"]) == {"host", "joiner"}
    assert len(verdict["round_scores"]) == 1 and len(verdict["totals"]) == 2


@pytest.mark.slow
def test_two_files_of_one_match_agree(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", str(files["host"]), str(files["joiner"])]) == 0
    assert "the files hold the same" in capsys.readouterr().out


def test_a_torn_file_is_incomplete(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", str(files["torn"]), "--json"]) == 3
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["verdict"] == "incomplete" and verdict["torn"]["reason"]
    assert "owes" in verdict["owed"]


def test_an_unreadable_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.lcnet"
    junk.write_bytes(b"hello")
    assert main(["audit", str(junk)]) == 2
    assert main(["audit", str(tmp_path / "missing.lcnet")]) == 2
    err = capsys.readouterr().err
    assert "not an lcnet replay file" in err and "no such replay file" in err
    assert "Traceback" not in err


@pytest.mark.slow
def test_proof_of_a_fault_outranks_a_mismatched_pair(capsys: pytest.CaptureFixture[str]) -> None:
    samples = Path(__file__).resolve().parents[2] / "replays"
    code = main(
        [
            "audit",
            str(samples / "sample-cheated-host.lcnet"),
            str(samples / "sample-complete-host.lcnet"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 1 and "INVALID" in out and "not of the same match" in out


@pytest.mark.slow
def test_the_damaged_sample_alone_and_with_its_twin(capsys: pytest.CaptureFixture[str]) -> None:
    samples = Path(__file__).resolve().parents[2] / "replays"
    damaged = str(samples / "sample-damaged-host.lcnet")
    twin = str(samples / "sample-complete-joiner.lcnet")
    assert main(["audit", damaged]) == 2
    out = capsys.readouterr().out
    assert "DAMAGED: the file is damaged at bytes 51097-51303" in out
    assert "200 intact records after the damage" in out and "torn after" not in out
    assert main(["audit", damaged, twin]) == 0
    out = capsys.readouterr().out
    assert "VALID: 363 frames, sealed by both players; totals 201:117, Ada wins " in out
    assert f"[repaired from {twin}]" in out and "the files hold the same 363 frames" in out


def test_the_help_lists_the_damaged_verdict_and_the_precedence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "damaged bad bytes in the middle of the file" in text
    assert "2 damaged, invalid naming no player" in text
    assert "frames taken after its own last frame" in text
    assert "1 (a proof of a fault stands whatever else is wrong), then 2" in text


def test_the_out_of_turn_resignation_sample_is_proof_against_the_host(
    capsys: pytest.CaptureFixture[str],
) -> None:
    samples = Path(__file__).resolve().parents[2] / "replays"
    assert main(["audit", str(samples / "sample-out-of-turn-resign-joiner.lcnet")]) == 1
    out = capsys.readouterr().out
    assert "INVALID: Ada (host)" in out
    assert "signed a resign for position 30, which was the other player's to send" in out
    assert "(evidence record)" in out


@pytest.mark.slow
def test_a_file_that_names_no_player_does_not_outrank_in_a_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A record that is no transcript frame proves nothing against either
    # player: alone or beside the honest file it exits 2, never 1 (a proof).
    from lcnet.store.replayfile import ReplayHeader, read_replay
    from lcnet.store.writer import write_replay

    samples = Path(__file__).resolve().parents[2] / "replays"
    honest = samples / "sample-complete-host.lcnet"
    frames = read_replay(honest).frames
    junk = write_replay(
        tmp_path / "junk.lcnet",
        ReplayHeader(seat="joiner", created="x", software="x"),
        [*frames[:5], frames[4], *frames[6:]],
    )
    assert main(["audit", str(junk)]) == 2
    out = capsys.readouterr().out
    assert "INVALID at frame 5" in out and "names neither player" in out
    assert main(["audit", str(honest), str(junk)]) == 2
    assert main(["audit", str(junk), str(honest)]) == 2


@pytest.mark.slow
def test_the_planted_evidence_samples_name_no_one(capsys: pytest.CaptureFixture[str]) -> None:
    samples = Path(__file__).resolve().parents[2] / "replays"
    joiner = str(samples / "sample-planted-evidence-joiner.lcnet")
    host = str(samples / "sample-planted-evidence-host.lcnet")
    for files in ([joiner], [host], [host, joiner], [joiner, host]):
        assert main(["audit", *files]) == 3
        out = capsys.readouterr().out
        assert "INVALID" not in out and "INCOMPLETE: the joiner (Ben) stopped the match" in out
    assert main(["audit", host]) == 3
    assert "the dispute crossed frame 41 in flight" in capsys.readouterr().out


@pytest.mark.slow
def test_the_minor_version_sample_is_valid(capsys: pytest.CaptureFixture[str]) -> None:
    samples = Path(__file__).resolve().parents[2] / "replays"
    assert main(["audit", str(samples / "sample-minor-version-host.lcnet")]) == 0
    assert "VALID: 385 frames, sealed by both players" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sample", "code"),
    [("sample-incomplete-joiner.lcnet", 3), ("sample-complete-host.lcnet", 0)],
)
def test_a_closed_pipe_never_changes_the_verdict_s_exit_status(sample: str, code: int) -> None:
    # `lcnet audit FILE | true` exited 1 (invalid) when the reader had gone away
    # before the verdict was printed (issue 44, point 8).
    import shlex
    import subprocess
    import sys

    path = Path(__file__).resolve().parents[2] / "replays" / sample
    command = f"{shlex.quote(sys.executable)} -m lcnet audit {shlex.quote(str(path))}"
    for reader in ("true", "head -c 1 >/dev/null"):
        done = subprocess.run(
            ["bash", "-c", f"{command} | {reader}; exit ${{PIPESTATUS[0]}}"],
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == code, (reader, done.stderr)
        assert b"Traceback" not in done.stderr


@pytest.mark.slow
def test_an_incomplete_file_beside_its_complete_twin_is_judged_by_the_twin(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # It exited 3 although the twin holds the whole valid match (issue 44,
    # point 14): the shorter file's frames are the start of the longer's.
    samples = Path(__file__).resolve().parents[2] / "replays"
    short = str(samples / "sample-incomplete-joiner.lcnet")
    whole = str(samples / "sample-complete-host.lcnet")
    for files in ([short, whole], [whole, short]):
        assert main(["audit", *files]) == 0
        assert f"the pair is judged by {whole}" in capsys.readouterr().out
    # Files of another match are compared no further; a proof in one stands.
    other = str(samples / "sample-cheated-host.lcnet")
    assert main(["audit", short, other]) == 1
    assert "judged by" not in capsys.readouterr().out

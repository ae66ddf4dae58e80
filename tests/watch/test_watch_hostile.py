"""``lcnet watch`` against a hostile host (docs/PROTOCOL.md §6.6), over real sockets.

The host here is :class:`tests.hostile_host.HostileHost`: a real ROUTER on
127.0.0.1 that speaks the protocol with real signed frames and lies. Whatever
it does, the spectator ends with a verdict (the one its file then gets),
within its timeout when the match makes no progress, keeps a bounded file,
never blames an honest player, and escapes every text from outside.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import random
import time
from pathlib import Path

import nacl.signing
import pytest

from lcnet.audit import verdict as audit
from lcnet.deck import hashing
from lcnet.errors import Refused
from lcnet.game.seat import Seat
from lcnet.store import identity
from lcnet.store.replayfile import MAX_FILE_BYTES, RECORD_OVERHEAD, read_replay
from lcnet.watch.peer import Watched, Watching, watch
from lcnet.watch.spectator import (
    ACK_EVERY,
    AFTER_FAULT_FRAMES,
    ASK_INTERVAL,
    EVIDENCE_PER_SIGNER,
    MAX_EVIDENCE,
    MAX_KEPT_BYTES,
    Pace,
    Received,
    Spectator,
)
from tests.hostile_host import (
    SCENARIOS,
    BadSignature,
    Busy,
    Claims,
    EvidenceFirst,
    HostileHost,
    JunkEvidence,
    Match,
    OwnEvidence,
    Run,
    Scenario,
    Stall,
    check,
    play,
)

LOOPBACK = "127.0.0.1"
DEADLINE = 120.0
"""Seconds a watch may take before the test fails instead of hanging."""


def _me() -> identity.Identity:
    return identity.Identity("Eve", nacl.signing.SigningKey(bytes([7]) * 32))


async def _watch(
    tmp_path: Path,
    scenario: Scenario,
    *,
    timeout: float,
    known: dict[str, bytes] | None = None,
    commands: int | None = None,
) -> tuple[Watched, list[str]]:
    lines: list[str] = []
    how = Watching(
        identity=_me(),
        replays=tmp_path / "replays",
        timeout=timeout,
        show=lines.append,
        known_peers=known or {},
        commands=commands,
    )
    with HostileHost(scenario) as host:
        async with asyncio.timeout(DEADLINE):
            return await watch(LOOPBACK, host.port, how), lines


def _run(
    tmp_path: Path, scenario: Scenario, *, timeout: float, **kw: object
) -> tuple[Watched, list[str]]:
    return asyncio.run(_watch(tmp_path, scenario, timeout=timeout, **kw))  # type: ignore[arg-type]


@pytest.mark.net
def test_a_first_message_that_begins_with_evidence_is_taken(tmp_path: Path) -> None:
    """The host's answer after a joiner equivocated begins with the evidence
    frame, as §6.6 prescribes: the spectator holds it and proves the equivocation."""
    scenario = EvidenceFirst(play(1), random.Random(1))
    watched, lines = _run(tmp_path, scenario, timeout=30)
    assert watched.verdict.proves_a_fault, watched.verdict.summary
    assert watched.verdict.bad is not None and watched.verdict.bad.signer is not None
    assert watched.verdict.bad.signer.seat is Seat.JOINER
    assert "equivocation" in watched.verdict.summary
    assert watched.path is not None
    assert audit.audit_file(watched.path).summary == watched.verdict.summary
    assert all(line.isprintable() for line in lines)


@pytest.mark.net
def test_a_frame_that_fails_its_check_is_reported_at_once_and_ends_the_watch(
    tmp_path: Path,
) -> None:
    """A frame with a broken signature, served for ever in its place: the
    spectator says what failed and stops with its file's verdict, long before
    its timeout."""
    match = play(2)
    scenario = BadSignature(match, random.Random(2))
    watched, lines = _run(tmp_path, scenario, timeout=3600)
    verdict = watched.verdict
    assert verdict.kind is audit.VerdictKind.INVALID and not verdict.proves_a_fault
    assert verdict.bad is not None and verdict.bad.seq == scenario.cut
    assert watched.failed is not None and "signature" in watched.failed
    assert any(f"frame {scenario.cut}" in line and "signature" in line for line in lines), lines
    assert watched.path is not None
    assert read_replay(watched.path).frames[: scenario.cut] == list(match.frames[: scenario.cut])
    assert audit.audit_file(watched.path).summary == verdict.summary


@pytest.mark.net
def test_a_host_that_claims_frames_it_never_sends_is_left_after_the_timeout(
    tmp_path: Path,
) -> None:
    """Its ``sync`` frames keep coming, but no frame does: the timeout counts
    progress, not silence."""
    scenario = Claims(play(3), random.Random(3))
    watched, _ = _run(tmp_path, scenario, timeout=2)
    assert watched.stopped is not None and "no new frame" in watched.stopped
    assert watched.verdict.kind is audit.VerdictKind.INCOMPLETE
    assert watched.verdict.frames == scenario.cut


@pytest.mark.net
def test_re_asking_is_paced_against_a_host_that_keeps_claiming_more(tmp_path: Path) -> None:
    scenario = Claims(play(4), random.Random(4))

    async def main() -> int:
        how = Watching(identity=_me(), replays=tmp_path / "r", timeout=3, show=lambda _: None)
        with HostileHost(scenario) as host:
            async with asyncio.timeout(DEADLINE):
                await watch(LOOPBACK, host.port, how)
            return host.asks

    asks = asyncio.run(main())
    # A few to catch up (have grew each time), then about one a second.
    assert asks <= len(scenario.match.frames[: scenario.cut]) // 64 + 2 + 3 * 2 + 4


@pytest.mark.net
def test_junk_evidence_signed_by_random_keys_is_not_kept(tmp_path: Path) -> None:
    match = play(5)
    watched, _ = _run(tmp_path, JunkEvidence(match, random.Random(5)), timeout=30)
    assert watched.verdict.kind is audit.VerdictKind.VALID, watched.verdict.summary
    assert watched.path is not None
    contents = read_replay(watched.path)
    assert contents.frames == list(match.frames)
    assert contents.evidence == []


@pytest.mark.net
def test_evidence_is_kept_only_as_far_as_it_can_prove_something(tmp_path: Path) -> None:
    """The host signs evidence against itself about every position: a few
    records per position and per match prove it, and no more are kept."""
    match = play(6)
    watched, _ = _run(tmp_path, OwnEvidence(match, random.Random(6)), timeout=30)
    verdict = watched.verdict
    assert verdict.proves_a_fault and verdict.bad is not None and verdict.bad.signer is not None
    assert verdict.bad.signer.seat is Seat.HOST
    assert watched.path is not None
    kept = read_replay(watched.path).evidence
    assert 1 <= len(kept) <= MAX_EVIDENCE
    positions: dict[int, int] = {}
    for raw in kept:
        seq = audit.frame_position(raw)
        assert seq is not None
        positions[seq] = positions.get(seq, 0) + 1
    assert max(positions.values()) <= EVIDENCE_PER_SIGNER
    assert audit.audit_file(watched.path).summary == verdict.summary


def _fingerprints(match: Match) -> dict[Seat, str]:
    keys = {}
    for raw in match.frames[:2]:
        from lcnet.protocol import wire

        message = wire.decode_frame(raw).message
        assert isinstance(message, (wire.Hello, wire.Welcome))
        seat = Seat.JOINER if isinstance(message, wire.Hello) else Seat.HOST
        keys[seat] = hashing.fingerprint(message.key)
    return keys


@pytest.mark.net
def test_the_spectator_shows_who_plays_with_their_fingerprints_and_what_it_knows(
    tmp_path: Path,
) -> None:
    """A match between sock puppets named like your friends does not look genuine:
    the host's key is known here under its name; the joiner's name is known
    here with another key."""
    match = play(7)
    from lcnet.protocol import wire

    host_key = wire.decode_frame(match.frames[1]).message.key  # type: ignore[attr-defined]
    real_ben = bytes(nacl.signing.SigningKey(bytes([9]) * 32).verify_key)
    known = {"Ada": host_key, "Ben": real_ben}
    watched, lines = _run(tmp_path, Scenario(match, random.Random(7)), timeout=30, known=known)
    assert watched.verdict.kind is audit.VerdictKind.VALID
    prints = _fingerprints(match)
    host_line = next(line for line in lines if prints[Seat.HOST] in line)
    joiner_line = next(line for line in lines if prints[Seat.JOINER] in line)
    assert "Ada" in host_line and "known here" in host_line
    assert "Ben" in joiner_line and "not the key" in joiner_line
    assert any(hashing.fingerprint(real_ben) in line for line in lines)
    # At the start: before the first move is told.
    first_move = next(i for i, line in enumerate(lines) if line.startswith(("Ada: ", "Ben: ")))
    assert lines.index(host_line) < first_move


@pytest.mark.net
def test_i_and_enter_shows_who_plays_again(tmp_path: Path) -> None:
    """Typed once the players are known (the host then stalls, so the watch
    is still on when the line is read)."""
    scenario = Stall(play(8), random.Random(8))
    read, write = os.pipe()
    lines: list[str] = []

    def show(line: str) -> None:
        lines.append(line)
        if line.startswith("who plays"):
            os.write(write, b"i\n")

    async def main() -> Watched:
        how = Watching(identity=_me(), replays=tmp_path, timeout=5, show=show, commands=read)
        with HostileHost(scenario) as host:
            async with asyncio.timeout(DEADLINE):
                return await watch(LOOPBACK, host.port, how)

    try:
        watched = asyncio.run(main())
    finally:
        os.close(read)
        os.close(write)
    assert watched.stopped is not None
    prints = _fingerprints(scenario.match)
    assert sum(prints[Seat.JOINER] in line for line in lines) >= 2, lines


@pytest.mark.net
@pytest.mark.parametrize("kind", SCENARIOS, ids=lambda kind: kind.name)
def test_no_hostile_host_crashes_hangs_or_fools_the_spectator(
    kind: type[Scenario], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The property, once per kind of lie (bench/hostile_host.py runs many seeds).
    A traceback asyncio logs (an exception never retrieved) is a crash too."""
    seed = SCENARIOS.index(kind)
    scenario = kind(play(100 + seed), random.Random(seed))
    timeout = 1.5
    started = time.monotonic()
    crashed = None
    watched = None
    lines: list[str] = []
    try:
        watched, lines = _run(tmp_path, scenario, timeout=timeout)
    except Refused as exc:
        lines.append(str(exc))
    except Exception as exc:  # the property: nothing else escapes
        crashed = f"{type(exc).__name__}: {exc}"
    run = Run(
        scenario=kind.name,
        seconds=time.monotonic() - started,
        timeout=timeout,
        verdict=None if watched is None else watched.verdict,
        path=None if watched is None else watched.path,
        lines=lines,
        crashed=crashed,
    )
    gc.collect()  # a future never retrieved is told when it is collected
    logged = [r for r in caplog.records if r.levelno >= logging.ERROR]
    if logged:
        run.crashed = f"logged: {logged[0].getMessage()}"
    problems = check(run, scenario.match, max_evidence=MAX_EVIDENCE, after_end=AFTER_FAULT_FRAMES)
    assert not problems, problems


# ------------------------------------------------- pacing, on a fake clock


def _nothing_new(ask: bool = False) -> Received:
    return Received(ask=ask)


def test_the_timeout_counts_new_frames_not_messages() -> None:
    pace = Pace(10.0, now=0.0)
    for tick in range(1, 100):
        pace.heard(tick * 0.1, _nothing_new(ask=True))  # a drip of claims, ten a second
    assert not pace.given_up(9.9)
    assert pace.given_up(10.0)
    assert "sent 99 message(s), none of them a new frame" in pace.why_given_up(5)
    pace.heard(10.5, Received(frames=[b"frame"]))
    assert not pace.given_up(20.0) and pace.given_up(20.5)


def test_asking_again_for_the_same_frames_is_paced() -> None:
    pace = Pace(60.0, now=0.0)
    assert pace.ask_now(0.0, have=0)
    pace.asked(0.0, have=0)
    asks = 0
    for tick in range(1, 501):  # five seconds of claims and gaps, a hundred a second
        now = tick * 0.01
        pace.heard(now, _nothing_new(ask=True))
        if pace.ask_now(now, have=0):
            pace.asked(now, have=0)
            asks += 1
    assert asks == 5 // ASK_INTERVAL
    # Holding more than it said, it asks at once for the rest; and acknowledges
    # every ACK_EVERY frames it receives even when it wants nothing.
    pace.heard(5.001, Received(frames=[b"f"] * 64, ask=True))
    assert pace.ask_now(5.001, have=64)
    pace.asked(5.001, have=64)
    pace.heard(5.002, Received(frames=[b"f"]))
    assert not pace.ask_now(5.002, have=64 + ACK_EVERY - 1)
    assert pace.ask_now(5.002, have=64 + ACK_EVERY)


def test_a_quiet_spectator_asks_again_each_interval_until_it_gives_up() -> None:
    pace = Pace(3.0, now=0.0)
    pace.asked(0.0, have=0)
    assert pace.next_deadline() == ASK_INTERVAL
    assert not pace.ask_now(ASK_INTERVAL / 2, have=0)
    assert pace.ask_now(ASK_INTERVAL, have=0)
    pace.asked(2.9, have=0)
    assert pace.next_deadline() == 3.0  # the timeout comes before the next ask


def test_the_help_s_default_timeout_is_the_spectator_s() -> None:
    from lcnet.cli import watch as cli_watch
    from lcnet.watch.peer import DEFAULT_TIMEOUT

    assert cli_watch.DEFAULT_TIMEOUT == DEFAULT_TIMEOUT


@pytest.mark.net
def test_lcnet_watch_ends_with_the_status_of_its_verdict_and_escapes_what_it_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lcnet.cli import main
    from lcnet.errors import ExitCode

    scenario = BadSignature(play(9), random.Random(9))
    with HostileHost(scenario) as host:
        code = main(["watch", f"{LOOPBACK}:{host.port}", "--replays", str(tmp_path)])
    out = capsys.readouterr()
    assert code == ExitCode.USAGE  # a frame failed: INVALID naming neither player
    assert "FAILED CHECK" in out.out and "Traceback" not in out.err
    busy = Busy(play(10), random.Random(10))
    with HostileHost(busy) as host:
        code = main(["watch", f"{LOOPBACK}:{host.port}", "--replays", str(tmp_path)])
    out = capsys.readouterr()
    assert code == ExitCode.REFUSED
    for line in (out.out + out.err).splitlines():
        assert line.isprintable(), line
    assert "\\x1b" in out.out  # the busy reason that does not decode, told escaped


def test_watch_help_lists_every_exit_status_it_ends_with(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from lcnet.cli import main
    from lcnet.cli.watch import EXIT_CODES

    with pytest.raises(SystemExit):
        main(["watch", "--help"])
    text = capsys.readouterr().out
    listed = text[text.index("exit status:") :]
    for code in EXIT_CODES:
        assert f"\n  {int(code)}  " in listed, code


@pytest.mark.slow
def test_a_match_longer_than_lcnet_keeps_ends_the_watch_incomplete() -> None:
    """Players who never end a round (drawing from the discards for ever) make
    progress for ever: the spectator keeps no more than lcnet's readers read."""
    match = play(11)
    limit = sum(len(raw) + RECORD_OVERHEAD for raw in match.frames[:100])
    spectator = Spectator(max_bytes=limit)
    for raw in match.frames:
        spectator.receive([raw])
    assert spectator.have == 100 and spectator.full is not None
    assert spectator.stopped
    assert spectator.verdict().kind is audit.VerdictKind.INCOMPLETE
    assert MAX_KEPT_BYTES + (1 << 16) == MAX_FILE_BYTES

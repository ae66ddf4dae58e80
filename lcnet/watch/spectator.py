"""A spectator of a live match, sans-IO: the transcript checked as it arrives.

A spectator holds what its host sent it: the transcript frames, in order and
chained, and the evidence frames that can prove something. It runs them
through the audit's own observer (:class:`lcnet.protocol.observer.Observer`), so every
signature, the chain, every move against the rules, the deck's commitments,
passes and keys and the scores are checked exactly as ``lcnet audit`` checks
a file, frame by frame; :meth:`Spectator.verdict` is the audit's verdict on
what it holds, the same as ``lcnet audit`` of the spectator's file. It sees
only the public transcript: hidden cards stay masked, and it shows no more
than ``lcnet replay`` of the same frames would at that step.

The host is a stranger here, and may lie (docs/PROTOCOL.md §6.6): a frame
sent in the place of the next transcript frame that fails the check is
kept (so that the file shows it), told at once with what failed, and ends
the watch (:attr:`Spectator.failure`); evidence is kept only as far as it
can prove something, a bounded number per position and per match; what
proves nothing and changes nothing is dropped and said once. :class:`Pace`
decides when to ask the host again (paced) and when to give up on a host
whose match makes no progress, whatever it keeps sending.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from lcnet.audit import verdict as audit
from lcnet.deck import hashing
from lcnet.game.seat import Seat
from lcnet.link import chat
from lcnet.link.audience import EVIDENCE_PART
from lcnet.protocol import wire
from lcnet.protocol.events import (
    DisputeRaised,
    MatchEnded,
    RoundStarted,
    RoundVerified,
    Step,
    TurnPlayed,
)
from lcnet.protocol.observer import Observer
from lcnet.review.positions import Collector, MatchRecord, Position, render_text
from lcnet.store.replayfile import MAX_FILE_BYTES, RECORD_OVERHEAD

ACK_EVERY: Final = 96
"""Frames between two ``watch`` frames while the spectator keeps up (§6.6:
at least every 256, the host's limit on what a spectator may lag)."""

ASK_INTERVAL: Final = 1.0
"""Seconds between two ``watch`` frames that say the same ``have``: the
spectator asks again after this long without a new frame (the host may have
restarted, or lost what it sent), and however often a host claims more or
sends a frame past a gap, it asks no oftener (the host answers one spectator
at most every 0.2 s anyway)."""

MAX_EVIDENCE: Final = 16
"""Evidence frames kept for one match. Each is a frame a player signed
beside the transcript, and the first proof ends the match: an honest host
holds one or two; more can only be a flood."""

EVIDENCE_PER_SIGNER: Final = 2
"""Evidence frames kept per position and signer: two different frames one
player signed for one position prove equivocation; a third proves nothing more."""

MAX_PENDING_EVIDENCE: Final = 64
"""Evidence frames held (in memory only) about positions the spectator does
not hold yet: the host sends its evidence before the frames (§6.6). At most
4 KiB each, so at most 256 KiB."""

MAX_EVIDENCE_OFFERS: Final = 1024
"""Evidence parts looked at for one match; those after are dropped unread,
so a flood costs no decoding and no signature check beyond this."""

AFTER_FAULT_FRAMES: Final = 4
"""Frames kept that chain on a fault found by the spectator's own check:
the player's dispute, which the players' files hold too. Nothing after the
end of a match or a player's dispute is kept (nothing can change the verdict)."""

MAX_KEPT_BYTES: Final = MAX_FILE_BYTES - (1 << 16)
"""Bytes of frames and evidence a spectator keeps, records included: what
lcnet's readers read of a file (its header aside). A 20-round match with 6
suits is under 2 MiB; only players who never end a round (drawing from the
discards for ever) come near it, and the spectator leaves them there."""

MAX_PARTS: Final = 64
"""Parts read of one message: the host sends one step's frames in one
message (a handful), and everything else one frame a message."""


class Dropped(enum.Enum):
    """What the host sent that the spectator does not keep (each kind is told once)."""

    NOT_A_FRAME = "a message part that is no lcnet frame"
    OTHER_FRAME = "a frame for a position it already sent, unlike the frame held there"
    BAD_SYNC = "a sync that is not the host's for this match"
    CONTROL = "a control frame a spectator does not use"
    ADVISORY = "a player's line, leave or answer that is not of this match, or a repeat"
    EVIDENCE = "evidence that can prove nothing more (no player's, off the history, or surplus)"
    AFTER_END = "frames after the end of the match"
    TOO_MANY_PARTS = f"a message of more than {MAX_PARTS} parts (the rest is not read)"


@dataclass
class Received:
    """What one message from the host changed."""

    frames: list[bytes] = field(default_factory=list)
    """New transcript frames, in order (to write to the spectator's file)."""
    evidence: list[bytes] = field(default_factory=list)
    """New evidence frames (to write as EVIDENCE records)."""
    lines: list[str] = field(default_factory=list)
    """What happened, one line each: moves, round scores, the result, a dispute."""
    is_move: list[bool] = field(default_factory=list)
    """For each line, whether it tells a move (a board shows the last move too)."""
    ask: bool = False
    """The spectator wants to ask again (a gap, or the host says it holds more)."""
    busy: str | None = None
    """The host turned this spectator away, with its reason (unverified)."""
    players: bool = False
    """Both players became known (their names and keys): time to say who plays."""
    dropped: list[tuple[Dropped, str]] = field(default_factory=list)
    """What was dropped for the first time, of each kind, with a detail."""

    @property
    def progress(self) -> bool:
        """The match moved on: a new transcript frame was kept."""
        return bool(self.frames)


@dataclass(frozen=True)
class Player:
    seat: Seat
    name: str
    key: bytes
    bot: bool = False
    """Its opening said a program plays it (advisory)."""


class Spectator:
    """The transcript as the host sends it, checked frame by frame."""

    def __init__(
        self,
        frames: list[bytes] | None = None,
        *,
        max_bytes: int = MAX_KEPT_BYTES,
        binder: bytes | None = None,
    ) -> None:
        self.frames: list[bytes] = []
        self.evidence: list[bytes] = []
        """The evidence frames kept (the file's EVIDENCE records)."""
        self.observer = Observer()
        self.failure: str | None = None
        """What failed in the frame the host sent in the place of the next one
        (it is the last of :attr:`frames`): the watch ends there."""
        self.full: str | None = None
        """Why the spectator keeps nothing more: the file would outgrow what
        lcnet reads (:data:`MAX_KEPT_BYTES`). The watch ends there, incomplete."""
        self._max_bytes = max_bytes
        self._bytes = 0
        self.dropped: dict[Dropped, int] = {}
        """How many of each kind the host sent that were not kept."""
        self._collector = Collector()
        self._pending: list[wire.Frame] = []
        self._per_signer: dict[tuple[int, Seat], int] = {}
        self._offers = 0
        self._after_fault = 0
        self.binder = binder
        """The key of the program the spectator is connected to (its ``sync`` and
        ``opponent`` frames are signed by it): the host's, but in a rematch,
        whose host is the other player; ``None``: the host seat's key."""
        self.rematch: dict[Seat, bool] = {}
        """What each player said of another match, as far as the host passed it on."""
        self.opponent_here = True
        """Whether the host's opponent is connected, as the host last said."""
        self._advisories: set[bytes] = set()
        for raw in frames or ():
            self._take(raw, Received())

    @property
    def have(self) -> int:
        return len(self.frames)

    @property
    def stopped(self) -> bool:
        """The match is over, in dispute, or the host failed: nothing after can
        change the verdict."""
        observer = self.observer
        if self.failure is not None or self.full is not None:
            return True
        return observer.is_over or observer.dispute is not None

    def players(self) -> list[Player]:
        """The players known so far (from the transcript's hello and welcome)."""
        return players_of(self.observer)

    def _record(self) -> MatchRecord:
        """The match so far, as ``lcnet replay`` would load it (names, positions)."""
        observer = self.observer
        return MatchRecord(
            names=dict(observer.names),
            fingerprints={s: hashing.fingerprint(k) for s, k in observer.keys.items()},
            suits=observer.options.suits if observer.options else 5,
            rounds=observer.options.rounds if observer.options else 0,
            positions=self._collector.positions,
            round_starts=self._collector.round_starts,
            verdict=audit.Verdict(kind=audit.VerdictKind.INCOMPLETE, frames=self.have, summary=""),
        )

    def board(self) -> list[str]:
        """The public board now, as ``lcnet replay --text`` shows the same step."""
        record = self._record()
        if not record.positions:
            return []
        position: Position = record.positions[-1]
        return render_text(record, position, None)

    def verdict(self) -> audit.Verdict:
        """The audit's verdict on the frames and evidence held (as on the file)."""
        return audit.audit_frames(self.frames, self.evidence)

    def receive(self, parts: list[bytes]) -> Received:
        """One message from the host: frames, each evidence frame after the
        part ``evidence`` (docs/PROTOCOL.md §6.6)."""
        out = Received()
        if len(parts) > MAX_PARTS:
            self._drop(out, Dropped.TOO_MANY_PARTS, f"{len(parts)} parts")
            parts = parts[:MAX_PARTS]
        known = len(self.observer.keys) == len(Seat)
        index = 0
        while index < len(parts) and self.failure is None and self.full is None:
            if parts[index] == EVIDENCE_PART:
                if index + 1 < len(parts):
                    self._offer_evidence(parts[index + 1], out)
                else:
                    self._drop(out, Dropped.NOT_A_FRAME, "an evidence marker with nothing after it")
                index += 2
            else:
                self._receive_frame(parts[index], out)
                index += 1
        self._review_evidence(out)
        out.players = not known and len(self.observer.keys) == len(Seat)
        return out

    def _drop(self, out: Received, kind: Dropped, detail: str) -> None:
        count = self.dropped.get(kind, 0)
        self.dropped[kind] = count + 1
        if not count:
            out.dropped.append((kind, detail))

    # -- transcript frames

    def _receive_frame(self, raw: bytes, out: Received) -> None:
        try:
            frame = wire.decode_frame(raw, allow_unknown_fields=True)
        except wire.MalformedFrame as exc:
            self._drop(out, Dropped.NOT_A_FRAME, str(exc))
            return
        if frame.message.CONTROL:
            self._control(frame, out)
        elif frame.seq is not None and frame.seq > self.have:
            out.ask = True  # a gap: frames were lost, ask from what we have
        elif frame.seq is not None and frame.seq < self.have:
            if raw != self.frames[frame.seq]:
                self._drop(out, Dropped.OTHER_FRAME, f"position {frame.seq}")
        else:
            self._take(raw, out)

    @property
    def rematch_agreed(self) -> bool:
        """Both players said yes to another match (the host plays it next)."""
        return len(self.rematch) == len(Seat) and all(self.rematch.values())

    @property
    def rematch_declined(self) -> bool:
        """A player said no to another match."""
        return False in self.rematch.values()

    def _control(self, frame: wire.Frame, out: Received) -> None:
        message = frame.message
        host_key = self.binder or self.observer.keys.get(Seat.HOST)
        if isinstance(message, wire.Busy):
            out.busy = message.reason  # before the match, the host's key is not known
            return
        if isinstance(message, wire.Say | wire.Bye | wire.Rematch | wire.Opponent):
            self._advisory(frame, out)
            return
        if not isinstance(message, wire.Sync):
            self._drop(out, Dropped.CONTROL, message.TYPE)
            return
        if host_key is None:
            return  # before the host's welcome, no sync can be checked: it says nothing
        if frame.game != self.observer.game_id or not frame.signed_by(host_key):
            self._drop(out, Dropped.BAD_SYNC, "not signed by the host's key for this match")
            return
        if message.have > self.have:
            out.ask = True

    def _advisory(self, frame: wire.Frame, out: Received) -> None:
        """A player's ``say``, ``bye`` or ``rematch``, or the host's ``opponent``,
        passed on by the host: shown once each, if it is signed for this match
        (the host cannot make a player say anything, only repeat or withhold)."""
        observer, message = self.observer, frame.message
        if frame.raw in self._advisories:
            return  # a repeat (an answer repeats what stands): shown once
        if frame.game != observer.game_id:
            self._drop(out, Dropped.ADVISORY, message.TYPE)
            return
        if isinstance(message, wire.Rematch) and not rematch_possible(observer):
            self._drop(out, Dropped.ADVISORY, "an answer about another match before the end")
            return
        if len(self._advisories) >= chat.MAX_LINES:
            self._drop(out, Dropped.ADVISORY, f"more than {chat.MAX_LINES} in one match")
            return
        signer = self._advisory_signer(frame)
        if signer is None:
            self._drop(out, Dropped.ADVISORY, message.TYPE)
            return
        self._advisories.add(frame.raw)
        names = observer.names
        who = f"{names.get(signer, str(signer))} ({signer})"
        other = names.get(signer.other, str(signer.other))
        line: str | None = None
        if isinstance(message, wire.Say):
            line = f"{who} says: {message.text}"
        elif isinstance(message, wire.Bye):
            line = (
                f"{who} left the match: it is saved on both sides and can be resumed "
                "(this spectator waits for it)"
            )
        elif isinstance(message, wire.Rematch):
            if signer not in self.rematch:
                self.rematch[signer] = message.ok
                wants = "wants another match" if message.ok else "wants no other match"
                line = f"{who} {wants}"
                if self.rematch_agreed:
                    line += "; both do: the seats swap, and this spectator follows it"
        elif isinstance(message, wire.Opponent) and message.here != self.opponent_here:
            self.opponent_here = message.here
            line = (
                f"{other} is connected to the host again"
                if message.here
                else f"the host ({names.get(signer)}) hears nothing from {other}: its "
                "program stopped or its connection is lost; waiting for it to come back "
                "(the match is saved on both sides)"
            )
        if line is not None:
            out.lines.append(line)
            out.is_move.append(False)

    def _advisory_signer(self, frame: wire.Frame) -> Seat | None:
        """Whose the frame is: a player's (it verifies with that player's key);
        an ``opponent`` frame must be the host's (see :attr:`binder`)."""
        keys = self.observer.keys
        if isinstance(frame.message, wire.Opponent):
            binder = self.binder or keys.get(Seat.HOST)
            if binder is None or not frame.signed_by(binder):
                return None
            return next((seat for seat, key in keys.items() if key == binder), None)
        return next((seat for seat, key in keys.items() if frame.signed_by(key)), None)

    def _take(self, raw: bytes, out: Received) -> None:
        """Check the frame at the next position; keep it if it belongs to the
        transcript, or if it fails the check (the watch ends with it)."""
        observer = self.observer
        if self.stopped:
            # A fault found by this check: keep the few frames that chain on
            # (the player's dispute, which the players' files hold too).
            fault = observer.dispute is not None and observer.dispute.detected_by is None
            frame = wire.decode_frame(raw, allow_unknown_fields=True)
            chains = frame.prev == hashing.chain_hash(self.frames[-1])
            if fault and chains and self._after_fault < AFTER_FAULT_FRAMES and self._room(raw):
                self._after_fault += 1
                self.frames.append(raw)
                out.frames.append(raw)
            else:
                self._drop(out, Dropped.AFTER_END, f"position {frame.seq}")
            return
        if not self._room(raw):
            return
        step = observer.receive(raw)
        self.frames.append(raw)
        out.frames.append(raw)
        proof = observer.dispute is not None and observer.dispute.detected_by is None
        if step.accepted is None and not proof:
            # Not the next frame of a transcript: what the audit of the file will say.
            verdict = audit.audit_frames(self.frames)
            self.failure = verdict.bad.reason if verdict.bad is not None else "not accepted"
            out.lines.append(
                f"FAILED CHECK: frame {len(self.frames) - 1} as the host sent it: "
                f"{self.failure}. The watch stops here: what the host sends is no "
                "transcript from there on (this names neither player)"
            )
            out.is_move.append(False)
            return
        self._collector.step(observer, step)
        for is_move, line in self._lines(step):
            out.lines.append(line)
            out.is_move.append(is_move)

    def _room(self, raw: bytes) -> bool:
        """Whether ``raw`` fits in what the spectator keeps; counted if it does."""
        if self._bytes + len(raw) + RECORD_OVERHEAD > self._max_bytes:
            self.full = (
                f"the match outgrew what lcnet keeps of one ({self._max_bytes} bytes, the most "
                f"its readers read) after {self.have} frames: the watch stops there"
            )
            return False
        self._bytes += len(raw) + RECORD_OVERHEAD
        return True

    # -- evidence

    def _offer_evidence(self, raw: bytes, out: Received) -> None:
        """An evidence frame from the host: held until the transcript reaches
        its position, then kept if it can prove something."""
        self._offers += 1
        if raw in self.evidence:
            return
        if self._offers > MAX_EVIDENCE_OFFERS:
            self._drop(out, Dropped.EVIDENCE, f"more than {MAX_EVIDENCE_OFFERS} offered")
            return
        try:
            frame = wire.decode_frame(raw, allow_unknown_fields=True)
        except wire.MalformedFrame as exc:
            self._drop(out, Dropped.EVIDENCE, str(exc))
            return
        if frame.seq is None or frame.seq == 0:
            self._drop(out, Dropped.EVIDENCE, "not a transcript frame after the first")
            return
        if len(self.evidence) >= MAX_EVIDENCE:
            self._drop(out, Dropped.EVIDENCE, f"{MAX_EVIDENCE} are kept already")
            return
        if any(f.raw == raw for f in self._pending):
            return
        if len(self._pending) >= MAX_PENDING_EVIDENCE:
            self._drop(out, Dropped.EVIDENCE, "too many about positions not yet sent")
            return
        self._pending.append(frame)

    def _review_evidence(self, out: Received) -> None:
        """Judge the evidence held about positions the transcript now holds."""
        chain = self.observer.chain
        keep: list[wire.Frame] = []
        for frame in self._pending:
            seq = frame.seq
            assert seq is not None
            game = self.observer.game_id
            if game is not None and frame.game != game:
                self._drop(out, Dropped.EVIDENCE, "another match's")
            elif seq >= len(chain):
                keep.append(frame)  # its position is still to come
            elif frame.prev != chain[seq - 1].hash or frame.raw == chain[seq].raw:
                self._drop(out, Dropped.EVIDENCE, f"not on the history at position {seq}")
            else:
                self._judge_evidence(frame, out)
        self._pending = keep

    def _judge_evidence(self, frame: wire.Frame, out: Received) -> None:
        # The audit's own rule of what an evidence record can prove (one signature check each).
        found = list(self.observer.on_history([frame.raw]))
        if not found:
            self._drop(out, Dropped.EVIDENCE, f"signed by no player, at position {frame.seq}")
            return
        _, signer = found[0]
        assert frame.seq is not None
        count = self._per_signer.get((frame.seq, signer), 0)
        if count >= EVIDENCE_PER_SIGNER or len(self.evidence) >= MAX_EVIDENCE:
            self._drop(out, Dropped.EVIDENCE, f"enough kept about position {frame.seq}")
            return
        if not self._room(frame.raw):
            return
        self._per_signer[(frame.seq, signer)] = count + 1
        self.evidence.append(frame.raw)
        out.evidence.append(frame.raw)

    def _lines(self, step: Step) -> list[tuple[bool, str]]:
        """What ``step`` did, a line each, with whether the line is a move."""
        names = self.observer.names
        lines: list[tuple[bool, str]] = []
        for event in step.events:
            if isinstance(event, RoundStarted):
                lines.append(
                    (False, f"round {event.round} begins; {names.get(event.starter)} starts")
                )
            elif isinstance(event, TurnPlayed):
                text = f"{names.get(event.seat)}: {event.turn}"
                if event.drawn is not None and event.turn.draw.suit is not None:
                    text += f" (drew {event.drawn})"
                lines.append((True, text))
            elif isinstance(event, RoundVerified):
                scores = ", ".join(f"{names.get(s)} {event.scores[int(s)]:+d}" for s in Seat)
                lines.append((False, f"round {event.round} over, deck verified: {scores}"))
            elif isinstance(event, MatchEnded):
                totals = event.outcome.totals
                who = (
                    "a draw"
                    if event.outcome.winner is None
                    else f"{names.get(Seat(event.outcome.winner))} wins"
                )
                how = (
                    f", {names.get(event.resigned)} resigned" if event.resigned is not None else ""
                )
                text = (
                    f"the match is over: {names.get(Seat.HOST)} {totals[0]}, "
                    f"{names.get(Seat.JOINER)} {totals[1]}: {who}{how}"
                )
                lines.append((False, text))
            elif isinstance(event, DisputeRaised):
                info = event.dispute
                by = (
                    "this spectator's check"
                    if info.detected_by is None
                    else names.get(info.detected_by, str(info.detected_by))
                )
                text = (
                    f"DISPUTE: frame {info.seq} of the {info.offender} "
                    f"({names.get(info.offender)}): {info.reason} (found by {by})"
                )
                lines.append((False, text))
        return lines


def players_of(observer: Observer) -> list[Player]:
    """The players an observer knows so far (from the transcript's hello and welcome)."""
    return [
        Player(
            seat, observer.names.get(seat, str(seat)), observer.keys[seat], seat in observer.bots
        )
        for seat in Seat
        if seat in observer.keys
    ]


def rematch_possible(observer: Observer) -> bool:
    """Whether another match may follow (over, no dispute): only then do the
    players' answers about one mean anything."""
    return observer.is_over and observer.dispute is None


class Pace:
    """When the spectator asks the host, and when it gives up on it (sans-IO:
    every method is told the time, a monotonic clock in seconds).

    It asks at once when it holds more than it last said and wants more (a
    gap, the host claims more) or has not said so for :data:`ACK_EVERY`
    frames; otherwise at most once per :data:`ASK_INTERVAL`. It gives up when
    no new frame came for ``timeout`` seconds, whatever the host sent: the
    timeout counts progress, not silence.
    """

    def __init__(self, timeout: float, now: float) -> None:
        self.timeout = timeout
        self.progress_at = now
        """When the last new transcript frame came (or the watch began)."""
        self.messages = 0
        """Messages from the host since then."""
        self._asked_at = -math.inf
        self._asked_have = -1
        self._wanted = True

    def heard(self, now: float, received: Received) -> None:
        """A message from the host, and what it changed."""
        if received.progress:
            self.progress_at = now
            self.messages = 0
        else:
            self.messages += 1
        self._wanted = self._wanted or received.ask

    def ask_now(self, now: float, have: int) -> bool:
        """Whether to send a ``watch`` (with ``have``) now."""
        if have > self._asked_have and (self._wanted or have - self._asked_have >= ACK_EVERY):
            return True
        if now - self._asked_at < ASK_INTERVAL:
            return False
        return self._wanted or now - self.progress_at >= ASK_INTERVAL

    def asked(self, now: float, have: int) -> None:
        """A ``watch`` went out with ``have``."""
        self._asked_at, self._asked_have, self._wanted = now, have, False

    def given_up(self, now: float) -> bool:
        """No new frame for the timeout: leave the host, whatever it sends."""
        return now - self.progress_at >= self.timeout

    def next_deadline(self) -> float:
        """When :meth:`ask_now` or :meth:`given_up` may next change its answer."""
        since = self._asked_at if self._wanted else max(self._asked_at, self.progress_at)
        return min(since + ASK_INTERVAL, self.progress_at + self.timeout)

    def why_given_up(self, have: int) -> str:
        what = (
            "the host sent nothing in that time"
            if not self.messages
            else f"the host sent {self.messages} message(s), none of them a new frame"
        )
        return (
            f"no new frame of the match for {self.timeout:g} s ({what}), after {have} frames: "
            "the host is gone or stalled, or its players do not play (watch again to see "
            "it from the start; it is saved as far as it came)"
        )


def who_plays(players: list[Player], known: Mapping[str, bytes]) -> list[str]:
    """Both players as a player sees its opponent: name, seat, key fingerprint,
    and whether this machine knows the key (``known``: its known peers, name →
    key). A name known here with another key is said loudly: a match between
    sock puppets named like your friends must not look genuine."""
    from lcnet.store.identity import name_caution

    lines = []
    for player in players:
        fingerprint = hashing.fingerprint(player.key)
        line = f"{player.seat}: {player.name}, key {fingerprint}"
        if player.bot:
            line += " (a bot, its program says)"
        named = known.get(player.name)
        also = sorted(name for name, key in known.items() if key == player.key)
        if named == player.key:
            line += f": known here as {player.name}"
        elif named is not None:
            line += (
                f": ! not the key this machine knows as {player.name} "
                f"({hashing.fingerprint(named)}): another player under that name, or "
                f"{player.name} has a new key"
            )
        elif also:
            line += f": known here as {also[0]}, not as {player.name}"
        else:
            line += ": new to this machine (compare the fingerprint with the player)"
            caution = name_caution(player.name, known)
            if caution is not None:
                line += f"; ! {caution}"
        lines.append(line)
    return lines

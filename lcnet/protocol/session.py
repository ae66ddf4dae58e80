"""A player's side of the match: the transcript machine with a key and secrets.

One :class:`Session` per player. It checks every frame the other player
sends before anything changes (signature, chain, game id, turn, schema, the
rules engine, the masked deck; :class:`~lcnet.protocol.transcript.Transcript`) and
builds this player's own frames — automatically where the protocol leaves
no choice (passes, keys, acknowledgements, reveals, results) and from a
decision otherwise (:meth:`Session.play`, :meth:`Session.resign`). The
audit's side, without secrets, is :class:`lcnet.protocol.observer.Observer`.

No sockets, files or clocks: frames are bytes in, :class:`Step` results out.
The caller writes every frame the session returns to its replay file before
sending it (docs/PROTOCOL.md §6 has the state machine as a table).

A frame the peer signed but that breaks the protocol moves the session to a
terminal error with a :class:`DisputeInfo` (fail closed), and the session
answers with a signed ``dispute`` frame. Bytes that do not decode or do not
verify are dropped and counted; they never change anything.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Final

import nacl.signing

from lcnet.deck import hashing, rounddeal
from lcnet.deck.deckcheck import PlayerDeck, RoundTrack
from lcnet.errors import LocalProtocolError, ProtocolError, Violation
from lcnet.game.engine import Turn, View
from lcnet.game.seat import Seat
from lcnet.protocol import evidence, wire
from lcnet.protocol.events import (
    ControlReceived,
    DisputeInfo,
    DuplicateIgnored,
    MatchOptions,
    Step,
)
from lcnet.protocol.phases import OwnSide, Phase
from lcnet.protocol.transcript import FrameHeader, Transcript
from lcnet.protocol.transitions import TABLE, turn_of


class Session(Transcript):
    """One player's side of a match, frame by frame."""

    def __init__(
        self,
        *,
        seat: Seat,
        signing_key: nacl.signing.SigningKey,
        master_secret: bytes,
        name: str = "",
        options: MatchOptions | None = None,
        bot: bool = False,
    ) -> None:
        if seat is Seat.HOST and options is None:
            options = MatchOptions()
        super().__init__(own=seat, options=options if seat is Seat.HOST else None)
        self.seat: Final = seat
        self._signing_key = signing_key
        self._own = OwnSide(
            name=name,
            key=bytes(signing_key.verify_key),
            master_secret=master_secret,
            options=options,
            bot=bot,
        )
        """What this side builds its frames with (the table's builders read it)."""
        self._restoring = False
        self.keys[seat] = self._own.key
        self.names[seat] = name
        if bot:
            self.bots.add(seat)

    # -- construction

    @classmethod
    def host(
        cls,
        signing_key: nacl.signing.SigningKey,
        master_secret: bytes,
        *,
        name: str,
        options: MatchOptions | None = None,
        bot: bool = False,
    ) -> Session:
        return cls(
            seat=Seat.HOST,
            signing_key=signing_key,
            master_secret=master_secret,
            name=name,
            options=options or MatchOptions(),
            bot=bot,
        )

    @classmethod
    def joiner(
        cls,
        signing_key: nacl.signing.SigningKey,
        master_secret: bytes,
        *,
        name: str,
        bot: bool = False,
    ) -> Session:
        return cls(
            seat=Seat.JOINER,
            signing_key=signing_key,
            master_secret=master_secret,
            name=name,
            bot=bot,
        )

    @classmethod
    def resume(
        cls,
        seat: Seat,
        signing_key: nacl.signing.SigningKey,
        master_secret: bytes,
        frames: Sequence[bytes],
        *,
        name: str,
        options: MatchOptions | None = None,
    ) -> tuple[Session, Step]:
        """Rebuild a session from its replay file's frames.

        Every frame is checked again as if it arrived now; this peer's own
        frames must be exactly what the session would build. The returned
        step holds the frames now due from this peer (built, not yet sent).
        """
        session = cls(
            seat=seat,
            signing_key=signing_key,
            master_secret=master_secret,
            name=name,
            options=options,
        )
        session._restoring = True
        try:
            for raw in frames:
                session._restore_frame(raw)
        finally:
            session._restoring = False
        step = Step()
        if session.phase is not Phase.OVER:
            session._auto(step)
        return session, step

    # -- the role

    def new_round(self, number: int, starter: Seat) -> RoundTrack:
        assert self.options is not None and self.game_id is not None
        own = rounddeal.RoundDeal.from_master(
            seat=self.seat,
            suit_count=self.options.suits,
            game_id=self.game_id,
            round_number=number,
            master_secret=self._own.master_secret,
        )
        return RoundTrack(number=number, starter=starter, deck=PlayerDeck(own))

    @property
    def peer_minor(self) -> int:
        """The minor version the peer announced (this version's until it has)."""
        return self.minors.get(self.seat.other, wire.PROTOCOL_VERSION[1])

    def _after_frame(self, step: Step) -> None:
        if not self._restoring:
            self._auto(step)

    # -- state queries

    @property
    def awaiting_decision(self) -> bool:
        """Whether this peer must now choose a move (:meth:`play`) or resign."""
        return self.phase is Phase.MOVE and self.speaker is self.seat and self.failure is None

    @property
    def opponent_known(self) -> bool:
        """Whether the opponent's key is known (its hello or welcome was taken)."""
        return self.seat.other in self.keys

    @property
    def our_turn(self) -> bool:
        """Whether this side signs the next transcript frame (a move, or one it builds)."""
        return self.speaker is self.seat

    def own_frame(self, seq: int) -> wire.Frame | None:
        """The frame at ``seq`` if this side signed it (what it may send again)."""
        frame = self.chain[seq] if 0 <= seq < len(self.chain) else None
        return frame if frame is not None and frame.signed_by(self.keys[self.seat]) else None

    def last_own_frame(self) -> wire.Frame | None:
        """The last frame this side signed, if any."""
        return next((f for f in reversed(self.chain) if f.signed_by(self.keys[self.seat])), None)

    def sync(self) -> wire.Frame | None:
        """This side's ``sync``: how many frames it holds and the last one's hash
        (``None`` before the match has a game id)."""
        head = self.head
        if head is None or self.game_id is None:
            return None
        return self.control(wire.Sync(have=len(self.chain), head=head))

    def view(self) -> View | None:
        """What this peer knows of the current round (``None`` outside a round)."""
        if self.round is None or self.round.table is None:
            return None
        return self.round.table.view(int(self.seat))

    # -- starting, deciding

    def start(self) -> Step:
        """The joiner's opening frame (the host starts by receiving it)."""
        self._require_working()
        step = Step()
        if self.seat is Seat.JOINER and not self.chain:
            with self._failing_closed("building the opening frame"):
                self._auto(step)
        return step

    def play(self, turn: Turn) -> Step:
        """Make ``turn`` as this peer's move (checked; raises IllegalMoveError)."""
        self._require_working()
        if not self.awaiting_decision:
            raise LocalProtocolError("it is not this peer's move")
        assert self.round is not None and self.round.table is not None
        # The engine checks the turn on a copy, and says precisely why an
        # illegal one is illegal (IllegalMoveError).
        self.round.table.copy().push_turn(turn, int(self.seat))
        step = Step()
        with self._failing_closed("building this player's move"):
            self.emit(self._build_move(turn), step)
            self._auto(step)
        return step

    def resign(self) -> Step:
        """Give up the match (allowed when this peer may speak)."""
        self._require_working()
        if self.phase is Phase.OVER or self.speaker is not self.seat:
            raise LocalProtocolError("a resignation is sent when this peer may speak")
        step = Step()
        with self._failing_closed("building a resignation"):
            self.emit(wire.Resign(), step)
        return step

    def control(self, message: wire.Message) -> wire.Frame:
        """A signed control frame (sync, ping, pong) for this match."""
        self._require_working()
        if not message.CONTROL or self.game_id is None:
            raise LocalProtocolError("control frames need a game id")
        return wire.make_frame(message, self._signing_key, game=self.game_id)

    # -- receiving what only a player receives

    def _receive_control(self, frame: wire.Frame, step: Step) -> Step:
        peer = self.seat.other
        if peer not in self.keys or frame.game != self.game_id:
            return self._drop(step, "a control frame for no known match")
        try:
            frame.verify(self.keys[peer])
        except wire.BadSignature:
            return self._drop(step, "a control frame whose signature does not verify")
        step.events.append(ControlReceived(frame.message))
        return step

    def _receive_old(self, frame: wire.Frame, step: Step) -> Step:
        assert frame.seq is not None
        ours = self.chain[frame.seq]
        if frame.raw == ours.raw:
            step.events.append(DuplicateIgnored(frame.seq))
            return step
        peer = self.seat.other
        if peer not in self.keys:
            return self._drop(step, "an unexpected frame")
        try:
            frame.verify(self.keys[peer])
        except wire.BadSignature:
            return self._drop(step, "the frame's signature does not verify")
        off_chain = self._off_chain(frame)
        if off_chain is not None:
            return self._drop(step, off_chain)
        # The same game, position and history as a frame we hold: keep it, and
        # judge it by the one rule the audit uses too (lcnet.protocol.evidence).
        step.evidence = frame
        judged = evidence.judge(
            signer=peer,
            message=frame.message,
            seq=frame.seq,
            speaker=self.speakers[frame.seq],
            held=[self._author_at(k) for k in range(frame.seq, len(self.chain))],
        )
        if judged.finding is evidence.Finding.CROSSED:
            # Either player may dispute at any time, so a dispute can cross our
            # frames in flight: the peer's last word, judged like any other.
            self._on_dispute(frame, peer, step)
        elif judged.finding.proves:
            self._fail(
                Violation(f"the {peer} {judged.reason}", seat=peer, seq=frame.seq),
                frame,
                step,
                in_chain=False,
            )
        else:
            step.evidence = None
            return self._drop(step, judged.reason)
        return step

    def _on_dispute(self, frame: wire.Frame, author: Seat, step: Step) -> None:
        message = frame.message
        assert isinstance(message, wire.Dispute)
        # Ours, or the peer's: either way the match ends accusing the other of the signer.
        self._end_with_dispute(author.other, message, step, detected_by=author)

    def _answer(self, info: DisputeInfo, offending: wire.Frame, step: Step) -> None:
        """Tell the peer: a signed dispute with this round's seed, as the next frame."""
        if self.game_id is None:
            return
        seed = None
        if self.round is not None:
            seed = hashing.round_seed(self._own.master_secret, self.game_id, self.round.number)
        message = wire.Dispute(
            about=info.seq, frame=offending.hash, reason=_clip(info.reason), seed=seed
        )
        out = wire.make_frame(
            message, self._signing_key, seq=len(self.chain), prev=self.head, game=self.game_id
        )
        self.chain.append(out)
        self.speakers.append(None)
        step.outgoing.append(out)

    # -- emitting this peer's frames

    @property
    def signing_key(self) -> nacl.signing.SigningKey:
        """The key this player signs its frames with (the network layer signs
        its control messages, hello, ping and sync, with it too)."""
        return self._signing_key

    def sign(self, message: wire.Message, header: FrameHeader | None = None) -> wire.Frame:
        """Sign ``message`` with this peer's key, as the frame ``header`` says
        (default: the next one), without checking or recording it.

        With :meth:`emit` and :meth:`append_own` this is the supported seam for
        making frames the protocol forbids — a modified client in the tests
        (``tests/cheaters.py``) or in ``replays/make_samples.py``.
        """
        seq, prev, game = header or self.next_header()
        return wire.make_frame(message, self._signing_key, seq=seq, prev=prev, game=game)

    def append_own(self, frame: wire.Frame, step: Step) -> None:
        """Record ``frame``, signed by this peer, as the next transcript frame:
        to be sent (``step.outgoing``) and applied to this peer's own state.

        Raises what this peer's own checks find wrong with it (the state may
        then be half changed: only a modified client goes on after that).
        """
        self._push(frame)
        step.outgoing.append(frame)
        self._apply(frame, self.seat, step)

    def emit(self, message: wire.Message, step: Step) -> wire.Frame:
        """Sign, record and apply ``message`` as this peer's next frame.

        The session calls it for every frame it builds; a modified client
        overrides it (see :meth:`sign`). An honest frame failing this peer's
        own checks is a bug here, never the peer's fault.
        """
        frame = self.sign(message)
        try:
            self.append_own(frame, step)
        except ProtocolError as exc:
            raise LocalProtocolError(f"this peer built a bad {message.TYPE} frame: {exc}") from exc
        return frame

    def _auto(self, step: Step) -> None:
        """Build every frame now due from this peer that needs no decision."""
        while self.phase is not Phase.OVER and self.speaker is self.seat:
            if TABLE[self.phase].builds is None:
                return  # a decision of the player's
            self.emit(self._build_auto(), step)

    def _build_auto(self) -> wire.Message:
        build = TABLE[self.phase].builds
        if build is None:
            raise LocalProtocolError(f"no automatic frame in phase {self.phase}")
        return build(self, self._own)

    def _build_move(self, turn: Turn) -> wire.MoveMsg:
        track = self.round
        assert track is not None and track.own_deal is not None and track.table is not None
        card = turn.put_down.card
        draw = wire.DRAW_PILE if turn.draw.suit is None else int(turn.draw.suit)
        if track.table.holds_public(int(self.seat), card):
            return wire.MoveMsg(card=card.id, discard=turn.put_down.discard, draw=draw)
        revealed = track.own_deal.reveal_card(card)
        return wire.MoveMsg(
            card=card.id,
            discard=turn.put_down.discard,
            draw=draw,
            pos=revealed.position,
            key=revealed.key,
        )

    def _restore_frame(self, raw: bytes) -> None:
        frame = self.decode(raw)
        if frame.message.CONTROL:
            return
        if frame.seq != len(self.chain):
            raise LocalProtocolError(
                f"the replay file's frame {len(self.chain)} claims position {frame.seq}"
            )
        try:
            frame.verify(bytes(self._signing_key.verify_key))
            own = True
        except wire.BadSignature:
            own = False
        if not own:
            step = self.receive(raw)
            if step.accepted is None or self.dispute is not None:
                raise LocalProtocolError(
                    f"frame {frame.seq} of the replay file no longer verifies: "
                    + "; ".join(str(e) for e in step.events)
                )
            return
        if self.speaker is not self.seat and not isinstance(
            frame.message, wire.Dispute | wire.Resign
        ):
            raise LocalProtocolError(f"frame {frame.seq} is ours but it was not our turn to speak")
        message = frame.message
        if isinstance(message, wire.Hello | wire.Welcome):
            # As it was played (a bot's file, resumed).
            self._own = dataclasses.replace(self._own, bot=bool(message.bot))
            if self._own.bot:
                self.bots.add(self.seat)
        if isinstance(message, wire.MoveMsg):
            expected: wire.Message = self._build_move(turn_of(message))
        elif isinstance(message, wire.Resign | wire.Dispute):
            expected = message
        else:
            expected = self._build_auto()
        if expected != message:
            raise LocalProtocolError(
                f"frame {frame.seq} of the replay file is not what this peer would send"
            )
        if frame.seq and (frame.prev != self.head or frame.game != self.game_id):
            raise LocalProtocolError(f"frame {frame.seq} of the replay file breaks the chain")
        self._push(frame)
        self._apply(frame, self.seat, Step())


def _clip(text: str) -> str:
    data = text.encode("utf-8")[: wire.MAX_REASON_BYTES]
    return data.decode("utf-8", errors="ignore")

"""The audit's side of a match: the transcript machine with no seat and no secrets.

An :class:`Observer` checks a finished or unfinished transcript from the
outside, frame by frame, with the very code the players ran
(:class:`~lcnet.protocol.transcript.Transcript` and its state table). It differs from
a player in what it cannot know and what it must weigh:

* it knows no card in advance, so it checks at once what anyone can and
  postpones what only a seed reveal proves (:class:`~lcnet.deck.deckcheck.ObserverDeck`);
  a violation it finds is the earliest in transcript order, as an auditor
  that checks everything at once would find it (:meth:`Observer._earliest`),
  and :meth:`Observer.finish` runs what is still postponed when no more
  frames come;
* it judges a player's dispute, redoing with the accuser's seed the openings
  only the accuser could do (:meth:`Observer._on_dispute`);
* it weighs frames kept beside the transcript (a replay file's EVIDENCE
  records) against it (:meth:`Observer.on_history`).

``lcnet audit``, ``lcnet replay`` and ``lcnet audit A B`` run it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from lcnet.deck import deal
from lcnet.deck.deckcheck import ObserverDeck, RoundTrack
from lcnet.errors import Violation
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.events import DisputeInfo, DuplicateIgnored, Step
from lcnet.protocol.transcript import Transcript


class Observer(Transcript):
    """A transcript checked from the outside (see the module)."""

    def new_round(self, number: int, starter: Seat) -> RoundTrack:
        assert self.options is not None and self.game_id is not None
        deck = ObserverDeck(None, suit_count=self.options.suits, game_id=self.game_id)
        track = RoundTrack(number=number, starter=starter, deck=deck)
        deck.attach(track)
        return track

    def _after_frame(self, step: Step) -> None:
        return None  # an observer sends nothing

    def _answer(self, info: DisputeInfo, offending: wire.Frame, step: Step) -> None:
        return None  # an observer tells no one: its verdict is the dispute on record

    def _receive_control(self, frame: wire.Frame, step: Step) -> Step:
        return self._drop(step, "a control frame for no known match")

    def _receive_old(self, frame: wire.Frame, step: Step) -> Step:
        assert frame.seq is not None
        if frame.raw == self.chain[frame.seq].raw:
            step.events.append(DuplicateIgnored(frame.seq))
            return step
        return self._drop(step, "an unexpected frame")

    # -- what only an observer does

    def _earliest(self, violation: Violation, frame: wire.Frame) -> Violation:
        """The first bad frame in transcript order: the postponed checks of
        earlier frames come first (PROTOCOL §6.4), so that the verdict is the
        one of an auditor that checks everything at once."""
        track = self.round
        if track is None:
            return violation
        try:
            track.deck.run_deferred()
        except (Violation, deal.DeckProtocolError) as exc:
            earlier = self._as_violation(exc, frame)
            if (
                earlier.seq is not None
                and violation.seq is not None
                and earlier.seq < violation.seq
            ):
                return earlier
        return violation

    def finish(self) -> Step:
        """The last checks when no more frames will come: what waited for a seed
        reveal that never came (pass validity, openings of played cards)."""
        step = Step()
        track = self.round
        if track is None or self.dispute is not None:
            return step
        try:
            track.deck.run_deferred()
        except (Violation, deal.DeckProtocolError) as exc:
            self._fail(self._as_violation(exc, self.chain[-1]), self.chain[-1], step, in_chain=True)
        return step

    def _on_dispute(self, frame: wire.Frame, author: Seat, step: Step) -> None:
        """Weigh a player's dispute: with the accuser's seed, redo the openings
        only the accuser could do; if the accused frame fails them the dispute
        is proven (a Violation against the accused frame)."""
        message = frame.message
        assert isinstance(message, wire.Dispute)
        track = self.round
        accused = author.other
        if track is not None:
            track.deck.run_deferred()
        if (
            message.seed is not None
            and track is not None
            and author in track.commitments
            and len(track.passes) == deal.PASS_COUNT
            and message.about < len(self.chain)
        ):
            problem = track.deck.judge_dispute(author, message.seed, message.about)
            if problem is not None:
                raise Violation(problem, seat=accused, seq=message.about)
        self._end_with_dispute(accused, message, step, detected_by=author)

    def on_history(self, frames: Sequence[bytes]) -> Iterator[tuple[wire.Frame, Seat]]:
        """Those of ``frames`` (kept beside the transcript) that can prove
        something against it, with their signers.

        A record that does not decode (fields of a newer minor version only
        from a signer that announced it, §5.5), that no player's key verifies,
        whose position is 0 or not in the transcript, or that is not on the
        transcript's history (this game, ``prev`` the hash of the transcript's
        frame before it) proves nothing: anyone can copy an old frame into a
        file, and a fork can be either side's doing (PROTOCOL §6.4). Nor does
        a copy of the transcript's own frame.
        """
        chain = self.chain
        for raw in frames:
            try:
                frame = wire.decode_frame(raw, allow_unknown_fields=True)
            except wire.MalformedFrame:
                continue
            seq = frame.seq
            signer = self.signer_of(frame)
            if signer is None or not seq or seq >= len(chain):
                continue
            if self.unannounced_fields(frame, signer) is not None:
                continue
            if frame.game != self.game_id or frame.prev != chain[seq - 1].hash:
                continue
            if chain[seq].raw != raw:
                yield frame, signer

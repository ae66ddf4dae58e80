"""Make the sample replay files in this directory (deterministic: same files every run).

    python replays/make_samples.py [--out DIR]

* ``sample-complete-host.lcnet`` and ``sample-complete-joiner.lcnet``: both
  players' files of one complete 3-round match (5 suits) between two greedy
  bots; ``lcnet audit`` says *valid*, and with both files, that they agree.
* ``sample-incomplete-joiner.lcnet``: the joiner's file of the same match,
  as if its program had stopped in the middle of round 2; *incomplete*,
  with who owes the next frame.
* ``sample-cheated-host.lcnet``: the honest host's file of a match in which
  the joiner (a modified client) played a card onto its expedition below
  its last one; *invalid*, naming the frame, the joiner and its key.
* ``sample-damaged-host.lcnet``: a copy of ``sample-complete-host.lcnet``
  with the byte in the middle of the file flipped, as a bad disk or copy
  would; *damaged* alone (not a torn tail: intact records follow), and
  *valid* with its intact twin ``sample-complete-joiner.lcnet``, which
  repairs it.
* ``sample-out-of-turn-resign-joiner.lcnet``: the honest joiner's file of a
  match whose host (a modified client) signed, right after its own move, a
  resignation for the position of the joiner's acknowledgement; *invalid*,
  proven by the resignation kept as an EVIDENCE record.
* ``sample-planted-evidence-joiner.lcnet`` and
  ``sample-planted-evidence-host.lcnet``: a joiner (a modified client) took
  the host's move for a position, signed a dispute for that same position
  and kept the host's real move in its own file as an EVIDENCE record, to
  make the honest host look like it signed out of turn; the host's file
  holds its move and the joiner's dispute, which crossed it. Neither file,
  alone or with the other, names the host: whose position it was is the
  phase's, not the signer's of the frame a file holds there.
* ``sample-minor-version-host.lcnet``: the honest host's file of a match
  with a joiner that announced protocol 1.2 and put a field 1.0 does not
  know in its coin frame; *valid*: each signer's announced version governs
  its own frames.

Everything goes through the real protocol (two sessions, the masked deck,
signatures), with keys and secrets from fixed seeds.
"""

from __future__ import annotations

import argparse
import contextlib
import random
from pathlib import Path

import msgpack

from lcnet import __version__
from lcnet.bots import make_bot
from lcnet.game.engine import Turn
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.events import MatchOptions, Step
from lcnet.protocol.observer import Observer
from lcnet.protocol.phases import Phase
from lcnet.protocol.session import Session
from lcnet.protocol.transcript import FrameHeader
from lcnet.run import localmatch
from lcnet.store.replayfile import ReplayHeader
from lcnet.store.writer import write_replay

CREATED = "2026-11-29T12:00:00Z"
NAMES = {Seat.HOST: "Ada", Seat.JOINER: "Ben"}


def header(seat: Seat) -> ReplayHeader:
    return ReplayHeader(seat=str(seat), created=CREATED, software=f"lcnet {__version__}")


def greedy_peers(
    seed: int, kinds: dict[Seat, type[Session]] | None = None
) -> dict[Seat, localmatch.Peer]:
    """Ada and Ben, two greedy bots, set up for a 3-round 5-suit match from ``seed``
    (``kinds``: a modified client for a seat)."""
    rng = random.Random(seed)
    bots = {seat: make_bot("greedy", rng.getrandbits(32)) for seat in Seat}
    return localmatch.new_peers(
        {seat: bots[seat].choose_turn for seat in Seat},
        options=MatchOptions(suits=5, rounds=3),
        rng=rng,
        names=NAMES,
        kinds=kinds,
    )


def complete_match(seed: int) -> dict[Seat, localmatch.Peer]:
    peers = greedy_peers(seed)
    localmatch.run(peers)
    return peers


class LowballJoiner(Session):
    """A modified client: once, it plays a card below the top of its expedition."""

    cheated = False

    @property
    def awaiting_decision(self) -> bool:
        # After its cheat the modified client just waits for what the host says.
        return super().awaiting_decision and not self.cheated

    def emit(self, message: wire.Message, step: Step) -> wire.Frame:
        view = self.view()
        if isinstance(message, wire.MoveMsg) and not self.cheated and view is not None:
            own = self.round.own_deal if self.round else None
            assert own is not None
            hidden = own.hidden_positions
            for card in view.hand:
                if card in hidden and not view.can_play(card):
                    self.cheated = True
                    played = own.reveal_card(card)
                    message = wire.MoveMsg(
                        card=card.id,
                        discard=False,
                        draw=message.draw,
                        pos=played.position,
                        key=played.key,
                    )
                    break
        # Sign and send it as the real client would, but skip the client's own
        # checks, which would refuse the frame: that is what a modified client does.
        frame = self.sign(message)
        with contextlib.suppress(Exception):
            self.append_own(frame, step)
        return frame


class OutOfTurnResignHost(Session):
    """A modified client: right after one of its moves, it also signs a resignation
    for the next position, where the joiner's acknowledgement is due.

    A resignation comes only from the player entitled to speak, so it never
    crosses a frame in flight: the honest joiner disputes it and keeps it as
    evidence, and the audit proves it (docs/PROTOCOL.md §6.2 step 3).
    """

    after_turns = 9
    resigned_out_of_turn = False

    def play(self, turn: Turn) -> Step:
        step = super().play(turn)
        track = self.round
        if not self.resigned_out_of_turn and track and len(track.turns) >= self.after_turns:
            self.resigned_out_of_turn = True
            move = step.outgoing[-1]
            assert move.seq is not None
            header = FrameHeader(move.seq + 1, move.hash, self.game_id)
            step.outgoing.append(self.sign(wire.Resign(), header))
        return step


def out_of_turn_resign_match(seed: int, out: Path) -> Path:
    """The honest joiner's file of a match whose host resigned in the joiner's slot."""
    peers = greedy_peers(seed, {Seat.HOST: OutOfTurnResignHost})
    cheater = peers[Seat.HOST].session
    assert isinstance(cheater, OutOfTurnResignHost)
    stem = "sample-out-of-turn-resign"
    localmatch.open_replays(peers, out, stem, CREATED)
    localmatch.run(peers)
    paths = localmatch.close_replays(peers)
    joiner = peers[Seat.JOINER].session
    assert cheater.resigned_out_of_turn and joiner.dispute is not None
    assert joiner.dispute.offender is Seat.HOST and joiner.resigned is None
    for path in paths:
        if path.name != f"{stem}-joiner.lcnet":
            path.unlink()
    return out / f"{stem}-joiner.lcnet"


class NewerJoiner(Session):
    """A joiner of a later minor version: it announces protocol 1.2 and adds a
    field this version does not know to its coin frame (docs/PROTOCOL.md §5.5)."""

    def sign(self, message: wire.Message, header: FrameHeader | None = None) -> wire.Frame:
        if isinstance(message, wire.Hello):
            message = wire.Hello(v=[1, 2], name=message.name, key=message.key, coin=message.coin)
        frame = super().sign(message, header)
        if not isinstance(message, wire.Coin):
            return frame
        body = msgpack.unpackb(frame.body, raw=False)
        body["note"] = "a field of protocol 1.2"
        packed = msgpack.packb(dict(sorted(body.items())), use_bin_type=True)
        assert self.signing_key is not None
        raw = wire.sign_frame(packed, self.signing_key)
        return wire.decode_frame(raw, allow_unknown_fields=True)


def minor_version_match(seed: int) -> dict[Seat, localmatch.Peer]:
    peers = greedy_peers(seed, {Seat.JOINER: NewerJoiner})
    localmatch.run(peers)
    host = peers[Seat.HOST].session
    assert host.sealed and host.chain[2].unknown == frozenset({"note"})
    return peers


def planted_evidence(peers: dict[Seat, localmatch.Peer], out: Path) -> None:
    """The planted-evidence pair, from the complete match's transcript: the joiner
    signs a dispute for a position that was the host's move, over the host's
    real move, which it keeps as evidence (what the host's file then holds is
    what an honest host writes when that dispute crosses its move)."""
    host = peers[Seat.HOST].session
    joiner_key = peers[Seat.JOINER].session.signing_key
    assert joiner_key is not None
    chain = host.chain
    q = next(
        f.seq
        for f in chain[40:]
        if isinstance(f.message, wire.MoveMsg) and f.signed_by(host.keys[Seat.HOST]) and f.seq
    )
    dispute = wire.make_frame(
        wire.Dispute(about=q - 1, frame=chain[q - 1].hash, reason="you moved out of turn"),
        joiner_key,
        seq=q,
        prev=chain[q - 1].hash,
        game=host.game_id,
    )
    frames = [f.raw for f in chain]
    stem = "sample-planted-evidence"
    write_replay(
        out / f"{stem}-joiner.lcnet",
        header(Seat.JOINER),
        [*frames[:q], dispute.raw],
        [frames[q]],
    )
    write_replay(out / f"{stem}-host.lcnet", header(Seat.HOST), frames[: q + 1], [dispute.raw])


def cheated_match(seed: int) -> dict[Seat, localmatch.Peer]:
    peers = greedy_peers(seed, {Seat.JOINER: LowballJoiner})
    cheater = peers[Seat.JOINER].session
    assert isinstance(cheater, LowballJoiner)
    localmatch.run(peers)
    assert cheater.cheated and peers[Seat.HOST].session.dispute is not None
    return peers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args()
    out: Path = args.out
    for old in out.glob("sample-*.lcnet"):
        old.unlink()

    peers = complete_match(seed=2026)
    for seat in Seat:
        frames = [f.raw for f in peers[seat].session.chain]
        write_replay(out / f"sample-complete-{seat}.lcnet", header(seat), frames)

    # The same match as the joiner's file of a program that stopped mid-round 2.
    joiner = peers[Seat.JOINER].session
    observer = Observer()
    cut = 0
    for index, frame in enumerate(joiner.chain):
        observer.receive(frame.raw)
        track = observer.round
        if (
            track is not None
            and track.number == 2
            and len(track.turns) == 20
            and (observer.phase is Phase.MOVE)
        ):
            cut = index + 1
            break
    assert cut, "round 2 reaches 20 turns"
    frames = [f.raw for f in joiner.chain[:cut]]
    write_replay(out / "sample-incomplete-joiner.lcnet", header(Seat.JOINER), frames)

    # The complete host file with one byte in its middle flipped (docs/PROTOCOL.md §7.2).
    damaged = bytearray((out / "sample-complete-host.lcnet").read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF
    (out / "sample-damaged-host.lcnet").write_bytes(bytes(damaged))

    out_of_turn_resign_match(seed=11, out=out)
    planted_evidence(peers, out)
    newer = minor_version_match(seed=31)
    write_replay(
        out / "sample-minor-version-host.lcnet",
        header(Seat.HOST),
        [f.raw for f in newer[Seat.HOST].session.chain],
    )

    cheated = cheated_match(seed=7)
    host = cheated[Seat.HOST].session
    write_replay(out / "sample-cheated-host.lcnet", header(Seat.HOST), [f.raw for f in host.chain])
    for path in sorted(out.glob("sample-*.lcnet")):
        print(f"{path.name}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()

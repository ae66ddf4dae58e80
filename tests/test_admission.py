"""The host's admission rule, without sockets: lcnet.admission.admit on real
sessions and real signed frames (the same decisions tests/test_net.py sees
over ZeroMQ)."""

from __future__ import annotations

import nacl.signing
import pytest

from lcnet import admission, wire
from lcnet.admission import Admit, Ignore, TurnAway
from lcnet.errors import UserError
from lcnet.seat import Seat
from lcnet.session import Session

HOST_KEY = nacl.signing.SigningKey(b"\x01" * 32)


def host() -> Session:
    return Session.host(HOST_KEY, b"\x02" * 32, name="host")


def hello(seed: int = 3, name: str = "joiner") -> wire.Frame:
    joiner = Session.joiner(nacl.signing.SigningKey(bytes([seed]) * 32), b"\x04" * 32, name=name)
    (frame,) = joiner.start().outgoing
    return frame


def decide(session: Session, frame: wire.Frame, **changes: object) -> admission.Decision:
    options: dict[str, object] = {
        "in_match": False,
        "own_key": bytes(HOST_KEY.verify_key),
        "fresh_game": None,
        "check_peer": lambda seat, name, key: None,
    }
    options.update(changes)
    return admission.admit(session, frame, **options)  # type: ignore[arg-type]


def test_a_fresh_hello_is_admitted_and_the_check_sees_the_joiner() -> None:
    seen: list[tuple[Seat, str]] = []
    decision = decide(host(), hello(), check_peer=lambda s, n, k: seen.append((s, n)))
    assert decision == Admit() and seen == [(Seat.JOINER, "joiner")]


def test_while_in_a_match_everyone_else_hears_busy_and_the_joiner_is_told_to_resume() -> None:
    session = host()
    first = hello()
    session.receive(first.raw)  # the joiner's hello: the host now has an opponent
    assert decide(session, hello(5), in_match=True) == TurnAway(admission.BUSY_REASON)
    again = Session.joiner(nacl.signing.SigningKey(b"\x03" * 32), b"\x09" * 32, name="joiner")
    (second,) = again.start().outgoing  # the same key, a new hello
    assert decide(session, second, in_match=True) == TurnAway(admission.OTHER_MATCH_REASON)
    # Its frames of this game on a new connection are the joiner coming back.
    assert session.game_id is not None
    sync = wire.make_frame(
        wire.Sync(have=2, head=b"\x00" * 32),
        nacl.signing.SigningKey(b"\x03" * 32),
        game=session.game_id,
    )
    assert decide(session, sync, in_match=True) == Admit()


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("own key", admission.OWN_KEY_REASON),
        ("replayed", admission.REPLAYED_REASON),
        ("sync", admission.NO_MATCH_REASON),
    ],
)
def test_a_host_waiting_turns_away_what_cannot_open_a_match(case: str, reason: str) -> None:
    frame = hello()
    options: dict[str, object] = {}
    if case == "own key":
        options["own_key"] = frame.message.key  # type: ignore[attr-defined]
    elif case == "replayed":
        options["fresh_game"] = lambda game_id: False
    else:
        frame = wire.make_frame(wire.Sync(have=3, head=b"\x00" * 32), HOST_KEY, game=b"\x05" * 32)
    assert decide(host(), frame, **options) == TurnAway(reason)


def test_a_stranger_s_other_frames_are_ignored_and_a_refused_peer_keeps_its_reason() -> None:
    ping = wire.make_frame(wire.Ping(n=1), HOST_KEY, game=b"\x05" * 32)
    assert decide(host(), ping) == Ignore()
    refusal = UserError("a known name with a new key")

    def refuse(seat: Seat, name: str, key: bytes) -> None:
        raise refusal

    decision = decide(host(), hello(), check_peer=refuse)
    assert isinstance(decision, TurnAway) and decision.reason is refusal
    assert decision.text == "a known name with a new key"

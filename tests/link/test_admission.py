"""The host's admission rules, without sockets: lcnet.link.admission.admit (whom
it plays) and lcnet.link.audience (who holds a spectator's place), on real
sessions and real signed frames with a clock the test holds (the same
decisions tests/net/test_net.py and tests/net/test_stranger_socket.py see over
ZeroMQ)."""

from __future__ import annotations

import nacl.signing
import pytest

from lcnet.errors import UserError
from lcnet.game.seat import Seat
from lcnet.link import admission, audience
from lcnet.link.admission import Admit, Ignore, TurnAway
from lcnet.protocol import wire
from lcnet.protocol.session import Session

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


# ------------------------------------------------- spectators (lcnet.link.audience)


class Sent:
    """What an Audience sends, by connection."""

    def __init__(self) -> None:
        self.to: list[bytes] = []

    def __call__(self, ident: bytes, parts: list[bytes]) -> bool:
        self.to.append(ident)
        return True


def watch_from(seed: int, have: int = 0) -> wire.Frame:
    key = nacl.signing.SigningKey(bytes([seed]) * 32)
    message = wire.Watch(v=[1, 0], name=f"s{seed}", key=bytes(key.verify_key), have=have)
    return wire.make_frame(message, key, game=audience.NO_GAME)


def crowd(limit: int = 8) -> tuple[audience.Audience, Sent, list[int]]:
    """An Audience, what it sends, and how often its placed spectators changed."""
    sent, changes = Sent(), [0]

    def changed() -> None:
        changes[0] += 1

    return audience.Audience(limit, sent, changed, HOST_KEY), sent, changes


def test_a_first_watch_is_answered_but_takes_no_place() -> None:
    crowded, sent, changes = crowd(limit=8)
    session = host()
    for n in range(40):  # forty connections that ask once: the host is never full
        assert crowded.request(bytes([n]), watch_from(n + 10), session, 0.0) is None
    assert len(sent.to) == 40 and crowded.placed == 0 and changes == [0]
    assert crowded.watching().count == 0
    # One that asks again has a place, and the opponent is told.
    assert crowded.request(b"honest", watch_from(9), session, 0.0) is None
    assert crowded.request(b"honest", watch_from(9), session, 1.1) is None
    assert crowded.placed == 1 and changes == [1]
    assert [name for name, _ in crowded.watching().watchers] == ["s9"]


def test_when_the_places_are_taken_a_trial_is_turned_away_when_it_asks_again() -> None:
    crowded, _, _ = crowd(limit=1)
    session = host()
    crowded.request(b"a", watch_from(1), session, 0.0)
    crowded.request(b"b", watch_from(2), session, 0.0)
    assert crowded.request(b"a", watch_from(1), session, 1.0) is None  # a place
    assert crowded.request(b"b", watch_from(2), session, 1.0) == audience.full_reason(1)
    assert crowded.request(b"c", watch_from(3), session, 1.0) == audience.full_reason(1)


def test_a_trial_that_does_not_ask_again_and_a_place_not_renewed_are_forgotten() -> None:
    crowded, _, changes = crowd()
    session = host()
    crowded.request(b"ghost", watch_from(1), session, 0.0)
    crowded.request(b"placed", watch_from(2), session, 0.0)
    crowded.request(b"placed", watch_from(2), session, 1.0)
    crowded.expire(audience.PROOF_TIME)
    assert len(crowded.watchers) == 2
    crowded.expire(audience.PROOF_TIME + 0.1)
    assert [name for name, _ in crowded.watchers] == ["s2"]
    crowded.expire(1.0 + audience.PLACE_TIMEOUT + 0.1)
    assert crowded.watchers == () and crowded.dropped == 2 and changes == [2]


def test_trials_are_bounded_the_oldest_forgotten_first() -> None:
    crowded, _, _ = crowd()
    session = host()
    for n in range(audience.MAX_TRIALS + 5):
        crowded.request(n.to_bytes(2, "big"), watch_from(n % 200 + 10), session, 0.0)
    assert len(crowded._watchers) == audience.MAX_TRIALS
    assert len(crowded.watchers) == audience.MAX_LISTED_TRIALS
    assert b"\x00\x00" not in crowded._watchers


def test_a_spectator_that_stops_asking_is_sent_nothing_more_until_it_asks() -> None:
    crowded, sent, _ = crowd()
    session = host()
    joiner = Session.joiner(nacl.signing.SigningKey(b"\x05" * 32), b"\x06" * 32, name="j")
    crowded.request(b"s", watch_from(1), session, 0.0)
    crowded.request(b"s", watch_from(1), session, 1.0)  # a place, and live: the match is empty
    (hello_frame,) = joiner.start().outgoing
    step = session.receive_frame(hello_frame)
    sent.to.clear()
    crowded.forward(step, len(session.chain), 1.0 + audience.LIVE_TIMEOUT)
    assert sent.to == [b"s"]
    crowded.forward(step, len(session.chain), 1.1 + audience.LIVE_TIMEOUT)
    assert sent.to == [b"s"], "paused: it has not asked for LIVE_TIMEOUT"
    crowded.request(b"s", watch_from(1, have=0), session, 6.0)  # it asks: what it lacks
    assert sent.to.count(b"s") > 1

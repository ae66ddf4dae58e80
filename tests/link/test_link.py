"""The link's decisions, one event at a time, on a clock the test holds.

:class:`lcnet.link.liveness.Link` has no socket and reads no clock: each test tells it
what happened and what time it is, and reads what it would do. Every timer
(pings, the peer timeout, the connect timeout, the redial grace), every
status, the pacing of ``sync`` frames and the limit on resends are here.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lcnet.game.seat import Seat
from lcnet.link.liveness import (
    QUIET_AFTER,
    REDIAL_GRACE,
    RESEND_INTERVAL,
    RESIGN_PENDING_NOTICE,
    SYNC_MIN_INTERVAL,
    AbandonOpening,
    Action,
    Begin,
    ConnectTimedOut,
    Link,
    Notice,
    OpponentGone,
    OpponentQuiet,
    PeerCaughtUp,
    Redial,
    Resend,
    ResendLastOwn,
    Resign,
    SendPing,
    SendSync,
    Snapshot,
    StatusChanged,
    Timing,
)
from lcnet.protocol.status import Status

HOST, JOINER = Seat.HOST, Seat.JOINER
TIMING = Timing(ping_interval=2.0, peer_timeout=10.0, connect_timeout=30.0)
T0 = 1000.0
"""The fake clock's start (any value: only differences count)."""

NEW = Snapshot()
"""A match not begun: no frame, no opponent."""
THEIR_TURN = Snapshot(frames=20, opponent_known=True)
OUR_TURN = Snapshot(frames=20, opponent_known=True, our_turn=True)
OVER = Snapshot(frames=40, opponent_known=True, over=True)


def playing(seat: Seat = HOST, now: float = T0) -> Link:
    """A link whose opponent has been heard at ``now``."""
    link = Link(seat, TIMING, now)
    assert link.heard(now, THEIR_TURN) == [StatusChanged(Status.PLAYING)]
    return link


def of(kind: type, actions: list[Action]) -> list[Action]:
    return [a for a in actions if isinstance(a, kind)]


def not_quiet(actions: list[Action]) -> list[Action]:
    """The actions but :class:`OpponentQuiet` (tested on its own)."""
    return [a for a in actions if not isinstance(a, OpponentQuiet)]


# ------------------------------------------------------------ start and status


def test_a_host_starts_waiting_and_a_joiner_connecting() -> None:
    assert Link(HOST, TIMING, T0).status is Status.WAITING_FOR_PEER
    assert Link(JOINER, TIMING, T0).status is Status.CONNECTING


def test_a_new_joiner_says_hello_and_a_new_host_waits() -> None:
    assert Link(JOINER, TIMING, T0).start(T0, NEW) == [Begin()]
    assert Link(HOST, TIMING, T0).start(T0, NEW) == []


def test_a_resumed_side_asks_for_what_it_missed_and_sends_its_last_frame_again() -> None:
    for seat in Seat:
        assert Link(seat, TIMING, T0).start(T0, THEIR_TURN) == [SendSync(), ResendLastOwn()]


def test_hearing_the_opponent_means_playing_only_once_it_is_known() -> None:
    link = Link(HOST, TIMING, T0)
    assert link.heard(T0, NEW) == []  # a frame, but no opponent yet
    assert link.status is Status.WAITING_FOR_PEER
    assert link.heard(T0, THEIR_TURN) == [StatusChanged(Status.PLAYING)]
    assert link.heard(T0 + 1, THEIR_TURN) == []  # no repeated status


def test_a_step_that_makes_the_opponent_known_means_playing() -> None:
    joiner = Link(JOINER, TIMING, T0)
    assert joiner.stepped(T0, THEIR_TURN) == [StatusChanged(Status.PLAYING)]
    host = Link(HOST, TIMING, T0)
    assert host.stepped(T0, NEW) == []
    assert host.stepped(T0, OUR_TURN) == [StatusChanged(Status.PLAYING)]


def test_a_step_does_not_bring_back_a_disconnected_opponent_hearing_it_does() -> None:
    link = playing(JOINER)
    link.disconnected(T0)
    assert link.status is Status.DISCONNECTED
    assert link.stepped(T0, OUR_TURN) == []  # our own move: the opponent is still away
    assert link.heard(T0, THEIR_TURN) == [StatusChanged(Status.PLAYING)]


def test_a_dispute_and_the_end_are_statuses_and_the_end_is_told_at_once() -> None:
    link = playing()
    assert link.stepped(T0, Snapshot(frames=30, opponent_known=True, dispute=True, over=True)) == [
        StatusChanged(Status.DISPUTE),
        SendSync(),
    ]
    other = playing()
    assert other.stepped(T0, OVER) == [StatusChanged(Status.OVER), SendSync()]
    # Every later step of an ended match tells its end again, unpaced.
    assert other.stepped(T0, OVER) == [SendSync()]


def test_failing_ends_the_match_and_closes_the_link() -> None:
    link = playing()
    assert link.fail() == [StatusChanged(Status.OVER)]
    assert link.fail() == []
    assert link.closed
    later = T0 + 1000
    assert link.tick(later, THEIR_TURN) == []
    assert link.heard(later, THEIR_TURN) == []
    assert link.stepped(later, OVER) == []
    assert link.gap(later, THEIR_TURN) == []
    # Nothing more to time: a deadline left in the past would be due forever.
    assert link.next_deadline() == math.inf
    assert link.resign(OUR_TURN) == []
    assert link.sync_received(later, THEIR_TURN, have=0, same_head=False) == []
    assert link.status is Status.OVER


# ------------------------------------------------------------ timers


def test_nothing_happens_before_the_next_deadline() -> None:
    link = playing()
    assert link.next_deadline() == T0 + TIMING.ping_interval
    assert link.tick(T0 + TIMING.ping_interval - 0.001, THEIR_TURN) == []


def test_pings_are_numbered_and_paced_by_the_ping_interval() -> None:
    link = playing()
    first = link.tick(T0 + 2, OUR_TURN)
    assert first == [SendPing(1)]
    link.heard(T0 + 2, OUR_TURN)  # its pong
    assert link.next_deadline() == T0 + 4
    assert link.tick(T0 + 3, OUR_TURN) == []
    assert link.tick(T0 + 4, OUR_TURN) == [SendPing(2)]


def test_a_late_tick_schedules_the_next_from_when_it_ran() -> None:
    link = playing()
    assert not_quiet(link.tick(T0 + 7, OUR_TURN)) == [SendPing(1)]
    assert link.next_deadline() == T0 + 9


def test_waiting_for_the_opponent_s_frame_asks_for_it_with_each_ping() -> None:
    link = playing()
    assert link.tick(T0 + 2, THEIR_TURN) == [SendPing(1), SendSync()]
    assert not_quiet(link.tick(T0 + 4, THEIR_TURN)) == [SendPing(2), SendSync()]
    # Not when it is our turn, nor when the match is over.
    assert link.tick(T0 + 6, OUR_TURN) == [SendPing(3)]
    assert link.tick(T0 + 8, OVER) == [SendPing(4)]


def test_a_quiet_opponent_is_said_once_long_before_the_peer_timeout_and_back_once() -> None:
    link = playing()
    quiet = TIMING.quiet_after
    assert TIMING.ping_interval < quiet < TIMING.peer_timeout
    assert link.next_deadline() == T0 + TIMING.ping_interval
    assert of(OpponentQuiet, link.tick(T0 + 2, THEIR_TURN)) == []
    assert link.next_deadline() == T0 + quiet  # before the next ping
    assert link.tick(T0 + quiet, THEIR_TURN) == [OpponentQuiet(True)]
    assert link.status is Status.PLAYING  # only the peer timeout changes that
    assert of(OpponentQuiet, link.tick(T0 + 4, THEIR_TURN)) == []  # said once
    assert link.heard(T0 + 5, THEIR_TURN) == [OpponentQuiet(False)]
    assert link.heard(T0 + 6, THEIR_TURN) == []  # said once
    assert link.next_deadline() == T0 + 6  # the next ping; quiet again at 6 + 3.5


def test_no_quiet_is_said_without_an_opponent_after_the_end_or_when_closed() -> None:
    for match in (NEW, OVER):
        link = playing() if match is OVER else Link(HOST, TIMING, T0)
        link.stepped(T0, match)
        assert of(OpponentQuiet, link.tick(T0 + 9, match)) == []
        assert link.next_deadline() > T0 + 9  # nothing left due in the past
    link = playing()
    link.fail()
    assert link.tick(T0 + 9, THEIR_TURN) == [] and link.heard(T0 + 9, THEIR_TURN) == []


def test_quiet_comes_after_a_ping_missed_and_never_after_the_peer_timeout() -> None:
    assert Timing().quiet_after == QUIET_AFTER
    assert Timing(ping_interval=4.0).quiet_after == 7.0
    assert Timing(ping_interval=0.2, peer_timeout=2.0).quiet_after == 2.0


def test_a_silent_opponent_counts_as_disconnected_once_and_is_welcome_back() -> None:
    link = playing()
    now = T0
    for _ in range(5):  # pings until the peer timeout
        now += 2
        assert not_quiet(link.tick(now, OUR_TURN)) == [SendPing(int((now - T0) / 2))]
    now += 2  # 12 s of silence
    actions = not_quiet(link.tick(now, OUR_TURN))
    assert actions[:2] == [SendPing(6), StatusChanged(Status.DISCONNECTED)]
    (notice,) = of(Notice, actions)
    assert isinstance(notice, Notice) and "no answer from the opponent for 12 s" in notice.text
    assert "lcnet resume" in notice.text
    assert link.tick(now + 2, OUR_TURN) == [SendPing(7)]  # said once
    assert link.heard(now + 3, THEIR_TURN) == [
        OpponentQuiet(False),
        StatusChanged(Status.PLAYING),
    ]
    assert of(StatusChanged, link.tick(now + 5, OUR_TURN)) == []  # heard 2 s ago


def test_silence_of_exactly_the_peer_timeout_is_not_yet_a_disconnection() -> None:
    link = playing()
    link.tick(T0 + 10, OUR_TURN)
    assert link.status is Status.PLAYING


def test_any_frame_heard_resets_the_silence() -> None:
    link = playing()
    link.heard(T0 + 9, THEIR_TURN)
    assert link.tick(T0 + 12, OUR_TURN) == [SendPing(1)]
    assert link.status is Status.PLAYING


def test_a_resumed_joiner_still_connecting_counts_a_silent_host_as_disconnected() -> None:
    link = Link(JOINER, TIMING, T0)
    link.start(T0, THEIR_TURN)
    actions = link.tick(T0 + 11, THEIR_TURN)
    assert StatusChanged(Status.DISCONNECTED) in actions and of(Notice, actions)


def test_a_joiner_whose_host_falls_silent_dials_again_once() -> None:
    # Nothing else ends a connection that died unseen: no ZMTP heartbeats (lcnet.net.peer).
    link = playing(JOINER)
    actions = link.tick(T0 + 12, THEIR_TURN)
    assert StatusChanged(Status.DISCONNECTED) in actions
    assert of(Redial, actions) == [Redial(silent=True)]
    assert of(Redial, link.tick(T0 + 30, THEIR_TURN)) == []  # once per silence
    link.heard(T0 + 31, THEIR_TURN)
    assert of(Redial, link.tick(T0 + 44, THEIR_TURN)) == [Redial(silent=True)]


def test_a_host_never_dials() -> None:
    link = playing(HOST)
    assert of(Redial, link.tick(T0 + 12, THEIR_TURN)) == []


def test_a_silent_opponent_after_the_end_or_a_dispute_changes_no_status_and_is_gone() -> None:
    # Gone, once: a wait for its answer (another match?) ends (lcnet.run.netmatch.REMATCH_WAIT).
    for match in (OVER, Snapshot(frames=9, opponent_known=True, dispute=True, over=True)):
        link = playing()
        link.stepped(T0, match)
        status = link.status
        assert link.tick(T0 + 60, match) == [SendPing(1), OpponentGone()]
        assert link.tick(T0 + 120, match) == [SendPing(2)]
        assert link.status is status


def test_an_opponent_that_answers_pings_after_the_end_is_not_gone() -> None:
    link = playing()
    link.stepped(T0, OVER)
    for second in range(2, 60, 2):
        link.heard(T0 + second - 1, OVER)  # its pong
        assert of(OpponentGone, link.tick(T0 + second, OVER)) == []


def test_a_host_waits_for_an_opponent_as_long_as_it_takes() -> None:
    link = Link(HOST, TIMING, T0)
    assert link.tick(T0 + 2, NEW) == []
    assert link.tick(T0 + 10_000, NEW) == []  # no ping, no timeout: nobody to talk to
    assert link.status is Status.WAITING_FOR_PEER


OPENING = Snapshot(frames=2, opponent_known=True, opening=True)
"""A new host's opening after the welcome: the joiner's coin is due."""


def test_an_opening_that_goes_no_further_is_given_up_and_the_host_waits_again() -> None:
    # Issue 44, point 5: one hello must not hold a host for ever.
    link = Link(HOST, TIMING, T0)
    assert link.start(T0, NEW) == []
    assert link.stepped(T0, OPENING) == [StatusChanged(Status.PLAYING)]  # hello, welcome
    limit = TIMING.opening_timeout
    assert AbandonOpening() not in link.tick(T0 + limit, OPENING)  # exactly the bound: not yet
    assert link.tick(T0 + limit + 2, OPENING) == [
        AbandonOpening(),
        StatusChanged(Status.WAITING_FOR_PEER),
    ]
    assert link.status is Status.WAITING_FOR_PEER
    # Waiting again, as long as it takes; a next opponent gets the whole bound.
    assert link.tick(T0 + 10_000, NEW) == []
    link.stepped(T0 + 10_000, OPENING)
    assert AbandonOpening() not in link.tick(T0 + 10_000 + limit, OPENING)


def test_an_opening_that_moves_on_is_never_given_up() -> None:
    link = Link(HOST, TIMING, T0)
    link.start(T0, NEW)
    limit = TIMING.opening_timeout
    for step in range(1, 12):  # each frame of the deal comes just within the bound
        now = T0 + step * limit
        link.heard(now, Snapshot(frames=2 + step, opponent_known=True, opening=True))
        assert AbandonOpening() not in link.tick(now + limit, OPENING)
    # Once moves are played, a silent opponent only counts as disconnected.
    late = T0 + 1000
    assert AbandonOpening() not in link.tick(late, THEIR_TURN)


def test_only_a_new_host_waiting_on_its_opponent_gives_up_an_opening() -> None:
    limit = TIMING.opening_timeout
    ours = Snapshot(frames=3, opponent_known=True, opening=True, our_turn=True)
    for seat, start, match in (
        (JOINER, NEW, OPENING),  # a joiner has its connect timeout
        (HOST, Snapshot(frames=2, opponent_known=True, opening=True), OPENING),  # resumed
        (HOST, NEW, ours),  # the host's own frame is due
        (HOST, NEW, Snapshot(frames=3, opponent_known=True, opening=True, dispute=True)),
    ):
        link = Link(seat, TIMING, T0)
        link.start(T0, start)
        assert AbandonOpening() not in link.tick(T0 + 10 * limit, match), (seat, start, match)


def test_a_joiner_repeats_its_hello_until_the_connect_timeout_then_gives_up() -> None:
    link = Link(JOINER, TIMING, T0)
    hello = Snapshot(frames=1)
    now = T0
    while now + 2 <= T0 + TIMING.connect_timeout:
        now += 2
        assert link.tick(now, hello) == [ResendLastOwn()]
    assert link.tick(now + 2, hello) == [ConnectTimedOut()]
    assert link.fail() == [StatusChanged(Status.OVER)]
    assert link.tick(now + 4, hello) == []


def test_a_joiner_that_was_answered_never_times_out_on_connecting() -> None:
    link = Link(JOINER, TIMING, T0)
    link.stepped(T0 + 1, THEIR_TURN)  # the welcome
    assert ConnectTimedOut() not in link.tick(T0 + 100, OUR_TURN)


# ------------------------------------------------------------ sync pacing


def test_syncs_asked_for_by_gaps_are_paced() -> None:
    link = playing()
    assert link.gap(T0, THEIR_TURN) == [SendSync()]
    assert link.gap(T0 + SYNC_MIN_INTERVAL / 2, THEIR_TURN) == []
    assert link.gap(T0 + SYNC_MIN_INTERVAL, THEIR_TURN) == [SendSync()]


def test_a_forced_sync_is_not_paced_but_counts_for_the_pace() -> None:
    link = playing(JOINER)
    assert link.connected(T0, THEIR_TURN) == [SendSync(), ResendLastOwn()]
    assert link.connected(T0, THEIR_TURN) == [SendSync(), ResendLastOwn()]
    assert link.gap(T0 + 0.1, THEIR_TURN) == []


def test_there_is_no_sync_without_a_transcript() -> None:
    link = Link(JOINER, TIMING, T0)
    assert link.gap(T0, NEW) == []
    assert link.connected(T0, NEW) == [ResendLastOwn()]
    assert link.start(T0, NEW) == [Begin()]


# ------------------------------------------------------------ resends


def test_a_sync_is_answered_with_the_frames_the_peer_lacks() -> None:
    link = playing()
    actions = link.sync_received(T0, THEIR_TURN, have=17, same_head=False)
    assert actions == [Resend((17, 18, 19)), SendSync()]  # ... and says where this side is


def test_a_peer_that_holds_everything_gets_nothing() -> None:
    link = playing()
    assert link.sync_received(T0, THEIR_TURN, have=20, same_head=True) == []


def test_a_peer_that_is_ahead_or_elsewhere_is_asked_for_its_frames() -> None:
    link = playing()
    assert link.sync_received(T0, THEIR_TURN, have=25, same_head=False) == [SendSync()]
    other = playing()
    assert other.sync_received(T0, THEIR_TURN, have=20, same_head=False) == [SendSync()]


def test_a_peer_that_caught_up_with_an_ended_match_needs_nothing_more() -> None:
    link = playing()
    assert link.sync_received(T0, OVER, have=40, same_head=True) == [PeerCaughtUp()]
    assert link.sync_received(T0, NEW, have=0, same_head=False) == []


def test_each_frame_is_resent_at_most_once_per_interval_however_often_asked() -> None:
    link = playing()
    resent: list[int] = []
    for i in range(200):  # a flood of syncs asking for everything, within one interval
        for action in link.sync_received(T0 + i / 1000, THEIR_TURN, have=0, same_head=False):
            if isinstance(action, Resend):
                resent += action.indexes
    assert resent == list(range(20)), "one whole transcript, not 200"
    # An honest reconnect after the interval, short of the last frames, catches up.
    later = T0 + 0.2 + RESEND_INTERVAL
    assert of(Resend, link.sync_received(later, THEIR_TURN, have=16, same_head=False)) == [
        Resend((16, 17, 18, 19))
    ]


def test_frames_added_since_the_last_resend_are_sent_at_once() -> None:
    link = playing()
    link.sync_received(T0, THEIR_TURN, have=0, same_head=False)
    longer = Snapshot(frames=22, opponent_known=True)
    assert of(Resend, link.sync_received(T0 + 0.1, longer, have=0, same_head=False)) == [
        Resend((20, 21))
    ]


# ------------------------------------------------------------ resigning


def test_resigning_on_our_turn_is_at_once() -> None:
    link = playing()
    assert link.resign(OUR_TURN) == [Resign()]
    assert not link.resign_pending


def test_resigning_on_their_turn_waits_for_ours_and_happens_once() -> None:
    link = playing()
    assert link.resign(THEIR_TURN) == [Notice(RESIGN_PENDING_NOTICE)]
    assert link.resign_pending
    assert of(Resign, link.stepped(T0, THEIR_TURN)) == []
    assert link.stepped(T0, OUR_TURN) == [Resign()]
    assert of(Resign, link.stepped(T0, OUR_TURN)) == []


def test_a_pending_resignation_lapses_when_the_match_ends_first() -> None:
    link = playing()
    link.resign(THEIR_TURN)
    assert of(Resign, link.stepped(T0, OVER)) == []
    assert link.resign(OVER) == []


# ------------------------------------------------------------ the connection


def test_a_joiner_redials_when_zeromq_gives_up_on_its_connection() -> None:
    link = playing(JOINER)
    assert link.disconnected(T0 + 0.5) == [StatusChanged(Status.DISCONNECTED)]
    assert link.next_deadline() == T0 + 0.5 + REDIAL_GRACE
    assert link.tick(T0 + 0.5 + REDIAL_GRACE / 2, THEIR_TURN) == []
    assert link.tick(T0 + 0.5 + REDIAL_GRACE, THEIR_TURN) == [Redial()]
    assert of(Redial, link.tick(T0 + 10, THEIR_TURN)) == []  # once


def test_a_joiner_does_not_redial_when_zeromq_reconnects_by_itself() -> None:
    link = playing(JOINER)
    link.disconnected(T0)
    link.reconnecting()
    assert link.next_deadline() == T0 + TIMING.ping_interval
    assert of(Redial, link.tick(T0 + 5, THEIR_TURN)) == []


def test_a_new_connection_cancels_the_redial_and_catches_up() -> None:
    link = playing(JOINER)
    link.disconnected(T0)
    assert link.connected(T0 + 0.5, THEIR_TURN) == [SendSync(), ResendLastOwn()]
    assert of(Redial, link.tick(T0 + 5, THEIR_TURN)) == []


def test_each_disconnection_restarts_the_redial_grace() -> None:
    link = playing(JOINER)
    link.disconnected(T0)
    link.disconnected(T0 + 0.9)
    assert link.tick(T0 + 1.0, THEIR_TURN) == []
    assert link.tick(T0 + 0.9 + REDIAL_GRACE, THEIR_TURN) == [Redial()]


def test_a_joiner_still_connecting_redials_without_a_status_change() -> None:
    link = Link(JOINER, TIMING, T0)
    assert link.disconnected(T0) == []
    assert link.status is Status.CONNECTING
    assert link.tick(T0 + REDIAL_GRACE, Snapshot(frames=1)) == [Redial()]


def test_a_host_ignores_its_socket_s_connections() -> None:
    link = playing(HOST)
    assert link.disconnected(T0) == []
    assert link.connected(T0, THEIR_TURN) == []
    assert link.status is Status.PLAYING
    assert link.next_deadline() == T0 + TIMING.ping_interval


def test_a_failed_link_never_redials() -> None:
    link = playing(JOINER)
    link.disconnected(T0)
    link.fail()
    assert link.tick(T0 + 5, THEIR_TURN) == []
    assert link.disconnected(T0 + 6) == [] and link.connected(T0 + 6, THEIR_TURN) == []


# ------------------------------------------------------------ any order of events

EVENTS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "tick",
                "heard",
                "stepped",
                "gap",
                "sync",
                "connected",
                "disconnected",
                "resign",
                "fail",
            ]
        ),
        st.floats(min_value=0.0, max_value=3.0),
        st.sampled_from([NEW, Snapshot(frames=1), THEIR_TURN, OUR_TURN, OVER]),
        st.integers(min_value=0, max_value=45),
    ),
    max_size=60,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(seat=st.sampled_from(list(Seat)), events=EVENTS)
def test_in_any_order_of_events_the_limits_hold(
    seat: Seat, events: list[tuple[str, float, Snapshot, int]]
) -> None:
    link = Link(seat, TIMING, T0)
    now = T0
    last_resent: dict[int, float] = {}
    pings: list[int] = []
    statuses = [link.status]
    for kind, step, match, have in events:
        now += step
        if kind == "tick":
            actions = link.tick(now, match)
        elif kind == "heard":
            actions = link.heard(now, match)
        elif kind == "stepped":
            actions = link.stepped(now, match)
        elif kind == "gap":
            actions = link.gap(now, match)
        elif kind == "sync":
            actions = link.sync_received(now, match, have=have, same_head=have % 2 == 0)
        elif kind == "connected":
            actions = link.connected(now, match)
        elif kind == "disconnected":
            actions = link.disconnected(now)
        elif kind == "fail":
            actions = link.fail()
        else:
            actions = link.resign(match)
        # After a tick the next deadline is ahead (never, once the link failed).
        assert link.next_deadline() > now or kind != "tick"
        for action in actions:
            if isinstance(action, Resend):
                for index in action.indexes:
                    assert index < match.frames
                    assert now - last_resent.get(index, -1e9) >= RESEND_INTERVAL
                    last_resent[index] = now
            elif isinstance(action, SendPing):
                pings.append(action.n)
            elif isinstance(action, StatusChanged):
                assert action.status is not statuses[-1]
                statuses.append(action.status)
            elif isinstance(action, SendSync):
                assert match.frames > 0
            elif isinstance(action, Redial | ConnectTimedOut):
                assert seat is JOINER
        assert link.status is statuses[-1]
    assert pings == list(range(1, len(pings) + 1))

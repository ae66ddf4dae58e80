"""A word between players (``say``, docs/PROTOCOL.md §6.9): what may be said,
how fast, and how a typed command becomes a line. Sans-IO: no sockets."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lcnet.link import chat
from lcnet.protocol import wire
from lcnet.ui.turn import Talk, said


def test_the_burst_then_one_line_per_refill() -> None:
    rate = chat.Rate()
    assert [rate.allow(0.0) for _ in range(chat.BURST + 1)] == [True] * chat.BURST + [False]
    assert not rate.allow(chat.REFILL * 0.9)
    assert rate.allow(chat.REFILL * 1.01)
    assert not rate.allow(chat.REFILL * 1.02)


@pytest.mark.slow
@given(st.lists(st.floats(min_value=0, max_value=600, allow_nan=False), max_size=200))
def test_never_more_lines_than_the_burst_and_the_refills_allow(times: list[float]) -> None:
    rate = chat.Rate()
    times = sorted(times)
    shown = [t for t in times if rate.allow(t)]
    for i, start in enumerate(shown):
        # Within any span of s seconds, at most BURST + s / REFILL lines get through.
        for j in range(i, len(shown)):
            span = shown[j] - start
            assert j - i + 1 <= chat.BURST + span / chat.REFILL + 1e-9


def test_what_a_line_may_hold() -> None:
    assert chat.line_to_say("  hello there ") == "hello there"
    assert chat.line_to_say("é" * 100) == "é" * 100  # 200 bytes: the most
    for bad, why in (
        ("", "say what"),
        ("   ", "say what"),
        ("é" * 100 + "x", "at most 200 bytes"),
        ("a\x1b[2Jb", "printable"),
        ("right\u202eleft", "printable"),
    ):
        with pytest.raises(ValueError, match=why):
            chat.line_to_say(bad)
    # What the sender lets through, the wire's schema takes.
    wire.Say(text=chat.line_to_say("gg, well played 🙂"))


@pytest.mark.slow
@given(st.text(max_size=300))
def test_a_line_the_sender_takes_is_a_say_the_wire_takes(text: str) -> None:
    try:
        line = chat.line_to_say(text)
    except ValueError:
        return
    assert wire.Say(text=line).text == line


def test_say_as_a_typed_command() -> None:
    assert said("say hi there") == "hi there"
    assert said(":say  hi ") == "hi"
    assert said("SAY gg") == "gg"
    assert said("say") == ""
    assert said("sayonara") is None
    assert said("+r7 deck") is None
    assert Talk("hi") == Talk(said("say hi") or "")


def test_the_full_screen_command_line_sends_a_line_at_any_moment() -> None:
    from tests.ui.test_ui_turn import turn_input

    turn, match = turn_input()
    match.moving = False  # not this player's move: a line may go all the same
    assert turn.run_command("say good luck") == [Talk("good luck")]
    assert turn.run_command(":say gg") == [Talk("gg")]

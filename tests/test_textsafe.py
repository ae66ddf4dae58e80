"""The one escaping function at the screen's edge: nothing outside gets to move the cursor."""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lcnet.textsafe import shown, shown_bytes


def test_printable_text_is_left_alone() -> None:
    assert shown("alice → Bob, ünïcode 7") == "alice → Bob, ünïcode 7"


def test_control_characters_are_escaped() -> None:
    assert shown("a\x1b[2Jb\x07\r\n") == "a\\x1b[2Jb\\x07\\x0d\\x0a"
    assert shown("evil\u202etxt.lcnet") == "evil\\u202etxt.lcnet"
    assert shown("\x9b31m") == "\\x9b31m"


def test_undecodable_file_name_bytes_show_as_bytes() -> None:
    name = os.fsdecode(b"bad\xff\x1b.lcnet")
    assert shown(name) == "bad\\xff\\x1b.lcnet"
    assert shown_bytes(b"x\xc3\xa9\xfe") == "x\u00e9\\xfe"


def test_limit_caps_the_length() -> None:
    assert shown("abcdef", limit=4) == "abc…"
    assert shown("abc", limit=4) == "abc"


@pytest.mark.slow
@given(st.text())
def test_whatever_comes_in_goes_out_printable(text: str) -> None:
    out = shown(text)
    assert out.isprintable()
    if text.isprintable():
        assert out == text


@pytest.mark.slow
@given(st.binary())
def test_any_bytes_go_out_printable(data: bytes) -> None:
    assert shown_bytes(data).isprintable()

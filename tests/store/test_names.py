"""Names from the network: look-alikes (UTS #39 skeletons) and mixed scripts."""

from __future__ import annotations

import pytest

from lcnet.store import names


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Alicе", "Alice"),  # Cyrillic е
        ("Аlice", "alice"),  # Cyrillic А, and another case
        ("AIice", "Alice"),  # capital I for small l
        ("rnary", "mary"),  # r n for m
        ("Ｂｏｂ", "Bob"),  # fullwidth letters
        ("Bob", "Bob"),
    ],
)
def test_names_that_look_alike_have_one_skeleton(first: str, second: str) -> None:
    assert names.look_alike(first, second) and names.look_alike(second, first)


@pytest.mark.parametrize(
    ("first", "second"), [("Alíce", "Alice"), ("Bob", "Rob"), ("Anna", "Ana"), ("Zoë", "Zoe")]
)
def test_names_that_differ_to_the_eye_do_not_look_alike(first: str, second: str) -> None:
    assert not names.look_alike(first, second)


def test_lookalikes_are_the_known_names_a_name_imitates_not_itself() -> None:
    known = ["Alice", "Bob", "alice"]
    assert names.lookalikes("Alicе", known) == ["Alice", "alice"]
    assert names.lookalikes("Alice", known) == []  # the name itself, in any case
    assert names.lookalikes("Carol", known) == []


@pytest.mark.parametrize(
    ("name", "mixed"),
    [
        ("Alicе", True),  # Latin and Cyrillic
        ("Ρaul", True),  # Greek Rho
        ("Zoë 2", False),
        ("Ελένη", False),
        ("Иван", False),
        ("田中さくら", False),  # Han and Hiragana: written together
        ("김민준 Kim", False),  # Hangul and Latin
        ("Иван Smith", True),
    ],
)
def test_a_name_mixing_scripts_not_written_together_is_flagged(name: str, mixed: bool) -> None:
    assert names.mixes_scripts(name) is mixed

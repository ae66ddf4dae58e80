"""The game's key table: the bindings, the help screen and README.md all come from it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.keys import KEY_ALIASES, Keys

from lcnet.deck.deal import HAND_SIZE
from lcnet.ui.game import GameUI
from lcnet.ui.gamekeys import HELP_END, HELP_TEXT, KEYS, LISTED_ORDER, When
from lcnet.ui.keys import markdown_rows
from tests.uisupport import HEIGHT, WIDTH, SmallOutput, local_client

README = Path(__file__).resolve().parents[2] / "README.md"
START, END = "<!-- keys:", "<!-- end of keys -->"
SCREEN_ROWS_AROUND_THE_BODY = 5
"""The title, the action line, one message row, the command line and the status bar."""
FINGERPRINT_LINES = 2
"""The help ends with both players' fingerprints (one line each)."""


def readme_keys() -> list[str]:
    text = README.read_text()
    start = text.index(START)
    block = text[text.index("\n", start) + 1 : text.index(END)]
    return block.strip().splitlines()


def test_the_readme_lists_the_keys_of_the_table() -> None:
    expected = markdown_rows(KEYS, LISTED_ORDER)
    assert readme_keys() == expected, "README.md's key table should read:\n" + "\n".join(expected)


def test_the_help_fits_an_80x24_terminal_with_the_fingerprints_under_it() -> None:
    lines = HELP_TEXT.splitlines()
    assert max(len(line) for line in lines) < WIDTH
    rows = len(lines) + FINGERPRINT_LINES + len(HELP_END.splitlines())
    assert rows <= HEIGHT - SCREEN_ROWS_AROUND_THE_BODY


def test_the_help_lists_every_listed_row_and_the_card_keys_follow_the_hand_size() -> None:
    for row in KEYS:
        if row.listed:
            assert any(row.shown in line and row.does in line for line in HELP_TEXT.splitlines())
    choose = next(row for row in KEYS if "left" in row.keys)
    assert choose.shown == f"Left/Right, 1-{HAND_SIZE}"
    assert {str(n) for n in range(1, HAND_SIZE + 1)} <= set(choose.keys)


def test_only_the_listed_groups_have_listed_rows() -> None:
    assert {row.when for row in KEYS if row.listed} == set(LISTED_ORDER)


def test_every_row_is_bound_under_its_filter_with_its_description() -> None:
    async def bindings() -> tuple[dict[When, object], list[tuple[tuple[str, ...], str]]]:
        with create_pipe_input() as keys:
            ui = GameUI(local_client(), input=keys, output=SmallOutput())
            bound = ui.app.key_bindings
            assert bound is not None
            made = [
                (tuple(k.value if isinstance(k, Keys) else k for k in b.keys), b.handler.__doc__)
                for b in bound.bindings
            ]
            return dict(ui.filters()), made

    filters, made = asyncio.run(bindings())
    assert set(filters) == set(When)
    aliases = {**KEY_ALIASES, "space": " "}  # how prompt_toolkit stores these names
    expected = [((aliases.get(key, key),), row.does) for row in KEYS for key in row.keys]
    assert made == expected

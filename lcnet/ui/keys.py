"""Key tables: each full-screen UI's keys written once, as data.

A :class:`KeyRow` says which keys do something, when, what (one line for
people) and how (the handler). :func:`key_bindings` makes the prompt_toolkit
bindings from a table, :func:`help_rows` the lines of the help screen and
:func:`markdown_rows` the table in README.md, so the three cannot drift apart.

The rows' order is the bindings' order, which matters: when two bindings
match a key, prompt_toolkit calls the one added last.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

from prompt_toolkit.filters import Filter
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

UI = TypeVar("UI")
When = TypeVar("When", bound=enum.Enum)

KEY_NAMES: Final[Mapping[str, str]] = {
    "left": "Left",
    "right": "Right",
    "up": "Up",
    "down": "Down",
    "pageup": "PageUp",
    "pagedown": "PageDown",
    "home": "Home",
    "end": "End",
    "escape": "Esc",
    "enter": "Enter",
    "tab": "Tab",
    "space": "Space",
    "backspace": "Backspace",
    "f1": "F1",
    "c-c": "Ctrl-C",
    "<any>": "any other key",
}
"""How people write prompt_toolkit's key names (the others are written as they are)."""
HIDDEN_KEYS: Final = frozenset({Keys.SIGINT.value})
"""Keys bound but never written: SIGINT is Ctrl-C arriving as a signal."""


@dataclass(frozen=True)
class KeyRow(Generic[UI, When]):
    """Some keys, when they apply, what they do, and the handler that does it."""

    keys: tuple[str, ...]
    """prompt_toolkit key names (``"p"``, ``"escape"``, ``"c-c"``), in the order written."""
    when: When
    """When the keys apply; the UI maps each value to a prompt_toolkit filter."""
    does: str
    """What they do, in one line (the help screen and README show it)."""
    handler: Callable[[UI, str], None]
    """Called with the UI and the name of the key pressed."""
    label: str | None = None
    """How the help writes the keys, if not by their names (e.g. ``Left/Right, 1-8``)."""
    listed: bool = True
    """Whether the help and README list the row; a screen that says its own keys
    (``y/n``, ``Press Esc, Enter or ? to go back``) does not need it listed."""

    @property
    def shown(self) -> str:
        """The keys as people read them."""
        if self.label is not None:
            return self.label
        return ", ".join(KEY_NAMES.get(key, key) for key in self.keys if key not in HIDDEN_KEYS)


def pressed(event: KeyPressEvent) -> str:
    """The name of the key that triggered ``event`` (``"left"``, ``"d"``, ``"c-c"``)."""
    key = event.key_sequence[0].key
    return key.value if isinstance(key, Keys) else key


ESC_WAIT: Final = 0.05
"""Seconds a terminal's lone Esc byte waits for the rest of an escape sequence
(prompt_toolkit's ``ttimeoutlen``, 0.5 by default): a terminal sends a
sequence's bytes together, so 50 ms tells them from a pressed Esc."""


def key_bindings(
    ui: UI, rows: Iterable[KeyRow[UI, When]], filters: Mapping[When, Filter]
) -> KeyBindings:
    """prompt_toolkit bindings for ``rows`` (in their order), each under its ``when``'s filter."""
    bindings = KeyBindings()
    for row in rows:
        handler = _handler(ui, row)
        for key in row.keys:
            # Esc acts at once: it never waits to see whether it starts a longer
            # sequence (Meta-digit in the command line), which took a second and
            # swallowed a digit typed right after it.
            bindings.add(key, filter=filters[row.when], eager=key == "escape")(handler)
    return bindings


def _handler(ui: UI, row: KeyRow[UI, When]) -> Callable[[KeyPressEvent], None]:
    def handle(event: KeyPressEvent) -> None:
        row.handler(ui, pressed(event))

    handle.__doc__ = row.does  # prompt_toolkit's bindings carry a one-line docstring
    return handle


def listed(rows: Iterable[KeyRow[UI, When]], order: Iterable[When]) -> list[KeyRow[UI, When]]:
    """The listed rows, grouped by ``when`` in ``order`` (within a group, the table's order)."""
    listed_rows = [row for row in rows if row.listed]
    return [row for when in order for row in listed_rows if row.when is when]


def help_rows(
    rows: Iterable[KeyRow[UI, When]], order: Sequence[When], *, when_width: int, keys_width: int
) -> list[str]:
    """One line per listed row: when (on a group's first line only), keys, what they do."""
    out = []
    previous: When | None = None
    for row in listed(rows, order):
        when = str(row.when.value) if row.when is not previous else ""
        previous = row.when
        out.append(f"{when:<{when_width}}{row.shown:<{keys_width}}{row.does}".rstrip())
    return out


def markdown_rows(rows: Iterable[KeyRow[UI, When]], order: Sequence[When]) -> list[str]:
    """The listed rows as a Markdown table: when, keys, what they do."""
    out = ["| When | Keys | What they do |", "| --- | --- | --- |"]
    for row in listed(rows, order):
        out.append(f"| {row.when.value} | `{row.shown}` | {row.does} |")
    return out

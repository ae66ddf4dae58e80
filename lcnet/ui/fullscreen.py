"""What the full-screen UIs (the game and the replay viewer) share: redraws and their listeners."""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application import Application


class Redrawn:
    """A full-screen UI around ``app`` that redraws, and tells listeners, on every change."""

    app: Application[int]

    def __init__(self) -> None:
        self._listeners: list[Callable[[], None]] = []

    def on_change(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every change of what the screen shows.

        Returns the function that stops it (tests wait on changes this way).
        """
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _changed(self) -> None:
        self.app.invalidate()
        for listener in list(self._listeners):
            listener()

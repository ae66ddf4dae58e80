"""Shared test configuration.

Hypothesis gets a ``ci`` profile without deadlines (timings are never
asserted in tests) and is selected with ``HYPOTHESIS_PROFILE=ci``; the
default ``dev`` profile has no deadline either, so a slow machine never
turns a correct test red.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    # Started as a background job (`pytest &`, some CI steps), the shell
    # ignores Ctrl-C for us, and every `lcnet` child would inherit that: the
    # test that stops a host with Ctrl-C would wait for it in vain. Ctrl-C
    # gets its usual meaning back, here and in the children we start.
    signal.signal(signal.SIGINT, signal.default_int_handler)


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tests never touch the real ``~/.lcnet``: each gets its own LCNET_HOME."""
    home = tmp_path_factory.mktemp("lcnet-home")
    monkeypatch.setenv("LCNET_HOME", str(home))


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A loopback port where nothing listens during the test (see netutil.refusing_port)."""
    from tests.netutil import refusing_port

    with refusing_port() as port:
        yield port

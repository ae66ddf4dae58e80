"""Shared test configuration.

Hypothesis gets a ``ci`` profile without deadlines (timings are never
asserted in tests) and is selected with ``HYPOTHESIS_PROFILE=ci``; the
default ``dev`` profile has no deadline either, so a slow machine never
turns a correct test red.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

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

if os.environ.get("PYTHONDONTWRITEBYTECODE") and "PYTHONPYCACHEPREFIX" not in os.environ:
    # Some machines forbid bytecode files (PYTHONDONTWRITEBYTECODE), and then
    # each of the suite's ~150 Python processes (xdist workers, `lcnet`
    # children) compiles the package and rewrites the tests' asserts from
    # source again, run after run: about 15 s of CPU a run. They keep one
    # bytecode cache instead, in pytest's cache directory of the checkout
    # (ignored by git, like __pycache__), not beside the sources. Set here, in
    # the first process, so the workers and children inherit it; the code
    # they run is the same.
    _pycache = Path(__file__).resolve().parent.parent / ".pytest_cache" / "pycache"
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = str(_pycache)
    # And this process too, whose test modules are imported from here on:
    # rewriting their asserts anew was 8 of the fast lane's 19 CPU-seconds.
    sys.dont_write_bytecode = False
    sys.pycache_prefix = str(_pycache)


import pytest  # noqa: E402

if TYPE_CHECKING:
    from tests.netns import Lan, Lan3

_MEMORY_FS = "/dev/shm"
_MEMORY_BASETEMP = pytest.StashKey[str]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cpu-report",
        metavar="FILE",
        help="append each test's CPU seconds (its process and the children it "
        "waited for), wall seconds and id to FILE, a tab-separated line each: "
        "where the suite's CPU goes (bench/README.md, 'Test suite')",
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    report = item.config.getoption("--cpu-report")
    if not report:
        yield
        return
    import resource
    import time

    def cpu() -> float:
        return sum(
            usage.ru_utime + usage.ru_stime
            for usage in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
        )

    began, started = cpu(), time.monotonic()
    yield
    line = f"{cpu() - began:.3f}\t{time.monotonic() - started:.3f}\t{item.nodeid}\n"
    with open(report, "a", encoding="utf-8") as out:  # one short write: workers append whole lines
        out.write(line)


def pytest_configure(config: pytest.Config) -> None:
    """Temporary files of the run go to memory (tmpfs) where there is one.

    Every replay record is fsynced before its frame is sent (no lost data),
    which costs a disk write on an ordinary file system: tens of thousands of
    them over the suite, about a quarter of the time of the tests that play
    matches. On tmpfs the same calls do the same thing, only without a disk.
    A --basetemp given on the command line is kept; with xdist, the workers
    get their own directories under this one. The directory is removed at the
    end; when a test failed, it is first copied to the disk's temporary
    folder (and named), so that a failed run leaves nothing in memory.
    """
    if config.option.basetemp or os.environ.get("PYTEST_DEBUG_TEMPROOT"):
        return
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return  # the controller chose, and passed the directory on
    if not (os.path.isdir(_MEMORY_FS) and os.access(_MEMORY_FS, os.W_OK | os.X_OK)):
        return
    base = tempfile.mkdtemp(prefix="lcnet-tests-", dir=_MEMORY_FS)
    config.option.basetemp = base
    config.stash[_MEMORY_BASETEMP] = base


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    # The run's CPU time: this process and every process it waited for (the
    # xdist workers, the `lcnet` programs the tests start). CI shows it; the
    # suite is kept within a CPU budget (bench/README.md, "Test suite").
    import resource

    used = sum(
        usage.ru_utime + usage.ru_stime
        for usage in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    )
    terminalreporter.write_line(f"CPU time of the run: {used:.0f} s")
    base = config.stash.get(_MEMORY_BASETEMP, None)
    if base is None:
        return
    if exitstatus == pytest.ExitCode.OK:
        shutil.rmtree(base, ignore_errors=True)
        return
    # Kept to look into, but on disk: memory is not for what a failed run leaves.
    kept = tempfile.mkdtemp(prefix="lcnet-tests-failed-")
    try:
        shutil.copytree(base, kept, dirs_exist_ok=True, symlinks=True, copy_function=_copy_file)
    except shutil.Error as exc:  # some files could not be read; the rest is there
        terminalreporter.write_line(f"({len(exc.args[0])} temporary files could not be copied)")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    terminalreporter.write_line(f"the temporary files of this run are kept in {kept}")


def _copy_file(source: str, target: str) -> None:
    """Copy a regular file; the tests' FIFOs and sockets (hostile folders) are skipped."""
    if stat.S_ISREG(os.lstat(source).st_mode):
        shutil.copy2(source, target)


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


@pytest.fixture
def lan() -> Iterator[Lan]:
    """Two machines: network namespaces joined by a veth pair (tests/netns.py)."""
    from tests.netns import NamespacesUnavailable, two_namespaces

    try:
        with two_namespaces() as made:
            yield made
    except NamespacesUnavailable as exc:
        pytest.skip(f"no network namespaces here: {exc}")


@pytest.fixture
def lan3() -> Iterator[Lan3]:
    """Three machines: namespaces joined through a bridge (tests/netns.py)."""
    from tests.netns import NamespacesUnavailable, three_namespaces

    try:
        with three_namespaces() as made:
            yield made
    except NamespacesUnavailable as exc:
        pytest.skip(f"no network namespaces here: {exc}")


# -- the lanes: `pytest -m "not net and not slow"` is the fast lane

# The markers (pyproject.toml says what each means): a test not marked `net`
# opens no socket and one marked neither starts no process; the guard checks.


class LaneError(BaseException):
    """A test outside the lane it needs (a BaseException: nothing catches it by mistake)."""


@pytest.fixture(autouse=True)
def _lane_guard(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test not marked ``net`` opens no socket; one marked neither ``net``
    nor ``slow`` starts no child process: so the fast lane is what it says,
    and a marker forgotten is a failure, not a slow surprise."""
    import socket
    import subprocess

    node = request.node
    net = node.get_closest_marker("net") is not None
    slow = node.get_closest_marker("slow") is not None

    def refuse(kind: str, what: str) -> Any:
        def refused(*args: Any, **kwargs: Any) -> Any:
            raise LaneError(f"{what} in a test not marked {kind} (pyproject.toml: markers)")

        return refused

    if not net:
        for name in ("bind", "connect", "connect_ex"):
            monkeypatch.setattr(socket.socket, name, refuse("net", f"socket.{name}"))
        try:
            import zmq
        except ImportError:  # pragma: no cover - a dependency
            pass
        else:
            monkeypatch.setattr(zmq.Context, "socket", refuse("net", "a ZeroMQ socket"))
    if not (net or slow):
        monkeypatch.setattr(subprocess.Popen, "__init__", refuse("slow", "a child process"))
        monkeypatch.setattr(os, "fork", refuse("slow", "os.fork"))

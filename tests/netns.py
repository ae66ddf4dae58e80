"""Network namespaces as machines of a real LAN, for tests.

Made with ``ip netns`` (root only). :func:`two_namespaces` joins two by a
veth pair; :func:`three_namespaces` joins three through a bridge that lives
in a fourth namespace of its own (a switch). Each machine's namespace gets
``lo`` and its end of a veth pair up, with :data:`ADDRESS_A`,
:data:`ADDRESS_B` (and :data:`ADDRESS_C`) in one /24. Nothing is routed out
of them: traffic stays on the pairs. Names are unique per run, and
everything made is removed on the way out, also when the body fails.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

ADDRESS_A = "10.77.0.1"
ADDRESS_B = "10.77.0.2"
ADDRESS_C = "10.77.0.3"
PREFIX = 24


class NamespacesUnavailable(Exception):
    """Namespaces cannot be made here; the message says why."""


@dataclass(frozen=True)
class Lan:
    a: str
    """The first namespace's name (it holds ADDRESS_A)."""
    b: str
    """The second namespace's name (it holds ADDRESS_B)."""

    @staticmethod
    def exec_in(namespace: str) -> list[str]:
        """The command prefix that runs a program inside ``namespace``."""
        return ["ip", "netns", "exec", namespace]


def unavailable_reason() -> str | None:
    """Why namespaces cannot be made here, or ``None`` if they may be."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "making network namespaces needs root"
    if shutil.which("ip") is None:
        return "the `ip` command (iproute2) is not installed"
    return None


def _ip(*args: str) -> None:
    result = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise NamespacesUnavailable(f"`ip {' '.join(args)}` failed: {result.stderr.strip()}")


@contextlib.contextmanager
def two_namespaces() -> Iterator[Lan]:
    """Make the two namespaces and the veth pair between them; remove them afterwards."""
    reason = unavailable_reason()
    if reason is not None:
        raise NamespacesUnavailable(reason)
    token = secrets.token_hex(4)
    lan = Lan(a=f"lcnet-{token}-a", b=f"lcnet-{token}-b")
    veth_a, veth_b = f"lv{token}a", f"lv{token}b"  # interface names: at most 15 bytes
    made: list[str] = []
    try:
        for namespace in (lan.a, lan.b):
            _ip("netns", "add", namespace)
            made.append(namespace)
        _ip("link", "add", veth_a, "type", "veth", "peer", "name", veth_b)
        for namespace, veth, address in ((lan.a, veth_a, ADDRESS_A), (lan.b, veth_b, ADDRESS_B)):
            _ip("link", "set", veth, "netns", namespace)
            _ip("-n", namespace, "link", "set", "lo", "up")
            _ip("-n", namespace, "addr", "add", f"{address}/{PREFIX}", "dev", veth)
            _ip("-n", namespace, "link", "set", veth, "up")
        yield lan
    finally:
        for namespace in made:  # deleting a namespace deletes its end of the pair too
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True, timeout=30)
        # Left in this namespace if moving it failed:
        subprocess.run(["ip", "link", "del", veth_a], capture_output=True, timeout=30)


@dataclass(frozen=True)
class Lan3(Lan):
    c: str
    """The third namespace's name (it holds ADDRESS_C)."""


@contextlib.contextmanager
def three_namespaces() -> Iterator[Lan3]:
    """Three machines on one switch: a bridge in a namespace of its own, and a
    veth pair from each machine to it; all removed afterwards."""
    reason = unavailable_reason()
    if reason is not None:
        raise NamespacesUnavailable(reason)
    token = secrets.token_hex(4)
    lan = Lan3(a=f"lcnet-{token}-a", b=f"lcnet-{token}-b", c=f"lcnet-{token}-c")
    switch = f"lcnet-{token}-s"
    made: list[str] = []
    try:
        for namespace in (lan.a, lan.b, lan.c, switch):
            _ip("netns", "add", namespace)
            made.append(namespace)
        _ip("-n", switch, "link", "add", "br0", "type", "bridge")
        _ip("-n", switch, "link", "set", "br0", "up")
        machines = ((lan.a, ADDRESS_A, "a"), (lan.b, ADDRESS_B, "b"), (lan.c, ADDRESS_C, "c"))
        for namespace, address, letter in machines:
            inside, port = f"lv{token}{letter}", f"lp{token}{letter}"
            # Made in the switch's namespace, one end then moved to the machine.
            _ip("-n", switch, "link", "add", inside, "type", "veth", "peer", "name", port)
            _ip("-n", switch, "link", "set", inside, "netns", namespace)
            _ip("-n", switch, "link", "set", port, "master", "br0")
            _ip("-n", switch, "link", "set", port, "up")
            _ip("-n", namespace, "link", "set", "lo", "up")
            _ip("-n", namespace, "addr", "add", f"{address}/{PREFIX}", "dev", inside)
            _ip("-n", namespace, "link", "set", inside, "up")
        yield lan
    finally:
        for namespace in made:  # deleting a namespace deletes the pairs' ends in it
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True, timeout=30)

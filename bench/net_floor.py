"""The floor under lcnet's move-to-ack round trip on this machine, without lcnet.

    python bench/net_floor.py [--round-trips N] [--dir DIR]

Two processes exchange messages over loopback exactly as two lcnet peers do
(ZeroMQ DEALER to ROUTER on 127.0.0.1, pyzmq's asyncio sockets), and each
appends the message to a file and fsyncs it before sending, as lcnet must.
Nothing else runs: no session, no engine, no msgpack. Two figures each:

* ``bare``: just the two hops and the two fsyncs;
* ``crypto``: plus the libsodium work on a typical round trip's path — the
  mover signs its move; the other side checks the signature, checks the
  played card (one scalar multiplication) and signs the acknowledgement; the
  mover checks that signature and opens the card it drew (one inversion and
  one multiplication).

What lcnet measures in ``bench/net.py`` above the ``crypto`` figure is the
cost of Python: decoding, the rules, the session, the replay records.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nacl.bindings
import nacl.signing
import zmq
import zmq.asyncio

LOOPBACK = "127.0.0.1"
MESSAGE = bytes(range(256))[:180]  # about the size of a move frame


class Work:
    """The libsodium calls of one side of a round trip (or none)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.key = nacl.signing.SigningKey(b"\x01" * 32)
        self.signed = self.key.sign(MESSAGE)
        self.scalar = nacl.bindings.crypto_core_ed25519_scalar_reduce(b"\x02" * 64)
        self.point = nacl.bindings.crypto_core_ed25519_from_uniform(b"\x03" * 32)

    def sign(self) -> None:
        if self.enabled:
            self.key.sign(MESSAGE)

    def verify(self) -> None:
        if self.enabled:
            self.key.verify_key.verify(self.signed)

    def multiply(self, invert: bool = False) -> None:
        if self.enabled:
            scalar = self.scalar
            if invert:
                scalar = nacl.bindings.crypto_core_ed25519_scalar_invert(scalar)
            nacl.bindings.crypto_scalarmult_ed25519_noclamp(scalar, self.point)


def durable(fd: int) -> None:
    os.write(fd, MESSAGE)
    os.fsync(fd)


async def serve(directory: Path, crypto: bool) -> None:
    """The acknowledging side: print the port, then answer until told to stop."""
    work = Work(crypto)
    fd = os.open(directory / "ack.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    context = zmq.asyncio.Context()
    sock = context.socket(zmq.ROUTER)
    port = sock.bind_to_random_port(f"tcp://{LOOPBACK}")
    print(port, flush=True)
    while True:
        ident, data = await sock.recv_multipart()
        if data == b"stop":
            break
        work.verify()
        work.multiply()
        work.sign()
        durable(fd)
        sock.send_multipart([ident, data], flags=zmq.NOBLOCK)
    os.close(fd)
    context.destroy(linger=0)


async def measure(port: int, directory: Path, crypto: bool, count: int) -> list[float]:
    """The moving side: ``count`` timed round trips after a short warm-up."""
    work = Work(crypto)
    fd = os.open(directory / "move.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    context = zmq.asyncio.Context()
    sock = context.socket(zmq.DEALER)
    sock.connect(f"tcp://{LOOPBACK}:{port}")
    times: list[float] = []
    try:
        for i in range(count + 50):
            start = time.perf_counter()
            work.sign()
            durable(fd)
            sock.send(MESSAGE, flags=zmq.NOBLOCK)
            await asyncio.wait_for(sock.recv(), timeout=30)
            work.verify()
            work.multiply(invert=True)
            if i >= 50:
                times.append(time.perf_counter() - start)
        sock.send(b"stop")
    finally:
        os.close(fd)
        context.destroy(linger=1000)
    return times


def run(directory: Path, crypto: bool, count: int) -> list[float]:
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(directory), *(["--crypto"] if crypto else [])],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        times = asyncio.run(measure(port, directory, crypto, count))
        server.wait(timeout=30)
        return times
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--round-trips", type=int, default=1000)
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path.cwd(),
        help="where the two files go (default: the current directory)",
    )
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--crypto", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        asyncio.run(serve(args.serve, args.crypto))
        return
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for crypto in (False, True):
            times = sorted(run(Path(tmp), crypto, args.round_trips))
            name = "crypto" if crypto else "bare"
            p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
            print(f"floor_rtt_p50_{name}: {statistics.median(times) * 1000:.2f} ms")
            print(f"floor_rtt_p99_{name}: {p99 * 1000:.2f} ms")


if __name__ == "__main__":
    main()

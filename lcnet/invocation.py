"""How to run lcnet from here, as the hints it prints should write it.

A hint like "continue it later with: lcnet resume FILE" is only useful if
the command runs as printed. After the README's set-up, ``lcnet`` lives in
``.venv/bin`` and is not on the PATH unless the environment is activated, so
a hint names the program the way it was started when ``lcnet`` alone would
not find it.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import sys


@functools.cache
def command() -> str:
    """``lcnet`` if that runs this program from the PATH; else the path it was
    started by (``.venv/bin/lcnet``); else ``PYTHON -m lcnet``."""
    started = sys.argv[0] if sys.argv else ""
    found = shutil.which("lcnet")
    if os.path.basename(started) == "lcnet" and os.path.exists(started):
        if found is not None and os.path.samefile(found, started):
            return "lcnet"
        relative = os.path.relpath(started)
        return shlex.quote(started if relative.startswith("..") else _here(relative))
    if found is not None and os.path.dirname(found) == os.path.dirname(sys.executable):
        return "lcnet"  # this environment's lcnet is the one on the PATH
    return f"{shlex.quote(sys.executable)} -m lcnet"


def _here(relative: str) -> str:
    """A relative path a shell runs as a command (``bin/lcnet``, not a PATH lookup)."""
    return relative if os.sep in relative else os.path.join(".", relative)


def lcnet(arguments: str) -> str:
    """The command line that runs ``lcnet ARGUMENTS`` from here."""
    return f"{command()} {arguments}"

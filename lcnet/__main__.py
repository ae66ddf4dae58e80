"""``python -m lcnet`` runs the command line (or says how to install what it needs)."""

import sys
from importlib.util import find_spec

MISSING_HELP = """\
lcnet: the Python package {package!r} (module {module!r}) is not installed, and lcnet needs it.
Install lcnet with its dependencies, e.g. in a virtual environment:
  python3 -m venv .venv && .venv/bin/pip install -e .    (from lcnet's source directory)
then run .venv/bin/lcnet (or .venv/bin/python -m lcnet)."""

PACKAGES = {"zmq": "pyzmq", "nacl": "PyNaCl", "prompt_toolkit": "prompt_toolkit"}
"""Import names whose package is named otherwise."""

NEEDED = ("nacl", "msgpack", "zmq", "prompt_toolkit", "zeroconf", "ifaddr")
"""The modules of lcnet's dependencies. Each command imports only what it uses, when it
runs; they are looked for (not imported) first, so that any command, even ``--help``,
says how to install what is missing before it starts."""


def run() -> int:
    missing = [module for module in NEEDED if find_spec(module) is None]
    if missing:
        print(
            MISSING_HELP.format(package=PACKAGES.get(missing[0], missing[0]), module=missing[0]),
            file=sys.stderr,
        )
        return 1
    try:
        from lcnet.cli import main

        return main()
    except ModuleNotFoundError as exc:
        module = (exc.name or "").split(".")[0]
        if not module or module == "lcnet":
            raise  # lcnet itself is broken: that is a bug, show it
        package = PACKAGES.get(module, module)
        print(MISSING_HELP.format(package=package, module=module), file=sys.stderr)
        return 1


sys.exit(run())

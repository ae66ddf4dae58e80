"""``python -m lcnet`` runs the command line (or says how to install what it needs)."""

import sys

MISSING_HELP = """\
lcnet: the Python package {package!r} (module {module!r}) is not installed, and lcnet needs it.
Install lcnet with its dependencies, e.g. in a virtual environment:
  python3 -m venv .venv && .venv/bin/pip install -e .    (from lcnet's source directory)
then run .venv/bin/lcnet (or .venv/bin/python -m lcnet)."""

PACKAGES = {"zmq": "pyzmq", "nacl": "PyNaCl", "prompt_toolkit": "prompt_toolkit"}
"""Import names whose package is named otherwise."""


def run() -> int:
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

"""The package's wings, kept by a test: each imports only the wings below it.

docs/DESIGN.md draws lcnet as wings, one job each, stacked: :data:`WINGS`
is that drawing as data, what each wing may import (directly, at the top,
inside a function or for type checking only). The sans-IO wings (the rules,
the deck, the protocol, the link's decisions) also touch no socket, file,
clock, terminal, thread or random source of the operating system: those are
injected from the edge. No two modules import each other in a circle, type
checking included; the screen never reaches the live session; and no
module or class grows past what a reader can hold.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "lcnet"


@dataclass(frozen=True)
class Wing:
    uses: frozenset[str]
    """The wings it may import (besides itself and :data:`LEAVES`)."""
    sans_io: bool = False


def _wing(*uses: str, sans_io: bool = False) -> Wing:
    return Wing(frozenset(uses), sans_io)


WINGS: dict[str, Wing] = {
    "game": _wing(sans_io=True),
    "bots": _wing("game"),
    "deck": _wing("game", sans_io=True),
    "protocol": _wing("game", "deck", sans_io=True),
    "link": _wing("game", "deck", "protocol", sans_io=True),
    "store": _wing("game", "deck", "protocol"),
    "audit": _wing("game", "deck", "protocol", "store"),
    "review": _wing("game", "deck", "protocol", "store", "audit", "bots"),
    "net": _wing("game", "deck", "protocol", "link", "store"),
    "watch": _wing("game", "deck", "protocol", "link", "store", "audit", "review", "net"),
    "run": _wing("game", "deck", "protocol", "link", "store", "audit", "bots", "net"),
    "ui": _wing("game", "deck", "protocol", "store", "bots", "review", "net", "watch"),
    "cli": _wing(
        "game", "deck", "protocol", "link", "store", "audit", "bots", "review", "net", "watch",
        "run", "ui",
    ),
}  # fmt: skip
"""docs/DESIGN.md's wings, from the bottom: what each may import."""

LEAVES: dict[str, frozenset[str]] = {
    "lcnet.errors": frozenset({"lcnet.game.seat"}),  # a Violation names a seat
    "lcnet.textsafe": frozenset(),
    "lcnet.invocation": frozenset(),
}
"""Modules at the top that every wing may import, and what they import themselves."""

FACE = ("lcnet", "lcnet.__main__")
"""The package's face (which names the wings' public objects) and ``python -m lcnet``."""

EDGE_ONLY = (
    "socket", "select", "selectors", "zmq", "zeroconf", "prompt_toolkit", "asyncio",
    "subprocess", "signal", "fcntl", "os", "shutil", "tempfile", "time", "threading",
    "concurrent", "multiprocessing", "secrets",
)  # fmt: skip
"""What a sans-IO wing must not import: sockets, processes, files, the clock, the
terminal, threads and the operating system's random source (``os.urandom``,
``secrets``). ``random`` is allowed: the rules take a seeded ``random.Random``."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(path: Path, *, everywhere: bool) -> set[str]:
    """What ``path`` imports: at its top level, in ``if`` blocks there (type
    checking included) and, if ``everywhere``, inside functions too.
    ``from lcnet.deck import hashing`` counts as ``lcnet.deck.hashing``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if everywhere:
        nodes = list(ast.walk(tree))
    else:
        nodes, todo = [], list(tree.body)
        while todo:
            node = todo.pop()
            nodes.append(node)
            if isinstance(node, ast.If | ast.Try):
                todo += [*node.body, *node.orelse]
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "lcnet" and [a.name for a in node.names] == ["__version__"]:
                continue  # the version, which the face holds without importing anything
            inside = [f"{node.module}.{alias.name}" for alias in node.names]
            found.update([name for name in inside if name in MODULES] or [node.module])
    return found


def _wing_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in WINGS else None


def test_every_module_is_in_a_wing_or_a_leaf() -> None:
    stray = [m for m in MODULES if _wing_of(m) is None and m not in LEAVES and m not in FACE]
    assert not stray, f"not in docs/DESIGN.md's wings: {stray}"
    assert {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"} == set(
        WINGS
    )


@pytest.mark.slow
@pytest.mark.parametrize("wing", list(WINGS))
def test_a_wing_imports_only_the_wings_below_it(wing: str) -> None:
    allowed = WINGS[wing].uses | {wing}
    wrong = sorted(
        f"{module} imports {target}"
        for module, path in MODULES.items()
        if _wing_of(module) == wing
        for target in _imports(path, everywhere=True)
        if target.startswith("lcnet") and target not in LEAVES and _wing_of(target) not in allowed
    )
    assert not wrong, "\n".join(wrong)


def test_the_leaves_import_only_what_they_declare() -> None:
    wrong = sorted(
        f"{leaf} imports {target}"
        for leaf, declared in LEAVES.items()
        for target in _imports(MODULES[leaf], everywhere=True)
        if target.startswith("lcnet") and target not in declared
    )
    assert not wrong, "\n".join(wrong)


@pytest.mark.slow
@pytest.mark.parametrize("wing", [name for name, wing in WINGS.items() if wing.sans_io])
def test_a_sans_io_wing_touches_no_io_thread_clock_or_os_randomness(wing: str) -> None:
    wrong = sorted(
        f"{module} imports {target}"
        for module, path in MODULES.items()
        if _wing_of(module) == wing
        for target in _imports(path, everywhere=True)
        if target.split(".")[0] in EDGE_ONLY
    )
    assert not wrong, "\n".join(wrong)


def _circle(graph: dict[str, set[str]]) -> list[str]:
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(module: str, path: list[str]) -> bool:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                cycle.extend([*path[path.index(target) :], target])
                return True
            if target not in state and visit(target, [*path, target]):
                return True
        state[module] = 2
        return False

    for module in sorted(graph):
        if module not in state and visit(module, [module]):
            break
    return cycle


@pytest.mark.slow
def test_no_import_circles_type_checking_included() -> None:
    graph = {
        module: {
            t
            for t in _imports(path, everywhere=False)
            if t in MODULES and t != module and not t.startswith(module + ".")
        }
        for module, path in MODULES.items()
    }
    cycle = _circle(graph)
    assert not cycle, " -> ".join(cycle)


def test_the_circle_finder_finds_a_circle() -> None:
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b"}, "b": set()}) == []


def _reached(start: str) -> set[str]:
    """Every lcnet module ``start`` imports, directly or through others, anywhere."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in _imports(MODULES[todo.pop()], everywhere=True):
            if target in MODULES and target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


@pytest.mark.slow
def test_the_match_client_interface_brings_no_bots_local_matches_or_files() -> None:
    """lcnet.protocol.client is what a user interface and the network share: an
    interface, which the network's import of it must not turn into bots,
    in-process matches and replay files."""
    wrong = sorted(
        m
        for m in _reached("lcnet.protocol.client")
        if _wing_of(m) in ("bots", "run", "store", "net", "ui")
    )
    assert not wrong, wrong


SCREEN: tuple[str, ...] = (
    "lcnet.protocol.client",
    "lcnet.ui.board",
    "lcnet.ui.fullscreen",
    "lcnet.ui.game",
    "lcnet.ui.gamekeys",
    "lcnet.ui.keys",
    "lcnet.ui.lines",
    "lcnet.ui.pages",
    "lcnet.ui.tracker",
    "lcnet.ui.turn",
)
"""The screen of a match in progress and the interface it sees (the replay
viewer, which steps through a record the audit's session built, is apart)."""


@pytest.mark.slow
@pytest.mark.parametrize("module", SCREEN)
def test_the_screen_never_reaches_the_session(module: str) -> None:
    """The boundary to the screen is one way (issue 45): it reads the frozen
    MatchState each update carries, so neither it nor what it imports, even
    inside a function, can reach the live session."""
    machine = {
        "lcnet.protocol.session",
        "lcnet.protocol.transcript",
        "lcnet.protocol.observer",
        "lcnet.protocol.transitions",
    }
    assert not (_reached(module) & machine)


MAX_MODULE_LINES = 1000
MAX_CLASS_LINES = 500


@pytest.mark.slow
def test_no_module_or_class_grows_past_what_a_reader_can_hold() -> None:
    """A module over 1,000 lines or a class over 500 does more than one job
    (issue 45): split it by its jobs rather than raise the bound."""
    too_big = []
    for path in MODULES.values():
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(PACKAGE.parent)
        if (lines := text.count("\n")) > MAX_MODULE_LINES:
            too_big.append(f"{name}: {lines} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                size = node.end_lineno - node.lineno + 1
                if size > MAX_CLASS_LINES:
                    too_big.append(f"{name}: class {node.name}, {size} lines")
    assert not too_big, "\n".join(too_big)


LARGE_MODULE_LINES = 800
LARGE_CLASS_LINES = 400
DESIGN = PACKAGE.parent / "docs" / "DESIGN.md"


def test_a_large_module_or_class_is_named_in_design_with_why() -> None:
    """Over 800 lines, or a class over 400: docs/DESIGN.md's "Large on purpose"
    names it and says why it is one thing (issue 58)."""
    text = DESIGN.read_text(encoding="utf-8")
    section = text[text.index("## Large on purpose") :].split("\n## ", 1)[0]
    unnamed = []
    for path in MODULES.values():
        source = path.read_text(encoding="utf-8")
        name = path.relative_to(PACKAGE).as_posix()
        if source.count("\n") > LARGE_MODULE_LINES and f"`{name}`" not in section:
            unnamed.append(name)
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                size = node.end_lineno - node.lineno + 1
                if size > LARGE_CLASS_LINES and f"`{node.name}`" not in section:
                    unnamed.append(f"{name}: class {node.name}")
    assert not unnamed, "\n".join(unnamed)

"""The package's layers, kept by a test: the core never reaches for I/O.

The core — rules, hashing, the group, the masked deck, the wire format, the
protocol session and its values — is sans-IO (no sockets, files, clock or
terminal; docs/DESIGN.md). So no module of the core may import a module
outside it, at the top or inside a function; and no two modules may import
each other in a cycle at import time. Above the core, the network (net,
netplay) never reaches the user interface or the command line, and the
interface both share (client) brings in no bots, local matches or files.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "lcnet"

CORE = frozenset(
    {
        "lcnet",
        "lcnet.link.admission",
        "lcnet.link.audience",
        "lcnet.deck.batch",
        "lcnet.game.cards",
        "lcnet.deck.deckcheck",
        "lcnet.deck.deal",
        "lcnet.deck.rounddeal",
        "lcnet.game.engine",
        "lcnet.errors",
        "lcnet.protocol.events",
        "lcnet.protocol.evidence",
        "lcnet.deck.group",
        "lcnet.deck.hashing",
        "lcnet.link.liveness",
        "lcnet.protocol.observer",
        "lcnet.protocol.phases",
        "lcnet.link.rematch",
        "lcnet.game.seat",
        "lcnet.protocol.session",
        "lcnet.textsafe",
        "lcnet.protocol.status",
        "lcnet.protocol.transcript",
        "lcnet.protocol.transitions",
        "lcnet.protocol.wire",
    }
)

IO_MODULES = ("socket", "zmq", "prompt_toolkit", "zeroconf", "asyncio", "subprocess", "fcntl")
"""Third-party and standard modules the core must not touch (sockets, terminal, files, loops)."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, *, top_level_only: bool) -> set[str]:
    """The modules ``path`` imports (``from lcnet import x`` counts as ``lcnet.x``)."""
    modules = {_module_name(p) for p in PACKAGE.rglob("*.py")}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            inside = [f"{node.module}.{alias.name}" for alias in node.names]
            submodules = [name for name in inside if name in modules]
            # ``from lcnet.deck import hashing`` imports lcnet.deck.hashing (and the
            # package's empty __init__, which counts for nothing).
            found.update(submodules or [node.module])
    return {name for name in found if name in modules or not name.startswith("lcnet")}


def _graph(*, top_level_only: bool) -> dict[str, set[str]]:
    return {
        _module_name(path): _imports(path, top_level_only=top_level_only)
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def test_the_core_imports_nothing_outside_it() -> None:
    graph = _graph(top_level_only=False)
    assert set(graph) >= CORE, "a core module was renamed: update CORE"
    wrong = sorted(
        f"{module} imports {target}"
        for module in CORE
        for target in graph[module]
        if (target.startswith("lcnet") and target not in CORE) or target.split(".")[0] in IO_MODULES
    )
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles() -> None:
    graph = {
        module: {t for t in targets if t.startswith("lcnet") and t != module}
        for module, targets in _graph(top_level_only=True).items()
    }
    # A package imports its own submodules by design (lcnet -> lcnet.x is not a cycle of layers).
    for module in graph:
        graph[module] = {t for t in graph[module] if not t.startswith(module + ".")}
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
    assert not cycle, " -> ".join(cycle)


def _reached(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module ``start`` imports, directly or through others (lcnet's own only)."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in graph.get(todo.pop(), ()):
            if target.startswith("lcnet") and target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def _in(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def test_the_network_layer_imports_no_user_interface() -> None:
    """The command line gives netplay its front end (netplay.FrontEnd); the
    network never reaches for the terminal, not even inside a function."""
    graph = _graph(top_level_only=False)
    wrong = sorted(
        f"{module} reaches {target}"
        for module in ("lcnet.net.peer", "lcnet.run.netmatch")
        for target in _reached(graph, module) | graph[module]
        if _in(target, ("lcnet.ui", "lcnet.cli", "prompt_toolkit"))
    )
    assert not wrong, "\n".join(wrong)


def test_the_match_client_interface_brings_no_bots_local_matches_or_files() -> None:
    """lcnet.protocol.client is what a user interface and the network share: an interface,
    which the network's import of it must not turn into bots, in-process
    matches and replay files."""
    graph = _graph(top_level_only=False)
    modules = _reached(graph, "lcnet.protocol.client")
    wrong = sorted(
        m
        for m in modules
        if _in(
            m,
            ("lcnet.bots", "lcnet.run.localmatch", "lcnet.store.replayfile", "lcnet.store.writer"),
        )
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


def test_the_screen_never_reaches_the_session() -> None:
    """The boundary to the screen is one way (issue 45): it reads the frozen
    MatchState each update carries, so neither it nor what it imports, even
    inside a function, can reach the live session."""
    graph = _graph(top_level_only=False)
    machine = (
        "lcnet.protocol.session",
        "lcnet.protocol.transcript",
        "lcnet.protocol.observer",
        "lcnet.protocol.transitions",
    )
    wrong = sorted(
        f"{module} reaches {target}"
        for module in SCREEN
        for target in sorted(_reached(graph, module) | graph[module])
        if target in machine
    )
    assert not wrong, "\n".join(wrong)


MAX_MODULE_LINES = 1000
MAX_CLASS_LINES = 500


def test_no_module_or_class_grows_past_what_a_reader_can_hold() -> None:
    """A module over 1,000 lines or a class over 500 does more than one job
    (issue 45): split it by its jobs rather than raise the bound."""
    too_big = []
    for path in sorted(PACKAGE.rglob("*.py")):
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

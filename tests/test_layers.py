"""The package's layers, kept by a test: the core never reaches for I/O.

The core — rules, hashing, the group, the masked deck, the wire format, the
protocol session and its values — is sans-IO (no sockets, files, clock or
terminal; docs/DESIGN.md). So no module of the core may import a module
outside it, at the top or inside a function; and no two modules may import
each other in a cycle at import time.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "lcnet"

CORE = frozenset(
    {
        "lcnet",
        "lcnet.cards",
        "lcnet.decks",
        "lcnet.deal",
        "lcnet.engine",
        "lcnet.errors",
        "lcnet.events",
        "lcnet.group",
        "lcnet.hashing",
        "lcnet.seat",
        "lcnet.session",
        "lcnet.wire",
    }
)

IO_MODULES = ("socket", "zmq", "prompt_toolkit", "zeroconf", "asyncio", "subprocess", "fcntl")
"""Third-party and standard modules the core must not touch (sockets, terminal, files, loops)."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, *, top_level_only: bool) -> set[str]:
    """The modules ``path`` imports (``from lcnet import x`` counts as ``lcnet.x``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            if node.module == "lcnet" or node.module.startswith("lcnet."):
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
    modules = {_module_name(p) for p in PACKAGE.rglob("*.py")}
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

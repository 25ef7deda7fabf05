"""The house's shape, checked: no import cycles in the domain, a small package root, and no code that finds the
repository by walking up from its own file (import contracts run in `make lint`: pyproject's importlinter)."""

from __future__ import annotations

import re
from pathlib import Path

import grimp

REPO = Path(__file__).resolve().parents[2]
DOMAIN = REPO / "layers" / "core" / "python" / "voiceassist"
ROOT_MODULE_LIMIT = 15


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    modules = graph.modules
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in modules:
                continue
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return components


def test_the_domain_package_has_no_import_cycles() -> None:
    graph = grimp.build_graph("voiceassist", exclude_type_checking_imports=True, cache_dir=None)

    assert _cycles(graph) == []


def test_the_package_root_keeps_only_shared_modules() -> None:
    modules = sorted(p.name for p in DOMAIN.glob("*.py"))

    assert len(modules) <= ROOT_MODULE_LIMIT, modules


def test_no_runtime_code_finds_the_repository_by_walking_up_from_its_own_file() -> None:
    walking = re.compile(r"\.parents\[|\.parent\.parent")
    built = REPO / "layers" / "deps" / "build"  # `make layers` output: third-party packages, gitignored
    offenders = [str(path.relative_to(REPO)) for folder in ("layers", "local", "functions")
                 for path in (REPO / folder).rglob("*.py")
                 if not path.is_relative_to(built) and walking.search(path.read_text(encoding="utf-8"))]

    assert offenders == []

"""The package's shape: no import cycles (lazy imports inside functions count too), nothing imports
the CLI, the hook's import closure stays light, and no module grows past the size the layout
promises. Read from the source with `ast`, so nothing is imported to check it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "noface_ctx"
MAX_LINES = 420  # "no module over ~400 lines" (docs/architecture.md)


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(path: Path, known: dict[str, Path]) -> set[str]:
    """Every noface_ctx module `path` imports, at module level or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from noface_ctx.x import y`: y may be a module of its own
            names = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in known else node.module
                     for a in node.names]
        else:
            continue
        found.update(n for n in names if n in known and n != "noface_ctx")
    return found


def _graph() -> dict[str, set[str]]:
    known = _modules()
    return {name: _imports(path, known) for name, path in known.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (or a self-import): Tarjan."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, ()):
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _closure(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(graph.get(m, ()))
    return seen


def test_no_import_cycles():
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"a"}}) == [["a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_nothing_imports_the_cli():
    graph = _graph()
    importers = sorted(m for m, deps in graph.items() if "noface_ctx.cli" in deps and m != "noface_ctx.__main__")
    assert importers == []


def test_the_hook_never_reaches_ranking_or_the_embedder():
    """`check-docs` (the pre-commit hook) must stay light: no ranking stages, no model."""
    reach = _closure(_graph(), "noface_ctx.freshness.check")
    heavy = sorted(m for m in reach if m.startswith(("noface_ctx.rank", "noface_ctx.pipeline", "noface_ctx.budget")))
    assert heavy == []


@pytest.mark.parametrize("name", sorted(_modules()))
def test_module_size(name):
    lines = len(_modules()[name].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{name}: {lines} lines; split it by role (docs/architecture.md)"


def test_every_exported_function_has_its_types_exported():
    """`from noface_ctx import X` is enough to name what an exported function takes and returns."""
    import inspect
    import re

    import noface_ctx

    exported = set(noface_ctx.__all__)
    builtin = {"str", "int", "bool", "float", "None", "list", "tuple", "dict", "Path", "Sequence", "Iterable",
               "Mapping", "Any", "PathLike", "os", "object", "TextIO", "bytes"}
    for name in exported:
        fn = getattr(noface_ctx, name)
        if not inspect.isfunction(fn):
            continue
        sig = inspect.signature(fn)
        shown = [str(sig.return_annotation)]
        shown += [str(p.annotation) for p in sig.parameters.values() if p.kind is not p.VAR_KEYWORD]
        for words in shown:
            for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", words):
                assert word in builtin or word in exported or word == "_empty", f"{name}: {word} is not exported"


def test_the_parser_loads_without_the_answering_side():
    """`signals/__init__.py` imports nothing: the parser alone loads neither resolve nor answer."""
    import subprocess
    import sys

    code = ("import sys, noface_ctx.signals.parse; "
            "print(sorted(m for m in sys.modules if m.startswith('noface_ctx.signals')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['noface_ctx.signals', 'noface_ctx.signals.parse', 'noface_ctx.signals.values']"

"""The package's shape: no import cycles (lazy imports inside functions count too), nothing imports
the CLI, the hook's import closure stays light, and no module grows past the size the layout
promises. Read from the source with `ast`, so nothing is imported to check it."""

from __future__ import annotations

import ast
import fnmatch
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "noface_ctx"
MAX_LINES = 420  # "no module over ~400 lines" (docs/architecture.md)


def _module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    return {_module_name(p, package): p for p in package.rglob("*.py")}


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


def _graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    known = _modules(package)
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
    heavy = sorted(m for m in reach if m.startswith(("noface_ctx.rank", "noface_ctx._pipeline", "noface_ctx._budget")))
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


# --------------------------------------------------------------------------- layers

# The package's import order, earliest first: a module imports from its own layer or an earlier
# one, never a later one (docs/architecture.md, "Layers"). It follows the run order
# (config → issue → files → ...) except where said.
LAYERS: tuple[tuple[str, ...], ...] = (
    # base: values, limits, tools and the config every stage uses; no stage
    ("errors", "_state", "schema", "_wording", "_wording*", "_filetypes", "_bounded", "_filebytes", "_fieldcheck",
     "_tokens", "_lexical", "_git", "_sqlitefile", "_cachefile", "_cache_location", "_write_gate", "_process", "_agent_process", "_user_paths",
     "_model_choice", "datatypes", "signals.values", "_config_toml", "config", "_commands", "_summary"),
    ("files",),  # the gate: imported before issue, whose loader masks credentials with the gate's patterns
    ("issue", "_issue_sources"),
    ("docs",),
    ("code",),
    ("trust",),  # the ledger's weights, read by freshness' hook, ranking and the answers
    ("freshness",),  # judges the docs ranking will score; neither imports the other
    ("rank",),
    ("_budget",),
    ("_render",),
    ("_explain",),
    ("_stages",),
    ("_pipeline",),
    ("signals",),  # answers NEED_* requests through the earlier stages: an entry point of its own
    ("_run_plan", "_turn_window"),  # the run loop's parts
    ("_issue_run",),
    ("_orchestrate", "_mcp_answers", "mcp_server", "_init_project"),
    ("cli",),
    ("__main__", "noface_ctx"),
)


def _layer(module: str) -> int:
    """The layer of `module`: of its longest entry in LAYERS (`signals.values` before `signals`)."""
    rel = module.removeprefix("noface_ctx.") if module != "noface_ctx" else module
    found = [(len(entry), n) for n, layer in enumerate(LAYERS) for entry in layer
             if rel == entry or rel.startswith(entry + ".") or fnmatch.fnmatchcase(rel, entry)]
    assert found, f"{module} has no place in LAYERS (tests/test_architecture.py): add it"
    return max(found)[1]


def _breaches(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{m} imports the later {d}" for m, deps in graph.items() for d in deps if _layer(d) > _layer(m))


def test_no_module_imports_a_later_layer():
    assert _breaches(_graph()) == []


def test_the_layer_check_finds_a_breach():
    graph = {"noface_ctx.datatypes": {"noface_ctx.issue.environment"}, "noface_ctx.rank.docs": {"noface_ctx.config"}}
    assert _breaches(graph) == ["noface_ctx.datatypes imports the later noface_ctx.issue.environment"]


# --------------------------------------------------------------------------- private names

def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _owner(module: str) -> str:
    """Who shares `module`'s private names: its subpackage, or for a top-level module itself."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 else module


def _may_use(importer: str, dotted: str, packages: set[str]) -> bool:
    """Whether `importer` may use `dotted` (a module, or a module's name). A private name is used
    within its subpackage only (a top-level module's by that module alone); a private module
    (`rank/_fusion.py`) anywhere in the package it is in."""
    parts = dotted.split(".")
    for n, part in enumerate(parts[1:], 1):
        if _is_private(part):  # each private part must be in reach (`noface_ctx._pipeline._index`: both)
            scope = ".".join(parts[:n])
            inside = importer == scope or importer.startswith(scope + ".")
            if not (inside if scope in packages else _owner(importer) == _owner(scope)):
                return False
    return True


def _private_uses(source: str, importer: str, known: set[str], packages: set[str]) -> list[str]:
    """Private names of other packages that `source` (module `importer`) imports or reaches as
    `module._name`, and private modules it imports from outside their package."""
    found: list[str] = []
    bound: dict[str, str] = {}  # local name -> the noface_ctx module it names
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("noface_ctx") and not _may_use(importer, a.name, packages):
                    found.append(f"{importer}: import {a.name}")
                if a.asname and a.name in known:
                    bound[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("noface_ctx"):
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if full in known:
                    bound[a.asname or a.name] = full
                if not _may_use(importer, full, packages):
                    found.append(f"{importer}: from {node.module} import {a.name}")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound
                and not _may_use(importer, f"{bound[node.value.id]}.{node.attr}", packages)):
            found.append(f"{importer}: {node.value.id}.{node.attr}")
    return sorted(set(found))


def _packages(package: Path = PACKAGE) -> set[str]:
    return {name for name, path in _modules(package).items() if path.name == "__init__.py"}


def _private_breaches(package: Path = PACKAGE) -> list[str]:
    modules = _modules(package)
    known, packages = set(modules), _packages(package)
    return [use for name, path in sorted(modules.items())
            for use in _private_uses(path.read_text(encoding="utf-8"), name, known, packages)]


def test_no_module_uses_a_private_name_of_another_package():
    assert _private_breaches() == []


TESTS = PACKAGE.parent / "tests"
BENCHMARKS = PACKAGE.parent / "benchmarks"
# this file holds the synthetic sources its checks are proven on
REACH_EXEMPT = ("tests/test_architecture.py",)


def _reaches(source: str, importer: str, known: set[str], packages: set[str]) -> list[tuple[int, str]]:
    """What a test or benchmark (standing in for module `importer`) reaches past the public line:
    a private name (`from m import _x`, `m._x`, `obj._x`, `setattr(m, "_x", ...)`, the string
    "noface_ctx.m._x") and a private module from outside its package."""
    tree = ast.parse(source)
    found: list[tuple[int, str]] = []
    other: set[str] = set()  # names bound to modules outside noface_ctx (`os._exit` is theirs)
    own = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
           and isinstance(n.value, ast.Name) and n.value.id == "self"}  # the file's own classes' fields
    own.update(t.id for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for n in c.body
               for t in (n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AnnAssign) else [])
               if isinstance(t, ast.Name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("noface_ctx"):
                    if not _may_use(importer, a.name, packages):
                        found.append((node.lineno, a.name))
                else:
                    other.add(a.asname or a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not node.module.startswith("noface_ctx"):
                other.update(a.asname or a.name for a in node.names)
                continue
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if (_is_private(a.name) and full not in known) or not _may_use(importer, full, packages):
                    found.append((node.lineno, full))
        elif isinstance(node, ast.Attribute) and _is_private(node.attr):
            base = node.value
            if node.attr not in own and not (isinstance(base, ast.Name) and (base.id in other or base.id in ("self", "cls"))):
                found.append((node.lineno, f"{ast.unparse(base)}.{node.attr}"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) and len(node.args) >= 2
              and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) in ("setattr", "getattr", "delattr")
              and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
              and _is_private(node.args[1].value)):
            found.append((node.lineno, f"{ast.unparse(node.args[0])}.{node.args[1].value}"))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("noface_ctx.")
              and " " not in node.value and (not _may_use(importer, node.value, packages) or (
                  _is_private(node.value.rsplit(".", 1)[1]) and node.value not in known))):
            found.append((node.lineno, node.value))
    return sorted(set(found))


def _unexplained(root: Path, importer_of) -> list[str]:
    """Reaches past the public line in the files under `root` whose line does not say why (`# private: ...`)."""
    known, packages = set(_modules()), _packages()
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).as_posix()
        if rel.startswith(REACH_EXEMPT):
            continue
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        found += [f"{rel}:{n}: {what}" for n, what in _reaches(source, importer_of(path), known, packages)
                  if "# private:" not in lines[n - 1]]
    return found


def _test_stands_for(path: Path) -> str:
    """A test module stands for a module of the package its folder mirrors (`tests/rank/test_x.py`
    for `noface_ctx.rank`); one at the top of `tests/` or in `tests/security/`, for the package."""
    folder = path.parent.name
    inside = f"noface_ctx.{folder}" if (PACKAGE / folder / "__init__.py").is_file() else "noface_ctx"
    return f"{inside}.{path.stem}"


def test_benchmarks_use_the_public_api_or_say_why_not():
    """A benchmark reaching a private name or module says why on that line (`# private: ...`)."""
    assert _unexplained(BENCHMARKS, lambda p: f"benchmarks.{p.stem}") == []


def test_tests_reach_private_names_only_saying_why():
    """Tests test behaviour through public functions; a test that must reach a private name (a spy
    on a read, a limit made small) says why on that line (`# private: ...`). A test may import
    the private modules of the package its folder mirrors."""
    assert _unexplained(TESTS, _test_stands_for) == []


def test_the_reach_check_finds_private_names_and_modules():
    known = {"noface_ctx", "noface_ctx.cachefile", "noface_ctx.rank", "noface_ctx.rank._fusion", "noface_ctx.rank.docs"}
    packages = {"noface_ctx", "noface_ctx.rank"}
    source = ("import os\nfrom noface_ctx import cachefile\nfrom noface_ctx.rank import _fusion\n"
              "from noface_ctx.rank.docs import _score, rank_docs\ncachefile._MEMO.clear()\nos._exit(0)\n"
              "monkeypatch.setattr(cachefile, '_LIMIT', 1)\nmonkeypatch.setattr('noface_ctx.rank.docs._W', 2)\n"
              "store._entries.clear()\nself._x = 1\nindex._x = 2\n")
    assert _reaches(source, "noface_ctx.test_x", known, packages) == [
        (3, "noface_ctx.rank._fusion"), (4, "noface_ctx.rank.docs._score"), (5, "cachefile._MEMO"),
        (7, "cachefile._LIMIT"), (8, "noface_ctx.rank.docs._W"), (9, "store._entries")]
    assert (3, "noface_ctx.rank._fusion") not in _reaches(source, "noface_ctx.rank.test_x", known, packages)


def test_the_private_check_finds_a_private_import():
    known = {"noface_ctx._pipeline", "noface_ctx.rank", "noface_ctx.rank.docs", "noface_ctx.rank._fusion",
             "noface_ctx.mcp_server", "noface_ctx.cachefile"}
    packages = {"noface_ctx", "noface_ctx.rank"}
    mcp = ("from noface_ctx._pipeline import _index, build_prompt\nfrom noface_ctx import cachefile\n"
           "cachefile._MEMO.clear()\nfrom noface_ctx.rank import _fusion\n")
    assert _private_uses(mcp, "noface_ctx.mcp_server", known, packages) == [
        "noface_ctx.mcp_server: cachefile._MEMO", "noface_ctx.mcp_server: from noface_ctx._pipeline import _index",
        "noface_ctx.mcp_server: from noface_ctx.rank import _fusion"]
    inside = "from noface_ctx.rank._fusion import _z\nfrom noface_ctx.rank import _fusion\n"
    assert _private_uses(inside, "noface_ctx.rank.docs", known, packages) == []


# --------------------------------------------------------------------------- Any at the seams

# freshness/ is being reshaped into a pipeline of typed steps (issue 29, its own change): its
# seams are checked once that lands.
ANY_EXEMPT: tuple[str, ...] = ()  # freshness passed its config as `Any` until issue 29; nothing is exempt now


def _bare_any(source: str) -> list[str]:
    """Public functions and methods (of public classes) with a parameter or return typed `Any`."""
    def is_any(node: ast.expr | None) -> bool:
        return (isinstance(node, ast.Name) and node.id == "Any") or (
            isinstance(node, ast.Constant) and node.value == "Any")

    found = []

    def visit(body: list[ast.stmt], owner: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef) and not _is_private(node.name):
                visit(node.body, f"{owner}{node.name}.")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                    node.name == "__init__" or not node.name.startswith("_")):
                a = node.args
                params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg))]
                bad = [p.arg for p in params if is_any(p.annotation)] + (["return"] if is_any(node.returns) else [])
                if bad:
                    found.append(f"{owner}{node.name}({', '.join(bad)})")

    visit(ast.parse(source).body, "")
    return found


def _any_seams(package: Path = PACKAGE) -> list[str]:
    return [f"{name}.{fn}" for name, path in sorted(_modules(package).items()) if not name.startswith(ANY_EXEMPT)
            for fn in _bare_any(path.read_text(encoding="utf-8"))]


def test_no_public_signature_is_typed_any():
    """`object` where anything goes, a Protocol or TypedDict where something specific does."""
    assert _any_seams() == []


def test_each_check_fires_on_a_package_tree_that_breaks_it(tmp_path):
    """A small `noface_ctx` tree on disk, read by the same functions as the real one: a base
    module importing a later stage, a private name and a private module used from another
    package, `Any` between modules, and an import cycle are each found; the clean modules are not."""
    tree = {
        "__init__.py": "",
        "errors.py": "class NofaceError(Exception): ...\n",
        "datatypes.py": "from noface_ctx.rank.docs import score\n",  # base -> a later layer
        "config.py": "from typing import Any\ndef load(path: Any) -> dict[str, Any]: ...\n",  # Any in a seam
        "rank/__init__.py": "",
        "rank/docs.py": "def score() -> float: ...\ndef _weight() -> float: ...\n",
        "rank/_fusion.py": "from noface_ctx.rank.docs import _weight\n",  # private, same package: fine
        "docs/__init__.py": "",
        "docs/load.py": ("from noface_ctx.rank.docs import _weight\n"  # private name across packages
                         "from noface_ctx.rank import _fusion\nfrom noface_ctx import errors\n"),
        "code/__init__.py": "",
        "code/a.py": "from noface_ctx.code import b\n",
        "code/b.py": "from noface_ctx.code import a\n",
    }
    package = tmp_path / "noface_ctx"
    for rel, text in tree.items():
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text(text, encoding="utf-8")
    graph = _graph(package)
    assert _breaches(graph) == ["noface_ctx.datatypes imports the later noface_ctx.rank.docs",
                                "noface_ctx.docs.load imports the later noface_ctx.rank._fusion",
                                "noface_ctx.docs.load imports the later noface_ctx.rank.docs"]
    assert _private_breaches(package) == ["noface_ctx.docs.load: from noface_ctx.rank import _fusion",
                                          "noface_ctx.docs.load: from noface_ctx.rank.docs import _weight"]
    assert _any_seams(package) == ["noface_ctx.config.load(path)"]
    assert _cycles(graph) == [["noface_ctx.code.a", "noface_ctx.code.b"]]


def test_the_any_check_finds_any_in_a_public_signature():
    source = ("from typing import Any\n"
              "def load(config: Any, n: int) -> Any: ...\n"
              "def _private(config: Any) -> None: ...\n"
              "def fine(value: object, rows: dict[str, Any]) -> list[object]: ...\n"
              "class Store:\n    def __init__(self, config: Any) -> None: ...\n"
              "    def save(self, *args: Any) -> None: ...\n    def _helper(self, x: Any) -> None: ...\n"
              "class _Hidden:\n    def save(self, x: Any) -> None: ...\n")
    assert _bare_any(source) == ["load(config, return)", "Store.__init__(config)", "Store.save(args)"]


def test_test_folders_mirror_the_package():
    """`tests/rank/` holds the tests of `noface_ctx/rank/`, and so on; `tests/security/` is the
    one folder by concern (the threat model's tests, whichever stage they reach)."""
    tests = Path(__file__).resolve().parent
    folders = {p.name for p in tests.iterdir() if p.is_dir() and any(p.glob("test_*.py"))}
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert folders - {"security", "benchmarks"} <= packages  # tests/benchmarks/: the harness's own tests


def test_a_subpackage_s_tests_sit_in_its_folder():
    """No test at the top of `tests/` is named for a subpackage or a module only a subpackage has
    (`tests/test_versions.py` belongs in `tests/freshness/`)."""
    tests = Path(__file__).resolve().parent
    top = {p.stem.removeprefix("test_") for p in tests.glob("test_*.py")}
    nested = {p.stem.lstrip("_") for p in PACKAGE.glob("*/*.py")} | {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    main_line = {p.stem.lstrip("_") for p in PACKAGE.glob("*.py")}
    assert sorted(top & (nested - main_line)) == []

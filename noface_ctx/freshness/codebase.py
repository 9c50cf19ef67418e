"""Whether a doc's reference still resolves in the repository as it is now.

`Codebase.resolve` finds a reference when it is a symbol (bare or qualified), a file path (also
relative to the doc, or as a path suffix), a basename, a directory, a module path (`pkg.mod` →
`pkg/mod.py`), or a name some code file *defines* (`declarations`: a word that only occurs — a
leftover call, a string, a comment, a notebook — is not enough); `pkg.mod.name` must be
defined in that module (a re-export counts). A dotted name is checked
part by part only when its root is a repository symbol or module; a root that is a word of the
code (an imported library) or an unknown lowercase name (a variable) is left alone. Paths are
checked when they have a source extension or start at a top-level entry of the repository;
other paths (a user's `~/.cache`, `.pre-commit-config.yaml`) are left alone.

Without the code index (`check-docs`), `LightSymbols` stands in for it.
"""

from __future__ import annotations

import posixpath
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import Literal, Protocol

from noface_ctx.datatypes import RepoFiles
from noface_ctx.freshness import change_fragments, import_strings, own_paths, suffix_roles
from noface_ctx.freshness.ancestry import Ancestry
from noface_ctx.freshness.attached import attaching_file
from noface_ctx.freshness.code_words import PYTHON_EXTS, CodeWords, Handed, code_words
from noface_ctx.freshness.declarations import Declared, declared
from noface_ctx.freshness.definitions import definition
from noface_ctx.freshness.name_lookups import imported_from
from noface_ctx.freshness.parameters import parameters
from noface_ctx.freshness.public_names import public_name
from noface_ctx.freshness.references import (
    CODE_EXTS,
    EXTERNAL_NAMES,
    FENCE_LANGS,
    PROPER_NOUNS,
    SELF_NAMES,
    Reference,
    file_ext,
)

_NOTHING = Declared(frozenset(), frozenset())
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))  # Python 3.10+


class SymbolTable(Protocol):
    """What freshness needs from the code index."""

    def symbol_names(self) -> frozenset[str]: ...

    def find_symbol(self, name: str) -> Sequence[object]: ...


# --------------------------------------------------------------------------- symbols without an index


@dataclass(frozen=True, slots=True)
class LightDef:
    """A definition `LightSymbols` found: its file, qualified name and line."""

    path: str
    symbol: str  # qualified by indentation-nested containers, e.g. "Class.method"
    line: int


class LightSymbols:
    """A symbol table from the keyword regex of `code_words` (no tree-sitter), asked one name at a time.

    `check-docs` uses it so the pre-commit hook needs neither the parsers nor numpy; nesting
    (`Class.method`) comes from indentation. It answers what `Codebase` asks of a symbol table.
    """

    def __init__(self, words: CodeWords) -> None:
        self._words = words

    def find_symbol(self, name: str) -> list[LightDef]:
        return [LightDef(p, q, n) for p, q, n in self._words.defined(name.replace("::", "."))]

    def is_bare(self, name: str) -> bool:
        """Some definition's last part is `name`."""
        return any(q.rsplit(".", 1)[-1] == name for _, q, _ in self._words.defined(name))

    def is_qualified(self, name: str) -> bool:
        """Some nested definition's qualified name is `name` (`Class.method`)."""
        return "." in name and any(q == name for _, q, _ in self._words.defined(name))


# --------------------------------------------------------------------------- resolution


@dataclass(frozen=True, slots=True)
class Resolution:
    """What `Codebase.resolve` answers for one reference."""

    status: Literal["found", "missing", "skip"]
    key: str = ""  # canonical reference (path or symbol) when found
    lookup: str = ""  # the identifier or path that is missing
    path: str = ""  # the file a found path reference points at
    scope: tuple[str, ...] = ()  # for a missing member: the files it must have lived in (else anywhere)
    owner: str = ""  # for a found class member (`Flask.register_blueprint`): the file defining it (`Ancestry.owner`)


class Codebase:
    """The current repository as freshness sees it: paths, symbols and every word of the code."""

    def __init__(self, repo_files: RepoFiles, symbols: SymbolTable | None, doc_paths: Iterable[str], *,
                 words_cache: Path | None = None, handed: Handed | None = None) -> None:
        """`words_cache`: a file keeping each code file's words by stat (see `code_words`);
        `handed`: code files another process reads (`code_words.handed_out`)."""
        docs = set(doc_paths)
        self.paths = {f.path for f in repo_files.files} | {e.path for e in repo_files.excluded}
        self.dirs: set[str] = set()
        for p in self.paths:
            d = p.rpartition("/")[0]
            while d and d not in self.dirs:  # a directory seen before brought its parents with it
                self.dirs.add(d)
                d = d.rpartition("/")[0]
        self.top = {p.split("/", 1)[0] for p in self.paths}
        self.basenames: dict[str, list[str]] = {}
        self.tails: dict[str, list[str]] = {}  # "b/c.py" → paths ending in its last two components
        self.exts: set[str] = set()
        self.modules = {posixpath.basename(d) for d in self.dirs}
        for p in self.paths:
            base, ext = p.rpartition("/")[2], file_ext(p)
            self.basenames.setdefault(base, []).append(p)
            self.tails.setdefault("/".join(p.rsplit("/", 2)[-2:]), []).append(p)
            self.exts.add(ext)
            if ext in CODE_EXTS:
                self.modules.add(base.rsplit(".", 1)[0])
        self.words = code_words(repo_files, docs, words_cache, handed)
        self._abspath = repo_files.abspath
        self._tables: dict[str, Declared | None] = {}
        self._tops: frozenset[str] | None = None  # `importable`'s names, read when first asked
        self.ancestry = Ancestry(self.defining_files, self.text)
        self.symbols: SymbolTable | LightSymbols
        self.is_bare: Callable[[str], bool]  # some symbol's last part
        self.is_qualified: Callable[[str], bool]  # some nested symbol's qualified name (`Class.method`)
        if symbols is None:  # check-docs: the regex symbol table, kept with the words
            light = self.symbols = LightSymbols(self.words)
            self.is_bare, self.is_qualified = light.is_bare, light.is_qualified
        else:
            self.symbols = symbols
            names = frozenset(symbols.symbol_names())
            self.is_bare = frozenset(n.rsplit(".", 1)[-1] for n in names).__contains__
            self.is_qualified = frozenset(n for n in names if "." in n).__contains__

    def known(self, word: str) -> bool:
        """A word of the code, a symbol's last part or a module name."""
        return word in self.modules or self.is_bare(word) or self.words.has(word)

    def defined(self, name: str, *, member: bool = False) -> bool:
        """Some code file defines `name` (`declarations`; as a `member`, instance attributes
        too), or it is a module's name: a word that only occurs (a leftover call, a string, a
        comment, a notebook) is not enough."""
        return (name in self.modules or self.is_bare(name) or self.words.declares(name)
                or (member and self.words.declares("." + name)))

    def _defines_member(self, path: str, name: str) -> bool:
        return self._own(path).defines(name, member=True)

    def text(self, path: str) -> str | None:
        """A repository file's text now (None when it cannot be read)."""
        return _read_text(self._abspath(path))

    def _own(self, path: str) -> Declared:
        """What the file `path` itself defines now (nothing for a file not read as Python)."""
        if path not in self._tables:
            text = _read_text(self._abspath(path)) if file_ext(path) in PYTHON_EXTS else None
            self._tables[path] = declared(text) if text is not None else None
        return self._tables[path] or _NOTHING

    def module_defines(self, path: str, name: str, depth: int = 0, *, top: bool = True) -> bool:
        """The module file `path` defines `name` now (a `def`, a class, an assignment, an
        import re-exporting it, `__all__`, a `__getattr__` alias; not `top`: in a class too), or
        a module it imports with `*` does (a module outside the repository, or too deep: it may)."""
        self._own(path)
        table = self._tables[path]
        if table is None or table.defines(name, member=True, top=top):
            return True
        for module in table.stars:
            source = self._star_source(path, module)
            if not source or depth >= 3 or self.module_defines(source, name, depth + 1, top=top):
                return True
        return False

    def module_level(self, files: list[str], name: str) -> list[str]:
        """Of `files` defining `name`, those defining it as a module's own name, when any does: a
        bare name means a module's function or class (what an import or `*` binds), not a method
        of a class in another file (`sqf_list(f)` is polytools' function, not `PolyElement.sqf_list`)."""
        top = [p for p in files if self._own(p).defines(name, top=True)]
        return top or files

    def reexported_from(self, path: str, name: str) -> str:
        """The repository module file `path` imports `name` from (`from _pytest.outcomes import
        skip` in `pytest/__init__.py`), or "" when it does not."""
        text = _read_text(self._abspath(path)) if file_ext(path) in PYTHON_EXTS else None
        module = imported_from(text or "", name)
        return self._star_source(path, module) if module is not None else ""

    def public_name(self, path: str, name: str) -> str:
        """`name` as imported from the module file `path`, or from its package when `path` is a
        private module the package re-exports it from (`sklearn/metrics/_ranking.py`:
        `sklearn.metrics.calibration_curve`; `anyio.Event`, not `anyio._core._synchronization.Event`:
        `public_names`)."""
        return public_name(path, name, self.paths, self.module_defines, self.reexported_from)

    def _star_files(self, path: str) -> list[str]:
        """`path` and the repository modules it imports with `*`, through them too (3 levels)."""
        out, todo = [path], [path]
        for _ in range(3):
            todo = [s for p in todo if (t := self._tables.get(p)) is not None for m in t.stars
                    if (s := self._star_source(p, m)) and s not in out]
            out += todo
        return out

    def _star_source(self, path: str, module: str) -> str:
        """The module file `from module import *` in `path` reads, or "" when not in the repository."""
        dots = len(module) - len(module.lstrip("."))
        if dots:
            base = path.rsplit("/", dots)[0] if path.count("/") >= dots else ""
            rel = "/".join(p for p in [base, *module[dots:].split(".")] if p)
            hits = [rel + ".py", rel + "/__init__.py"]
            return next((h for h in hits if h in self.paths), "")
        rel = module.replace(".", "/")
        return self._module_file(rel + ".py") or self._module_file(rel + "/__init__.py")

    def resolve(self, ref: Reference, doc_dir: str) -> Resolution:
        """Whether `ref` (in a doc under `doc_dir`) resolves now; see the module docstring."""
        if ref.source in FENCE_LANGS and not self.exts.intersection(FENCE_LANGS[ref.source]):
            return Resolution("skip")  # a snippet in a language this repository is not written in
        if ref.kind == "path":
            return self._resolve_path(ref, doc_dir)
        if ref.kind == "method":
            return (suffix_roles.resolve(self, ref, Resolution) or import_strings.resolve(self, ref, self._resolve_dotted, Resolution)
                    or self._resolve_dotted(self._in_context(ref)))
        if ref.kind in ("member", "keyword", "base", "setting"):  # a method called on an object of unknown type, a parameter passed: only its removal tells
            gone = ref.strict and not self.defined(ref.name, member=True) and ref.name not in EXTERNAL_NAMES and not (
                ref.kind == "keyword" and not ref.name[:1].islower() and self.takes_any_keyword(ref.ref.split("(", 1)[0]))
            # (a name spelled as no parameter is, into `**kwargs`: data, `extend_bit_flag_map('DQ', CR=1)`)
            return Resolution("missing", lookup=ref.name) if gone else Resolution("skip")
        if self.defined(ref.name) or ref.name in EXTERNAL_NAMES or (not ref.strict and self.known(ref.name)):
            # a plain class name (`Issue`) is not strict, but still says what the doc is about; a
            # word only a role makes code (`:func:`redirect``) is checked for removal, never for changes
            keep = (ref.strict and ref.source != "role") or (
                ref.name[0].isupper() and len(ref.name) > 3 and self.is_bare(ref.name))
            return Resolution("found", ref.name) if keep else Resolution("skip")
        return Resolution("missing", lookup=ref.name) if ref.strict else Resolution("skip")

    def _in_context(self, ref: Reference) -> Reference:
        """A dotted role target read in its module context (`extmath.density` under `..
        currentmodule:: sklearn.utils`) means the module's when its first name is a submodule
        there (`sklearn/utils/extmath.py`); else the name as written (`numpy.mean`): Sphinx
        tries a role as written, then in the module; an autosummary entry the other way round."""
        written = ref.ref.split("(", 1)[0].replace("::", ".")
        if ref.source not in ("role", "xref", "autodoc") or "." not in written or not written[:1].islower() or (
                ref.name == written or not ref.name.endswith("." + written)):
            return ref
        sub = ref.name[:-len(written)].replace(".", "/") + written.split(".", 1)[0]
        if self._module_file(sub + ".py") or self._module_file(sub + "/__init__.py") or sub in self.dirs:
            return ref
        return replace(ref, name=written)

    def _resolve_path(self, ref: Reference, doc_dir: str) -> Resolution:
        target = ref.name.rstrip("/")
        tries = [posixpath.normpath(posixpath.join(doc_dir, target))] if ref.source == "link" or target.startswith("..") else []
        tries = [t for t in [*tries, posixpath.normpath(target)] if not t.startswith("..")]  # outside: not ours
        if not tries:
            return Resolution("skip")
        for t in tries:
            if t in self.paths:
                return Resolution("found", t, path=t)
            if t in self.dirs:
                return Resolution("found", t + "/")
        if "/" not in target and target in self.basenames:
            hits = self.basenames[target]
            return Resolution("found", hits[0] if len(hits) == 1 else target, path=hits[0] if len(hits) == 1 else "")
        suffix = self._ending_in(target)
        if suffix:
            return Resolution("found", suffix[0], path=suffix[0] if len(suffix) == 1 else "")
        checkable = file_ext(target) in CODE_EXTS or ref.source == "link" or any(
            "/" in t and t.split("/", 1)[0] in self.top for t in tries
        )
        fragment = change_fragments.fragment(target)  # a changelog's entry, deleted by each release
        return Resolution("missing", lookup=tries[0]) if checkable and ref.strict and not fragment else Resolution("skip")

    def _resolve_dotted(self, ref: Reference) -> Resolution:
        parts, own = ref.name.split("."), own_paths.own_root(self, ref)  # written from our package: judged along its path
        if not own and any(self.is_qualified(".".join(parts[i:])) for i in range(len(parts) - 1)):
            return Resolution("found", ref.name)
        as_path = "/".join(parts)
        for cand in (as_path + ".py", as_path + "/__init__.py"):
            if hit := self._module_file(cand):
                return Resolution("found", ref.name, path=hit)
        if as_path in self.dirs:
            return Resolution("found", ref.name)
        k, holder = self.module_holder(parts)  # `pkg.mod.name[.member]`: `name` must be defined in pkg/mod.py
        if holder:
            part = parts[k]
            imported = bool(ref.binds) and part in _STDLIB  # `from marshmallow import pprint`: the package's, if any
            if not (self.module_defines(holder, part, top=k > 1) or (part in EXTERNAL_NAMES and not imported and not own) or not ref.strict
                    or "/".join(parts[:k + 1]) in self.dirs):
                package = holder.rsplit("/", 1)[0] if holder.endswith("/__init__.py") else ""
                submodule = (f"{package}/{part}.py", f"{package}/{part}/__init__.py") if package else ()
                return Resolution("missing", lookup=part, scope=(*self._star_files(holder), *submodule))
            if k == len(parts) - 1:
                return Resolution("found", ref.name, path=holder)
        root = parts[0]
        if root in SELF_NAMES or not ref.strict or self.names_a_standard_module(ref.name) or (
                ref.binds and not self.importable(root)):  # an example's import of another package
            return Resolution("skip")
        if root in self.modules or root in self.top or self.is_bare(root):
            owner = ""  # the file defining the last part, when a class of ours has it
            for i, (cls, part) in enumerate(pairwise(parts), 1):
                family = self.ancestry.hierarchy(cls) if cls[:1].isupper() else None
                if family:  # a class of ours: the member lives in its hierarchy (`Response.next`, a builtin's name, too)
                    held = any(self._own(p).defines(part, member=True) for p in family) or attaching_file(self, part)
                    if not held and part not in self.ancestry.builtin_members(cls) and not self.ancestry.dynamic(cls):
                        return Resolution("missing", lookup=part, scope=tuple(family))
                    owner = (held if isinstance(held, str) else self.ancestry.owner(cls, part, partial(
                        self._defines_member, name=part))) if i == len(parts) - 1 else ""  # a base's file: `App` of `Flask`
                    continue
                if not self.defined(part, member=True) and part not in EXTERNAL_NAMES:
                    # a member of `pkg.Class`: it lived in the root's files or in the class's
                    homes = set(self.home_of(root)) | (set(self.home_of(cls)) if i > 1 else set())
                    return Resolution("missing", lookup=part, scope=tuple(sorted(homes)))
            return Resolution("found", ref.name, owner=owner)
        if root in EXTERNAL_NAMES or self.known(root) or not root[0].isupper() or root in PROPER_NOUNS:
            return Resolution("skip")  # a library, a variable or an imported name
        return Resolution("missing", lookup=root)

    def module_holder(self, parts: list[str]) -> tuple[int, str]:
        """(k, the module file of the longest `parts[:k]` that is a module: `pkg/mod.py` or
        `pkg/__init__.py`), or (0, "")."""
        for k in range(len(parts) - 1, 0, -1):
            base = "/".join(parts[:k])
            hit = self._module_file(base + ".py") or self._module_file(base + "/__init__.py")
            if hit:
                return k, hit
        return 0, ""

    def _module_file(self, path: str) -> str:
        """`path`, or the one file ending in `/path` (a package under `src/` or `examples/x/`),
        not inside another package: scikit-learn's vendored `externals/array_api_compat/numpy/`
        is not `numpy`."""
        if path in self.paths:
            return path
        hits = [h for h in self._ending_in(path) if h[:-len(path)] + "__init__.py" not in self.paths] if "/" in path else []
        return hits[0] if len(hits) == 1 else ""

    def importable(self, root: str) -> bool:
        """Whether `import root` could load a module of the repository: a package or module not
        inside another package (at the top, under `src/`, a script's directory)."""
        if self._tops is None:
            tops = set()
            for p in self.paths:
                if file_ext(p) not in PYTHON_EXTS and not p.endswith(".pyx"):
                    continue
                d, name = p.rpartition("/")[0], p.rpartition("/")[2].split(".", 1)[0]
                while d and d + "/__init__.py" in self.paths:
                    d, name = d.rpartition("/")[0], d.rpartition("/")[2]
                tops.add(name)
            self._tops = frozenset(tops)
        return root in self._tops

    def _ending_in(self, target: str) -> list[str]:
        """Every path ending in `/target` (whole trailing components), in `paths` order."""
        tail, parts = "/" + target, target.rsplit("/", 2)
        pool = self.tails.get("/".join(parts[-2:]), ()) if len(parts) > 1 else self.basenames.get(target, ())
        return [p for p in pool if p.endswith(tail)]

    def names_a_standard_module(self, name: str) -> bool:
        """Whether dotted `name` starts with a module of Python's standard library that the
        repository does not define at the top of an import path (`logging.config.dictConfig`
        beside a package's own `logging.py`: the standard one)."""
        root = name.split(".", 1)[0]
        if "." not in name or root not in _STDLIB:
            return False
        return not any(f"{base}{root}{end}" in self.paths for base in ("", "src/", "lib/")
                       for end in (".py", "/__init__.py"))

    def home_of(self, root: str) -> list[str]:
        """Files a member of `root` lives in: the files defining the symbol `root`, or the module
        `root.py` / `root/__init__.py` (empty when neither is known: anywhere will do)."""
        homes = list(self.basenames.get(root + ".py", ()))
        homes += [p for p in self.basenames.get("__init__.py", ()) if posixpath.basename(posixpath.dirname(p)) == root]
        return sorted(set(homes) | set(self.defining_files(root)))

    def takes_any_keyword(self, callee: str) -> bool:
        """Whether every definition of `callee` (its last name; at most 3) takes `**kwargs` now."""
        last = callee.rsplit(".", 1)[-1]
        files = self.defining_files(last) if last else []
        found = [definition(_read_text(self._abspath(p)) or "", last) for p in files if file_ext(p) in PYTHON_EXTS]
        params = [parameters(d) if d else None for d in found]
        return bool(params) and all(ps is not None and any(k == "**" for k, _, _ in ps) for ps in params)

    def defining_files(self, name: str) -> list[str]:
        """Files defining `name` when it is a symbol of the index (at most 3, else none: too common)."""
        if not self.is_bare(name) and not self.is_qualified(name):
            return []
        symbol_ids, path_of = getattr(self.symbols, "symbol_ids", None), getattr(self.symbols, "path_of", None)
        if callable(symbol_ids) and callable(path_of):  # the code index: no chunk (or file text) built
            paths = sorted({path_of(i) for i in symbol_ids(name.rpartition("::")[2])})
        else:
            found = self.symbols.find_symbol(name) or ()
            paths = sorted({getattr(c, "path", c) for c in found if isinstance(getattr(c, "path", c), str)})
        return paths if len(paths) <= 3 else []


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None

"""One doc's references resolved against the code as it is now (`scan_doc`): what it is about,
the names it uses that no longer resolve, and the signatures it states. `assess` judges the
result against history. A doc's references are kept by the text they were read from: in the
history index, or, in a repository without commits, in `doc-references.json`
(`load_plain_references`), so a new process reads only docs it has not read before."""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args
from weakref import WeakKeyDictionary

from noface_ctx._bounded import MAX_JSON_BYTES, read_head
from noface_ctx._cachefile import is_tracked
from noface_ctx._filetypes import is_test_path
from noface_ctx._write_gate import write_atomic
from noface_ctx.datatypes import ChangedRef, Doc, MissingRef
from noface_ctx.freshness.announced import announced_gone
from noface_ctx.freshness.blocks import gone_tables
from noface_ctx.freshness.code_words import PYTHON_EXTS
from noface_ctx.freshness.codebase import Codebase
from noface_ctx.freshness.coded_defaults import comparable
from noface_ctx.freshness.comment_defaults import comment_words
from noface_ctx.freshness.constant_defaults import default_constants
from noface_ctx.freshness.default_phrases import phrase_words
from noface_ctx.freshness.default_words import default_words
from noface_ctx.freshness.distant_defaults import distant_words
from noface_ctx.freshness.doctest_setup import with_doctest_setup, with_global_setup
from noface_ctx.freshness.edits import identifiers
from noface_ctx.freshness.env_opt_outs import env_words
from noface_ctx.freshness.extract import extract_references
from noface_ctx.freshness.factory_types import factory_refs
from noface_ctx.freshness.history import Commit
from noface_ctx.freshness.literal_defaults import literal_words
from noface_ctx.freshness.noun_defaults import noun_words
from noface_ctx.freshness.object_directives import rooted
from noface_ctx.freshness.option_defaults import option_words
from noface_ctx.freshness.references import (
    CODE_EXTS,
    FENCE_LANGS,
    STRING,
    Reference,
    RefKind,
    codeish,
    file_ext,
    keyword_refs,
)
from noface_ctx.freshness.review_defaults import review_words
from noface_ctx.freshness.setting_defaults import setting_words
from noface_ctx.freshness.setting_values import value_words
from noface_ctx.freshness.signed_defaults import signed_words
from noface_ctx.freshness.subject_defaults import subject_words

if TYPE_CHECKING:
    from noface_ctx.freshness.defaults import Stated


@dataclass(frozen=True, slots=True)
class DocScan:
    """One doc's references resolved against the current code (history adds `DocHistory`)."""

    doc: Doc
    refs: Sequence[Reference] = ()  # everything the doc's text was read into
    keys: Sequence[str] = ()
    words: frozenset[str] = frozenset()  # identifiers of every reference: what the judgement depends on
    files: Mapping[str, int] = field(default_factory=dict)  # code file -> first doc line about it
    symbols: Sequence[tuple[Reference, list[str]]] = ()  # found symbols, defining files
    candidates: Sequence[tuple[Reference, str, tuple[str, ...]]] = ()  # (ref, lookup, scope)
    signatures: Sequence[tuple[str, str]] = ()


@dataclass(frozen=True, slots=True)
class DocHistory:
    """What history says of one doc's names since its last commit (`commit`; None: never
    committed): the removed ones (`missing`), the changed definitions and defaults (`changed`),
    and the files the removed names were defined in (doc line by file)."""

    commit: Commit | None = None
    editing: bool = False  # judged against HEAD: uncommitted edits, or never committed
    missing: Sequence[MissingRef] = ()
    changed: Sequence[ChangedRef] = ()
    files: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TextReading:
    """What a doc's text says before anything is resolved against the code (`read_text`): pure
    work, done in another process on a first run (`first_reads`)."""

    refs: list[Reference]  # its references (`extract_references`)
    words: frozenset[str]  # the names its statements of defaults are about: the judgement depends on them too
    gone: frozenset[int]  # lines of tables listing removed names (`blocks.gone_tables`)
    said_gone: Mapping[int, set[str]]  # names a heading or sentence announces as gone, by line (`announced_gone`)
    stated: bool  # a sentence saying "default" writes a word as code or quoted (`default_words`)
    defaults: StatedDefaults = ((), ())  # its statements of defaults, when read with it (`first_reads.read_texts`)


def read_text(doc: Doc, refs: list[Reference] | None = None) -> TextReading:
    """The doc's `TextReading` (`refs`: its references when already read)."""
    text = doc.text
    words = option_words(text) | setting_words(text, comparable) | value_words(text) | phrase_words(text)  # an option's or setting's default: its line names only `default`
    words |= subject_words(text) | review_words(text) | distant_words(text) | signed_words(text) | noun_words(text)
    words |= literal_words(text)  # a parameter a sentence names in words (`tag_name`), an option a list item heads
    words |= comment_words(text) | env_words(text)  # an example's comment stating a default; an environment opt-out
    lines = text.split("\n")
    return TextReading(extract_references(doc) if refs is None else refs, frozenset(words), frozenset(gone_tables(lines)),
                       announced_gone(lines), bool(default_words(text)))


StatedDefaults = tuple[tuple["Stated", ...], tuple[tuple[int, str], ...]]  # `defaults.stated_defaults`, `word_statements`


def scan_doc(doc: Doc, code: Codebase, refs: list[Reference] | TextReading | None = None) -> DocScan:
    """Resolve the doc's references (`refs` when already read, or its whole `TextReading`):
    found ones give its files, symbols and stated signatures; unresolved strict ones become
    `candidates` (history tells whether they were removed)."""
    told = refs if isinstance(refs, TextReading) else read_text(doc, refs)
    refs = told.refs  # what the doc's text says: kept by that text
    read = with_global_setup(doc, refs, code.paths, code.text, extract_references)  # its doctests under conf.py's setup
    read = with_doctest_setup(read, doc.path, code.paths, code.text, code.defined)  # and what conf.py adds now
    read = rooted(read, doc.path, code.paths)  # `.. literalinclude:: /examples/app.py`: the Sphinx source folder's
    read = with_factory_types(read, doc, code)  # `arw = arrow.utcnow()`: `arw.dehumanize()` is `Arrow.dehumanize`
    words: set[str] = set(told.words)
    for ref in read:
        words |= identifiers(ref.ref) | identifiers(ref.name)
    keys: list[str] = []
    doc_files: dict[str, int] = {}  # code file -> first doc line about it
    symbols: list[tuple[Reference, list[str]]] = []
    candidates: list[tuple[Reference, str, tuple[str, ...]]] = []
    signatures: list[tuple[str, str]] = []
    foreign: set[str] = set()  # names bound by the examples' imports of packages outside the repository
    bound: dict[str, list[str]] = {}  # names bound by the examples' imports of the repository's: their files
    doc_dir = posixpath.dirname(doc.path)
    resolved = []
    stated = told.stated
    for ref in _in_imported_modules(read, code):
        res = code.resolve(ref, doc_dir)
        if ref.binds and res.status == "skip":  # imported from a package outside the repository
            foreign |= {ref.binds, ref.name.split(".", 1)[0]}  # `np`, and `numpy` an alias's call is spelled through
            continue
        resolved.append((ref, res))
    lines = doc.text.split("\n")
    gone = told.gone  # lines of tables listing removed names
    said_gone = told.said_gone  # "### `X` removal", "`X` was replaced by `Y`": X is history
    starred = {(r.line, r.ref) for r, res in resolved if (star(r) or r.source == "word") and res.status == "found"}
    kept = {r for r, _ in resolved}
    foreign_star = any(star(r) and r not in kept for r in read)  # `from numpy import *`: a name no module of ours has
    typed = {(r.line, r.ref) for r in read if r.kind == "method" and r.name.split(".", 1)[0] in foreign}
    for ref, res in resolved:
        if ref.name.split(".", 1)[0] in foreign or (ref.kind in ("member", "keyword") and (
                ref.ref.split(".", 1)[0].split("(", 1)[0] in foreign or (ref.line, ref.ref) in typed)):
            continue  # `np.polyfit(...)`, `pd.date_range(...)`, `np.histogram(bins=...)`, `f.write_to()` with
            # `f = AsdfFile()` from `asdf`: the library's names, not the repository's
        if ref.source in ("comment", "constant") and res.status == "found":
            continue  # a name an example's comment writes (`example_comments`), an ALL_CAPS span: checked for removal only
        if ref.source == "role" and res.status == "found" and not about(ref.name.rsplit(".", 1)[-1]):
            files = [p for p in code.defining_files(ref.name.rsplit(".", 1)[-1]) if not is_test_path(p)] if stated else []
            symbols += [(ref, files)] if len(files) == 1 else []  # its default a sentence states by value (`notice`)
            continue  # a plain word only a role makes code (`:func:`redirect``): checked for removal only
        if (ref.source == "word" and (res.status == "found" or (ref.line, ref.ref) in starred)) or (
                star(ref) and res.status == "missing" and ((ref.line, ref.ref) in starred or foreign_star)):
            continue  # a star-bound name another module has; a plain word judged as a removed name only (`plain_words`)
        if res.status == "skip" and (home := _only_home(code, ref, lines)):
            symbols.append((ref, home))  # `ax.view_init(elev=30, azim=45)`: its one definition's parameters
            doc_files.setdefault(home[0], ref.line)
            continue
        if res.status == "found":
            if res.key and res.key not in keys:
                keys.append(res.key)
            if res.path and not star(ref):
                doc_files.setdefault(res.path, ref.line)
                if ref.kind == "method" and file_ext(res.path) in CODE_EXTS:  # `pkg.mod.name`: name in that file
                    last = ref.name.rsplit(".", 1)[-1]
                    homes = _one_language([p for p in code.defining_files(last) if not is_test_path(p)], res.path)
                    if res.path not in homes:  # re-exported (`from pkg.app import Flask` in pkg/__init__.py)
                        source = code.reexported_from(res.path, last)
                        homes = [source] if source else homes
                    else:  # the file its module path names: `astropy.stats.histogram`, not a units helper's `histogram`
                        homes = [res.path]
                    symbols.append((ref, homes or [res.path]))
                    if ref.binds:
                        bound[ref.binds] = homes or [res.path]
            elif ref.kind != "path":  # an example's call of a name its import binds: that import's (`Table([a, b])`);
                # a class's member: the file of the class or base defining it (`app.register_blueprint()`: `App`'s)
                files = ([res.owner] if res.owner else None) or (
                    bound.get(ref.name) if ref.source in FENCE_LANGS else None) or _one_language(
                    [p for p in code.defining_files(ref.name) if file_ext(p) in CODE_EXTS and not is_test_path(p)])
                if star(ref):  # `nsimplify(...)` under `from sympy import *`: the module function it means
                    last = ref.name.rsplit(".", 1)[-1]
                    files = _one_language([p for p in code.defining_files(last) if not is_test_path(p)])
                if (star(ref) or ("." not in ref.name and ref.kind in ("symbol", "call"))) and not res.owner:
                    files = code.module_level(files, ref.name.rsplit(".", 1)[-1])  # `sqf_list(f)`: polytools' function, not a method
                if not files and ref.source == "span" and SIGNATURE.match(ref.ref):
                    files = _module_home(code, ref.name)  # `axes3d.Axes3D` (fig[, rect, ...]) under a currentmodule
                for p in files:
                    doc_files.setdefault(p, ref.line)
                if files:
                    symbols.append((ref, files))
            sig = SIGNATURE.match(ref.ref)
            if sig and ref.source in ("span", "prose", "xref") and ref.kind != "path":
                signatures.append((ref.name, sig.group(1)))
        elif res.status == "missing" and all(lookup != res.lookup or scope != res.scope for _, lookup, scope in candidates) and (
                ref.line not in gone) and ref.name.rsplit(".", 1)[-1] not in said_gone.get(ref.line, ()):
                # a table of removed names, a heading or sentence announcing the removal: the doc says they are gone
            candidates.append((ref, res.lookup, res.scope))  # one per lookup and scope: the next is tried when the
            # first cannot be proved removed (`presence.record_removals`), a name is reported once
    words |= default_constants(symbols, code.text)  # `size=_DEFAULT_SIZE`: the judgement depends on `_DEFAULT_SIZE` too
    return DocScan(doc, tuple(refs), tuple(keys), frozenset(words), doc_files, tuple(symbols), tuple(candidates),
                   tuple(signatures))


def with_factory_types(refs: list[Reference], doc: Doc, code: Codebase) -> list[Reference]:
    """`refs` and the references of example names a factory function's return annotation types (`factory_types`)."""
    if not doc.path.endswith((".rst", ".txt", ".md")) or not _PY_EXAMPLE.search(doc.text):
        return refs
    have = {(r.line, r.name) for r in refs}
    return refs + [r for r in factory_refs(doc.text, code, set()) if (r.line, r.name) not in have]


def _in_imported_modules(refs: Sequence[Reference], code: Codebase) -> list[Reference]:
    """`refs` with each plain word (`examples.plain_words`) no code has now read as a name of every
    module the doc's examples import from (`from pkg.mod import a`, a `*` a bare call stands for), or,
    when they import none of ours (a page without examples), of the repository's packages (cattrs'
    ``dumps``: `cattr.dumps`, the package's function until renamed); a section's one-word title
    (documented) as itself. A word the code still has is no removed name."""
    modules = sorted({r.name.rsplit(".", 1)[0] for r in refs if r.binds and r.kind == "method" and (
        r.name.endswith("." + r.ref) or star(r))})
    out: list[Reference] = []
    for r in refs:
        if r.source != "word":
            out.append(r)
        elif r.documented:
            out += [] if code.known(r.name) else [r]
        elif not code.known(r.name):
            modules = modules or packages(code)
            out += [replace(r, name=f"{m}.{r.name}", kind="method") for m in modules]
    return out


_PACKAGES: WeakKeyDictionary[Codebase, list[str]] = WeakKeyDictionary()


def packages(code: Codebase) -> list[str]:
    """The repository's packages, by import name: a folder with an `__init__.py` at the top or under
    `src/` / `lib/` (no test's, doc's or example's folder), read once per codebase."""
    found = _PACKAGES.get(code)
    if found is None:
        found = _PACKAGES[code] = sorted({p.rsplit("/", 2)[-2] for p in code.paths if p.endswith("/__init__.py") and (
            p.count("/") == 1 or (p.count("/") == 2 and p.startswith(("src/", "lib/")))) and not is_test_path(p)
            and p.split("/")[-2] not in _NOT_PACKAGES and re.fullmatch(r"[A-Za-z_]\w*", p.split("/")[-2])})
    return found


_PY_EXAMPLE = re.compile(r"^\s*(?:>>> )?[A-Za-z_]\w*\s*=\s*[A-Za-z_][\w.]*\.[a-z_]\w*\s*\(", re.M)  # `x = pkg.make(`
_NOT_PACKAGES = frozenset({"doc", "docs", "example", "examples", "benchmarks", "scripts", "tools", "test", "tests", "testing"})


def star(ref: Reference) -> bool:
    """An example's call of a name only its `from module import *` binds (`examples.star_refs`)."""
    return bool(ref.binds) and ref.ref == ref.binds + "()"


def _module_home(code: Codebase, name: str) -> list[str]:
    """The one file defining a name written with the end of its module path (`axes3d.Axes3D`, the
    module `mpl_toolkits.mplot3d.axes3d` under a `currentmodule`): its own file, `.../axes3d.py`."""
    parts = name.split(".")
    for k in range(1, len(parts)):
        module = "/" + "/".join(parts[:k])
        files = [p for p in code.defining_files(".".join(parts[k:])) if file_ext(p) in PYTHON_EXTS and not is_test_path(p)
                 and ("/" + p.rsplit(".", 1)[0].removesuffix("/__init__")).endswith(module)]
        if files:
            return files if len(files) == 1 else []
    return []


def _only_home(code: Codebase, ref: Reference, lines: list[str]) -> list[str]:
    """The one code file defining a method an example calls, passing a keyword, on an object of
    unknown type (`ax.view_init(elev=30, azim=45)` after `ax = plt.figure().add_subplot(...)`):
    a code-shaped name defined in one file is that definition, its call checked as any other's."""
    if ref.kind != "member" or not ref.strict or ref.source not in FENCE_LANGS or not codeish(ref.name):
        return []
    text = STRING.sub('""', "\n".join(lines[ref.line - 1:ref.line + 9]))
    call = re.search(rf"(?<![\w.])[A-Za-z_][\w.]*\.{re.escape(ref.name)}\s*\(", text)
    if call is None or not keyword_refs(text, call.end(), lambda _offset: ref.line, "python"):
        return []
    files = [p for p in code.defining_files(ref.name) if file_ext(p) in PYTHON_EXTS and not is_test_path(p)]
    return files if len(files) == 1 else []


def _language(path: str) -> str:
    return "py" if file_ext(path) in PYTHON_EXTS else file_ext(path)


def _one_language(files: list[str], home: str | None = None) -> list[str]:
    """The definitions a doc's name can mean: those in the language of the file it resolved to
    (`home`), else, when they span languages, the Python ones (sqlfluff's `.apply()` on a
    `MatchResult` is `match_result.py`'s, not the Rust port's `match_result.rs`)."""
    want = _language(home) if home else ("py" if any(_language(p) == "py" for p in files) else None)
    return [p for p in files if _language(p) == want] if want else files


def references_to_json(refs: Sequence[Reference]) -> list[list[Any]]:
    """References as stored (`history.HistoryIndex.save_judged`), field by field."""
    return [[getattr(r, name) for name in _FIELDS] for r in refs]


def references_from_json(value: object) -> list[Reference] | None:
    """The stored references, or None when the value is not what `references_to_json` writes."""
    if not isinstance(value, list):
        return None
    out = []
    for row in value:
        if not (isinstance(row, list) and len(row) == len(_STORED)
                and all(type(x) is t for x, t in zip(row, _STORED, strict=True)) and row[2] in _KINDS):
            return None
        out.append(Reference(*row))
    return out


_FIELDS = tuple(f.name for f in fields(Reference))
_STORED = (str, str, str, int, bool, str, str, bool)  # each field's type, in `_FIELDS` order
_KINDS = frozenset(get_args(RefKind))


SIGNATURE = re.compile(r"^[\w.:]+(\(.*\))(?:\s*->\s*\S+)?$")


def about(name: str) -> bool:
    """A name that says what a doc is about: code-shaped, or a class-like word (`Flask`)."""
    return codeish(name) or (name[:1].isupper() and len(name) > 3)


PLAIN_REFERENCES = "doc-references.json"  # without history: each doc text's references, for the next process
PLAIN_REFERENCES_MAX = 4000  # doc texts kept there, the latest last


def load_plain_references(path: Path | None, rules: int) -> dict[str, Any]:
    """key → the references read from a doc text with that key (`references_to_json`), kept for a
    repository without commits, where no history index holds them. Derived data: each value is
    checked by `references_from_json` before use. Empty when absent, damaged or from other `rules`."""
    if path is None or is_tracked(path):
        return {}
    try:
        data, cut = read_head(path, MAX_JSON_BYTES)
        raw = None if cut else json.loads(data)
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(raw, dict) or raw.get("rules") != rules or not isinstance(raw.get("refs"), dict):
        return {}
    return {k: v for k, v in raw["refs"].items() if type(k) is str}


def save_plain_references(path: Path | None, rules: int, kept: Mapping[str, Any], new: Sequence[tuple[str, Any]]) -> None:
    """Store the kept references (`load_plain_references`) and `new` (key, references); nothing raised."""
    if path is None or is_tracked(path):
        return
    refs = {**kept, **dict(new)}
    refs = dict(list(refs.items())[-PLAIN_REFERENCES_MAX:])
    try:
        write_atomic(path, json.dumps({"rules": rules, "refs": refs}).encode("ascii"))
    except (OSError, ValueError):
        pass

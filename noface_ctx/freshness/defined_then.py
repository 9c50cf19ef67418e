"""Whether a file defined a name at a past commit, as a doc could mean it (`defines`), and which
files of some did (`declared_in`): what `presence.record_removals` asks of every version it reads.
`role_target`: the one definition a role's bare name had when the module the role names never had it."""

from __future__ import annotations

import re
from collections.abc import Iterable

from noface_ctx._filetypes import is_test_path
from noface_ctx.freshness.code_words import PYTHON_EXTS
from noface_ctx.freshness.declarations import text_defines
from noface_ctx.freshness.deleted import module_name
from noface_ctx.freshness.history import HistoryIndex
from noface_ctx.freshness.references import CODE_EXTS, Reference, file_ext


def declared_in(index: HistoryIndex, name: str, sha: str, paths: Iterable[str], *, member: bool,
                top: bool = False) -> set[str]:
    """The files of `paths` (holding the word `name` at commit `sha`) that define it there as a
    doc could mean it (`defines`)."""
    return {p for p in paths if defines(index, sha, p, name, member=member, top=top)}


def module_level(ref: Reference, lookup: str) -> bool:
    """Whether the missing `lookup` is a module's name in the dotted `ref`, written from its
    package (`django.contrib.auth.models.check_password`: a method `check_password` of a class in
    `models.py` is not it), not a class's member (`ValidationError.messages`) nor one of an
    example's variable named like a module (`config.addinivalue_line`)."""
    parts = ref.name.split(".")
    at = parts.index(lookup) if ref.kind == "method" and lookup in parts[1:] else 0
    # `pkg.mod.name`: `config.addinivalue_line` is a variable's, `ModelChain.results.ac` a class's attribute's
    return at > 1 and all(part[:1].islower() for part in parts[:at])


def defines(index: HistoryIndex, sha: str, path: str, name: str, *, member: bool = False, top: bool = False) -> bool:
    """Whether `path` at commit `sha` defines `name`: a Python file by its definition table
    (`declarations.declared`; as a `member`, instance attributes too), a file in another
    language by holding the word, anything else (data, notebooks) never."""
    ext = file_ext(path)
    if ext not in CODE_EXTS:
        return False
    if ext in PYTHON_EXTS and module_name(path) == name:  # a module is defined by its file (`scripts/flaskext_compat.py`)
        return index.versions.blob(sha, path) is not None  # while it is there (a merged branch's deleting it: the removal)
    text = index.versions.text_at(sha, path)
    if text is None:
        return False
    if ext in PYTHON_EXTS:
        return text_defines(text, name, member=member, top=top)
    return name in text and re.search(rf"\b{re.escape(name)}\b", text) is not None


def role_target(index: HistoryIndex, ref: Reference, name: str, sha: str, files: Iterable[str], *, member: bool,
                top: bool = False) -> set[str]:
    """For a role whose qualified target was never defined where it points (`:func:`create_environ``
    under `.. module:: werkzeug.formparser`): the file of `files` (holding the word at `sha`) that
    was then the repository's one definition of `name` outside tests, else nothing (no telling
    which one the role meant). Sphinx leaves such a link unresolved; the sentence still names it."""
    if ref.source != "role":
        return set()
    found = declared_in(index, name, sha, [p for p in files if not is_test_path(p)], member=member, top=top)
    return found if len(found) == 1 else set()

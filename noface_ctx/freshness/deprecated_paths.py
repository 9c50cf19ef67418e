"""Names a doc reaches through a deprecation shim (`deprecated_paths`): a module whose own
definition of a name is gone, and whose own `__getattr__` (at module level, or in a module-level
`if not TYPE_CHECKING:` / `try`: `declarations.Declared.getattrs`) hands it out from its new
module only after `warnings.warn(..., DeprecationWarning)`. click's 3630addf53 moved
`split_arg_string` to `click.shell_completion` and left in `click.parser`:

    if name == "split_arg_string":
        from .shell_completion import split_arg_string
        warnings.warn("Importing 'parser.split_arg_string' is deprecated, ...", DeprecationWarning)
        return split_arg_string

The import resolves (the shim counts as defining it: `Codebase.module_defines`), so no removal
is found; the doc teaches a path the project is taking away. The finding names the module it
moved to and the commit that made the old one a shim (the newest version of the module file
that still defined the name, read back through its history). A name deprecated with no new
home (`return globals()["_OptionParser"]`) is another matter (an API going away), not a path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from noface_ctx.datatypes import ChangedRef
from noface_ctx.freshness.codebase import Codebase
from noface_ctx.freshness.declarations import declared, text_defines
from noface_ctx.freshness.definitions import block_end
from noface_ctx.freshness.history import HistoryIndex
from noface_ctx.freshness.merges import merged_change
from noface_ctx.freshness.references import Reference

DEPRECATED_PATH = "deprecated path"  # a ChangedRef's `what` is "deprecated path NEW.NAME" (`judgement.changed_reason`)
VERSIONS_READ = 64  # the module file's versions looked through for the one that made the shim
_GETATTR = re.compile(r"def[ \t]+__getattr__[ \t]*\([^)]*\)[^:\n]*:")
_WARNING = re.compile(r"\b(?:Deprecation|PendingDeprecation|Future)Warning\b")


def shim_home(text: str, package: str, name: str) -> str | None:
    """The dotted module `name` moved to, when a module file's `text` hands `name` out only
    through a deprecation shim in its `__getattr__`, else None. `package`: the dotted package
    its relative imports start from."""
    spans = declared(text).getattrs if "__getattr__" in text and name in text else ()
    m = _GETATTR.match(text, spans[0][0]) if spans else None  # the module's own, as `declarations` reads it
    if m is None:
        return None
    end = spans[0][1]
    body = text[m.end():end]
    if text_defines(text[:m.start()] + text[end:], name, top=True):
        return None  # defined apart from the shim too
    said = re.search(rf"^([ \t]*)(?:el)?if\b[^\n]*[\"']{re.escape(name)}[\"']", body, re.M)
    if said is None:
        return None
    branch = body[said.start():block_end(body, said.end(), len(said.group(1).expandtabs(4)))]
    moved = re.search(rf"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+[^\n]*\b{re.escape(name)}\b", branch, re.M)
    if moved is None or not (re.search(r"\bwarn\(", branch) and _WARNING.search(branch)):
        return None
    source = moved.group(1)
    dots = len(source) - len(source.lstrip("."))
    if dots:
        base = package.split(".")[:len(package.split(".")) - dots + 1] if package and dots <= package.count(".") + 1 else []
        if not base:
            return None
        source = ".".join([*base, *([source[dots:]] if source[dots:] else [])])
    return source


def deprecated_paths(docs: Mapping[str, Sequence[Reference]], code: Codebase, read: Callable[[str], str | None],
                     index: HistoryIndex) -> dict[str, list[ChangedRef]]:
    """By doc: its dotted references `pkg.mod.name` (an example's import, a role) whose module
    file (`read` gives its text now) hands `name` out through a deprecation shim; not when the
    doc names the new path too. Each dotted name is looked at once for every doc."""
    shims: dict[str, tuple[str, str, str] | None] = {}  # dotted name -> (module file, new home, commit label)
    out: dict[str, list[ChangedRef]] = {}
    for doc, refs in docs.items():
        mentioned = {r.name for r in refs}
        for ref in refs:
            if ref.kind != "method" or ref.name.count(".") < 2:
                continue
            if ref.name not in shims:
                shims[ref.name] = _shim(ref.name.split("."), code, read, index)
            found = shims[ref.name]
            if found is not None and f"{found[1]}.{ref.name.rsplit('.', 1)[1]}" not in mentioned and all(
                    c.ref != ref.name for c in out.get(doc, ())):
                out.setdefault(doc, []).append(ChangedRef(ref.name, ref.line, found[0], found[2],
                                                          f"{DEPRECATED_PATH} {found[1]}.{ref.name.rsplit('.', 1)[1]}"))
    return out


def _shim(parts: list[str], code: Codebase, read: Callable[[str], str | None],
          index: HistoryIndex) -> tuple[str, str, str] | None:
    """(the module file, the new home, the label of the commit that made the shim) when the
    module `parts[:-1]` hands `parts[-1]` out through a deprecation shim, else None."""
    k, path = code.module_holder(parts)
    if k != len(parts) - 1 or not code.module_defines(path, "__getattr__"):
        return None
    package = ".".join(parts[:-1] if path.endswith("/__init__.py") else parts[:-2])
    text = read(path)
    home = shim_home(text, package, parts[-1]) if text is not None else None
    if home is None or home == ".".join(parts[:-1]):
        return None
    commit = _made_a_shim(index, path, package, parts[-1])
    return (path, home, commit) if commit is not None else None


def _made_a_shim(index: HistoryIndex, path: str, package: str, name: str) -> str | None:
    """The label of the commit that made `path` hand `name` out only through its shim (a merge's:
    the merged commit that did), or None when its last `VERSIONS_READ` versions all do."""
    head = index.latest()
    versions = index.earlier(path, head.seq + 1, limit=VERSIONS_READ) if head is not None else []

    def shim(i: int) -> bool:
        text = index.versions.text_at(versions[i][0].sha, versions[i][1])
        return text is not None and shim_home(text, package, name) is not None

    if not versions or not shim(0) or shim(len(versions) - 1):
        return None
    lo, hi = 0, len(versions) - 1  # newest first: the oldest version that is a shim
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if shim(mid):
            lo = mid
        else:
            hi = mid
    commit, then = versions[lo]
    return merged_change(index, commit, then, lambda sha: shim_home(
        index.versions.text_at(sha, then) or "", package, name) is not None).label()

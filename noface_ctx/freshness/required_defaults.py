"""Written defaults of required parameters (`required_written`): a signature a doc writes that gives a default to a
parameter the code requires is stale, whenever it was written: a reader calling the callable without it gets a
TypeError (more-itertools' `.. autofunction:: sample(iterable, k=1, weights=None)` while `sample(iterable, k,
weights=None, ...)` requires `k`).

Written signatures: a callable directive (`.. function::`, `.. method::`, `.. class::`, `py:` too) or an autodoc
entry given a signature (`.. autofunction:: name(...)`), a line ending in `\\` continuing it, each further signature
line below it (`directive_lines`); and a Markdown
signature line (a heading, a list item or a line that is only a code span holding `name(...)`, `def ` allowed,
as API pages list them). A call written in a sentence or an example passes the value: it is no signature.

The code's side: the one definition of the callable's last name (`Class.method` inside its class; a class's own
`__init__`), in the one Python module (tests and demos aside) defining it, or the module the doc's dotted name or
`module` / `currentmodule` context names when several do. No telling, so nothing reported: a callable defined twice
at its level (overloads, `if`/`else`), reassigned, decorated by anything but a plain wrapper (`SAFE_DECORATORS`), a
class with a metaclass, `__new__` or no `__init__` of its own; a parameter the code does not name (`*args` /
`**kwargs` absorb it: a removed keyword is another rule's) or gives a default, whatever it is (a changed default
is the defaults rule's). Blame: the commit that wrote the line (`written_since.dated_starts`, read back past one reach
of versions; none when older than all it reads) when the code required the
parameter then, else the code's commit that made it required (its versions read back, `CODE_VERSIONS` at most).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from noface_ctx.datatypes import ChangedRef
from noface_ctx.freshness.born import _python_source, path_then
from noface_ctx.freshness.codebase import Codebase
from noface_ctx.freshness.decorator_lines import decorators
from noface_ctx.freshness.definitions import _headers, _normal, block_end
from noface_ctx.freshness.directive_lines import joined
from noface_ctx.freshness.held_defaults import split_parameters
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.keyword_contract import SAFE_DECORATORS
from noface_ctx.freshness.never_defined import branch_commit
from noface_ctx.freshness.parameters import Param, parameters
from noface_ctx.freshness.references import IDENT
from noface_ctx.freshness.scan import DocScan
from noface_ctx.freshness.written_since import dated_starts

CODE_VERSIONS = 32  # the defining file's versions read back for the commit that made a parameter required
_NAME = rf"((?:{IDENT}\.)*{IDENT})"
_DIRECTIVE = re.compile(rf"^\s*\.\.\s+(?:py:)?(?:function|method|classmethod|staticmethod|class|auto(?:function|method|class))"
                        rf"::\s+{_NAME}\s*\((.*)\)\s*(?:->.*)?$")
_MARKDOWN = re.compile(rf"^\s*(?:#{{1,6}}\s+|[*+-]\s+)?`(?:def\s+|class\s+)?{_NAME}\((.*)\)(?:\s*->[^`]*)?`\s*(?:[-:\u2014]\s.*)?$")
_GIVEN = re.compile(rf"^\s*({IDENT})\s*(?::[^=]+)?=\s*\S")
_CONTEXT = re.compile(r"^\s*\.\.\s+(?:py:)?(?:current)?module::\s+([\w.]+)\s*$")
Written = tuple[int, str, str, tuple[str, ...]]  # (line, callable as written, module context, parameters given a default)


def written_signatures(text: str, markdown: bool) -> list[Written]:
    """The signatures `text` writes with at least one parameter given a default (see the module docstring)."""
    if "=" not in text:
        return []
    out: list[Written] = []
    context = ""
    for i, line in enumerate(joined(text.split("\n"))):  # a directive continued with `\` read as one line
        if (c := _CONTEXT.match(line)) is not None:
            context = c.group(1) if c.group(1) != "None" else ""
        if ".. " in line:
            m = _DIRECTIVE.match(line)
        else:
            m = _MARKDOWN.match(line) if markdown and "`" in line else None
        if m is None or "=" not in m.group(2):
            continue
        given = tuple(g.group(1) for p in split_parameters(m.group(2).replace("\\*", "*"))
                      if "[" not in p.split("=", 1)[0] and (g := _GIVEN.match(p)) is not None)
        if given:
            out.append((i + 1, m.group(1), context, given))
    return out


def code_parameters(text: str, name: str) -> list[Param] | None:
    """The parameters of the one definition of `name` (`Class.method`; a class: its own `__init__`) in `text`, or
    None when there is no telling (see the module docstring)."""
    headers = _headers(text)
    body = headers.text
    cls, _, meth = name.rpartition(".")
    lo, hi, indent = 0, len(body), 0
    if cls:
        owners = [h for h in headers.by_name.get(cls, []) if h[0] == 0 and h[3] == "class"]
        if len(owners) != 1:
            return None
        lo, hi = owners[0][1], block_end(body, owners[0][2], 0)
        inside = [h[0] for hits in headers.by_name.values() for h in hits if lo < h[1] < hi]
        if not inside:
            return None
        indent = min(inside)
    level = [h for h in headers.by_name.get(meth, []) if lo <= h[1] < hi and h[0] == indent]
    if len(level) != 1 or re.search(rf"(?m)^[^\S\n]{{{indent}}}{re.escape(meth)}\s*(?::[^=\n]*)?=(?!=)", body[lo:hi]):
        return None  # twice at its level (overloads, `if`/`else`), or reassigned (`run = wrap(run)`)
    _indent, start, end, kw = level[0]
    if not {d.split("(", 1)[0].lstrip("@").strip().rsplit(".", 1)[-1] for d in decorators(body, start)} <= SAFE_DECORATORS - {"overload"}:
        return None
    if kw == "class":
        colon = body.find(":", end)
        if "metaclass" in body[end:colon if colon > 0 else end] or cls:
            return None
        inner = f"{meth}.__init__"
        return None if re.search(r"\bdef __new__\b", body[start:block_end(body, end, 0)]) else code_parameters(text, inner)
    if kw != "def":
        return None
    return parameters(_normal(body[start:block_end(body, end, indent)], with_body=False))


def required_written(plans: Sequence[tuple[DocScan, Commit]], index: HistoryIndex, code: Codebase,
                     read: Callable[[str], str | None]) -> dict[str, list[ChangedRef]]:
    """By doc path, each parameter a written signature gives a default that the code requires (`what`:
    "required NAME"), blamed as the module docstring says; `read`: a file's text now."""
    found: list[tuple[DocScan, Commit, int, str, str, str, str]] = []  # (scan, since, line, callable, parameter, file, qualified)
    for s, since in plans:
        for line, written, context, given in written_signatures(s.doc.text, not s.doc.path.endswith((".rst", ".txt"))):
            home = _home(code, written, context, read)
            if home is None:
                continue
            path, qualified, params = home
            required = {n for kind, n, default in params if kind in ("pos", "any", "kw") and not default}
            found += [(s, since, line, written, p, path, qualified) for p in given if p in required]
    if not found:
        return {}
    words = [_stated(s.doc.text.split("\n")[line - 1], written, param) for s, _since, line, written, param, *_r in found]
    begun = dated_starts(index, [(word, s.doc.path, since) for word, (s, since, *_r) in zip(words, found, strict=True)])
    out: dict[str, list[ChangedRef]] = {}
    for (s, _since, line, written, param, path, qualified), (start, versions), word in zip(found, begun, words, strict=True):
        if start is None:
            continue  # older than every version read: where it was written is not known (never the reach's end)
        blame = branch_commit(index, start, versions, s.doc.path, word) if _required_at(
            index, start, path, qualified, param) else _made_required(index, path, qualified, param, start)
        if blame is not None:
            out.setdefault(s.doc.path, []).append(ChangedRef(written, line, path, blame.label(), f"required {param}"))
    return out


def _stated(line: str, written: str, param: str) -> str:
    """What a line states of the parameter: its text from the callable's name through the parameter's default
    (`sample(iterable, k=1`: the parameters added after it, or the directive's name, changed later say nothing of it)."""
    m = re.search(rf"{re.escape(written)}\s*\((?:[^=]*?=[^,]*,)*?[^=]*?\b{re.escape(param)}\s*(?::[^=]+)?=\s*[^,)]*", line)
    return m.group() if m else line.strip()


def _home(code: Codebase, written: str, context: str, read: Callable[[str], str | None]) -> tuple[str, str, list[Param]] | None:
    """(the file, the qualified name, the parameters) of the callable a doc writes, or None (see the module docstring)."""
    parts = written.split(".")
    qualified = ".".join(parts[-2:]) if len(parts) > 1 and parts[-2][:1].isupper() else parts[-1]
    homes = []
    for path in code.defining_files(parts[-1]):
        if not _python_source(path) or path.endswith(".pyi"):
            continue  # a stub types the code, it does not run
        params = code_parameters(read(path) or "", qualified)
        if params is not None:
            homes.append((path, qualified, params))
    if len(homes) > 1:
        module = ".".join(parts[:-len(qualified.split("."))]) or context
        homes = [h for h in homes if module and h[0].removesuffix(".py").removesuffix("/__init__").endswith(module.replace(".", "/"))]
    return homes[0] if len(homes) == 1 else None


def _required_at(index: HistoryIndex, commit: Commit, path: str, qualified: str, param: str) -> bool:
    then = path_then(index, path, commit.seq)
    params = code_parameters(index.versions.text_at(commit.sha, then) or "", qualified)
    return params is not None and any(n == param and not default and kind in ("pos", "any", "kw") for kind, n, default in params)


def _made_required(index: HistoryIndex, path: str, qualified: str, param: str, since: Commit) -> Commit | None:
    """The commit after `since` from which the file's definition requires `param` (its versions newest first), or None."""
    latest = index.latest()
    versions = [(c, p) for c, p in index.earlier(path, latest.seq + 1 if latest else 1 << 62, limit=CODE_VERSIONS) if c.seq > since.seq]
    index.prefetch((c.sha, p) for c, p in versions)
    made = None
    for commit, _then in versions:
        if not _required_at(index, commit, path, qualified, param):
            break
        made = commit
    return made if made is not None and (len(versions) < CODE_VERSIONS or made is not versions[-1][0]) else None

"""Parameters of a definition and whether a signature change is one a caller notices.

`parameters(defn)` reads the parameter list of a `noface_ctx.freshness.definitions.definition`
(a function's header, a class's `__init__`); `compatible` tells whether every call written
against the old list still means the same against the new one; `compatible_change` asks it of
two definitions (a class's bases may change when the old ones stay ancestors: `bases`); `binds` tells whether one call (its positional count and keyword names) fits a
list. `noface_ctx.freshness.notice` uses them to decide which changes a doc would notice.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from noface_ctx.freshness.abc_lineage import abc_ancestors
from noface_ctx.freshness.definitions import _first, is_container, signature
from noface_ctx.freshness.number_values import same_default

Param = tuple[str, str, str]  # (kind, name, default): kind "pos" (positional only), "any", "kw", "*", "**"


def parameters(defn: str) -> list[Param] | None:
    """The parameters of a definition's callable part (a function's header, a class's
    `__init__`), `self`/`cls` first aside; None when there is none to read (a class without
    `__init__`) or it does not parse."""
    lines = defn.split("\n")
    line = lines[0] if not is_container(defn) else next(
        (ln for ln in lines[1:] if re.match(r"^(?:async )?def __init__ \(", ln)), None)
    if line is None:
        return None
    toks = line.split(" ")
    try:
        start = toks.index("(")
    except ValueError:
        return None
    depth, end = 0, -1
    for i in range(start, len(toks)):
        depth += toks[i] in ("(", "[", "{")
        depth -= toks[i] in (")", "]", "}")
        if depth == 0:
            end = i
            break
    if end < 0:
        return None
    groups: list[list[str]] = [[]]
    depth = 0
    for tok in toks[start + 1:end]:
        depth += tok in ("(", "[", "{")
        depth -= tok in (")", "]", "}")
        if tok == "," and depth == 0:
            groups.append([])
        else:
            groups[-1].append(tok)
    out: list[Param] = []
    kind = "any"
    for g in (g for g in groups if g):
        if g == ["/"]:
            out = [("pos", n, d) for _, n, d in out]
        elif g == ["*"]:
            kind = "kw"
        elif g[:2] == ["*", "*"] and len(g) == 3:
            out.append(("**", g[2], ""))
        elif g[0] == "*" and len(g) == 2:
            out.append(("*", g[1], ""))
            kind = "kw"
        elif re.fullmatch(r"[A-Za-z_]\w*", g[0]) and (len(g) == 1 or g[1] == "="):
            out.append((kind, g[0], " ".join(g[2:])))
        elif out and out[-1][2] and not re.fullmatch(r"[A-Za-z_]\w*", g[0]):  # `errorbar=("ci", 95)`, its
            out[-1] = (out[-1][0], out[-1][1], f"{out[-1][2]} , {' '.join(g)}")  # parentheses dropped as grouping
        else:
            return None
    if out and out[0][1] in ("self", "cls") and out[0][0] in ("pos", "any"):
        out = out[1:]
    lead = 0  # `def url_for(self, __name)`: leading `__x` parameters are positional-only by convention (PEP 484)
    while lead < len(out) and out[lead][0] == "any" and _PRIVATE.fullmatch(out[lead][1]):
        lead += 1
    return [("pos", n, d) for _, n, d in out[:lead]] + out[lead:]


_PRIVATE = re.compile(r"__\w*[^_\W]_?")  # `__name`, not `__init__`


def compatible(before: list[Param], now: list[Param]) -> bool:
    """Whether every call written against `before` still means the same against `now`:
    nothing removed, renamed, reordered, made positional- or keyword-only, given another
    default or made required; new parameters have defaults (or are `*args` / `**kwargs`)."""
    def positional(ps: list[Param]) -> list[Param]:
        return [p for p in ps if p[0] in ("pos", "any")]

    old_pos, new_pos = positional(before), positional(now)
    if len(new_pos) < len(old_pos):
        return False
    for (k0, n0, d0), (k1, n1, d1) in zip(old_pos, new_pos, strict=False):
        if (n0 != n1 and k0 != "pos") or (k1 == "pos" and k0 != "pos") or (d0 and d0 != d1):
            return False
    new_by_name = {n: (k, d) for k, n, d in now}
    for k0, n0, d0 in before:
        if k0 == "kw" and (new_by_name.get(n0, ("", ""))[0] not in ("kw", "any") or (d0 and new_by_name[n0][1] != d0)):
            return False
        if k0 in ("*", "**") and not any(k == k0 for k, _, _ in now):
            return False
    old_names = {n for _, n, _ in before}
    return all(d or k in ("*", "**") for k, n, d in now if n not in old_names) and \
        all(d or k in ("*", "**") for (k, n, d) in new_pos[len(old_pos):])


def changed_parameters(before: str, now: str) -> set[str] | None:
    """The parameters of `before` a call could notice changing in `now`: gone (removed or
    renamed), made positional- or keyword-only, or given another default; None when a list does
    not parse. A number written another way (`0.85` → `.850`) is the same default (`number_values`)."""
    pb, pn = parameters(before), parameters(now)
    if pb is None or pn is None:
        return None
    new = {n: (k, d) for k, n, d in pn}
    return {n for k, n, d in pb if k not in ("*", "**") and (  # `*args`/`**kwargs`: no caller writes their names
        n not in new or not same_default(new[n][1], d) or (new[n][0] != k and "any" not in (k, new[n][0]))
        or (k == "any" and new[n][0] != "any"))}


def positional_only_now(before: list[Param], now: list[Param]) -> set[str]:
    """The parameters of `before` whose only change is that a call can pass them by position
    only: made positional-only (`row` → `row, /`), or positional-only and renamed in its place
    (`__name` → `name, /`: a positional-only name is no caller's concern)."""
    old_names, new_names = {n for _, n, _ in before}, {n for _, n, _ in now}
    slots = zip([p for p in before if p[0] in ("pos", "any")], [p for p in now if p[0] in ("pos", "any")], strict=False)
    return {n0 for (_, n0, d0), (k1, n1, d1) in slots
            if k1 == "pos" and d0 == d1 and (n0 == n1 or (n0 not in new_names and n1 not in old_names))}


def keyword_only_now(before: list[Param], now: list[Param]) -> set[str]:
    """The parameters of `before` whose only change is being made keyword-only (`b` → `*, b`), a
    default given where there was none aside (`registry` → `*, registry=...`: a keyword still fits)."""
    new = {n: (k, d) for k, n, d in now}
    return {n for k, n, d in before if k == "any" and (new.get(n) == ("kw", d) or (
        not d and new.get(n, ("", ""))[0] == "kw" and new[n][1]))}


def written_validly(before: list[Param], now: list[Param], shapes: Iterable[tuple[int, Iterable[str]]]) -> set[str]:
    """The parameters of `before` whose only change is a marker (made positional-only or
    keyword-only, `/`, `*`) that no call of these shapes (positional count, keyword names)
    passes the way it no longer takes: by keyword for a positional-only one, at its place for a
    keyword-only one."""
    shapes = [(count, set(keywords)) for count, keywords in shapes]
    slots = [n for k, n, _ in before if k in ("pos", "any")]
    return {n for n in positional_only_now(before, now) if not any(n in kws for _, kws in shapes)} | {
        n for n in keyword_only_now(before, now) if not any(count > slots.index(n) for count, _ in shapes)}


def same_header(before: str, now: str, ancestors: Callable[[Iterable[str]], set[str]] | None = None) -> bool:
    """Whether two `definition`s' headers agree but for the parameter list (`async`, a
    function's name and a class's bases, whose old ones may stay ancestors: `compatible_change`)."""
    if is_container(before):
        return _first(before) == _first(now) or _same_lineage(_first(before), _first(now), ancestors)
    strip = re.compile(r"\( .*\) :$|\(\s*\) :$")
    return _first(before) == _first(now) or strip.sub("", _first(before)) == strip.sub("", _first(now))


def compatible_change(before: str, now: str, ancestors: Callable[[Iterable[str]], set[str]] | None = None) -> bool:
    """Whether two `definition`s differ only in ways no caller notices: the same header but for
    the parameter list, and `compatible` parameters. A container's bases may change when every
    old base is still a base or, through `ancestors(new bases)`, an ancestor (flask's `Flask(Scaffold)`
    → `Flask(App)` with `App(Scaffold)`); its parameters are its `__init__`'s."""
    pb, pn = parameters(before), parameters(now)
    if is_container(before):
        if not same_header(before, now, ancestors):
            return False
        return (pb is None and pn is None) or (pb is not None and pn is not None and compatible(pb, pn))
    if pb is None or pn is None:
        return signature(before) == signature(now)
    return same_header(before, now) and compatible(pb, pn)


def bases(header: str) -> tuple[str, list[str], list[str]] | None:
    """A container header's (name, bases by their last dotted part, a subscript aside, keyword
    arguments), from its comparable first line (`class A ( x . B , metaclass = M ) :`)."""
    toks = header.split(" ")
    if len(toks) < 2:
        return None
    if "(" not in toks:
        return toks[1], [], []
    inner = toks[toks.index("(") + 1:len(toks) - 1 - toks[::-1].index(")")]
    groups = [g.strip() for g in " ".join(inner).split(" , ") if g.strip()]
    return toks[1], [g.replace(" ", "").split("[", 1)[0].rsplit(".", 1)[-1] for g in groups if " = " not in g], \
        [g for g in groups if " = " in g]


def _same_lineage(old: str, new: str, ancestors: Callable[[Iterable[str]], set[str]] | None) -> bool:
    a, b = bases(old), bases(new)
    if a is None or b is None or a[0] != b[0] or a[2] != b[2]:
        return False
    missing = set(a[1]) - set(b[1]) - {"object"} - abc_ancestors(b[1])  # `class A(object)` → `class A`: the same
    return not missing or (ancestors is not None and missing <= ancestors(b[1]))  # class; `Mapping` → `MutableMapping`


def binds(params: list[Param], positional: int, keywords: Iterable[str]) -> bool:
    """Whether a call with `positional` arguments and these keyword arguments fits `params`."""
    slots = [p for p in params if p[0] in ("pos", "any")]
    star = any(k == "*" for k, _, _ in params)
    dstar = any(k == "**" for k, _, _ in params)
    if positional > len(slots) and not star:
        return False
    filled = {n for _, n, _ in slots[:positional]}
    for name in keywords:
        if any(n == name and k in ("any", "kw") for k, n, _ in params):
            if name in filled:
                return False
            filled.add(name)
        elif not dstar:  # into `**kwargs`: a positional-only parameter of that name stays as it was
            return False
    return all(d or n in filled for k, n, d in params if k in ("pos", "any", "kw"))

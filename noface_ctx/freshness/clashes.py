"""Docs that contradict each other: the same symbol stated with another signature, default or type."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any


def find_clashes(chosen: Sequence[Any]) -> list[str]:
    """Lines for included docs that state different things about the same symbol: a different
    signature (parameter names), default value or type annotation, saying what differs.

    Accepts `Candidate`s (or `Chosen`s) with `.staleness`; what a doc states about a symbol is
    a call-shaped span in its prose (`connect(host, timeout=30)`), not a usage in an example.
    When one of the two is flagged stale, the line says which one to distrust.
    """
    docs = []
    for item in chosen:
        cand = getattr(item, "candidate", item)
        st = getattr(cand, "staleness", None)
        if getattr(cand, "kind", "doc") == "doc" and st is not None and st.signatures:
            docs.append((cand.path, st, {sym: _params(args) for sym, args in st.signatures}))
    docs.sort(key=lambda d: d[0])
    lines = []
    for i, (path_a, a, sigs_a) in enumerate(docs):
        for path_b, b, sigs_b in docs[i + 1:]:
            for sym in sorted(set(sigs_a) & set(sigs_b)):
                diff = _differs(sigs_a[sym], sigs_b[sym], path_a, path_b)
                if diff is None:
                    continue
                line = f"`{path_a}` and `{path_b}` disagree about `{sym}`: {diff}"
                if a.stale != b.stale:
                    line += f" — `{path_a if a.stale else path_b}` may be outdated; check the code."
                lines.append(line)
    return lines


def _params(args: str) -> dict[str, tuple[str, str]] | None:
    """`(a, b: int = 3)` → {name: (type, default)}; None when it is a call with values, not a signature."""
    from noface_ctx._lexical import split_outside_brackets  # lexical loads numpy: `check-docs` never needs it

    inner = args.strip()[1:-1].strip()
    if not inner:
        return {}
    parts = split_outside_brackets(inner)
    out: dict[str, tuple[str, str]] = {}
    for p in parts:
        p = p.strip().lstrip("*")
        if p in ("", "/"):
            continue
        m = re.match(r"^([A-Za-z_]\w*)\s*(?::\s*([^=]+?))?\s*(?:=\s*(.+))?$", p)
        if m is None:
            return None  # a literal or an expression: a call, not a signature
        out[m.group(1)] = ((m.group(2) or "").strip(), (m.group(3) or "").strip())
    return out


def _differs(a: dict[str, tuple[str, str]] | None, b: dict[str, tuple[str, str]] | None,
             path_a: str, path_b: str) -> str | None:
    if a is None or b is None or not a or not b:
        return None
    if list(a) != list(b) and any(t or d for t, d in (*a.values(), *b.values())):
        return f"parameters ({', '.join(a)}) in `{path_a}` but ({', '.join(b)}) in `{path_b}`"
    for name in [n for n in a if n in b]:  # other names without types or defaults: different calls, not a clash
        (ta, da), (tb, db) = a[name], b[name]
        if da and db and da != db:
            return f"`{name}` defaults to `{da}` in `{path_a}` but `{db}` in `{path_b}`"
        if ta and tb and ta != tb:
            return f"`{name}` is `{ta}` in `{path_a}` but `{tb}` in `{path_b}`"
    return None

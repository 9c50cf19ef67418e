"""How many design docs an issue deserves: a complexity score in [0, 1] and K = the doc cap.

A tiny local fix (one file, a short bug report, "typo") gets 0–2 docs; a cross-cutting feature
(many files across directories, "every stage", a long design discussion) gets up to
`max_context_docs`. Every contribution is listed in `reasons`, so the report can say why.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TypedDict

from noface_ctx._filetypes import MENTIONED_PATH_EXTENSIONS, bare
from noface_ctx._state import cached
from noface_ctx.datatypes import Issue
from noface_ctx.issue.environment import query_text
from noface_ctx.rank.hints import looks_like_code

BASELINE = 0.3

_CROSS_WORDS = (
    "across", "all stages", "every stage", "everywhere", "throughout", "cross-cutting", "crosscutting",
    "architecture", "architectural", "redesign", "refactor", "restructure", "migrate", "migration",
    "end-to-end", "pipeline", "subsystem", "subsystems", "multiple modules", "all modules",
    "every module", "consistently", "overhaul", "framework", "protocol", "schema", "api change",
)
_LOCAL_WORDS = (
    "typo", "one-line", "one line", "off-by-one", "small fix", "tiny", "minor", "trivial", "wording", "docstring", "comment", "lint", "formatting", "bump", "cosmetic", "spelling",
)
_TYPE_WEIGHT = {
    "epic": 0.25, "feature": 0.15, "design": 0.15, "enhancement": 0.1, "task": 0.0,
    "bug": -0.05, "chore": -0.1, "docs": -0.05, "documentation": -0.05,
}
_CODE_EXTS = bare(MENTIONED_PATH_EXTENSIONS)  # from filetypes: now any extension an issue may name (.lock, .png, .m, ...)
_PATHLIKE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-][\w.-]*\.([A-Za-z0-9]{1,5}))(?![\w/])")
_DIRLIKE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)+)(?=[\s`'\",;:)]|$)")
# Tests beside the code, and tool dot-dirs, don't make a change cross-cutting.
_IGNORED_DIR = re.compile(r"(^|/)(tests?|spec|__tests__|\.[^/]+)/")
_IDENT = re.compile(r"`([^`\n]+)`|\b([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(\()?")


class ComplexityDict(TypedDict):
    """`Complexity` as it appears in the prompt's JSON details."""

    score: float
    k: int
    reasons: list[str]


@dataclass(frozen=True, slots=True)
class Complexity:
    """How complex the issue looks (`score` in [0, 1]), the doc cap `k`, and why."""

    score: float
    k: int
    reasons: tuple[str, ...] = ()

    def to_dict(self) -> ComplexityDict:
        """The JSON form (score rounded to 3 places)."""
        return {"score": round(self.score, 3), "k": self.k, "reasons": list(self.reasons)}


def assess_complexity(
    issue: Issue,
    *,
    known_paths: Collection[str] = (),
    known_symbols: Collection[str] = (),
    max_docs: int,
) -> Complexity:
    """Score the issue from its manifest, the files and symbols it names, scope words, type and length."""
    text = query_text(issue)
    parts: list[tuple[float, str]] = []
    primary_files = _manifest_signal(issue, parts)
    named = _named_files(text, known_paths)
    symbols = _named_symbols(text, known_symbols, named)
    _count_signal(len(named), "file", ((2, 0.05), (4, 0.1), (8, 0.15)), parts, named)
    _count_signal(len(symbols), "symbol", ((3, 0.05), (6, 0.1), (12, 0.15)), parts, symbols)
    dirs = {str(PurePosixPath(p).parent) for p in (*primary_files, *named) if not _IGNORED_DIR.search(p)}
    if len(dirs) >= 3:
        parts.append((0.15, f"touches {len(dirs)} directories ({', '.join(sorted(dirs)[:4])}): cross-cutting"))
    _scope_signal(text, issue.labels, parts)
    kind = (issue.issue_type or "").strip().lower()
    if _TYPE_WEIGHT.get(kind):
        parts.append((_TYPE_WEIGHT[kind], f"issue type {kind}"))
    words = len(re.findall(r"\w+", text))
    if words < 30:
        parts.append((-0.1, f"short issue ({words} words)"))
    elif words > 300:
        parts.append((0.2, f"long issue ({words} words)"))
    elif words > 120:
        parts.append((0.1, f"medium-length issue ({words} words)"))
    score = min(1.0, max(0.0, BASELINE + sum(w for w, _ in parts)))
    k = max(0, min(max_docs, int(score * (max_docs + 1))))
    reasons = [f"{why} ({w:+.2f})" for w, why in parts]
    reasons.append(f"score {score:.2f} (baseline {BASELINE:.2f}) → K = {k} of max {max_docs}")
    return Complexity(round(score, 4), k, tuple(reasons))


def _manifest_signal(issue: Issue, parts: list[tuple[float, str]]) -> list[str]:
    manifest = issue.manifest
    if manifest is None or manifest.empty:
        return []
    files = [e.path for e in manifest.primary]
    size = sum(3 if e.is_dir else 1 for e in manifest.primary)
    if size == 1:
        parts.append((-0.05, "manifest: one primary file (local change)"))
    elif size:
        weight = 0.05 if size <= 3 else 0.15 if size <= 6 else 0.25
        parts.append((weight, f"manifest: {size} primary file(s)"))
    if manifest.read:
        parts.append((min(0.1, 0.02 * len(manifest.read)), f"manifest: {len(manifest.read)} read-only file(s)"))
    return files


@cached(maxsize=4)
def _path_set(paths: tuple[str, ...]) -> frozenset[str]:
    """The known paths as a set (memoised)."""
    return frozenset(paths)


def _ending_with(token: str, paths: Collection[str]) -> list[str]:
    """The paths that are `token` or end with `/token`, stopping at two (only a unique one counts).
    An issue names a few paths: scanning the list for each beats a table of every suffix."""
    tail = "/" + token
    found: list[str] = []
    for p in paths:
        if p == token or p.endswith(tail):
            found.append(p)
            if len(found) > 1:
                break
    return found


@cached(maxsize=4)
def _symbol_table(symbols: frozenset[str]) -> frozenset[str]:
    """Qualified names plus their last parts (memoised: the index's name set is reused)."""
    return symbols | {s.rsplit(".", 1)[-1] for s in symbols}


def _named_files(text: str, known_paths: Collection[str]) -> list[str]:
    """Paths the issue names: known repo paths (whole or by unique suffix), or path-like tokens."""
    found: dict[str, None] = {}
    paths = tuple(known_paths)
    known = _path_set(paths)
    for m in _PATHLIKE.finditer(text):
        token, ext = m.group(1).rstrip("."), m.group(2).lower()
        if token in known:
            found[token] = None
        elif len(ending := _ending_with(token, paths)) == 1:
            found[ending[0]] = None
        elif ext in _CODE_EXTS and ("/" in token or len(token) > len(ext) + 3):
            found[token] = None
    for m in _DIRLIKE.finditer(text):
        token = m.group(1)
        if any(p.startswith(token) for p in known) or (not known and token.count("/") >= 1 and len(token) > 3):
            found[token] = None
    return list(found)


def _named_symbols(text: str, known_symbols: Collection[str], named_files: list[str]) -> list[str]:
    """Identifiers the issue names that look like code (or are known symbols)."""
    known = _symbol_table(frozenset(known_symbols))
    file_words = {w for p in named_files for w in re.split(r"[/.]", p)}
    found: dict[str, None] = {}
    for m in _IDENT.finditer(text):
        if m.group(1) is not None:  # `code`: one identifier counts; in longer snippets, code-looking ones
            candidates = re.findall(r"[A-Za-z_][A-Za-z0-9_.]*", m.group(1))
            codey = re.fullmatch(r"\s*[A-Za-z_][\w.]*(\(\))?\s*", m.group(1)) is not None
        else:
            candidates, codey = [m.group(2)], bool(m.group(3))
        for ident in candidates:
            ident = ident.strip(".")
            last = ident.rsplit(".", 1)[-1]
            looks = codey or looks_like_code(last, edge_underscores=True, acronym_humps=False) or "." in ident
            if len(last) < 3 or last in file_words or "/" in ident:
                continue
            if (known and (ident in known or last in known) and looks) or (not known and looks):
                found[last] = None
    return list(found)


def _count_signal(
    n: int, what: str, steps: tuple[tuple[int, float], ...], parts: list[tuple[float, str]], names: list[str]
) -> None:
    weight = 0.0
    for threshold, w in steps:
        if n >= threshold:
            weight = w
    if weight:
        shown = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
        parts.append((weight, f"names {n} {what}s ({shown})"))


def _scope_signal(text: str, labels: Collection[str], parts: list[tuple[float, str]]) -> None:
    text = re.sub(r"\[\[[^\]]*\]\]", " ", text)  # a linked doc's name says nothing about scope
    low = " ".join([text.lower(), *(label.lower() for label in labels)])
    cross = [w for w in _CROSS_WORDS if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", low)]
    local = [w for w in _LOCAL_WORDS if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", low)]
    if cross:
        parts.append((min(0.25, 0.07 * len(cross)), f"cross-cutting words: {', '.join(cross[:5])}"))
    if local:
        parts.append((-min(0.2, 0.08 * len(local)), f"local-change words: {', '.join(local[:5])}"))

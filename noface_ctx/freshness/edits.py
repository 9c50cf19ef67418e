"""What changed in the code since a judgement was made: which identifiers it can affect.

A doc's judgement depends on the code only through the names it uses (`DocScan.words`): whether
each resolves, and its definition now. A change to a file can change those answers only for the
identifiers on the lines it adds or removes and for the definitions around those lines whose
comparable text differs (`definitions.definition`: a body change changes the function around
it; a comment appended after it does not). `edits_since(root, base)` answers that set for the work
tree against a commit, from one `git diff -U0 base` and the two versions of each file: against
HEAD it is the uncommitted edits; against an older HEAD, the commits since and the edits.

Each judgement is stored with the HEAD and the edit state (`edit_state`: path → content hash of
each file with uncommitted edits) it was made under, so it survives a commit, or an edit, that
touches none of the doc's words: the pre-commit hook re-judges only the docs that name what
changed. Approximation, on purpose: a base class's own base changing is not followed (the class
header line is what counts).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

from noface_ctx import _git as git
from noface_ctx.freshness.definitions import DEFINITION_HEADER, definition

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def identifiers(text: str) -> set[str]:
    """The identifiers in `text` (the words a doc's references are made of)."""
    return set(_IDENT.findall(text))


def edit_state(root: str | Path, paths: Iterable[str]) -> dict[str, str]:
    """path → hash of the work tree's content, for these files (those with uncommitted edits)."""
    return {p: _content_hash(Path(root) / p) for p in sorted(paths)}


def edits_since(root: str | Path, base: str, paths: Iterable[str] | None = None) -> Edits:
    """The work tree against commit `base`, in `paths` (by default every file `git diff base`
    names: one `git diff --name-only`)."""
    if paths is None:
        out = git.run(root, "diff", "--name-only", "-z", "--no-renames", base, check=False)
        paths = (p for p in out.split("\0") if p)
    return Edits(root, base, paths)


class Edits:
    """The work tree against commit `base`: the identifiers its differences can change, per file
    (`paths`: the files compared; `edits_since` finds them). Git runs only when asked (`touched`)."""

    def __init__(self, root: str | Path, base: str, paths: Iterable[str]) -> None:
        self.root = str(root)
        self.base = base
        self.paths = sorted(set(paths))
        self._touched: dict[str, set[str]] | None = None

    def touched(self, paths: Iterable[str] | None = None) -> set[str]:
        """The identifiers the differences in these files (all by default) can change."""
        if self._touched is None:
            self._touched = self._read() if self.paths else {}
        out: set[str] = set()
        for p in self.paths if paths is None else paths:
            out |= self._touched.get(p, set())
        return out

    def _read(self) -> dict[str, set[str]]:
        diff = git.run(self.root, "diff", "-U0", "--no-renames", "--no-color", "--no-ext-diff", self.base, "--",
                       *(f":(literal){p}" for p in self.paths), check=False)
        old_lines: dict[str, list[int]] = {}
        new_lines: dict[str, list[int]] = {}
        out: dict[str, set[str]] = {p: set() for p in self.paths}
        path: str | None = None
        for line in diff.split("\n"):
            if line.startswith("diff --git "):
                path = None
            elif line.startswith(("--- ", "+++ ")):
                name = line[4:]
                if name != "/dev/null":
                    path = name[2:] if name[:2] in ("a/", "b/") else name
                    if path not in out:  # a name git quoted: read every identifier of every file instead
                        return {p: self._all_identifiers(p) for p in self.paths}
            elif path is None:
                continue
            elif m := _HUNK.match(line):
                a, a_n, b, b_n = int(m[1]), int(m[2] or 1), int(m[3]), int(m[4] or 1)
                # lines on both sides of an insertion or deletion: what it joins or splits
                old_lines.setdefault(path, []).extend(range(a, a + a_n) if a_n else (a, a + 1))
                new_lines.setdefault(path, []).extend(range(b, b + b_n) if b_n else (b, b + 1))
            elif line[:1] in ("+", "-"):
                out[path] |= identifiers(line[1:])
        blobs = git.Blobs(self.root)
        try:
            for p in out:
                if p not in old_lines and p not in new_lines:  # no lines (added empty, binary, a mode change)
                    out[p] |= identifiers(p)
                    continue
                before = blobs.read(self.base, p)
                now = _read_text(Path(self.root) / p)
                if before is None or now is None:  # added or deleted: its path's words count too
                    out[p] |= identifiers(p)
                else:
                    out[p] |= changed_definitions(before, now, old_lines.get(p, []), new_lines.get(p, []))
        finally:
            blobs.close()
        return out

    def _all_identifiers(self, path: str) -> set[str]:
        blobs = git.Blobs(self.root)
        try:
            before = blobs.read(self.base, path) or ""
        finally:
            blobs.close()
        return identifiers(before) | identifiers(_read_text(Path(self.root) / path) or "") | identifiers(path)


def changed_definitions(before: str, now: str, before_lines: Iterable[int], now_lines: Iterable[int]) -> set[str]:
    """Names of the definitions around these 1-based lines (of `before` and of `now`) whose
    comparable text (`definitions.definition`, as `Class.method` and as `method`) differs."""
    chains = _enclosing(before, before_lines) | _enclosing(now, now_lines)
    out: set[str] = set()
    for chain in chains:
        for name in dict.fromkeys((".".join(chain), chain[-1])):
            if definition(before, name) != definition(now, name):
                out.add(chain[-1])
                break
    return out


def _enclosing(text: str, lines: Iterable[int]) -> set[tuple[str, ...]]:
    """The chains of definition names (`(Class, method)`, nesting by indentation like
    `definitions.definition`) open at these lines, each chain and its prefixes."""
    wanted = set(lines)
    out: set[tuple[str, ...]] = set()
    stack: list[tuple[int, str]] = []  # (indent, name) of the open definitions
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if stripped and stripped[0] not in ")]}":
            indent = len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())
            while stack and stack[-1][0] >= indent:
                stack.pop()
            if m := DEFINITION_HEADER.match(line):
                stack.append((indent, m.group("name")))
        if number in wanted:
            names = tuple(name for _, name in stack)
            out.update(names[:k] for k in range(1, len(names) + 1))
    return out


def _content_hash(path: Path) -> str:
    try:
        return hashlib.sha1(path.read_bytes()).hexdigest()
    except OSError:
        return "absent"


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None

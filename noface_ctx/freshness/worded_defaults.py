"""A default a doc states as a plain value word, naming no code (issue 25, rule 5): "Internally itsdangerous uses
HMAC and SHA1 for signing by default". The word (`SHA1`, `SHA-512`, `UTF-8`, `MD5`: letters then digits) is
looked for where the doc said it, not at HEAD: in the Python files at the doc's last commit and at the oldest of
its versions (of the 30 before) still saying the word, in one `git grep`. There, an attribute or
constant named as a default (`default_digest_method = staticmethod(hashlib.sha1)`, `DEFAULT_HASH`, `hash_default`)
whose value holds the word (case, `-` and `_` aside) is the default the doc meant; when every assignment of that
name now (in its file, followed through renames, or else wherever a grep at HEAD finds it) holds another value,
the doc states its value before: stale, blamed on the newest commit whose diff took the word away from the name
(`default_history.value_changes`; a merge: its branch's commit).

`word_statements(text)` gives (line, word) for each such sentence; `word_defaults` the findings, by doc path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import pairwise

from noface_ctx import _git as git
from noface_ctx.datatypes import ChangedRef, Doc
from noface_ctx.freshness.default_history import OLD_DEFAULT, value_changes
from noface_ctx.freshness.default_words import SENTENCE_END
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.merges import merged_change
from noface_ctx.freshness.presence import EXCLUDES
from noface_ctx.freshness.subject_defaults import prose_blocks

_SAYS = re.compile(r"(?i)\bby\s+default\b|\bdefaults?\s+(?:to|is)\b")
_WORD = re.compile(r"(?<![\w.-])((?:[A-Z]{2,6}|[a-z]{2,6})[-_]?\d+[a-z\d]?)(?![\w-]|\.\d)")  # `SHA-512`, `utf8`: not `Line2D`
_SLOT = re.compile(r"(?m)^[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=\n]+)?=(?!=)[ \t]*(.+)$")
_LINK = re.compile(r"`[^`]*<[^`>]+>`_{1,2}|\[[^\]\n]*\]\([^)\s]+\)|https?://\S+")
_NAMED_DEFAULT = re.compile(r"(?i)(?:^|_)defaults?(?:_|$)")
VERSIONS = 30  # the doc's earlier versions read to find the one that wrote the sentence


def word_statements(text: str) -> list[tuple[int, str]]:
    """(line, word) for each sentence saying "by default" / "defaults to" that writes no code (no backticks, no
    role) and one value word (see the module docstring); the word as written."""
    if "efault" not in text:
        return []
    lines = text.split("\n")
    out = []
    for lo, hi in prose_blocks(lines):
        block = "\n".join(lines[lo:hi])
        if "efault" not in block or _SAYS.search(block) is None:
            continue
        cuts = [0, *(m.end() for m in SENTENCE_END.finditer(block)), len(block)]
        for a, b in pairwise(cuts):
            if _SAYS.search(block, a, b) is None:
                continue
            sentence = _LINK.sub(lambda m: " " * len(m.group(0)), block[a:b])  # a link's text and address: no code
            words = {m.group(1) for m in _WORD.finditer(sentence)} if "`" not in sentence else set()
            if len(words) == 1:
                m = next(_WORD.finditer(sentence))
                out.append((lo + block.count("\n", 0, a + m.start()) + 1, m.group(1)))
    return out


def key(word: str) -> str:
    """A value word's comparable form: `SHA-512`, `sha512`, `sha_512` are one."""
    return re.sub(r"[-_]", "", word).lower()


def word_defaults(asks: Sequence[tuple[Doc, Commit, list[tuple[int, str]]]], index: HistoryIndex, root: str,
                  source: Callable[[str], bool], now_text: Callable[[str], str | None]) -> dict[str, list[ChangedRef]]:
    """The findings for the statements `asks` gives each doc (its last commit, `word_statements`)."""
    head = index.latest()
    if head is None or not asks:
        return {}
    by_origin: dict[Commit, set[str]] = {}  # where to look → the words
    said: list[tuple[Doc, int, str, list[Commit]]] = []
    for doc, since, stated in asks:
        for line, word in stated:
            origins = [since, *_written(doc, since, word, index)]
            said.append((doc, line, word, origins))
            for origin in origins:
                by_origin.setdefault(origin, set()).add(word)
    searched = {o.sha: o for o in by_origin if o.seq < head.seq}  # (a slot in a file unchanged since holds the word still)
    forms = {f for o in searched.values() for w in by_origin[o] for f in (w, w.lower(), w.upper(), key(w), key(w).upper(), w.replace("-", "_").lower())}
    slots: dict[tuple[Commit, str], set[tuple[str, str]]] = {}  # (origin, word key) → the default slots holding it then
    for rev, path, found in _grep_lines(root, sorted(searched), forms):
        for name, value in default_slots(found) if source(path) else ():
            for w in by_origin[searched[rev]]:
                if key(w) in _keys(value):
                    slots.setdefault((searched[rev], key(w)), set()).add((name, index.path_now(path, searched[rev].seq) or ""))
    def values_in(path: str, name: str) -> list[str]:
        return [v for n, v in default_slots(now_text(path) or "") if n == name] if path else []
    moved = {n for found in slots.values() for n, p in found if not values_in(p, n)}  # not where it was: looked for
    now = git.grep_words(root, ["HEAD"], moved, exclude=EXCLUDES) if moved else {}
    out: dict[str, list[ChangedRef]] = {}
    for doc, line, word, origins in said:
        for name, path in sorted({slot for o in origins for slot in slots.get((o, key(word)), ())}):
            files = [path] if values_in(path, name) else sorted(p for p in now.get(name, ()) if source(p))
            values = [v for p in files for v in values_in(p, name)]
            if not values or any(key(word) in _keys(v) for v in values):
                continue
            blamed = _blame(index, files, name, word, head)
            if blamed is not None:
                out.setdefault(doc.path, []).append(ChangedRef(name, line, blamed[1], blamed[0], OLD_DEFAULT))
                break
    return out


def _written(doc: Doc, since: Commit, word: str, index: HistoryIndex) -> list[Commit]:
    """The doc's oldest version (of its `VERSIONS` before `since`) from which on it says "default" and `word` (the
    sentence may have been reworded since)."""
    found: list[Commit] = []
    for commit, path in index.earlier(doc.path, since.seq, limit=VERSIONS):
        text = index.versions.text_at(commit.sha, path) or ""
        if word not in text or "efault" not in text:
            break
        found = [commit]
    return found


def _grep_lines(root: str, revs: list[str], words: set[str]) -> list[tuple[str, str, str]]:
    """(rev, path, line) of each line of a Python file at each of `revs` holding one of `words` as a whole word: one
    `git grep` (a list of paths would cost more than it saves: git matches every file against each)."""
    if not revs or not words:
        return []
    out = git.run(root, "grep", "-z", "-w", "-I", "-F", *(a for w in sorted(words) for a in ("-e", w)), *revs, "--", "*.py",
                  *(f":(exclude){p}" for p in EXCLUDES), check=False)
    return [(*where.partition(":")[::2], line) for where, _, line in (row.partition("\0") for row in out.splitlines())]


def default_slots(text: str) -> list[tuple[str, str]]:
    """(name, value) of each assignment in `text` to a name that says it holds a default (`default_digest_method`,
    `DEFAULT_HASH`, `hash_default`)."""
    if "efault" not in text and "EFAULT" not in text:
        return []
    return [(m.group(1), m.group(2)) for m in _SLOT.finditer(text) if _NAMED_DEFAULT.search(m.group(1))]


def _keys(value: str) -> set[str]:
    return {key(w) for w in re.findall(r"[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*", value)} | {
        w.lower() for w in re.findall(r"[A-Za-z0-9]+", value)}


def _blame(index: HistoryIndex, files: list[str], name: str, word: str, head: Commit) -> tuple[str, str] | None:
    """(label, path) of the newest commit whose diff of one of `files` took `word` away from `name`'s value."""
    parts = re.findall(r"[A-Za-z]+|[0-9]+", word)  # `SHA-512` in a diff line as `sha512`: any case, a `-` or `_` or not
    pattern = name + ".*" + "[-_]?".join("".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in part) for part in parts)
    for path in files:
        def held(sha: str, at: str = path) -> bool:
            return any(n == name and key(word) in _keys(v) for n, v in default_slots(index.versions.text_at(sha, at) or ""))
        for commit in value_changes(index, path, pattern, head):
            before = index.earlier(path, commit.seq, limit=1)
            if before and held(before[0][0].sha, before[0][1]) and not held(commit.sha):
                return merged_change(index, commit, path, lambda sha, held=held: not held(sha)).label(), path  # type: ignore[misc]
    return None

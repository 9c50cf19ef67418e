"""A default a doc states as a plain value word, naming no code (issue 25, rule 5): "Internally itsdangerous uses
HMAC and SHA1 for signing by default". The word (`SHA1`, `SHA-512`, `UTF-8`, `MD5`: letters then digits) is
looked for where the doc said it, not at HEAD: in the code at the doc's last commit and at the commit that wrote
the sentence (its oldest version still holding the line), among the files changed since. There, an attribute or
constant named as a default (`default_digest_method = staticmethod(hashlib.sha1)`, `DEFAULT_HASH`, `hash_default`)
whose value holds the word (case, `-` and `_` aside) is the default the doc meant; when every assignment of that
name now (`git grep` at HEAD) holds another value, the doc states its value before: stale, blamed on the newest
commit whose diff took the word away from the name (`default_history.value_changes`).

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
from noface_ctx.freshness.grep_plan import END, windows
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.merges import merged_change
from noface_ctx.freshness.presence import EXCLUDES, MAX_SCOPE
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
        if _SAYS.search(block) is None:
            continue
        cuts = [0, *(m.end() for m in SENTENCE_END.finditer(block)), len(block)]
        for a, b in pairwise(cuts):
            sentence = _LINK.sub(lambda m: " " * len(m.group(0)), block[a:b])  # a link's text and address: no code
            words = {m.group(1) for m in _WORD.finditer(sentence)}
            if _SAYS.search(sentence) and "`" not in sentence and len(words) == 1:
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
    slots: dict[tuple[Commit, str], set[str]] = {}  # (origin, word key) → the default slots holding it then
    for origin, words in by_origin.items():
        scope = windows(index, [(origin.seq + 1, END)], source, MAX_SCOPE)[origin.seq + 1, END]
        if scope == []:
            continue
        forms = {f for w in words for f in (w, w.lower(), w.upper(), key(w), key(w).upper(), w.replace("-", "_").lower())}
        for found, paths in git.grep_words(root, [origin.sha], forms, exclude=EXCLUDES, paths=scope).items():
            for path in (p for p in paths if source(p)):
                for name, value in default_slots(index.versions.text_at(origin.sha, path) or ""):
                    if key(found) in _keys(value):
                        slots.setdefault((origin, key(found)), set()).add(name)
    names = {n for found in slots.values() for n in found}
    now = git.grep_words(root, ["HEAD"], names, exclude=EXCLUDES) if names else {}
    out: dict[str, list[ChangedRef]] = {}
    for doc, line, word, origins in said:
        for name in sorted({n for o in origins for n in slots.get((o, key(word)), ())}):
            files = sorted(p for p in now.get(name, ()) if source(p))
            values = [v for p in files for n, v in default_slots(now_text(p) or "") if n == name]
            if not values or any(key(word) in _keys(v) for v in values):
                continue
            blamed = _blame(index, files, name, word, head)
            if blamed is not None:
                out.setdefault(doc.path, []).append(ChangedRef(name, line, blamed[1], blamed[0], OLD_DEFAULT))
                break
    return out


def _written(doc: Doc, since: Commit, word: str, index: HistoryIndex) -> list[Commit]:
    """The doc's oldest version (of its `VERSIONS` before `since`) from which on it states a default by `word` (the
    sentence may have been reworded since)."""
    found: list[Commit] = []
    for commit, path in index.earlier(doc.path, since.seq, limit=VERSIONS):
        if not any(w == word for _line, w in word_statements(index.versions.text_at(commit.sha, path) or "")):
            break
        found = [commit]
    return found


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

"""Which of some words the files hold at a commit, as `git grep -w -I` would answer, each file
version (blob) read once a run however many searches ask about it (`VersionWords`).

`git grep` at a commit walks the tree and matches every file it is given: django's cold
`check-docs` asked 25,459 file versions in 178 greps, which are 16,096 blobs (266 MB). Here a
search lists its files with `git ls-tree` (the tree walk `git grep` does, with the same
literal pathspecs: a directory's files, no symlinks, no submodules), reads the blobs not read
yet through one `git cat-file --batch`, and keeps per blob the words asked and found. A word
of `[A-Za-z0-9_]` is in a file when it is one of its tokens, the maximal runs of those
characters: what `-w` finds with a regex that is an alternation of such words. Binary files
are skipped as `-I` does: by the `diff` attribute (`-diff`, `binary`: skipped; `diff`: read),
else by a NUL byte in the first 8,000. A blob git cannot read (a partial clone's) is noted for
`_git.unread`, as `git grep` notes it. Other words (with dots, dashes) and searches at no
commit are `git grep`'s (`_git.grep_words`).
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from noface_ctx import _git as git

Hits = dict[str, set[str]]  # word -> files holding it
Ask = tuple[str, set[str], "list[str] | None"]  # (commit sha, words, files or None for the whole tree)

_WORD = re.compile(r"[A-Za-z0-9_]+")
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_TOKENS = bytes(c if c in _WORD_BYTES else 0x20 for c in range(256))  # a non-word byte becomes a space
FEW_WORDS = 8  # up to this many words asked of a blob, each is looked for in it; more: its tokens are split out
FIRST_FEW_BYTES = 8000  # git's `buffer_is_binary`: a NUL in these makes a file binary
_GIT_BINARY = {"set": False, "unset": True}  # the `diff` attribute's value -> binary (else: by its driver or content)


class VersionWords:
    """`git grep -w -I` of plain words at commits, answered from blobs each read once (see the
    module docstring). Safe to share between threads: one search reads at a time."""

    def __init__(self, root: str | Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._blobs = git.Blobs(root)  # its `git cat-file --batch` process
        self._asked: dict[bytes, list[frozenset[bytes]]] = {}  # blob id -> the word sets asked of it
        self._found: dict[bytes, set[bytes]] = {}  # blob id -> the words asked found in it
        self._sets: dict[frozenset[bytes], frozenset[bytes]] = {}  # see `_shared`
        self._nul: set[bytes] = set()  # blob ids with a NUL in their first 8,000 bytes
        self._binary: dict[str, bool | None] = {}  # path -> binary by its `diff` attribute (None: by content)
        self._drivers: dict[str, bool] | None = None  # diff driver -> `diff.<driver>.binary`

    def grep_words(self, sha: str, words: Iterable[str], exclude: Sequence[str] = (),
                   paths: Iterable[str] | None = None) -> Hits:
        """`_git.grep_words(root, [sha], words, exclude, paths)`'s answer: word -> the files of
        `paths` (all the tree's when None) holding it at commit `sha`, `exclude` (pathspec
        patterns such as `*.po`) left out."""
        return self.grep_many([(sha, set(words), list(paths) if paths is not None else None)], exclude)[0]

    def grep_many(self, asks: Sequence[Ask], exclude: Sequence[str] = (), part: tuple[int, int] = (0, 1)) -> list[Hits]:
        """`grep_words` of each `(sha, words, paths)`, in order; a blob several of them list is
        read once, for all their words. `part` (k, n): only what the files whose blob is of
        share k of n hold (`share`; other words: share 0's), so n readers' answers joined are the
        whole answer."""
        out: list[Hits] = []
        lists: list[tuple[list[tuple[str, bytes]], frozenset[bytes]]] = []
        skip = _excluded(exclude)
        for sha, words, paths in asks:
            plain = {w for w in words if _WORD.fullmatch(w)}
            other = set(words) - plain if part[0] == 0 else set()
            out.append(git.grep_words(self.root, [sha], other, exclude=exclude, paths=paths) if other else {})
            files = self._tree(sha, paths) if plain and paths != [] else []
            lists.append(([(p, oid) for p, oid in files if not skip(p) and share(oid, part[1]) == part[0]],
                          frozenset(w.encode("ascii") for w in plain)))
        listed: dict[bytes, list[int]] = {}  # blob id -> the asks listing it
        for number, (files, _words) in enumerate(lists):
            for _path, oid in files:
                listed.setdefault(oid, []).append(number)
        unions: dict[tuple[int, ...], frozenset[bytes]] = {}  # one set per mix of asks, shared by its blobs
        wanted = {}
        for oid, numbers in listed.items():
            key = tuple(dict.fromkeys(numbers))
            if key not in unions:
                unions[key] = self._shared(frozenset().union(*(lists[n][1] for n in key)))
            wanted[oid] = unions[key]
        with self._lock:
            self._attributes({p for files, _ in lists for p, _ in files})
            self._read(wanted)
            for hits, (files, encoded) in zip(out, lists, strict=True):
                for path, oid in files:
                    by_attribute = self._binary[path]
                    if by_attribute if by_attribute is not None else oid in self._nul:
                        continue
                    for word in self._found.get(oid, set()) & encoded:
                        hits.setdefault(word.decode("ascii"), set()).add(path)
        return out

    def close(self) -> None:
        """End the `git cat-file` process (started again when a search needs it); what was
        read is kept."""
        with self._lock:
            self._blobs.close()

    def _tree(self, sha: str, paths: list[str] | None) -> list[tuple[str, bytes]]:
        """(path, blob id) of the regular files `git grep` would search at `sha` in `paths`."""
        scope = ["."] if paths is None else [f":(literal){p}" for p in paths]
        out = git.run(self.root, "ls-tree", "-r", "-z", "--full-tree", sha, "--", *scope, check=False)
        files = []
        for entry in out.split("\0"):
            info, _, path = entry.partition("\t")
            mode, kind, oid = [*info.split(" "), "", "", ""][:3]
            if kind == "blob" and mode.startswith("10"):  # a regular file (S_ISREG), not a symlink (120000)
                files.append((path, oid.encode("ascii")))
        return files

    def _read(self, wanted: dict[bytes, frozenset[bytes]]) -> None:
        """Read the blobs not yet asked all their `wanted` words (pipelined), and keep what they hold."""
        todo: dict[bytes, frozenset[bytes]] = {}
        for oid, words in wanted.items():
            asked = self._asked.get(oid)
            if asked is None:
                todo[oid] = words
                continue
            before = asked[0] if len(asked) == 1 else frozenset().union(*asked)
            if not words <= before:
                todo[oid] = self._shared(words - before)
        if not todo:
            return
        stdin, stdout = self._blobs.pipes()
        writer = git.write_behind(stdin, b"".join(oid + b"\n" for oid in todo))
        try:
            for oid, asking in todo.items():
                header = stdout.readline().split()
                if len(header) != 3:  # "<oid> missing": a partial clone's blob (or git went away)
                    if header[-1:] == [b"missing"]:
                        git.note_unread(self.root, [oid.decode("ascii")])
                    continue
                data = stdout.read(int(header[2]) + 1)[:-1]
                self._asked.setdefault(oid, []).append(asking)
                if b"\0" in data[:FIRST_FEW_BYTES]:
                    self._nul.add(oid)
                found = asking.intersection(data.translate(_TOKENS).split()) if len(asking) > FEW_WORDS else {
                    w for w in asking if _holds(data, w)}
                if found:
                    self._found.setdefault(oid, set()).update(found)
        finally:
            writer.join()

    def _shared(self, words: frozenset[bytes]) -> frozenset[bytes]:
        """One object for equal word sets (thousands of blobs are asked the same words)."""
        return self._sets.setdefault(words, words)

    def _attributes(self, paths: set[str]) -> None:
        """Each path's `diff` attribute, read once (`git check-attr`): binary or not by it, or None."""
        todo = sorted(p for p in paths if p not in self._binary)
        if not todo:
            return
        try:
            proc = subprocess.run(git.argv(self.root, "check-attr", "-z", "--stdin", "diff"),
                                  input="\0".join(todo).encode("utf-8", "surrogateescape") + b"\0",
                                  capture_output=True, env=git.env())
            fields = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
        except OSError:
            fields = []
        said = {fields[i]: fields[i + 2] for i in range(0, len(fields) - 2, 3)}
        for path in todo:
            value = said.get(path, "unspecified")
            self._binary[path] = _GIT_BINARY[value] if value in _GIT_BINARY else (
                None if value == "unspecified" else self._driver_binary(value))

    def _driver_binary(self, driver: str) -> bool | None:
        """`diff.<driver>.binary` as git's config sets it, None when unset (the content decides)."""
        if self._drivers is None:
            out = git.run(self.root, "config", "-z", "--get-regexp", r"^diff\..*\.binary$", check=False)
            self._drivers = {}
            for item in out.split("\0"):
                key, _, value = item.partition("\n")
                if key:
                    self._drivers[key[len("diff."):-len(".binary")]] = value.strip().lower() in (
                        "true", "yes", "on", "1", "")
        return self._drivers.get(driver)


def _holds(data: bytes, word: bytes) -> bool:
    """Whether `word` (of word bytes) is one of `data`'s tokens: found with no word byte on
    either side (what splitting `data` into tokens finds, without making every token)."""
    at = data.find(word)
    while at >= 0:
        end = at + len(word)
        if (at == 0 or data[at - 1] not in _WORD_BYTES) and (end == len(data) or data[end] not in _WORD_BYTES):
            return True
        at = data.find(word, at + 1)
    return False


def share(oid: bytes, parts: int) -> int:
    """Which of `parts` shares a blob is read in (by its id)."""
    return int(oid[:8], 16) % parts if parts > 1 else 0


def _excluded(patterns: Sequence[str]) -> Callable[[str], bool]:
    """Whether a path matches one of the pathspec `patterns` (`*` matching `/` too, as git's
    pathspecs without `:(glob)`); `*.ext` patterns as suffixes."""
    if all(_SUFFIX.fullmatch(p) for p in patterns):
        suffixes = tuple(p[1:] for p in patterns)
        return lambda path: path.endswith(suffixes)
    return lambda path: any(fnmatch.fnmatchcase(path, p) for p in patterns)


_SUFFIX = re.compile(r"\*\.[^*?\[\]\\]+")

"""The first stage of code ranking: BM25 over chunks and files, plus boosts for what the issue
names (identifiers, dotted paths, files, stack frames) and penalties for tests, examples,
vendored code and line windows.

`CodeRun` holds one ranking run's shared state (the issue, the index, which files may be
shown, notes and warnings); the later stages (`code_manifest`, `code_forms`, `code`) read it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import cast

import numpy as np

from noface_ctx._filetypes import is_test_path
from noface_ctx._lexical import tokenize
from noface_ctx.code.index import CodeIndex, is_sized_out_source
from noface_ctx.config import Config
from noface_ctx.datatypes import Issue, RepoFiles
from noface_ctx.issue.environment import query_text
from noface_ctx.rank.hints import extract_hints, title_names_tests

# Boosts, in units of the fused (z-scored) score.
B_QUALIFIED = 2.0  # `Class.method` or `pkg.module.func` named in the issue
B_NAME = 1.5  # a code-like identifier named in the issue (divided by how common the name is)
B_FILE = 1.0  # a file (path, file name or dotted module) named in the issue
B_FRAME = 1.5  # the definition holding a stack-trace frame's line
B_MESSAGE = 2.0  # the definition that holds an exception message of the issue, word for word
MESSAGE_READS = 40  # ... looked for in this many best BM25 matches of the message
MAX_LITERAL_HITS = 3  # a message or line more definitions hold (a generic one) points at none of them
B_CODE_LINE = 1.0  # a definition holding a line of code the issue quotes
LINE_READS = 200  # ... looked for in this many best BM25 matches of the issue
FRAME_DECAY, FRAME_FLOOR = 0.6, 0.25  # frame boosts shrink from the innermost frame outwards
P_TEST = 2.5  # penalty for test files when the issue is not about tests
P_AUX = 1.5  # penalty for examples, tutorials, docs and CI scripts
P_VENDOR = 1.0  # penalty for vendored third-party code
P_NONCODE = 1.5  # penalty for line windows of files without a grammar
_AUX_DIRS = frozenset({"examples", "example", "tutorials", "tutorial", "galleries", "gallery", "docs", "doc",
                       "benchmarks", "benchmark", "asv_bench", "ci", ".github", ".circleci"})
_VENDOR_DIRS = frozenset({"vendor", "vendored", "_vendor", "third_party", "thirdparty", "extern", "cextern",
                          "external", "externals", "node_modules"})
MAX_MODULE_FILES = 2  # a module name that matches more files (`models`, `utils`) names none of them
# A dotted name boosts its module's whole file when it spells the module with its package
# (`django.utils.html.json_script`) or names a top-level definition of it (`formatting.inline_repr`);
# `app.register_blueprint` (a method of the `Flask` in `app.py`) or `monkeypatch.setattr` name a
# variable holding an object: only the definition named (`Flask.register_blueprint`) is boosted
MODULE_PARTS = 2
# numbered migrations a framework generated (django's `app/migrations/0001_initial.py`, alembic's
# `versions/`): a pasted model or traceback matches them word for word, and a fix rarely edits one
_GENERATED_MIGRATION = re.compile(r"(?:^|/)(?:migrations|versions)/\d{3,}_\w*\.py$")
W_TITLE = 1.0  # extra BM25 query weight of terms in the issue title
# reasons a whole file's definitions share (its module or path named, the file in a stack trace): they
# say nothing about one definition in it (`file_wide`)
MODULE_NAMED, FILE_NAMED, IN_TRACE = "module ", "file ", "in the stack trace"


def file_wide(reason: str) -> bool:
    """Whether `reason` was given to every definition of a file alike."""
    return reason.startswith((MODULE_NAMED + "`", FILE_NAMED + "`", IN_TRACE))


@dataclass(slots=True)
class ChunkScores:
    """Per-chunk signals over the whole index (arrays of length n_chunks) and reasons."""

    bm25: np.ndarray
    boost: np.ndarray
    file_bm25: np.ndarray  # per file number
    reasons: dict[int, list[str]] = field(default_factory=dict)

    def add(self, ids: Sequence[int] | range, amount: float, why: str) -> None:
        """Add `amount` to the boost of each chunk in `ids`, with the reason."""
        for i in ids:
            self.boost[i] += amount
            self.reasons.setdefault(i, []).append(why)


class CodeRun:
    """One ranking run: the issue, the index and everything derived from them."""

    def __init__(self, issue: Issue, repo_files: RepoFiles, index: CodeIndex, config: Config) -> None:
        self.issue = issue
        self.repo_files = repo_files
        self.index = index
        self.config = config
        self.manifest = issue.manifest
        self.notes: list[str] = []
        self.warnings: list[str] = []
        self.query = query_text(issue)
        self.hints = extract_hints(self.query)
        paths = index.paths()
        self.allowed = np.array([self._allowed(p) for p in paths], dtype=bool)
        if "by_base" not in index.memo:
            by_base: dict[str, list[str]] = {}
            for p in paths:
                by_base.setdefault(p.rpartition("/")[2], []).append(p)
            index.memo["by_base"] = by_base
            index.memo["file_no"] = {p: i for i, p in enumerate(paths)}
        self.by_base = cast(dict[str, list[str]], index.memo["by_base"])
        self.file_no = cast(dict[str, int], index.memo["file_no"])
        if self.hints.about_tests and not title_names_tests(self.query.split("\n", 1)[0]):
            # a test file the reporter wrote to reproduce the bug is not one of the repo's tests
            named = any(is_test_path(f) and self.match_path(f) for f in self.hints.files)
            self.hints = replace(self.hints, about_tests=named)

    def _allowed(self, path: str) -> bool:
        if self.repo_files.get(path) is None and not is_sized_out_source(self.repo_files, path, self.config):
            return False
        return not (self.manifest is not None and self.manifest.is_forbidden(path))

    def match_path(self, written: str) -> list[str]:
        """Indexed paths a path written in the issue names (none when it is too ambiguous)."""
        written = written.replace("\\", "/")
        base = written.rpartition("/")[2]
        hits = [p for p in self.by_base.get(base, ()) if written == p or written.endswith("/" + p) or p.endswith("/" + written)]
        return hits if len(hits) <= 5 else []

    def lexical(self) -> ChunkScores:
        """BM25 of every chunk and file for the issue text, with boosts and penalties."""
        terms = tokenize(self.query)
        weights = {t: 1.0 + 0.5 * math.log(c) for t, c in _counts(terms).items()}
        for t in set(tokenize(self.issue.title)):
            weights[t] = weights.get(t, 1.0) + W_TITLE
        bm25 = self.index.bm25(terms, weights=weights)
        file_bm25 = self.index.bm25(terms, level="file", weights=weights)
        scores = ChunkScores(bm25, np.zeros_like(bm25, dtype=np.float64), file_bm25)
        self._boost_names(scores)
        self._boost_files(scores)
        self._boost_frames(scores)
        self._boost_messages(scores)
        self._boost_code_lines(scores)
        self._penalise(scores)
        return scores

    def _boost_names(self, s: ChunkScores) -> None:
        for name in self.hints.names:
            ids = self.index.symbol_ids(name)
            if 0 < len(ids) <= 40:
                s.add(ids, B_NAME / (1.0 + math.log2(len(ids))), f"names `{name}`")
        for dotted in self.hints.dotted:
            parts = dotted.split(".")
            for i in range(len(parts) - 1, 0, -1):  # longest module prefix that is a file
                files = self._module_files(parts[:i])
                if 0 < len(files) <= MAX_MODULE_FILES:
                    rest = ".".join(parts[i:])
                    for f in files:
                        if i >= MODULE_PARTS or self._defines(f, parts[i]):  # a module, not a variable's name
                            s.add(self.index.chunk_ids(f), B_FILE, f"{MODULE_NAMED}`{'.'.join(parts[:i])}`")
                        hit = [c for c in self.index.chunk_ids(f) if _ends_with(self.index.symbol(c), rest)]
                        s.add(hit, B_QUALIFIED, f"names `{dotted}`")
                    break
            else:
                for k in range(len(parts) - 1):
                    qual = f"{parts[k]}.{parts[k + 1]}"
                    ids = [c for c in self.index.symbol_ids(qual) if _ends_with(self.index.symbol(c), qual)]
                    if 0 < len(ids) <= 10:
                        s.add(ids, B_QUALIFIED, f"names `{qual}`")

    def _defines(self, path: str, name: str) -> bool:
        """Whether `path` defines `name` at its top level (a function or class, not a method)."""
        return any(self.index.symbol(c) == name for c in self.index.chunk_ids(path))

    def _module_files(self, parts: list[str]) -> list[str]:
        stem = "/".join(parts)
        out = []
        for suffix in (".py", "/__init__.py", ".pyi", ".js", ".ts", ".rb", ".go", ".rs"):
            target = stem + suffix
            base = target.rpartition("/")[2]
            out += [p for p in self.by_base.get(base, ()) if p == target or p.endswith("/" + target)]
        return out

    def _boost_files(self, s: ChunkScores) -> None:
        for written in self.hints.files:
            for path in self.match_path(written):
                s.add(self.index.chunk_ids(path), B_FILE, f"{FILE_NAMED}`{written}` named")

    def _boost_frames(self, s: ChunkScores) -> None:
        frames = self.hints.frames
        for k, (written, line, func) in enumerate(frames):
            depth = _frame_weight(len(frames) - 1 - k)
            for path in self.match_path(written):
                ids = self.index.chunk_ids(path)
                s.add(ids, B_FILE * 0.5 * depth, IN_TRACE)
                holding = [i for i in ids if self.index.symbol(i) and _holds(self.index.lines(i), line)]
                if func:
                    holding += [i for i in ids if self.index.symbol(i).rpartition(".")[2] == func]
                s.add(sorted(set(holding)), B_FRAME * depth, f"stack frame {written}:{line}")

    def _boost_messages(self, s: ChunkScores) -> None:
        """Where an exception message of the issue is raised: BM25 on the message's words picks
        the definitions to read."""
        for message in self.hints.messages:
            near = _best(self.index.bm25(tokenize(message)), MESSAGE_READS)
            self._boost_literal(s, [message], near, B_MESSAGE, "raises `{}`")

    def _boost_code_lines(self, s: ChunkScores) -> None:
        """Where a line of code the issue quotes lives: the reporter read it there."""
        if self.hints.code_lines:
            self._boost_literal(s, self.hints.code_lines, _best(s.bm25, LINE_READS), B_CODE_LINE,
                                "holds the issue's line `{}`")

    def _boost_literal(self, s: ChunkScores, phrases: Sequence[str], ids: list[int], amount: float, why: str) -> None:
        """Boost the definitions among `ids` whose code holds a phrase word for word; a phrase that
        more than `MAX_LITERAL_HITS` of them hold is too common to point anywhere."""
        texts = {i: self.index.chunk(i).text for i in ids}
        for phrase in phrases:
            hits = [i for i in ids if phrase in texts[i]]
            if 0 < len(hits) <= MAX_LITERAL_HITS:
                s.add(hits, amount, why.format(phrase[:60]))

    def _penalise(self, s: ChunkScores) -> None:
        paths = self.index.paths()
        files = self.index.chunk_files()
        kinds = self.index.kinds()
        key = f"penalty:{self.hints.about_tests}"
        if key not in self.index.memo:
            per_file = np.array([self._path_penalty(p) for p in paths], dtype=np.float64)
            window = np.fromiter((k == "window" for k in kinds), dtype=bool, count=len(kinds))
            self.index.memo[key] = per_file[files] + P_NONCODE * window
        s.boost -= cast(np.ndarray, self.index.memo[key])
        s.boost[~self.allowed[files]] = -1e9

    def _path_penalty(self, path: str) -> float:
        if is_test_path(path):
            return 0.0 if self.hints.about_tests else P_TEST
        dirs = set(path.lower().split("/")[:-1])
        aux = bool(dirs & _AUX_DIRS) or _GENERATED_MIGRATION.search(path) is not None
        return (P_AUX if aux else 0.0) + (P_VENDOR if dirs & _VENDOR_DIRS else 0.0)


def _counts(terms: Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for t in terms:
        out[t] = out.get(t, 0) + 1
    return out


def _ends_with(symbol: str, rest: str) -> bool:
    return bool(symbol) and (symbol == rest or symbol.endswith("." + rest))


def _best(scores: np.ndarray, n: int) -> list[int]:
    """The `n` highest-scoring ids with a score above 0, best first."""
    return [int(i) for i in np.argsort(-scores, kind="stable")[:n] if scores[i] > 0]


def _frame_weight(from_innermost: int) -> float:
    """A stack frame's share of its boosts: the innermost frame (nearest the fault) full, each
    frame further out 0.6 of the next, down to a quarter (the entry points a traceback starts
    with: `manage.py`, a command runner, the reporter's own script)."""
    return max(FRAME_FLOOR, FRAME_DECAY**from_innermost)


def _holds(span: tuple[int, int], line: int) -> bool:
    return span[0] <= line <= span[1]

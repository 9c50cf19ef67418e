"""Ranking code for an issue → `Candidate`s: manifest files first, then related definitions.

BM25 over definition-sized chunks finds a pool; dense embeddings of that pool (only, never the
whole repository) re-rank it; identifiers, file paths and stack frames named in the issue, and
callers/callees of manifest code, add boosts. Every candidate carries finished text blocks
(`Form`s) from most to least complete and the `NEED_CODE:` line that fetches it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from noface_ctx.code.index import CodeIndex, is_sized_out_source
from noface_ctx.code.languages import CONTAINER_KINDS, fence_for
from noface_ctx.code.symbols import elide_children, header_line, outline, render_block
from noface_ctx.config import Config
from noface_ctx.datatypes import Candidate, Issue, ManifestEntry, RepoFiles
from noface_ctx.filetypes import CODE_HINT_EXTENSIONS, extension_pattern
from noface_ctx.lexical import tokenize, zscore
from noface_ctx.tokens import count_tokens

TAIL_SIZE = 120  # more chunks after the pool, by BM25 and boosts alone, for large budgets
POOL_SIZE = 60  # chunks re-ranked with embeddings (60 ranked as well as 150 on the dev rows, 2.5x fewer to embed)
FIRST_PASS_FILES = 8  # the best chunk of each of this many top files goes first
MAX_CANDIDATES = 150  # ranked snippets: enough to fill 1.5x the budget, at most this many
MIN_CANDIDATES = 20
QUERY_CHARS = 2000  # the issue text embedded as the dense query
EMBED_CHARS = 360  # chunk text is cut to about 128 model tokens (~2.8 characters each in code)
MAX_DIR_FILES = 8  # a manifest directory with more files only boosts them

# Boosts, in units of the fused (z-scored) score.
B_QUALIFIED = 2.0  # `Class.method` or `pkg.module.func` named in the issue
B_NAME = 1.5  # a code-like identifier named in the issue (divided by how common the name is)
B_FILE = 1.0  # a file (path, file name or dotted module) named in the issue
B_FRAME = 1.5  # the definition holding a stack-trace frame's line
B_NEIGHBOUR = 0.6  # a direct caller or callee of a manifest definition
NEAR_SEEDS = 6  # the best definitions whose same-file callers, callees and enclosing function join
NEAR_GAP = 0.35  # ... scored this much below the definition that brought them
NEAR_MAX = 4  # ... at most this many per seed
B_MANIFEST_DIR = 1.0  # a file under a manifest directory entry
P_TEST = 2.5  # penalty for test files when the issue is not about tests
P_AUX = 1.5  # penalty for examples, tutorials, docs and CI scripts
P_VENDOR = 1.0  # penalty for vendored third-party code
P_NONCODE = 1.5  # penalty for line windows of files without a grammar
_AUX_DIRS = frozenset({"examples", "example", "tutorials", "tutorial", "galleries", "gallery", "docs", "doc",
                       "benchmarks", "benchmark", "asv_bench", "ci", ".github", ".circleci"})
_VENDOR_DIRS = frozenset({"vendor", "vendored", "_vendor", "third_party", "thirdparty", "extern", "cextern",
                          "external", "externals", "node_modules"})
W_FILE = 0.3  # weight of whole-file BM25 in every chunk's score
W_TITLE = 1.0  # extra BM25 query weight of terms in the issue title


@dataclass(frozen=True, slots=True)
class CodeRanking:
    """Code candidates for the packer, ranked files for the benchmark, and the evidence."""

    candidates: tuple[Candidate, ...]
    ranked_files: tuple[str, ...]
    report: tuple[Mapping[str, Any], ...] = ()
    embedding_used: bool = False
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


# --------------------------------------------------------------------------- issue hints

_FRAME = re.compile(r'File "([^"\n]+)", line (\d+)(?:, in ([\w<>.]+))?')
_PYTEST_FRAME = re.compile(r"^([\w./\\-]+\.\w{1,4}):(\d+):", re.M)
_EXT = extension_pattern(CODE_HINT_EXTENSIONS)  # from filetypes: now also .pyw, .ex, .vue, .jsonl, .xml, .lock, ...
_FILE = re.compile(rf"(?<![\w/.-])((?:[\w.-]+/)*[\w-][\w.-]*\.{_EXT})(?![\w])")
_DOTTED = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)")
_IDENT = re.compile(r"(?<![\w.])([A-Za-z_]\w*)(\s*\()?")
_BACKTICK = re.compile(r"`([^`\n]{1,80})`")
_TEST_TITLE = re.compile(r"\b(unit ?tests?|test suite|test file|tests for|flaky|failing tests?|add(ing)? tests?)\b", re.I)


@dataclass(frozen=True, slots=True)
class Hints:
    """What the issue names explicitly: identifiers, dotted paths, files and stack frames."""

    names: frozenset[str] = frozenset()
    dotted: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    frames: tuple[tuple[str, int, str], ...] = ()
    about_tests: bool = False


def extract_hints(text: str) -> Hints:
    """Identifiers that look like code (snake_case, CamelCase, `x()`, backticks, a.b.c) and more."""
    frames = [(p, int(n), f or "") for p, n, f in _FRAME.findall(text)]
    frames += [(p, int(n), "") for p, n in _PYTEST_FRAME.findall(text)]
    files = list(dict.fromkeys(m.group(1) for m in _FILE.finditer(text)))
    file_set = set(files)
    dotted = [d for d in dict.fromkeys(_DOTTED.findall(text)) if d not in file_set and not _is_file(d)]
    names: set[str] = set()
    ticked = {w for span in _BACKTICK.findall(text) for w in re.findall(r"[A-Za-z_]\w*", span)}
    for m in _IDENT.finditer(text):
        word = m.group(1)
        if len(word) < 3:
            continue
        if m.group(2) or word in ticked or _code_like(word):
            names.add(word)
    names.update(f for _, _, f in frames if f and not f.startswith("<"))
    for d in dotted:
        names.update(p for p in d.split(".") if len(p) >= 3 and (_code_like(p) or p in ticked))
        names.add(d.rsplit(".", 1)[1])
    title = text.split("\n", 1)[0]
    about_tests = bool(_TEST_TITLE.search(title)) or any(_is_test_path(f) for f in files)
    return Hints(frozenset(names), tuple(dotted), tuple(files), tuple(frames), about_tests)


def _is_file(dotted: str) -> bool:
    return re.fullmatch(rf".*\.{_EXT}", dotted) is not None and dotted.count(".") == 1


def _code_like(word: str) -> bool:
    inner = word.strip("_")
    if "_" in inner:
        return True
    return bool(re.search(r"[a-z][A-Z]|[A-Z]{2,}[a-z]", inner))


def _is_test_path(path: str) -> bool:
    parts = path.lower().split("/")
    name = parts[-1]
    if any(p in ("test", "tests", "testing", "__tests__", "spec", "specs") for p in parts[:-1]):
        return True
    return name.startswith("test_") or name == "conftest.py" or bool(re.search(r"[._-](test|tests|spec)\.\w+$", name))


# --------------------------------------------------------------------------- scoring


@dataclass(slots=True)
class _Scores:
    """Per-chunk signals over the whole index (arrays of length n_chunks) and reasons."""

    bm25: np.ndarray
    boost: np.ndarray
    file_bm25: np.ndarray  # per file number
    reasons: dict[int, list[str]] = field(default_factory=dict)

    def add(self, ids: Sequence[int] | range, amount: float, why: str) -> None:
        for i in ids:
            self.boost[i] += amount
            self.reasons.setdefault(i, []).append(why)


class _Ranker:
    """One ranking run: the issue, the index and everything derived from them."""

    def __init__(self, issue: Issue, repo_files: RepoFiles, index: CodeIndex, config: Config, embedder) -> None:
        self.issue = issue
        self.repo_files = repo_files
        self.index = index
        self.config = config
        self.embedder = embedder
        self.owns_cache = False  # True when rank_code wrapped a bare embedder in its own cache
        self.manifest = issue.manifest
        self.notes: list[str] = []
        self.warnings: list[str] = []
        self.query = issue.query_text()
        self.hints = extract_hints(self.query)
        paths = index.paths()
        self.allowed = np.array([self._allowed(p) for p in paths], dtype=bool)
        if "by_base" not in index.memo:
            by_base: dict[str, list[str]] = {}
            for p in paths:
                by_base.setdefault(p.rpartition("/")[2], []).append(p)
            index.memo["by_base"] = by_base
            index.memo["file_no"] = {p: i for i, p in enumerate(paths)}
        self.by_base: dict[str, list[str]] = index.memo["by_base"]  # type: ignore[assignment]
        self.file_no: dict[str, int] = index.memo["file_no"]  # type: ignore[assignment]
        if self.hints.about_tests and not _TEST_TITLE.search(self.query.split("\n", 1)[0]):
            # a test file the reporter wrote to reproduce the bug is not one of the repo's tests
            named = any(_is_test_path(f) and self._match_path(f) for f in self.hints.files)
            self.hints = replace(self.hints, about_tests=named)

    def _allowed(self, path: str) -> bool:
        if self.repo_files.get(path) is None and not is_sized_out_source(self.repo_files, path, self.config):
            return False
        return not (self.manifest is not None and self.manifest.is_forbidden(path))

    # ---------------------------------------------------------------- first stage

    def lexical(self) -> _Scores:
        terms = tokenize(self.query)
        weights = {t: 1.0 + 0.5 * math.log(c) for t, c in _counts(terms).items()}
        for t in set(tokenize(self.issue.title)):
            weights[t] = weights.get(t, 1.0) + W_TITLE
        bm25 = self.index.bm25(terms, weights=weights)
        file_bm25 = self.index.bm25(terms, level="file", weights=weights)
        scores = _Scores(bm25, np.zeros_like(bm25, dtype=np.float64), file_bm25)
        self._boost_names(scores)
        self._boost_files(scores)
        self._boost_frames(scores)
        self._penalise(scores)
        return scores

    def _boost_names(self, s: _Scores) -> None:
        for name in self.hints.names:
            ids = self.index.symbol_ids(name)
            if 0 < len(ids) <= 40:
                s.add(ids, B_NAME / (1.0 + math.log2(len(ids))), f"names `{name}`")
        for dotted in self.hints.dotted:
            parts = dotted.split(".")
            for i in range(len(parts) - 1, 0, -1):  # longest module prefix that is a file
                files = self._module_files(parts[:i])
                if files:
                    rest = ".".join(parts[i:])
                    for f in files:
                        s.add(self.index.chunk_ids(f), B_FILE, f"module `{'.'.join(parts[:i])}`")
                        hit = [c for c in self.index.chunk_ids(f) if _ends_with(self.index.symbol(c), rest)]
                        s.add(hit, B_QUALIFIED, f"names `{dotted}`")
                    break
            else:
                for k in range(len(parts) - 1):
                    qual = f"{parts[k]}.{parts[k + 1]}"
                    ids = [c for c in self.index.symbol_ids(qual) if _ends_with(self.index.symbol(c), qual)]
                    if 0 < len(ids) <= 10:
                        s.add(ids, B_QUALIFIED, f"names `{qual}`")

    def _module_files(self, parts: list[str]) -> list[str]:
        stem = "/".join(parts)
        out = []
        for suffix in (".py", "/__init__.py", ".pyi", ".js", ".ts", ".rb", ".go", ".rs"):
            target = stem + suffix
            base = target.rpartition("/")[2]
            out += [p for p in self.by_base.get(base, ()) if p == target or p.endswith("/" + target)]
        return out[:3]

    def _match_path(self, written: str) -> list[str]:
        written = written.replace("\\", "/")
        base = written.rpartition("/")[2]
        hits = [p for p in self.by_base.get(base, ()) if written == p or written.endswith("/" + p) or p.endswith("/" + written)]
        return hits if len(hits) <= 5 else []

    def _boost_files(self, s: _Scores) -> None:
        for written in self.hints.files:
            for path in self._match_path(written):
                s.add(self.index.chunk_ids(path), B_FILE, f"file `{written}` named")

    def _boost_frames(self, s: _Scores) -> None:
        for written, line, func in self.hints.frames:
            for path in self._match_path(written):
                ids = self.index.chunk_ids(path)
                s.add(ids, B_FILE * 0.5, "in the stack trace")
                holding = [i for i in ids if self.index.symbol(i) and _holds(self.index.lines(i), line)]
                if func:
                    holding += [i for i in ids if self.index.symbol(i).rpartition(".")[2] == func]
                s.add(sorted(set(holding)), B_FRAME, f"stack frame {written}:{line}")

    def _penalise(self, s: _Scores) -> None:
        paths = self.index.paths()
        files = self.index.chunk_files()
        kinds = self.index.kinds()
        key = f"penalty:{self.hints.about_tests}"
        if key not in self.index.memo:
            per_file = np.array([self._path_penalty(p) for p in paths], dtype=np.float64)
            window = np.fromiter((k == "window" for k in kinds), dtype=bool, count=len(kinds))
            self.index.memo[key] = per_file[files] + P_NONCODE * window
        s.boost -= self.index.memo[key]  # type: ignore[operator]
        s.boost[~self.allowed[files]] = -1e9

    def _path_penalty(self, path: str) -> float:
        if _is_test_path(path):
            return 0.0 if self.hints.about_tests else P_TEST
        dirs = set(path.lower().split("/")[:-1])
        return (P_AUX if dirs & _AUX_DIRS else 0.0) + (P_VENDOR if dirs & _VENDOR_DIRS else 0.0)

    # ---------------------------------------------------------------- second stage

    def fuse(self, s: _Scores, extra: Sequence[int]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Pool the best chunks, embed them, and fuse z-scored BM25, cosine and boosts."""
        first = _first_stage(s)
        n = min(POOL_SIZE, int((first > -1e8).sum()))
        pool = np.argsort(-first, kind="stable")[:n]
        pool = np.array(list(dict.fromkeys([*pool.tolist(), *[i for i in extra if first[i] > -1e8]])), dtype=np.int64)
        signals = {"bm25": s.bm25[pool].astype(np.float64), "boost": s.boost[pool]}
        files = self.index.chunk_files()[pool]
        signals["file_bm25"] = s.file_bm25[files].astype(np.float64)
        cosine = self._cosine(pool)
        wb, we = self.config.context.bm25_weight, self.config.context.embedding_weight
        if cosine is None:
            wb, we = 1.0, 0.0
        else:
            signals["embedding"] = cosine
        total = wb + we or 1.0
        # z-scores of log(1 + BM25): one huge lexical match must not swamp every other signal
        score = (
            (wb / total) * zscore(np.log1p(signals["bm25"]))
            + W_FILE * zscore(np.log1p(signals["file_bm25"]))
            + signals["boost"]
        )
        if cosine is not None:
            score = score + (we / total) * zscore(cosine)
        return pool, {**signals, "score": score}

    def _cosine(self, pool: np.ndarray) -> np.ndarray | None:
        if self.embedder is None or not len(pool):
            return None
        texts = [chunk_embed_text(self.index, i) for i in pool.tolist()]
        try:
            vectors = self.embedder.embed([_cut(self.query, QUERY_CHARS), *texts])
        except Exception as exc:  # a broken model must not stop the prompt: fall back to BM25
            self.warnings.append(f"embeddings failed ({type(exc).__name__}: {exc}); code ranked by BM25 only")
            return None
        if self.owns_cache:
            try:
                self.embedder.save()
            except OSError as exc:
                self.warnings.append(f"code embedding cache not saved: {exc}")
        q, m = vectors[0], vectors[1:]
        return (m @ q).astype(np.float64)


def chunk_embed_text(index: CodeIndex, i: int) -> str:
    """What the model reads for chunk `i`: `path qualname` and the first lines of its code, cut to
    about 128 tokens. `noface-ctx index` embeds every chunk with this, so a query embeds only itself."""
    path = index.path_of(i)
    start, end = index.lines(i)
    body = "\n".join(index.file_lines(path)[start - 1 : min(end, start + 40)])
    return _cut(f"{path} {index.symbol(i)}\n{body}", EMBED_CHARS)


def _first_stage(s: _Scores) -> np.ndarray:
    """Per chunk: BM25 scaled to its best match, plus boosts: what picks the pool."""
    top = s.bm25.max() if s.bm25.size else 0.0
    return (s.bm25 / top if top > 0 else s.bm25) * 3.0 + s.boost


def _add_tail(ranked_ids: list[int], score: dict[int, float], s: _Scores) -> list[int]:
    """Chunks beyond the embedding pool, in first-stage order below all of it, so that a large
    budget can still be filled (they were not re-ranked with embeddings)."""
    first = _first_stage(s)
    floor = min(score.values(), default=0.0)
    tail = [i for i in np.argsort(-first, kind="stable")[: len(ranked_ids) + TAIL_SIZE].tolist()
            if i not in score and first[i] > -1e8]
    for k, i in enumerate(tail[:TAIL_SIZE]):
        score[i] = floor - 0.01 * (k + 1)
    return ranked_ids + tail[:TAIL_SIZE]


def _cut(text: str, limit: int) -> str:
    """At most `limit` characters, ending at a line break when one is near."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit)
    return text[: cut if cut > limit // 2 else limit]


def _counts(terms: Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for t in terms:
        out[t] = out.get(t, 0) + 1
    return out


def _ends_with(symbol: str, rest: str) -> bool:
    return bool(symbol) and (symbol == rest or symbol.endswith("." + rest))


def _holds(span: tuple[int, int], line: int) -> bool:
    return span[0] <= line <= span[1]


# --------------------------------------------------------------------------- entry point


def rank_code(
    issue: Issue, repo_files: RepoFiles, index: CodeIndex, config: Config, embedder, *, budget: int | None = None
) -> CodeRanking:
    """Manifest items (required) first, then related definitions best first; see module doc.

    `budget` (default `[context] budget_tokens`) sizes the candidate list and a manifest file's
    share for its whole-file form.
    """
    if budget is not None:
        config = config.with_context(budget_tokens=int(budget))
    from noface_ctx.rank.embed import CachedEmbedder

    wrapped = embedder is not None and not isinstance(embedder, CachedEmbedder)
    if wrapped:
        from noface_ctx.config import cache_dir

        try:
            embedder = CachedEmbedder(embedder, cache_dir(config) / "code" / "embeddings")
        except OSError:
            embedder = CachedEmbedder(embedder, None)
    ranker = _Ranker(issue, repo_files, index, config, embedder)
    ranker.owns_cache = wrapped
    scores = ranker.lexical()
    manifest_files, extra = _manifest_files(ranker, scores)
    pool, signals = ranker.fuse(scores, extra)
    renderer = _Renderer(index)
    order = np.argsort(-signals["score"], kind="stable")
    ranked_ids = [int(pool[k]) for k in order]
    chunk_score = {int(pool[k]): float(signals["score"][k]) for k in order}
    ranked_ids = _add_near(ranker, ranked_ids, chunk_score, scores.reasons)
    ranked_files = _rank_files(ranker, ranked_ids, chunk_score, scores)
    ranked_ids = _add_tail(ranked_ids, chunk_score, scores)
    required, shown = _required(ranker, renderer, manifest_files, chunk_score)
    detail = {int(pool[k]): {name: float(v[k]) for name, v in signals.items()} for k in range(len(pool))}
    ranked = _snippets(ranker, renderer, ranked_ids, chunk_score, ranked_files, shown, detail, scores.reasons)
    candidates = tuple(required + ranked)
    report = tuple(_report_row(c) for c in candidates)
    return CodeRanking(
        candidates=candidates,
        ranked_files=tuple(ranked_files),
        report=report,
        embedding_used="embedding" in signals,
        notes=tuple(ranker.notes),
        warnings=tuple(ranker.warnings),
    )


def _add_near(r: _Ranker, ranked_ids: list[int], score: dict[int, float], reasons: dict[int, list[str]]) -> list[int]:
    """The fix often sits one call away from the best match: add, just below each of the best
    definitions, the same-file definitions it calls or that call it, and the function enclosing
    it (a nested function is shown inside its parent)."""
    if NEAR_SEEDS <= 0:
        return ranked_ids
    idx = r.index
    seeds = [i for i in ranked_ids if score[i] > -1e8 and idx.symbol(i) and idx.kind(i) not in CONTAINER_KINDS][:NEAR_SEEDS]
    for i in seeds:
        path, name = idx.path_of(i), idx.symbol(i)
        bare = name.rpartition(".")[2]
        calls = set(idx.row(i)[7])
        found: list[tuple[int, str]] = []
        for j in idx.chunk_ids(path):
            other = idx.symbol(j)
            if j == i or not other or idx.kind(j) in CONTAINER_KINDS:
                continue
            if name.startswith(other + "."):
                found.insert(0, (j, f"encloses `{name}`"))
            elif other.rpartition(".")[2] in calls:
                found.append((j, f"called by `{name}`"))
            elif bare in idx.row(j)[7]:
                found.append((j, f"calls `{name}`"))
        for j, why in found[:NEAR_MAX]:
            gain = 0.01 if why.startswith("encloses") else -NEAR_GAP
            if score.get(j, -1e9) < score[i] + gain:
                score[j] = score[i] + gain
                reasons.setdefault(j, []).append(why)
    return sorted(score, key=lambda k: -score[k])


# --------------------------------------------------------------------------- manifest

CLASS_FULL_MAX = 1500  # a class bigger than this is shown as an outline; its methods rank alone
HEAD_FROM = 2500  # a definition bigger than this also gets a shorter "head" form
HEAD_LINES = 60
RELEVANT_DEFS = 3  # definitions shown in full next to a manifest file's outline


@dataclass(slots=True)
class _Entry:
    role: str  # "primary" | "read"
    path: str
    entry: ManifestEntry


def _manifest_files(r: _Ranker, s: _Scores) -> tuple[list[_Entry], list[int]]:
    """Manifest entries resolved to indexed files; boosts for big directories and neighbours."""
    m = r.manifest
    if m is None or m.empty:
        return [], []
    entries: list[_Entry] = []
    paths = r.index.paths()
    for role, group in (("primary", m.primary), ("read", m.read)):
        for e in group:
            if e.is_dir:
                under = [p for p in paths if e.matches(p) and r.allowed[r.file_no[p]]]
                if len(under) > MAX_DIR_FILES:
                    for p in under:
                        s.add(r.index.chunk_ids(p), B_MANIFEST_DIR, f"under manifest {role} `{e.path}`")
                    r.notes.append(f"manifest {role} `{e.path}` holds {len(under)} files: ranked, not all included")
                    continue
                entries += [_Entry(role, p, ManifestEntry(p)) for p in under]
            elif e.path in r.file_no and r.allowed[r.file_no[e.path]]:
                entries.append(_Entry(role, e.path, e))
            elif m.is_forbidden(e.path) or r.repo_files.exclusion(e.path) is not None:
                ex = r.repo_files.exclusion(e.path)
                r.warnings.append(f"manifest {role} `{e.path}` is excluded ({ex.reason if ex else 'forbidden'})")
            elif role == "primary":
                r.notes.append(f"manifest primary `{e.path}` does not exist yet or has no code")
    seen: set[str] = set()
    entries = [x for x in entries if not (x.path + str(x.entry) in seen or seen.add(x.path + str(x.entry)))]
    extra = [i for x in entries for i in r.index.chunk_ids(x.path)]
    extra += _neighbours(r, s, [x for x in entries if x.role == "primary"])
    return entries, extra


def _neighbours(r: _Ranker, s: _Scores, primary: list[_Entry]) -> list[int]:
    """Boost direct callees and callers of the best definitions in the primary files."""
    first = s.bm25 + s.boost
    out: list[int] = []
    for x in primary:
        ids = [i for i in r.index.chunk_ids(x.path) if r.index.symbol(i)]
        ids.sort(key=lambda i: -first[i])
        for i in ids[:RELEVANT_DEFS]:
            name = r.index.symbol(i)
            for ref in r.index.row(i)[7]:
                callee = [c for c in r.index.symbol_ids(ref) if r.index.path_of(c) != x.path]
                if 0 < len(callee) <= 5:
                    s.add(callee, B_NEIGHBOUR, f"called by `{name}`")
                    out += callee
            callers = [c for c in r.index.callers_of(name) if r.index.path_of(c) != x.path]
            if 0 < len(callers) <= 30:
                s.add(callers, B_NEIGHBOUR, f"calls `{name}`")
                out += callers
    return out


# --------------------------------------------------------------------------- rendering


class _Renderer:
    """Turns chunk ids and files into finished text blocks."""

    def __init__(self, index: CodeIndex) -> None:
        self.index = index

    def lines(self, path: str) -> list[str]:
        return self.index.file_lines(path)

    def context(self, i: int) -> list[tuple[int, str]]:
        """Header lines of the definitions enclosing chunk `i`, outermost first."""
        path, symbol = self.index.path_of(i), self.index.symbol(i)
        if "." not in symbol:
            return []
        start, end = self.index.lines(i)
        ids = self.index.chunk_ids(path)
        symbols = self.index.symbols()
        spans = self.index.line_spans()[ids.start : ids.stop].tolist()
        out = []
        for j, (s, e) in zip(ids, spans):
            other = symbols[j]
            if j != i and other and symbol.startswith(other + ".") and s <= start and end <= e:
                out.append(header_line(self.lines(path), s))
        return sorted(set(out))

    def title(self, i: int) -> str:
        kind, symbol = self.index.kind(i), self.index.symbol(i)
        if not symbol:
            return "(module level)" if kind == "block" else ""
        parent = self.index.parent(i)
        where = f"  (in {parent})" if parent and self.context(i) else ""
        return f"{kind} {symbol}{where}"

    def snippet(self, i: int) -> list[tuple[str, str]]:
        """(label, text) forms of one ranked chunk, most complete first."""
        path = self.index.path_of(i)
        start, end = self.index.lines(i)
        lines = self.lines(path)
        fence = fence_for(path, self.index.language_of(path))
        ctx = self.context(i)
        full = render_block(path, lines, start, end, title=self.title(i), fence=fence, context=ctx)
        kind = self.index.kind(i)
        if kind in CONTAINER_KINDS and self.index.symbol(i):
            elided = self.elided(i, lines, fence, ctx)
            if count_tokens(full) <= CLASS_FULL_MAX or elided is None:
                return [("full", full)] + ([("outline", elided)] if elided else [])
            return [("outline", elided)]
        forms = [("full", full)]
        if end - start + 1 > HEAD_LINES and count_tokens(full) > HEAD_FROM:
            cut = start + HEAD_LINES - 1
            body = lines[start - 1 : cut] + [f"... (lines {cut + 1}-{end} omitted; NEED_CODE: {path}:{cut + 1}-{end})"]
            forms.append(("head", render_block(path, lines, start, end, title=self.title(i) + " — first lines only", fence=fence, context=ctx, body=body)))
        return forms

    def elided(self, i: int, lines: list[str], fence: str, ctx) -> str | None:
        path, symbol = self.index.path_of(i), self.index.symbol(i)
        start, end = self.index.lines(i)
        kids = [k for k in self.index.chunks_for(path) if k.parent == symbol and start <= k.start_line and k.end_line <= end]
        kids = [k for k in kids if (k.start_line, k.end_line) != (start, end)]
        if not kids:
            return None
        body = elide_children(lines, start, end, kids)
        title = f"{self.index.kind(i)} {symbol} — outline, bodies omitted; ask with NEED_CODE: {path}:start-end"
        return render_block(path, lines, start, end, title=title, fence=fence, context=ctx, body=body)

    def whole(self, path: str) -> str:
        text = self.index.file_text(path).rstrip("\n")
        n = text.count("\n") + 1
        return f"{path}  (whole file, {n} lines)\n```{fence_for(path, self.index.language_of(path))}\n{text}\n```"

    def outline(self, path: str) -> str:
        chunks = self.index.chunks_for(path)
        n = self.index.file_text(path).rstrip("\n").count("\n") + 1
        body = outline(chunks, path=path, total_lines=n)
        note = f"{path}  (outline — bodies omitted; ask with NEED_CODE: {path}:start-end)"
        return f"{note}\n```text\n{body}\n```"


# --------------------------------------------------------------------------- candidates


def _required(r: _Ranker, rd: _Renderer, entries: list[_Entry], score: dict[int, float]) -> tuple[list[Candidate], set[int]]:
    """One required candidate per manifest entry; returns the chunk ids its forms show in full."""
    out: list[Candidate] = []
    shown: set[int] = set()
    n_primary = max(1, sum(1 for x in entries if x.role == "primary"))
    ctx = r.config.context
    whole_limit = ctx.budget_tokens * (1.0 - ctx.docs_share) / n_primary
    for x in entries:
        path, e = x.path, x.entry
        if e.start is not None:
            end = e.end if e.end is not None else e.start
            lines = rd.lines(path)
            end = min(end, len(lines))
            text = render_block(path, lines, e.start, end, title=f"manifest {x.role} range", fence=fence_for(path, r.index.language_of(path)))
            forms = [("range", text), ("outline", rd.outline(path))]
            out.append(_candidate(path, "", f"{path}:{e.start}-{end}", forms, 100.0, f"NEED_CODE: {path}:{e.start}-{end}", e.start, end, "range", (f"manifest {x.role}",), required=True))
            continue
        relevant = _relevant_defs(r, path, score)
        shown.update(relevant)
        outline_text = rd.outline(path)
        defs_text = "\n\n".join([outline_text] + [rd.snippet(i)[0][1] for i in relevant])
        forms = [("outline+defs", defs_text), ("outline", outline_text)] if relevant else [("outline", outline_text)]
        if x.role == "primary" and r.repo_files.get(path) is not None:  # never a sized-out file whole
            whole = rd.whole(path)
            if count_tokens(whole) <= whole_limit:
                forms.insert(0, ("whole", whole))
        out.append(_candidate(path, "", path, forms, 100.0, f"NEED_CODE: {path}", 0, 0, "file", (f"manifest {x.role}",), required=True))
    return out, shown


def _relevant_defs(r: _Ranker, path: str, score: dict[int, float]) -> list[int]:
    ids = [i for i in r.index.chunk_ids(path) if i in score and r.index.symbol(i) and r.index.kind(i) not in CONTAINER_KINDS]
    ids.sort(key=lambda i: -score[i])
    if not ids:
        return []
    best = score[ids[0]]
    return sorted(i for i in ids[:RELEVANT_DEFS] if score[i] >= best - 1.0 and score[i] > 0)


def _rank_files(r: _Ranker, ranked_ids: list[int], score: dict[int, float], s: _Scores) -> list[str]:
    """Files by their best chunk plus a little for other strong chunks; then by whole-file BM25."""
    per_file: dict[str, list[float]] = {}
    for i in ranked_ids:
        if score[i] > -1e8:
            per_file.setdefault(r.index.path_of(i), []).append(score[i])
    agg = {p: v[0] + 0.3 * float(np.mean(v[:3])) for p, v in per_file.items()}
    ranked = sorted(agg, key=lambda p: -agg[p])
    if r.manifest is not None:
        prim = [p for p in r.index.paths() if any(e.matches(p) for e in r.manifest.primary) and r.allowed[r.file_no[p]]]
        ranked = list(dict.fromkeys(prim[:MAX_DIR_FILES] + ranked))
    paths = r.index.paths()
    for f in np.argsort(-s.file_bm25, kind="stable")[:50].tolist():
        if r.allowed[f] and s.file_bm25[f] > 0 and paths[f] not in agg:
            ranked.append(paths[f])
    return list(dict.fromkeys(ranked))


def _snippets(
    r: _Ranker,
    rd: _Renderer,
    ranked_ids: list[int],
    score: dict[int, float],
    files: list[str],
    shown: set[int],
    detail: dict[int, dict[str, float]],
    reasons: dict[int, list[str]],
) -> list[Candidate]:
    """Ranked chunks as candidates: first the best chunk of each of the top files (so the
    right file is seen), then the rest by score, until 1.5x the budget is offered."""
    usable = [i for i in ranked_ids if score[i] > -1e8 and i not in shown]
    best_of: dict[str, int] = {}
    for i in usable:
        best_of.setdefault(r.index.path_of(i), i)
    lead = [best_of[p] for p in files[:FIRST_PASS_FILES] if p in best_of]
    led = set(lead)
    order = lead + sorted((i for i in usable if i not in led), key=lambda i: -score[i])
    out: list[Candidate] = []
    room = 1.5 * r.config.context.budget_tokens
    for i in order[:MAX_CANDIDATES]:
        if len(out) >= MIN_CANDIDATES and room <= 0:
            break
        path = r.index.path_of(i)
        start, end = r.index.lines(i)
        symbol = r.index.symbol(i)
        title = f"{r.index.kind(i)} {symbol}" if symbol else f"{path}:{start}-{end}"
        why = tuple(dict.fromkeys(reasons.get(i, ())))
        cand = _candidate(path, symbol, title, rd.snippet(i), score[i], f"NEED_CODE: {path}:{start}-{end}", start, end, r.index.kind(i), why)
        out.append(replace(cand, scores=detail.get(i, {})))
        room -= cand.forms[0].tokens
    return out


def _candidate(path, ref, title, forms, score, request, start, end, kind, reasons, *, required=False) -> Candidate:
    return Candidate(
        kind="code",
        path=path,
        ref=ref,
        title=title,
        forms=tuple(_form(label, text) for label, text in forms),
        score=float(score),
        request=request,
        reasons=tuple(reasons),
        start_line=start,
        end_line=end,
        symbol_kind=kind,
        required=required,
    )


def _form(label: str, text: str):
    from noface_ctx.datatypes import Form

    return Form(label=label, text=text, tokens=count_tokens(text))


def code_location(c: Candidate, kind: str | None = None) -> dict[str, Any]:
    """The fields naming a code candidate in report rows (`kind` defaults to its symbol kind)."""
    kind = c.symbol_kind if kind is None else kind
    return {"path": c.path, "symbol": c.ref, "kind": kind, "start_line": c.start_line, "end_line": c.end_line}


def _report_row(c: Candidate) -> dict[str, Any]:
    d = c.scores
    return {
        **code_location(c),
        "bm25": round(d.get("bm25", 0.0), 4),
        "embedding": round(d["embedding"], 4) if "embedding" in d else None,
        "boosts": round(d.get("boost", 0.0), 4),
        "score": round(c.score, 4),
        "required": c.required,
        "reasons": list(c.reasons),
    }

"""Tests beside the code: for the definitions ranked best for an issue, the repository's tests
that exercise them, as an engineer opens them first (how the code is called, where the
regression test goes).

Evidence, per test function (a definition named `test*` in a test file):
- call: its code uses the name of one of the best definitions (`SEEDS`; each weighs less the
  lower it ranks, and a name many definitions share weighs less), more when the test is named
  after it (`test_find_best_app`);
- naming: its file is named after a seed's module (`test_cli.py` for `cli.py`, `cli_test.go`),
  or sits in the tests folder beside it (`pkg/tests/` for `pkg/cli.py`);
- history: its file changed in the same commits as a seed's module (`cochange`; skipped in a
  tree without history);
- the issue's own words (BM25 of the test against the issue, scaled to the best test).

The best test file gives its one or two best tests in full and a pointer naming its other
relevant tests with the `NEED_CODE` line that fetches one; the next test files, when their
evidence is close, give a pointer only. Nothing is offered without call, naming or history
evidence.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from noface_ctx.code.languages import CONTAINER_KINDS
from noface_ctx.datatypes import Candidate, Form
from noface_ctx.filetypes import is_test_path
from noface_ctx.lexical import tokenize
from noface_ctx.rank.cochange import co_changed
from noface_ctx.rank.code_lexical import ChunkScores, CodeRun
from noface_ctx.tokens import count_tokens
from noface_ctx.wording import need_code
from noface_ctx.wording_code import test_pointer, test_reason

SEEDS = 8  # the best-ranked definitions whose tests are looked for
SEED_GAP = 2.0  # ... scoring within this of the best one
SEED_DECAY = 0.8  # each seed weighs this much of the one ranked above it
COMMON_NAME = 30  # a name defined more often than this points at no test
W_CALL = 1.0  # a test using a seed's name (times the seed's weight and the name's rarity)
W_TEST_NAME = 1.5  # ... more when the test is named after it (`test_find_best_app`)
W_ISSUE = 0.6  # the test's BM25 against the issue, scaled to the best test's
W_NAMED = 1.0  # the test file is named after a seed's module
W_BESIDE = 0.5  # the test file sits in the tests folder beside a seed's module
W_HISTORY = 1.0  # the test file changed in the same commits as a seed's module (saturating with the count)
HISTORY_HALF = 3  # ... half of it at this many commits
HISTORY_MIN = 2  # ... counted from this many commits
HISTORY_FILES = 3  # ... for the modules of the best seeds
HISTORY_TESTS = 4  # ... the most frequent test files
SHOWN_TESTS = 2  # test functions shown in full, from the best test file
SECOND_SHOWN = 0.6  # the second is shown when it scores at least this share of the first
POINTER_NAMES = 8  # other tests named in a test file's pointer
MORE_NAMES = 2  # ... in the pointer of a file none of whose tests is shown (kept short: up to six of them)
NAMED_SHARE = 0.3  # ... those scoring at least this share of the file's best
MORE_FILES = 6  # other test files given as a pointer only: named after a best-ranked module first, then ...
MORE_FILES_SHARE = 0.3  # ... scoring at least this share of the best file
AMBIGUOUS_NAME = 3  # a module name more test files carry than this names only those in a related folder
NAMED_SEEDS = 5  # the test files named after this many best-ranked source files are looked up ...
NAMED_ABOVE = 0.0  # ... whose best definition scores above the pool's average (or near the best)
TEST_MAX_TOKENS = 900  # a test function longer than this is not shown in full (its pointer names it)


@dataclass(slots=True)
class TestFile:
    """One test file's evidence: its tests, best first, as (chunk id, score, seed names used)."""

    path: str
    tests: list[tuple[int, float, tuple[str, ...]]]
    named_after: str = ""  # the seed module its name follows, or the one its folder sits beside
    score: float = 0.0
    seeds: list[str] = field(default_factory=list)


def _test_function(r: CodeRun, i: int) -> bool:
    symbol = r.index.symbol(i)
    bare = symbol.rpartition(".")[2]
    return bool(symbol) and bare.lower().startswith("test") and r.index.kind(i) not in CONTAINER_KINDS


def _seeds(r: CodeRun, ranked_ids: Sequence[int], score: dict[int, float]) -> list[int]:
    """The best-ranked definitions outside tests, within `SEED_GAP` of the best of them."""
    out: list[int] = []
    for i in ranked_ids:
        if len(out) >= SEEDS or score.get(i, -1e9) <= -1e8 or (out and score[i] < score[out[0]] - SEED_GAP):
            break
        if r.index.symbol(i) and not is_test_path(r.index.path_of(i)):
            out.append(i)
    return out


def _module_of(path: str) -> tuple[str, str]:
    """(folder, module name) of a source path: a package's `__init__` is named by its folder."""
    folder, _, base = path.rpartition("/")
    stem = base.rpartition(".")[0] or base
    return folder, folder.rpartition("/")[2] if stem == "__init__" else stem


def _tested_name(test_path: str) -> str:
    """The module name a test file's name carries: `test_cli.py`, `cli_test.go`, `unittest_cli.py` → `cli`."""
    stem = test_path.rpartition("/")[2].rpartition(".")[0]
    for prefix in ("unittest_", "tests_", "test_", "test"):
        if stem.startswith(prefix) and len(stem) > len(prefix):
            stem = stem[len(prefix):]
            break
    for suffix in ("_tests", "_test"):
        if stem.endswith(suffix) and len(stem) > len(suffix):
            stem = stem[: -len(suffix)]
            break
    return stem


def _named(tested: str, module: str, folder: str = "") -> bool:
    """A test file's name carries the module's: equal (`_pprint` → `pprint`), one a word-prefix
    of the other (`brain_builtin` for `brain_builtin_inference`), or the module's name after the
    start of its folder's (`util_typing` for `util/typing.py`, `assertrewrite` for `assertion/rewrite.py`)."""
    module = module.lstrip("_")
    if not tested or not module:
        return False
    if tested == module:
        return True
    short, long = sorted((tested, module), key=len)
    if len(short) >= 4 and long.startswith(short + "_"):
        return True
    head = tested[: -len(module)].rstrip("_") if tested.endswith(module) else ""
    parent = folder.rpartition("/")[2].lstrip("_")
    return len(head) >= 3 and parent.startswith(head)


def _module_link(test_path: str, seed_paths: Sequence[str]) -> tuple[float, str]:
    """How a test file's place names a seed's module: by its name, or its folder beside it."""
    folder = test_path.rpartition("/")[0]
    tested = _tested_name(test_path)
    best = (0.0, "")
    for path in seed_paths:
        sdir, module = _module_of(path)
        if _named(tested, module, sdir):
            return W_NAMED, path
        if folder in (f"{sdir}/tests", f"{sdir}/test") and best[0] < W_BESIDE:
            best = (W_BESIDE, path)
    return best


def find_tests(r: CodeRun, ranked_ids: Sequence[int], score: dict[int, float], s: ChunkScores,
               ranked_files: Sequence[str] = ()) -> list[TestFile]:
    """Test files with evidence for the best-ranked definitions, best first; the test files named
    after the best-ranked source files (`ranked_files`) are looked up too."""
    seeds = _seeds(r, ranked_ids, score)
    if not seeds:
        return []
    idx = r.index
    files = idx.chunk_files()
    paths = idx.paths()
    key = "test-files"
    if key not in idx.memo:
        idx.memo[key] = np.array([is_test_path(p) for p in paths], dtype=bool)
    test_file = idx.memo[key] & r.allowed
    calls: dict[int, float] = {}
    used: dict[int, list[str]] = {}
    for k, i in enumerate(seeds):
        symbol = idx.symbol(i)
        name = symbol.rpartition(".")[2]
        terms = tokenize(name)
        if name.startswith("__") or len(name) < 3 or not terms:
            continue
        n_defs = len(idx.symbol_ids(name))
        if n_defs > COMMON_NAME:
            continue
        weight = SEED_DECAY**k / (1.0 + math.log2(max(1, n_defs)))
        hits = np.flatnonzero((idx.bm25(terms[:1]) > 0) & test_file[files])
        bare = name.lstrip("_").lower()
        for j in hits.tolist():
            if _test_function(r, j):
                named = len(bare) >= 5 and bare in idx.symbol(j).rpartition(".")[2].lower()  # `test_find_best_app`
                calls[j] = calls.get(j, 0.0) + weight * (1.0 + W_TEST_NAME * named)
                used.setdefault(j, []).append(symbol)
    seed_paths = list(dict.fromkeys(idx.path_of(i) for i in seeds))
    link: dict[str, tuple[float, str]] = {}
    for j in calls:
        link.setdefault(idx.path_of(j), _module_link(idx.path_of(j), seed_paths))
    together = _history(r, seed_paths[:HISTORY_FILES], test_file)
    for name, n in together.items():  # changed with the seed modules: tested together
        bonus, goes_with = link.get(name, _module_link(name, seed_paths))
        link[name] = (bonus + W_HISTORY * n / (n + HISTORY_HALF), goes_with or seed_paths[0])
        for j in idx.chunk_ids(name):
            if _test_function(r, j):
                calls.setdefault(j, 0.0)
    best_of: dict[str, float] = {}
    for i in ranked_ids:
        best_of.setdefault(idx.path_of(i), score.get(i, -1e9))
    reach = min(NAMED_ABOVE, score[seeds[0]] - SEED_GAP)  # above the pool's average, or near the best
    sources = [p for p in ranked_files if not is_test_path(p) and best_of.get(p, -1e9) > reach][:NAMED_SEEDS]
    for name, path in _named_test_files(r, sources, test_file):  # named after a module, without calls
        if test_file[r.file_no[name]]:
            link.setdefault(name, (W_NAMED, path))
            for j in idx.chunk_ids(name):
                if _test_function(r, j):
                    calls.setdefault(j, 0.0)
    if not calls:
        return []
    issue_best = max(float(s.bm25[j]) for j in calls) or 1.0
    by_file: dict[str, TestFile] = {}
    for j, call in calls.items():
        path = idx.path_of(j)
        named_after = link[path][1]
        total = W_CALL * call + W_ISSUE * float(s.bm25[j]) / issue_best
        tf = by_file.setdefault(path, TestFile(path, [], named_after))
        tf.tests.append((j, total, tuple(dict.fromkeys(used.get(j, ())))))
    out = []
    for tf in by_file.values():
        tf.tests.sort(key=lambda t: (-t[1], idx.lines(t[0])[0]))
        best3 = [t[1] for t in tf.tests[:3]]
        bonus = link[tf.path][0]
        has_calls = any(t[2] for t in tf.tests) or tf.path in together
        if not has_calls and bonus <= 0:
            continue
        tf.score = best3[0] + 0.25 * sum(best3[1:]) + bonus
        tf.seeds = list(dict.fromkeys(sym for t in tf.tests[:POINTER_NAMES] for sym in t[2]))
        out.append(tf)
    out.sort(key=lambda tf: (-tf.score, tf.path))
    return out


def _history(r: CodeRun, seed_paths: Sequence[str], test_file: np.ndarray) -> dict[str, int]:
    """Test files changed in the same commits as the seed modules, with how often: the
    `HISTORY_TESTS` most frequent, seen in at least `HISTORY_MIN` commits."""
    from noface_ctx.config import cache_dir

    try:
        counts = co_changed(cache_dir(r.config) / "history.sqlite", seed_paths)
    except OSError:
        return {}
    tests = [(p, n) for p, n in counts.items() if n >= HISTORY_MIN and p in r.file_no and test_file[r.file_no[p]]]
    tests.sort(key=lambda t: (-t[1], t[0]))
    return dict(tests[:HISTORY_TESTS])


def _named_test_files(r: CodeRun, seed_paths: Sequence[str], test_file: np.ndarray) -> list[tuple[str, str]]:
    """(test file, the source module it is named after) for the modules of the best-ranked
    files. A module name many test files carry (`test_models.py` in every django app) names
    only those in a folder sharing a word with the module's path."""
    key = "test-names"
    if key not in r.index.memo:
        paths = r.index.paths()
        r.index.memo[key] = [(p, _tested_name(p)) for k, p in enumerate(paths) if test_file[k]]
    named = cast(list[tuple[str, str]], r.index.memo[key])
    out = []
    for path in seed_paths[:NAMED_SEEDS]:
        folder, module = _module_of(path)
        hits = [p for p, tested in named if _named(tested, module, folder)]
        if len(hits) > AMBIGUOUS_NAME:
            words = _words(folder)
            hits = [p for p in hits if _words(p.rpartition("/")[0]) & words]
        out += [(p, path) for p in hits]
    return out


def _words(folder: str) -> set[str]:
    """The words of a folder path (`tests/forms_tests/tests` → forms, ...), test folders aside."""
    return {w for part in folder.split("/") for w in part.split("_")
            if len(w) > 2 and w not in ("test", "tests", "testing", "src", "lib")}


def test_candidates(r: CodeRun, found: Sequence[TestFile], render: Callable[[int], str]) -> list[Candidate]:
    """The candidates for the tests found: the best file's pointer and its best tests in full,
    then a pointer for each close runner-up file. `render(i)` gives chunk `i`'s full block."""
    if not found:
        return []
    best = found[0]
    out: list[Candidate] = []
    top = best.tests[0][1]
    shown: list[tuple[int, float, tuple[str, ...]]] = []
    for t in best.tests[:SHOWN_TESTS]:
        if t[1] <= 0 or (shown and t[1] < SECOND_SHOWN * top):
            break
        shown.append(t)
    blocks = []
    for j, sc, seeds in shown:
        text = render(j)
        if count_tokens(text) <= TEST_MAX_TOKENS:
            blocks.append((j, sc, seeds, text))
    out.append(_pointer(r, best, [b[0] for b in blocks], top))
    for j, sc, seeds, text in blocks:
        start, end = r.index.lines(j)
        why = test_reason(list(seeds), best.named_after)
        out.append(Candidate(kind="code", path=best.path, ref=r.index.symbol(j), title=f"test {r.index.symbol(j)}",
                             forms=(Form("full", text, count_tokens(text)),), score=sc,
                             request=need_code(best.path, r.index.symbol(j)), reasons=(why,),
                             start_line=start, end_line=end, symbol_kind=r.index.kind(j)))
    named = [tf for tf in found[1:] if tf.named_after and _named(_tested_name(tf.path), *_module_of(tf.named_after)[::-1])]
    more = named + [tf for tf in found[1:] if tf not in named and tf.score >= MORE_FILES_SHARE * best.score]
    for tf in more[:MORE_FILES]:
        out.append(_pointer(r, tf, [], tf.tests[0][1], limit=MORE_NAMES))
    return out


def _pointer(r: CodeRun, tf: TestFile, shown: Sequence[int], top: float, limit: int = POINTER_NAMES) -> Candidate:
    """One line naming a test file's relevant tests not shown, with the line fetching one."""
    others = [t for t in tf.tests if t[0] not in shown and t[1] >= NAMED_SHARE * top][:limit]
    if not others:
        others = [t for t in tf.tests if t[0] not in shown][:1]
    names = [(r.index.symbol(t[0]), *r.index.lines(t[0])) for t in others]
    listed = [*shown, *(t[0] for t in others)]
    spans = [r.index.lines(j) for j in listed] or [(1, 1)]
    first = names[0][0] if names else r.index.symbol(shown[0])
    text = test_pointer(tf.path, tf.seeds, tf.named_after, [r.index.symbol(j) for j in shown], names,
                        need_code(tf.path, first))
    return Candidate(kind="code", path=tf.path, ref="", title=f"tests in {tf.path}", forms=(Form("pointer", text, count_tokens(text)),),
                     score=tf.score, request=need_code(tf.path, first), reasons=(test_reason(tf.seeds, tf.named_after),),
                     start_line=min(s for s, _ in spans), end_line=max(e for _, e in spans), symbol_kind="tests")

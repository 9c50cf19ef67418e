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

A file's tests are ordered by that evidence, but the one whose body matches the issue best leads
when its name also carries two or more of the issue's words beyond the tested code's names
(`test_json_key_sorting` for "... the JSON provider sorts keys", among six `test_jsonify_*`): the
name says it tests what the issue describes, not only the function.

The best test file gives its one or two best tests in full (when it clearly leads the next
one, or, named after a best-ranked module, its leading test matches the issue best of every test found) and a pointer naming its other relevant tests with the `NEED_CODE` line that fetches one;
the next test files, when their evidence is close, give a one-line pointer only. Nothing is
offered without call, naming or history evidence.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from noface_ctx._filetypes import is_test_path
from noface_ctx._lexical import tokenize
from noface_ctx._tokens import count_tokens
from noface_ctx._wording import need_code
from noface_ctx._wording_code import runner_up_test_pointer, test_pointer, test_reason
from noface_ctx.code.languages import CONTAINER_KINDS
from noface_ctx.datatypes import Candidate, Form
from noface_ctx.rank.cochange import co_changed, ensure_history
from noface_ctx.rank.code_lexical import ChunkScores, CodeRun
from noface_ctx.rank.test_names import (
    issue_named,
    mirrors,
    module_of,
    named,
    named_by_folder,
    placed,
    prose_words,
    tested_name,
    title_named,
    title_words,
    words,
)

SEEDS = 8  # the best-ranked definitions whose tests are looked for
SEED_GAP = 2.0  # ... scoring within this of the best one
SEED_DECAY = 0.8  # each seed weighs this much of the one ranked above it
COMMON_NAME = 30  # a name defined more often than this points at no test
W_CALL = 1.0  # a test using a seed's name (times the seed's weight and the name's rarity)
W_TEST_NAME = 1.5  # ... more when the test is named after it (`test_find_best_app`)
W_ISSUE = 0.6  # the test's BM25 against the issue, scaled to the best test's
W_NAMED = 1.0  # the test file is named after a seed's module
W_FOLDER = 0.75  # the test file is named after a seed's package (`test_assertion.py` for `assertion/util.py`)
W_BESIDE = 0.5  # the test file sits in the tests folder beside a seed's module, or one mirroring its folder
W_TITLE = 1.0  # the test file (or a `tests.py`'s folder) is named with the issue title's words
FOLDER_FILES = 6  # test files named after one package, at most
TITLE_FILES = 6  # ... named with the title's words, at most (more: the title is too generic to name tests)
W_HISTORY = 1.0  # the test file changed in the same commits as a seed's module (saturating with the count)
HISTORY_HALF = 3  # ... half of it at this many commits
HISTORY_MIN = 2  # ... counted from this many commits
HISTORY_FILES = 3  # ... for the modules of the best seeds, then the best-ranked files
HISTORY_SOURCES = 5  # ... at most this many modules
HISTORY_DECAY = 0.7  # ... each weighing this much of the one ranked above it
HISTORY_TESTS = 4  # ... the most frequent test files
SHOWN_TESTS = 2  # test functions shown in full, from the best test file
SECOND_SHOWN = 0.6  # the second is shown when it scores at least this share of the first
POINTER_NAMES = 8  # other tests named in a test file's pointer
MORE_NAMES = 1  # ... in the pointer of a file none of whose tests is shown: the one its NEED_CODE line fetches
NAMED_SHARE = 0.3  # ... those scoring at least this share of the file's best
MORE_FILES = 6  # other test files given as a pointer only: the two best runners-up, those named after a
RUNNERS_UP = 2  # ... best-ranked module or with the title's words, then the others ...
MORE_FILES_SHARE = 0.3  # ... scoring at least this share of the best file
AMBIGUOUS_NAME = 3  # a module name more test files carry than this names only those in a related folder
NAMED_SEEDS = 5  # the test files named after this many best-ranked source files are looked up ...
NAMED_ABOVE = 0.0  # ... whose best definition scores above the pool's average (or near the best)
# the best test file's tests are shown in full only when it leads the runner-up clearly (the runner-up
# scoring under this share of it); otherwise which file the fix's test goes to is unclear and every test
# file gives its pointer (issue 26: on the dev rows the best test file was the gold one in 1 of the 15
# rows where the runner-up scored 85 % of it or more, against 21 of 30 under 70 %)
LEADS_BY = 0.8
LEAD_WORDS = 2  # a test named with this many of the issue's words (beyond the code's names) leads its file ...
# ... when its body matches the issue best of the file's tests; it is shown even when the runner-up file is
# close, if its file is named after a best-ranked module and no test found matches the issue better
TEST_MAX_TOKENS = 900  # a test function longer than this is not shown in full (its pointer names it)


@dataclass(slots=True)
class TestFile:
    """One test file's evidence: its tests, best first, as (chunk id, score, seed names used)."""

    path: str
    tests: list[tuple[int, float, tuple[str, ...]]]
    named_after: str = ""  # the seed module its name follows, or the one its folder sits beside
    score: float = 0.0
    seeds: list[str] = field(default_factory=list)
    preferred: bool = False  # named after a best-ranked module (found by the lookup) or with the title's words
    lead_words: tuple[str, ...] = ()  # the issue's words its first test is named with (`LEAD_WORDS` or more)
    lead_clear: bool = False  # ... and that test's body matches the issue best of every test found


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


def _module_link(test_path: str, seed_paths: Sequence[str]) -> tuple[float, str]:
    """How a test file's place names a seed's module: by its name, by its package's name, or by its
    folder (beside the module's, or mirroring it under the tests tree)."""
    folder = test_path.rpartition("/")[0]
    tested = tested_name(test_path)
    best = (0.0, "")
    for path in seed_paths:
        sdir, module = module_of(path)
        if not placed(folder, sdir):
            continue
        if named(tested, module, sdir):
            return W_NAMED, path
        if named_by_folder(tested, sdir) and best[0] < W_FOLDER:
            best = (W_FOLDER, path)
        elif (folder in (f"{sdir}/tests", f"{sdir}/test") or mirrors(folder, sdir)) and best[0] < W_BESIDE:
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
    best_of: dict[str, float] = {}
    for i in ranked_ids:
        best_of.setdefault(idx.path_of(i), score.get(i, -1e9))
    reach = min(NAMED_ABOVE, score[seeds[0]] - SEED_GAP)  # above the pool's average, or near the best
    sources = [p for p in ranked_files if not is_test_path(p) and best_of.get(p, -1e9) > reach][:NAMED_SEEDS]
    together = _history(r, list(dict.fromkeys([*seed_paths[:HISTORY_FILES], *sources]))[:HISTORY_SOURCES], test_file)
    for name, (n, source) in together.items():  # changed with the best-ranked modules: tested together
        bonus, goes_with = link.get(name, _module_link(name, seed_paths))
        link[name] = (bonus + W_HISTORY * n / (n + HISTORY_HALF), goes_with or source)
        _enter(r, name, calls)
    preferred = set()
    for name, path, bonus in _named_test_files(r, sources, test_file):  # named after a module, without calls
        if name not in link or link[name][0] < bonus:
            link[name] = (bonus, path)
        if bonus >= W_NAMED:
            preferred.add(name)
        _enter(r, name, calls)
    titled = _title_test_files(r, test_file)
    preferred.update(titled)
    for name in titled:  # named with the issue title's words
        bonus, goes_with = link.get(name, _module_link(name, seed_paths))
        link[name] = (bonus + W_TITLE, goes_with)
        _enter(r, name, calls)
    if not calls:
        return []
    issue_best = max(float(s.bm25[j]) for j in calls) or 1.0
    by_file: dict[str, TestFile] = {}
    for j, call in calls.items():
        path = idx.path_of(j)
        named_after = link[path][1]
        total = W_CALL * call + W_ISSUE * float(s.bm25[j]) / issue_best
        tf = by_file.setdefault(path, TestFile(path, [], named_after, preferred=path in preferred))
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
    _lead_by_name(r, out, s, seeds, issue_best)
    return out


def _lead_by_name(r: CodeRun, found: Sequence[TestFile], s: ChunkScores, seeds: Sequence[int], issue_best: float) -> None:
    """In each file, the test whose body matches the issue best goes first when its name carries
    `LEAD_WORDS` of the issue's own words beyond the names of the code it tests (`issue_named`)."""
    idx = r.index
    issue_words = prose_words(r.issue.title, r.issue.description)
    code_words = frozenset(w for i in seeds for w in tokenize(idx.symbol(i)))
    for tf in found:
        lead = max(tf.tests, key=lambda t: float(s.bm25[t[0]]))  # the first of equals, in evidence order
        said = float(s.bm25[lead[0]])
        words_named = issue_named(idx.symbol(lead[0]), issue_words, code_words) if said > 0 else ()
        if len(words_named) >= LEAD_WORDS:
            tf.tests.remove(lead)
            tf.tests.insert(0, lead)
            tf.lead_words, tf.lead_clear = words_named, said >= issue_best


def _enter(r: CodeRun, path: str, calls: dict[int, float]) -> None:
    """The test functions of `path` join the candidates (without call evidence of their own)."""
    for j in r.index.chunk_ids(path):
        if _test_function(r, j):
            calls.setdefault(j, 0.0)


def _history(r: CodeRun, sources: Sequence[str], test_file: np.ndarray) -> dict[str, tuple[float, str]]:
    """Test files changed in the same commits as the best-ranked modules: (weight, the module
    they changed with most), the `HISTORY_TESTS` heaviest. A module's commits weigh less the lower
    it ranks (`HISTORY_DECAY`), and count from `HISTORY_MIN` commits shared with it."""
    from noface_ctx.config import cache_dir

    weight: dict[str, float] = {}
    most: dict[str, tuple[float, str]] = {}
    try:
        db_path = cache_dir(r.config) / "history.sqlite"
        ensure_history(r.config.root, db_path)
    except OSError:
        return {}
    for k, source in enumerate(sources):
        counts = co_changed(db_path, [source])
        for p, n in counts.items():
            if n >= HISTORY_MIN and p in r.file_no and test_file[r.file_no[p]]:
                w = n * HISTORY_DECAY**k
                weight[p] = weight.get(p, 0.0) + w
                if w > most.get(p, (0.0, ""))[0]:
                    most[p] = (w, source)
    tests = sorted(weight.items(), key=lambda t: (-t[1], t[0]))[:HISTORY_TESTS]
    return {p: (w, most[p][1]) for p, w in tests}


def _test_names(r: CodeRun, test_file: np.ndarray) -> list[tuple[str, str]]:
    """(path, the module name it carries) of every test file, kept with the index."""
    key = "test-names"
    if key not in r.index.memo:
        paths = r.index.paths()
        r.index.memo[key] = [(p, tested_name(p)) for k, p in enumerate(paths) if test_file[k]]
    return cast(list[tuple[str, str]], r.index.memo[key])


def _named_test_files(r: CodeRun, seed_paths: Sequence[str], test_file: np.ndarray) -> list[tuple[str, str, float]]:
    """(test file, the source module it goes with, bonus) for the modules of the best-ranked
    files: named after the module, or after its package. Where test files carrying the module's
    name sit in folders sharing a word with the module's path, only those (`tests/migrations/test_state.py`
    for `django/db/migrations/state.py`, not `tests/model_regress/test_state.py`); a name more
    test files carry than `AMBIGUOUS_NAME` names only those. A package name names at most
    `FOLDER_FILES` files, those with the module's name first."""
    names = _test_names(r, test_file)
    out = []
    for path in seed_paths[:NAMED_SEEDS]:
        folder, module = module_of(path)
        hits = [p for p, tested in names if named(tested, module, folder) and placed(p.rpartition("/")[0], folder)]
        mine = words(folder.partition("/")[2])  # the top folder (the package's own name) is in every path
        near = [p for p in hits if words(p.rpartition("/")[0]) & mine]
        hits = near if near or len(hits) > AMBIGUOUS_NAME else hits
        out += [(p, path, W_NAMED) for p in hits]
        by_folder = [p for p, tested in names
                     if named_by_folder(tested, folder) and p not in hits and placed(p.rpartition("/")[0], folder)]
        by_folder.sort(key=lambda p: (module not in p.rpartition("/")[2], p))
        out += [(p, path, W_FOLDER) for p in by_folder[:FOLDER_FILES]]
    return out


def _title_test_files(r: CodeRun, test_file: np.ndarray) -> list[str]:
    """Test files (with tests) named with the issue title's words; none when the title names too many."""
    title = title_words(r.issue.title)
    hits = [p for p, _tested in _test_names(r, test_file)
            if title_named(p, title) and any(_test_function(r, j) for j in r.index.chunk_ids(p))]
    return hits if len(hits) <= TITLE_FILES else []


def test_candidates(r: CodeRun, found: Sequence[TestFile], render: Callable[[int], str]) -> list[Candidate]:
    """The candidates for the tests found, in the order the budget takes them: the best file's
    pointer and its best test in full (when it leads the runner-up clearly, `LEADS_BY`, or its leading test
    is the one for this issue, `lead_clear`), a pointer for each file named after a best-ranked module or
    with the title's words, then for each close runner-up file, and the best file's second test in
    full. `render(i)` gives chunk `i`'s full block."""
    if not found:
        return []
    best = found[0]
    out: list[Candidate] = []
    top = max(t[1] for t in best.tests)
    shown: list[tuple[int, float, tuple[str, ...]]] = []
    unsure = len(found) > 1 and found[1].score >= LEADS_BY * best.score  # which file is the test file is unclear
    named_lead = best.preferred and best.lead_clear  # ... but its leading test is the one for this issue
    for t in best.tests[:(1 if named_lead else 0) if unsure else SHOWN_TESTS]:
        if t[1] <= 0 or (shown and t[1] < SECOND_SHOWN * top):
            break
        shown.append(t)
    blocks = []
    for j, sc, seeds in shown:
        text = render(j)
        if count_tokens(text) <= TEST_MAX_TOKENS:
            blocks.append((j, sc, seeds, text))
    out.append(_pointer(r, best, [b[0] for b in blocks[:1]], top))  # the second may not fit: named as relevant
    full = []
    for j, sc, seeds, text in blocks:
        start, end = r.index.lines(j)
        why = test_reason(list(seeds), best.named_after, best.lead_words if j == best.tests[0][0] else ())
        full.append(Candidate(kind="code", path=best.path, ref=r.index.symbol(j), title=f"test {r.index.symbol(j)}",
                              forms=(Form("full", text, count_tokens(text)),), score=sc,
                              request=need_code(best.path, r.index.symbol(j)), reasons=(why,),
                              start_line=start, end_line=end, symbol_kind=r.index.kind(j)))
    close = [tf for tf in found[1:] if tf.score >= MORE_FILES_SHARE * best.score]
    order = [*close[:RUNNERS_UP], *(tf for tf in found[1:] if tf.preferred), *close]
    more: list[TestFile] = []
    for tf in order:  # each file once, at its first place
        if all(tf.path != m.path for m in more):
            more.append(tf)
    pointers = [_pointer(r, tf, [], max(t[1] for t in tf.tests), limit=MORE_NAMES, runner_up=True)
                for tf in more[:MORE_FILES]]
    return out + full[:1] + pointers + full[1:]  # the other files' pointers before a second test in full


def _pointer(r: CodeRun, tf: TestFile, shown: Sequence[int], top: float, limit: int = POINTER_NAMES,
             runner_up: bool = False) -> Candidate:
    """One line naming a test file's relevant tests not shown, with the line fetching one (a
    `runner_up`'s single test: its lines, and its name only in that line)."""
    others = [t for t in tf.tests if t[0] not in shown and t[1] >= NAMED_SHARE * top][:limit]
    if not others:
        others = [t for t in tf.tests if t[0] not in shown][:1]
    names = [(r.index.symbol(t[0]), *r.index.lines(t[0])) for t in others]
    listed = [*shown, *(t[0] for t in others)]
    spans = [r.index.lines(j) for j in listed] or [(1, 1)]
    first = names[0][0] if names else r.index.symbol(shown[0])
    if runner_up and len(names) == 1:
        text = runner_up_test_pointer(tf.path, tf.seeds, tf.named_after, names[0][1], names[0][2], need_code(tf.path, first))
    else:
        text = test_pointer(tf.path, tf.seeds, tf.named_after, [r.index.symbol(j) for j in shown], names,
                            need_code(tf.path, first))
    return Candidate(kind="code", path=tf.path, ref="", title=f"tests in {tf.path}", forms=(Form("pointer", text, count_tokens(text)),),
                     score=tf.score, request=need_code(tf.path, first), reasons=(test_reason(tf.seeds, tf.named_after),),
                     start_line=min(s for s, _ in spans), end_line=max(e for _, e in spans), symbol_kind="tests")

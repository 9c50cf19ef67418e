"""A first run's two reading processes (`first_reads.start_reading`): the docs' readings split
between them, the answers those of reading everything here."""

from __future__ import annotations

from noface_ctx.config import load_config
from noface_ctx.datatypes import Doc
from noface_ctx.docs.load import load_docs
from noface_ctx.files.gate import scan_repo
from noface_ctx.freshness import code_words as cw
from noface_ctx.freshness import first_reads


def _doc(path: str, chars: int) -> Doc:
    return Doc(path, path, path, "x" * chars)


def test_the_code_reader_takes_the_docs_that_even_the_work():
    """`REFERENCE_COST` units a character of docs, one a byte of code: the process reading the code
    takes docs from the end until both shares are about equal; none when the code alone is more."""
    cost = first_reads.REFERENCE_COST
    docs = [_doc(f"d{i}.md", 100) for i in range(10)]  # 1,000 characters: 1,000 * cost units
    assert first_reads.docs_with_code(docs, 0) == 5  # 500 * cost units each: 500 characters, not over it
    assert first_reads.docs_with_code(docs, 200 * cost) == 4  # (1,000 - 200) * cost / 2 units: 400 characters
    assert first_reads.docs_with_code(docs, 1_000 * cost) == 0 == first_reads.docs_with_code(docs, 50_000 * cost)
    assert first_reads.docs_with_code([], 10) == 0


def test_split_references_and_handed_words_are_those_read_here(repo_factory, monkeypatch):
    """Every doc's references, whichever process read them, and the handed files' contents are
    what reading them here answers; without handed files one process reads every doc. (The calls
    are made here by a stand-in for `in_forks`, which refuses to fork while a test's threads run.)"""
    started: list[list[tuple]] = []

    def in_forks(*calls):
        started.append(list(calls))
        return [lambda fn=fn, args=args: fn(*args) for fn, args in calls]

    monkeypatch.setattr(first_reads, "in_forks", in_forks)
    files = {f"pkg/mod{i}.py": f"def func_{i}(a, b=1):\n    return a\n\n\nclass Kind{i}:\n    size = {i}\n"
             for i in range(6)}
    files.update({f"docs/page{i}.md": f"# Page {i}\n\nCall `pkg.mod{i}.func_{i}(a)` or `Kind{i}.size`.\n" * (i + 1)
                  for i in range(8)})
    repo = repo_factory(files)
    config = load_config(str(repo))
    repo_files = scan_repo(config)
    docs = list(load_docs(config, repo_files).docs)
    assert len(docs) == 8
    paths = {d.path for d in docs}
    handed = cw.handed_out(repo_files, paths, None)
    assert 0 < first_reads.docs_with_code(docs, sum(repo_files.stats[p][0] for p in handed)) < len(docs)  # both read some
    reading = first_reads.start_reading(docs, repo_files, handed)
    assert reading is not None and reading[1] is not None
    refs, (kept, contents) = reading[0](), reading[1]
    assert refs == first_reads.read_texts(docs) and refs  # the same, both halves merged
    assert kept == frozenset(handed) and contents() == cw.contents(repo_files.root, handed)
    assert contents() is contents()  # one answer, waited for once
    (_refs, (alone_docs,)), (_both, (_root, paths_there, with_code)) = started[0]
    assert [*alone_docs, *with_code] == docs and alone_docs and with_code and paths_there == handed
    alone = first_reads.start_reading(docs, repo_files, [])
    assert alone is not None and alone[1] is None and alone[0]() == first_reads.read_texts(docs)
    assert len(started[1]) == 1 and started[1][0][1] == (docs,)
    monkeypatch.setattr(first_reads, "in_forks", lambda *calls: None)  # no fork: nothing started, read in the run
    assert first_reads.start_reading(docs, repo_files, handed) is None

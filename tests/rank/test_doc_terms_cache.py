"""Doc ranking from the cached terms (doc-terms.cache) equals ranking from the docs themselves."""

from __future__ import annotations

from conftest import login_repo

from noface_ctx import _state as state
from noface_ctx.config import load_config
from noface_ctx.datatypes import Issue
from noface_ctx.docs.load import load_docs
from noface_ctx.files.gate import scan_repo


def test_doc_ranking_is_the_same_from_cached_terms(tmp_path):
    from noface_ctx.rank import doc_candidates as rc
    from noface_ctx.rank import docs as rd
    from noface_ctx.rank.complexity import Complexity

    root = login_repo(tmp_path / "repo")
    config = load_config(root)
    docset = load_docs(config, scan_repo(config))
    issue = Issue(id="x", title="get_user fails for sessions", description="logout breaks sessions after get_user")
    args = (issue, docset, {}, config, None, Complexity(0.5, 2, ()))
    pool = rc.choose_docs(issue, docset, config, args[5], embedding=False)
    pool.save_terms()  # what the pipeline does once ranking is done
    cold = rd.score_docs(pool, {}, config, None, args[5])
    state.clear_all()  # what a new process sees: only the disk
    warm = rd.rank_docs(*args)  # terms and BM25 from doc-terms.cache
    assert warm.report == cold.report and [c.ref for c in warm.candidates] == [c.ref for c in cold.candidates]
    stored = rc.choose_docs(issue, docset, config, args[5], embedding=False).corpus  # read back, sets built on demand
    built = rc.DocCorpus(docset)  # from the docs themselves
    assert dict(stored.df) == dict(built.df) and stored.n == built.n
    assert all(stored.coverage(i, {"sessions": 1.0}, 1.0) == built.coverage(i, {"sessions": 1.0}, 1.0)
               for i in range(built.n))

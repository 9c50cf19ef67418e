"""A default applied in the body (issue 25, rule 5): `chunk_n_max=None` in the signature, then
`if chunk_n_max is None: chunk_n_max = 500`; a doc saying "The default value for ``chunk_n_max``
is 500." is stale once the body applies 1000."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.coded_defaults import code_default

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

FIT = '''def parallel_fit(data, chunk_n_max=None, task_scheduler=None):
    """Fit in chunks."""
    if data:
        if chunk_n_max is None:
            chunk_n_max = 500
    if task_scheduler is None:
        task_scheduler = pick_scheduler()
    return data, chunk_n_max, task_scheduler


def pick_scheduler():
    return "threads"
'''

DOC = ("Parallel fitting\n================\n\nCall :func:`pkg.fit.parallel_fit`. Set ``chunk_n_max=1000`` for\n"
       "large data.\n\nThe default value for ``chunk_n_max`` is 500.\n")


def test_the_default_a_body_applies_to_a_none_parameter_is_the_default():
    assert code_default(FIT, "chunk_n_max") == "500"
    assert code_default(FIT, "task_scheduler") == "None"  # a call, not a literal: the signature's
    twice = FIT + FIT.replace("parallel_fit", "serial_fit").replace("= 500", "= 50")
    assert code_default(twice, "chunk_n_max") == "None"  # two values applied: none is the default


def test_a_default_applied_in_the_body_that_changed_is_flagged(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/fit.py": FIT, "docs/parallel.rst": DOC}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/fit.py").write_text(FIT.replace("'''Fit in chunks.'''", "'''Fit in chunks of 500.'''"))
    commit(root, "docstring", date=FEB)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/fit.py").write_text(FIT.replace("chunk_n_max = 500", "chunk_n_max = 1000"))
    commit(root, "1000 fits in a chunk by default", date=FEB)
    found = check_docs(repo=root).findings
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    assert [(f.path, f.line, f.code) for f in found] == [("docs/parallel.rst", 7, "changed-ref")]
    assert found[0].message.startswith(f"default of `chunk_n_max` (pkg/fit.py) changed in {head}")

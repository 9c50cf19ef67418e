"""Pages that name old APIs on purpose are never judged (issue 25, held-out6 precision): a list
of deprecations named with words of scope before the deprecation word (sympy's
`active-deprecations.md`) and enhancement proposals (matplotlib's `doc/devel/MEP/MEP25.rst`),
while a guide naming the same removed name is stale."""

from __future__ import annotations

from conftest import commit

from noface_ctx.docs.markup import names_old_apis
from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"


def test_deprecation_lists_and_enhancement_proposals_are_not_judged(repo_factory):
    root = repo_factory({
        "pkg/__init__.py": "from pkg.matrices import RawMatrix\n",
        "pkg/matrices.py": "class RawMatrix:\n    pass\n\n\nclass Matrix:\n    pass\n",
        "doc/explanation/active-deprecations.md": "# Active deprecations\n\n`RawMatrix` is deprecated: use `Matrix`.\n",
        "doc/devel/MEP/MEP25.rst": "MEP25: Matrices\n===============\n\n**Rejected**. Extend ``RawMatrix``.\n",
        "doc/guide.md": "# Guide\n\nBuild a `RawMatrix` first.\n",
    }, date=JAN)
    (root / "pkg/matrices.py").write_text("class Matrix:\n    pass\n")
    (root / "pkg/__init__.py").write_text("from pkg.matrices import Matrix\n")
    commit(root, "remove RawMatrix", date=FEB)
    assert [(f.path, f.code) for f in check_docs(repo=root).findings] == [("doc/guide.md", "stale-ref")]


def test_which_pages_name_old_apis_on_purpose():
    assert names_old_apis("doc/extdev/deprecated.rst") and names_old_apis("docs/internals/deprecation.txt")
    assert names_old_apis("doc/src/explanation/active-deprecations.md") and names_old_apis("docs/API_Deprecations.md")
    assert names_old_apis("doc/devel/MEP/MEP25.rst") and names_old_apis("doc/neps/nep-0029-deprecation_policy.rst")
    assert names_old_apis("docs/enhancement-proposals/slep012.md")
    assert not names_old_apis("docs/handling-deprecations.md")  # a guide about deprecating: judged
    assert not names_old_apis("docs/guide/stepper.md") and not names_old_apis("docs/user/api.md")

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


MIGRATING = """# Migrating to 2.0

### `pkg.gen.MappingFn` and `pkg.gen.DictFn` removal

The internal `pkg.gen.MappingFn` and `pkg.gen.DictFn`
types were replaced by a more general type, `pkg.gen.Hook`.

:func:`~pkg.gen.old_hook` has been renamed to :func:`pkg.gen.make_hook`.
After the removal of ``pkg.gen.legacy``, use ``pkg.gen.modern``.
"""


def test_a_heading_or_sentence_announcing_a_removal_is_history_not_a_stale_reference(repo_factory):
    """cattrs' migrations.md names the types a release removed under "### `X` removal" and as the
    subject of "were replaced by": the doc says they are gone (here in a page of another name: one
    named `migrating` is a record, never judged). What they were replaced by, and every
    other mention of a gone name in the same page ("Use ... to"), is judged as before."""
    root = repo_factory({
        "pkg/__init__.py": "",
        "pkg/gen.py": ("MappingFn = DictFn = object  # one chained assignment defines both\n\n\ndef old_hook():\n    pass\n\n\ndef make_hook():\n    pass\n\n\n"
                       "def legacy():\n    pass\n\n\ndef modern():\n    pass\n\n\nclass Hook:\n    pass\n"),
        "docs/hooks.md": MIGRATING,
        "docs/guide.md": "# Guide\n\nUse `pkg.gen.DictFn` to type a hook.\n",
    }, date=JAN)
    (root / "pkg/gen.py").write_text("def modern():\n    pass\n\n\nclass Hook:\n    pass\n")  # make_hook gone too
    commit(root, "remove the old hooks and types", date=FEB)
    found = sorted((f.path, f.line, f.message.split("`")[1]) for f in check_docs(repo=root).findings)
    assert found == [("docs/guide.md", 3, "pkg.gen.DictFn"), ("docs/hooks.md", 8, "pkg.gen.make_hook")]

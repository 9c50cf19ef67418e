"""A doc born stale: written (or copied in) after the API it names was removed. Whether a name
is stale must not depend on the doc's age: a name nothing defines now that the repository defined
before the doc was written is stale, blamed on the commit that removed it. A word left in a
comment (also in another language's file) keeps nothing alive; a name the repository never
defined, or defines now, is never a finding; a plain literal is not followed."""

from __future__ import annotations

from conftest import commit, write_tree

from noface_ctx.freshness.check import check_docs

GRAMMAR = '''"""Grammar classes."""


class Sequence:
    def __init__(self, *elements, terminator=None):
        self.elements = elements
        self.terminator = terminator


class StartsWith:
    def __init__(self, first, terminator=None):
        self.first = first
        self.terminator = terminator


class BaseSegment:
    match_grammar = None
    parse_grammar = None
'''
GUIDE = """Writing a segment
=================

Segments start from a grammar:

.. code-block:: python

    match_grammar = StartsWith(Sequence("SELECT"), terminator="FROM")

Then :code:`ansi.BaseSegment.parse_grammar` is read to delve into the statement. The
``template_gis`` database and ``Sequence()`` are fine.
"""


def _history(root, *, comment_in_rust: bool = False, moved: bool = False) -> None:
    """The code is edited, StartsWith and parse_grammar go, the code is edited again, then the
    guide is added (eight commits: the grid is every commit, looked at 1, 2 and 4 back)."""
    for month in range(7, 10):
        with (root / "sqlkit/grammar.py").open("a") as fh:
            fh.write(f"\n\ndef early_{month}():\n    return {month}\n")
        commit(root, f"an early helper ({month})", date=f"2023-{month:02}-01T12:00:00+00:00")
    text = (root / "sqlkit/grammar.py").read_text().replace("class StartsWith:\n    def __init__(self, first, terminator=None):\n"
                           "        self.first = first\n        self.terminator = terminator\n\n\n", "")
    text = text.replace("    parse_grammar = None\n", "")
    if moved:  # parse_grammar moved up to a new base class: BaseSegment still has it
        text = text.replace("class BaseSegment:", "class Segment:\n    parse_grammar = None\n\n\nclass BaseSegment(Segment):")
    (root / "sqlkit/grammar.py").write_text(text)
    if comment_in_rust:
        (root / "port/src/parser.rs").write_text("/// This replicates the `StartsWith` semantics.\nfn starts() {}\n")
    commit(root, "remove StartsWith and parse_grammar", date="2024-02-01T12:00:00+00:00")
    for month in range(3, 5):
        with (root / "sqlkit/grammar.py").open("a") as fh:
            fh.write(f"\n\ndef helper_{month}():\n    return {month}\n")
        commit(root, f"a helper ({month})", date=f"2024-{month:02}-01T12:00:00+00:00")
    write_tree(root, {"docs/guide.rst": GUIDE})
    commit(root, "add a guide to writing segments", date="2024-10-01T12:00:00+00:00")


def test_a_guide_added_after_the_removal_is_stale(repo_factory):
    root = repo_factory({"sqlkit/__init__.py": "", "sqlkit/grammar.py": GRAMMAR, "sqlkit/ansi.py":
                         "from sqlkit.grammar import BaseSegment\n\n\nclass SelectSegment(BaseSegment):\n    pass\n",
                         "port/src/lib.rs": "fn main() {}\n"}, date="2023-06-01T12:00:00+00:00")
    _history(root, comment_in_rust=True)
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("docs/guide.rst", 8), ("docs/guide.rst", 10)}
    assert "`StartsWith()`" in got["docs/guide.rst", 8] and "remove StartsWith and parse_grammar" in got["docs/guide.rst", 8]
    assert "`ansi.BaseSegment.parse_grammar`" in got["docs/guide.rst", 10]
    assert "remove StartsWith" in got["docs/guide.rst", 10]


def test_a_name_defined_now_or_never_defined_is_no_finding(repo_factory):
    root = repo_factory({"sqlkit/__init__.py": "", "sqlkit/grammar.py": GRAMMAR.replace("StartsWith", "StartsWithX"),
                         "sqlkit/ansi.py": "from sqlkit.grammar import BaseSegment\n"}, date="2023-06-01T12:00:00+00:00")
    _history(root, moved=True)  # StartsWith never was; parse_grammar moved to BaseSegment's new base
    assert not check_docs(repo=root).findings


def test_a_plain_literal_is_not_followed_into_the_past(repo_factory):
    root = repo_factory({"sqlkit/__init__.py": "", "sqlkit/grammar.py": GRAMMAR + "\ntemplate_gis = 'gis'\n"},
                        date="2023-06-01T12:00:00+00:00")
    (root / "sqlkit/grammar.py").write_text(GRAMMAR)
    commit(root, "drop the template_gis constant", date="2023-08-01T12:00:00+00:00")
    for month in range(9, 13):
        with (root / "sqlkit/grammar.py").open("a") as fh:
            fh.write(f"\n\ndef helper_{month}():\n    return {month}\n")
        commit(root, f"a helper ({month})", date=f"2023-{month:02}-01T12:00:00+00:00")
    write_tree(root, {"docs/guide.rst": "Databases\n=========\n\nCreate the ``template_gis`` database first.\n"})
    commit(root, "add a guide", date="2024-01-01T12:00:00+00:00")
    assert not check_docs(repo=root).findings


RULES = '''"""Rules."""


class BaseRule:
    """A lint rule."""

    needs_raw_stack = False
    crawl_behaviour = None

    def crawl(self, segment):
        return [segment]


def password_reset(request):
    return request
'''
RULES_DOC = """Writing rules
=============

Each rule derives from ``BaseRule``.

``needs_raw_stack``
^^^^^^^^^^^^^^^^^^^
``needs_raw_stack`` defaults to ``False``: set it when the rule reads earlier segments.

The reset page is named ``password_reset``.
"""


def test_a_removed_class_field_stays_stale_through_the_docs_later_edits(repo_factory):
    root = repo_factory({"lintkit/__init__.py": "", "lintkit/rules.py": RULES, "docs/rules.rst": RULES_DOC},
                        date="2022-01-01T12:00:00+00:00")
    for month in range(2, 5):
        with (root / "lintkit/rules.py").open("a") as fh:
            fh.write(f"\n\ndef helper_{month}():\n    return {month}\n")
        commit(root, f"a helper ({month})", date=f"2022-{month:02}-01T12:00:00+00:00")
    text = (root / "lintkit/rules.py").read_text()
    text = text.replace("    needs_raw_stack = False\n", "").replace("def password_reset(request):\n    return request\n", "")
    (root / "lintkit/rules.py").write_text(text)
    commit(root, "crawlers replace needs_raw_stack", date="2022-06-01T12:00:00+00:00")
    assert {(f.path, f.line) for f in check_docs(repo=root).findings} == {("docs/rules.rst", 6), ("docs/rules.rst", 10)}
    for month in range(7, 10):  # then the guide is edited in place, the literal kept
        with (root / "docs/rules.rst").open("a") as fh:
            fh.write(f"\nA note ({month}).\n")
        commit(root, f"guide note {month}", date=f"2022-{month:02}-01T12:00:00+00:00")
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    # a plain literal is followed past the doc's edits only as a field of a class the doc names: not
    # ``password_reset`` (a function; a URL name too, in django)
    assert set(got) == {("docs/rules.rst", 6)}
    assert "`needs_raw_stack`" in got["docs/rules.rst", 6] and "crawlers replace needs_raw_stack" in got["docs/rules.rst", 6]


def test_a_guide_written_by_the_commit_removing_the_field_it_names_is_judged(repo_factory):
    # matplotlib's pinned check crashed here: the doc's first version was the removal itself
    root = repo_factory({"lintkit/__init__.py": "", "lintkit/rules.py": RULES}, date="2022-01-01T12:00:00+00:00")
    for month in range(2, 5):
        with (root / "lintkit/rules.py").open("a") as fh:
            fh.write(f"\n\ndef helper_{month}():\n    return {month}\n")
        commit(root, f"a helper ({month})", date=f"2022-{month:02}-01T12:00:00+00:00")
    (root / "lintkit/rules.py").write_text((root / "lintkit/rules.py").read_text().replace("    needs_raw_stack = False\n", ""))
    write_tree(root, {"docs/rules.rst": RULES_DOC})
    commit(root, "crawlers replace needs_raw_stack; a guide to rules", date="2022-06-01T12:00:00+00:00")
    for month in range(7, 10):
        with (root / "docs/rules.rst").open("a") as fh:
            fh.write(f"\nA note ({month}).\n")
        commit(root, f"guide note {month}", date=f"2022-{month:02}-01T12:00:00+00:00")
    report = check_docs(repo=root)
    assert len(report.docs) == 1
    assert report.findings == ()  # a name the doc took up at its removal is the doc's account of it


def test_a_doc_born_early_in_a_long_history_is_searched_on_a_finer_grid(repo_factory):
    # webargs' framework_support.rst, born at first-parent commit 232 of 1159 (grid step 256): no
    # grid commit came before its birth, so `Arg`, removed a week before, was never looked for
    root = repo_factory({"sqlkit/__init__.py": "", "sqlkit/grammar.py": GRAMMAR, "sqlkit/ansi.py":
                         "from sqlkit.grammar import BaseSegment\n\n\nclass SelectSegment(BaseSegment):\n    pass\n"},
                        date="2023-06-01T12:00:00+00:00")
    _history(root)
    for n in range(64):  # a long history after the guide: the grid's step grows past its birth
        with (root / "sqlkit/ansi.py").open("a") as fh:
            fh.write(f"\n\ndef later_{n}():\n    return {n}\n")
        commit(root, f"later work ({n})", date=f"2025-01-{1 + n // 24:02}T{n % 24:02}:00:00+00:00")
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("docs/guide.rst", 8), ("docs/guide.rst", 10)}
    assert all("remove StartsWith and parse_grammar" in m for m in got.values())


def test_an_early_doc_naming_what_never_was_is_no_finding_on_the_finer_grid(repo_factory):
    # negative: the same long history, where StartsWith never existed and parse_grammar moved up
    root = repo_factory({"sqlkit/__init__.py": "", "sqlkit/grammar.py": GRAMMAR.replace("StartsWith", "StartsWithX"),
                         "sqlkit/ansi.py": "from sqlkit.grammar import BaseSegment\n"}, date="2023-06-01T12:00:00+00:00")
    _history(root, moved=True)
    for n in range(64):
        with (root / "sqlkit/ansi.py").open("a") as fh:
            fh.write(f"\n\ndef later_{n}():\n    return {n}\n")
        commit(root, f"later work ({n})", date=f"2025-01-{1 + n // 24:02}T{n % 24:02}:00:00+00:00")
    assert not check_docs(repo=root).findings

"""A keyword an example passes that the code no longer takes (issue 25): a parameter renamed in
every function, dataclass field and pass-through that named it (`binwidth` → `bin_width`) while
the examples still pass `binwidth=`, and a keyword gone from one callee's signature (`exit` →
`sys_exit`). The finding names the keyword, at the line passing it."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

PLOTS = '''def histplot(data, bins=10, binwidth=None, **kwargs):
    """A histogram; other keywords go to the artist."""
    return data, bins, binwidth, kwargs


def displot(data, kind="hist", **kwargs):
    return histplot(data, **kwargs)


class Grid:
    def __init__(self, data, col=None):
        self.data = data

    def map(self, func, *args, **kwargs):
        return func(self.data, *args, **kwargs)
'''

STATS = '''from dataclasses import dataclass


@dataclass
class Hist:
    """Bins data."""

    bins: int = 10
    binwidth: float | None = None
'''

RUN = '''class Run:
    """Runs the checks."""

    def __init__(self, args, reporter=None, exit=True):
        self.args = args
        self.exit = exit
'''

DOCS = {
    # a plain-word keyword through a module alias, written after the import on one line
    "docs/hist.md": ("# Histograms\n\n```python\nimport pkg as pk; pk.setup = None\n\ndata = [1, 2, 3]\n"
                     "pk.histplot(data)\npk.histplot(data, binwidth=3)\n```\n"),
    # through a function that passes its keywords on, and a method of an object the example made
    "docs/facets.md": ("# Facets\n\n```python\nimport pkg as pk\n\npk.displot([1, 2], binwidth=2)\n"
                       "g = pk.Grid([1, 2])\ng.map(pk.histplot, binwidth=2)\n```\n"),
    # a dataclass field is a constructor keyword; a name a `from` import binds
    "docs/stats.md": "# Stats\n\n```python\nfrom pkg.stats import Hist\n\nhist = Hist(binwidth=5)\n```\n",
    # the same word passed to another package's call, and to an object of unknown type: not ours
    "docs/numpy.md": ("# With numpy\n\n```python\nimport numpy as np\nimport pkg\n\ndata = pkg.load()\n"
                      "np.histogram(data, binwidth=3)\nax = data.axes\nax.set(binwidth=3)\n```\n"),
}


def _repo(repo_factory):
    files = {"pkg/__init__.py": "from pkg.plots import Grid, displot, histplot\n\n\ndef load():\n    return []\n",
             "pkg/plots.py": PLOTS, "pkg/stats.py": STATS, **DOCS}
    return repo_factory(files, date=JAN)


def _head(root) -> str:
    return git(root, "rev-parse", "--short=10", "HEAD").strip()


def _line(root, path: str, text: str) -> int:
    return next(i for i, line in enumerate((root / path).read_text().split("\n"), 1) if text in line)


def test_a_keyword_renamed_everywhere_is_flagged_where_each_example_passes_it(repo_factory):
    root = _repo(repo_factory)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/plots.py").write_text(PLOTS.replace("binwidth", "bin_width"))
    (root / "pkg/stats.py").write_text(STATS.replace("binwidth", "bin_width"))
    commit(root, "Rename binwidth to bin_width", date=FEB)
    found = {(f.path, f.line): f for f in check_docs(repo=root).findings}
    assert set(found) == {
        ("docs/hist.md", _line(root, "docs/hist.md", "binwidth=3")),
        ("docs/facets.md", _line(root, "docs/facets.md", "pk.displot")),
        ("docs/stats.md", _line(root, "docs/stats.md", "Hist(binwidth")),
    }
    for (path, _), f in found.items():
        assert f.code == "stale-ref" and f.severity == "error", path
        assert "passes `binwidth` to `" in f.message and f"removed in {_head(root)}" in f.message
        assert f.message.endswith("(renamed to `bin_width`?)")
    assert "to `pk.histplot()`" in found["docs/hist.md", _line(root, "docs/hist.md", "binwidth=3")].message
    assert "to `Hist()`" in found["docs/stats.md", _line(root, "docs/stats.md", "Hist(binwidth")].message


def test_a_keyword_a_pass_through_gets_is_flagged_when_only_that_call_passes_it(repo_factory):
    root = _repo(repo_factory)
    (root / "docs/facets.md").write_text(DOCS["docs/facets.md"].replace("pk.displot([1, 2], binwidth=2)\n", ""))
    commit(root, "docs: one example", date=JAN)
    (root / "pkg/plots.py").write_text(PLOTS.replace("binwidth", "bin_width"))
    (root / "pkg/stats.py").write_text(STATS.replace("binwidth", "bin_width"))
    commit(root, "Rename binwidth to bin_width", date=FEB)
    found = [f for f in check_docs(repo=root).findings if f.path == "docs/facets.md"]
    assert [(f.line, f.code) for f in found] == [(_line(root, "docs/facets.md", "g.map("), "stale-ref")]
    assert "passes `binwidth` to `pkg.Grid.map()`" in found[0].message


def test_a_keyword_still_handled_or_defined_elsewhere_is_not_flagged(repo_factory):
    root = _repo(repo_factory)
    # histplot's keyword renamed, but the dataclass keeps the word: nothing is removed
    (root / "pkg/plots.py").write_text(PLOTS.replace("binwidth", "bin_width"))
    commit(root, "Rename histplot's binwidth to bin_width", date=FEB)
    found = check_docs(repo=root).findings
    assert all(f.code == "changed-ref" for f in found)
    assert {f.path for f in found} == {"docs/hist.md"}  # histplot's own signature: the call passing the keyword
    assert found[0].line == _line(root, "docs/hist.md", "binwidth=3")
    assert "passes `binwidth` to `pk.histplot()`, which no longer takes it" in found[0].message
    assert found[0].message.endswith("(renamed to `bin_width`?)")


RUN_DOC = ("Run\n===\n\nUse ``pkg.run.Run`` directly:\n\n.. code-block:: python\n\n    from pkg.run import Run\n\n"
           "    Run([\"a.py\"])\n    Run([\"a.py\"], reporter=None, exit=False)\n")


def test_a_builtin_named_keyword_gone_from_a_signature_is_named_at_the_call_passing_it(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/run.py": RUN, "docs/run.rst": RUN_DOC}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/run.py").write_text(RUN.replace("exit=True", "sys_exit=True").replace("= exit", "= sys_exit"))
    commit(root, "Rename Run's exit to sys_exit", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line, f.code) for f in found] == [("docs/run.rst", _line(root, "docs/run.rst", "exit=False"), "changed-ref")]
    assert found[0].message.startswith("passes `exit` to `")
    assert f"changed in {_head(root)}" in found[0].message and found[0].message.endswith("(renamed to `sys_exit`?)")


def test_a_signature_change_the_calls_pass_no_keyword_of_keeps_its_wording(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/run.py": RUN, "docs/run.rst": RUN_DOC}, date=JAN)
    # (a reorder the calls, passing keywords, never notice warns no one: a new required parameter)
    (root / "pkg/run.py").write_text(RUN.replace("args, reporter=None", "args, config, reporter=None"))
    commit(root, "Run needs a config", date=FEB)
    found = check_docs(repo=root).findings
    assert [f.path for f in found] == ["docs/run.rst"]
    assert found[0].message.startswith("signature of `")


THEME = '''def set_theme(context="notebook", style="darkgrid", font_scale=1):
    """Set the theme."""
    return context, style, font_scale


def histplot(data, multiple="layer", bins=10):
    """A histogram."""
    return data, multiple, bins
'''

THEME_DOCS = {
    # a default named by its value, beside a function the doc names in a role
    "docs/aesthetics.rst": ("Aesthetics\n==========\n\nTo switch to the package's look, call :func:`pkg.set_theme`.\n"
                            "There are three themes: ``darkgrid``, ``whitegrid`` and ``ticks``. The default theme is\n"
                            "``darkgrid``.\n"),
    # a plain-word function only a role names, and the default's value as a word in quotes, inflected
    "docs/hist.rst": (".. currentmodule:: pkg\n\nHistograms\n==========\n\nDraw one with :func:`histplot`.\n\n"
                      'By default, the histograms are "layered" on top of each other.\n'),
    # the same function named, and a sentence saying "default" about something else
    "docs/other.rst": ("Other\n=====\n\nSee :func:`pkg.set_theme`. The default palette is ``deep``; a\n"
                       '"layered" look is a matter of taste.\n'),
}


def _theme_repo(repo_factory):
    return repo_factory({"pkg/__init__.py": "from pkg.theme import histplot, set_theme\n", "pkg/theme.py": THEME,
                         **THEME_DOCS}, date=JAN)


def test_a_default_a_sentence_states_by_its_old_value_is_flagged_at_that_sentence(repo_factory):
    root = _theme_repo(repo_factory)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/theme.py").write_text(THEME.replace('style="darkgrid"', 'style="whitegrid"')
                                       .replace('multiple="layer"', 'multiple="stack"'))
    commit(root, "whitegrid and stacked bars by default", date=FEB)
    found = {(f.path, f.line, f.code): f.message for f in check_docs(repo=root).findings}
    assert set(found) == {("docs/aesthetics.rst", 5, "changed-ref"), ("docs/hist.rst", 8, "changed-ref")}
    assert found["docs/aesthetics.rst", 5, "changed-ref"].startswith("default of `style` of `pkg.set_theme` (pkg/theme.py) changed in ")
    assert found["docs/hist.rst", 8, "changed-ref"].startswith("default of `multiple` of `histplot` (pkg/theme.py) changed in ")


def test_a_default_stated_by_value_is_not_flagged_for_other_changes(repo_factory):
    root = _theme_repo(repo_factory)
    # a number's default, and a body: no sentence states them by a word
    (root / "pkg/theme.py").write_text(THEME.replace("bins=10", "bins=20").replace("font_scale=1", "font_scale=2")
                                       .replace("return data, multiple, bins", "return [data, multiple, bins]"))
    commit(root, "more bins, larger fonts", date=FEB)
    assert check_docs(repo=root).findings == ()
    # the doc already states the new value beside the old one's word
    (root / "docs/aesthetics.rst").write_text(THEME_DOCS["docs/aesthetics.rst"].replace(
        "``darkgrid``.\n", "``whitegrid`` (``darkgrid`` before 2.0).\n"))
    commit(root, "docs: the new default", date=FEB)
    (root / "pkg/theme.py").write_text(THEME.replace('style="darkgrid"', 'style="whitegrid"'))
    commit(root, "whitegrid by default", date=FEB)
    assert check_docs(repo=root).findings == ()


def test_a_keyword_a_doctest_call_passes_over_several_prompted_lines_is_named(repo_factory):
    # scikit-learn's `>>> regr = TransformedTargetRegressor(regressor=regressor,` / `...   transformer=...)`
    doc = ("Run\n===\n\nUse :class:`pkg.run.Run`::\n\n  >>> from pkg.run import Run\n  >>> run = Run(\"a.py\")\n"
           "  >>> run = Run(args=[\"a.py\"],\n  ...           exit=False)\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/run.py": RUN, "docs/run.rst": doc}, date=JAN)
    (root / "pkg/run.py").write_text(RUN.replace("exit=True", "sys_exit=True").replace("= exit", "= sys_exit"))
    commit(root, "Rename Run's exit to sys_exit", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.line, f.code) for f in found] == [(9, "changed-ref")]  # the line passing it
    assert found[0].message.startswith("passes `exit` to `") and found[0].message.endswith("(renamed to `sys_exit`?)")

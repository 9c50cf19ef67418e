"""MyST ```{eval-rst} blocks are read as reStructuredText (issue 25, recall; click's API page and
guides): their autodoc targets in the page's module context (a `.. currentmodule::` in a block
sets the page's), and a directive whose body is Python code (a project's own example directive,
click's `.. click:example::`) as an example; a prose directive's body is not code."""

from __future__ import annotations

from conftest import commit

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.extract import extract_references

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

API = """# API

```{currentmodule} pkg
```

```{eval-rst}
.. autofunction:: progress
```

```{eval-rst}
.. currentmodule:: pkg.shell

.. autoclass:: Item
```

```{eval-rst}
.. autofunction:: complete
```
"""

GUIDE = """# Commands

```{eval-rst}
.. proj:example::

    import pkg

    def cli(ctx):
        ctx.ensure_object(dict)
        pkg.progress(3)

.. note::

   Call run(x) first.
```
"""


def _refs(text, path):
    return {(r.line, r.name, r.source) for r in extract_references(Doc(path=path, slug="s", title="t", text=text))}


def test_eval_rst_autodoc_targets_in_the_pages_module_context():
    got = _refs(API, "docs/api.md")
    assert {(7, "pkg.progress", "autodoc"), (13, "pkg.shell.Item", "autodoc"),
            (17, "pkg.shell.complete", "autodoc")} <= got


def test_an_example_directives_python_body_is_an_example_and_a_note_is_prose():
    got = _refs(GUIDE, "docs/commands.md")
    assert (10, "pkg.progress", "python") in got
    assert any(line == 9 and name.endswith("ensure_object") and source == "python" for line, name, source in got)
    assert not [r for r in got if "run" in r[1]]  # the note's `run(x)` is a sentence, not an example


def test_a_renamed_function_stales_the_eval_rst_page_and_the_example(repo_factory):
    code = "def progress(n):\n    return n\n"
    root = repo_factory({"pkg/__init__.py": "from pkg.core import progress\n", "pkg/core.py": code,
                         "pkg/shell.py": "class Item:\n    pass\n\n\ndef complete():\n    pass\n",
                         "docs/api.md": API, "docs/commands.md": GUIDE}, date=JAN)
    (root / "pkg/core.py").write_text(code.replace("progress", "progress_bar"))
    (root / "pkg/__init__.py").write_text("from pkg.core import progress_bar\n")
    commit(root, "progress is progress_bar", date=FEB)
    got = {(f.path, f.line) for f in check_docs(repo=root).findings}
    assert {("docs/api.md", 7), ("docs/commands.md", 10)} <= got


def test_a_python_keyword_is_not_stale_for_a_removed_javascript_property(repo_factory):
    # astropy's wcsaxes `.. plot::` passes `aspect='equal'` to `WCSAxes(fig, rect, **kwargs)`
    # (matplotlib's keyword); the only `aspect` the code ever held was a bundled jquery plugin's
    axes = "class Axes:\n    def __init__(self, fig, rect, transform=None, **kwargs):\n        self.fig = fig\n"
    root = repo_factory({
        "pkg/__init__.py": "from pkg.axes import Axes\n", "pkg/axes.py": axes,
        "pkg/static/table.js": "var table = {aspect: 1, order: 2};\nfunction aspect(x) { return x; }\n",
        "docs/plots.rst": ("Plots\n=====\n\n.. plot::\n   :include-source:\n\n    from pkg import Axes\n\n"
                           "    ax = Axes(fig, [0, 0, 1, 1], aspect='equal',\n              transform=None)\n"),
    }, date=JAN)
    (root / "pkg/static/table.js").unlink()
    commit(root, "drop the bundled table plugin", date=FEB)
    assert check_docs(repo=root).findings == ()

"""sphinx-gallery scripts are docs to `check-docs` (issue 25, reference forms): a gallery's `.py`
file renders its docstring and `# %%` text blocks as a page, so a name its prose uses that the
code lost is stale there, at the script's own line; its code is left to the docs build that runs
it. The gallery folders come from a Sphinx conf.py's `sphinx_gallery_conf` (read, never run) or
from sphinx-gallery section headers."""

from __future__ import annotations

from conftest import commit

from noface_ctx.docs.gallery import gallery_dirs, gallery_text
from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

FIGURE = ("class Figure:\n    def tight_layout(self):\n        return self\n\n"
          "    def set_tight_layout(self, tight):\n        self.tight = tight\n")
CONF = ('import pathlib\npathlib.Path(__file__).with_name("conf-ran").write_text("1")\n'
        'gallery = ["../examples"]\nsphinx_gallery_conf = {"examples_dirs": gallery, "gallery_dirs": ["auto"]}\n')
GUIDE = '''"""
==============
Layout guide
==============

How to fit plots in the figure.
"""

from pkg.figure import Figure

fig = Figure()
fig.tight_layout()

# %%
# To redo the layout each time the figure is drawn, call
# ``fig.set_tight_layout(True)``.

fig.tight_layout()
'''
TOOL = '"""A maintenance script, not a page: ``fig.set_tight_layout(True)``."""\n'


def _repo(repo_factory, files):
    return repo_factory({"pkg/__init__.py": "", "pkg/figure.py": FIGURE, "doc/index.rst": "Docs\n====\n",
                         **files}, date=JAN)


def _remove(root):
    (root / "pkg/figure.py").write_text(FIGURE.split("\n    def set_tight_layout")[0] + "\n")
    commit(root, "drop Figure.set_tight_layout", date=FEB)


def test_a_name_the_prose_of_a_gallery_script_uses_is_stale_at_its_line(repo_factory):
    root = _repo(repo_factory, {"doc/conf.py": CONF, "examples/plot_layout.py": GUIDE, "tools/fix.py": TOOL})
    _remove(root)
    got = [(f.path, f.line) for f in check_docs(repo=root).findings]
    assert got == [("examples/plot_layout.py", 16)]  # not tools/fix.py: no gallery holds it
    assert not (root / "doc/conf-ran").exists()  # conf.py was read, never run


def test_the_code_of_a_gallery_script_is_not_its_prose(repo_factory):
    # the same call in the script's code only: the docs build runs it, no page says it
    code_only = GUIDE.replace("# To redo the layout each time the figure is drawn, call\n# ``fig.set_tight_layout(True)``.\n",
                              "# The figure again.\n").replace("fig.tight_layout()\n'''", "fig.set_tight_layout(True)\n'''")
    root = _repo(repo_factory, {"doc/conf.py": CONF, "examples/plot_layout.py": code_only + "fig.set_tight_layout(True)\n"})
    _remove(root)
    assert check_docs(repo=root).findings == ()


def test_section_headers_make_a_top_folder_a_gallery(repo_factory):
    root = _repo(repo_factory, {"galleries/examples/GALLERY_HEADER.rst": "Examples\n========\n",
                                "galleries/guide/plot_layout.py": GUIDE})
    _remove(root)
    assert [(f.path, f.line) for f in check_docs(repo=root).findings] == [("galleries/guide/plot_layout.py", 16)]


def test_the_page_keeps_the_script_lines_and_needs_a_docstring():
    page = gallery_text(GUIDE)
    assert page is not None and len(page.split("\n")) == len(GUIDE.split("\n"))
    lines = page.split("\n")
    assert lines[2] == "Layout guide" and lines[15] == "``fig.set_tight_layout(True)``."
    assert "Figure()" not in page  # code lines are blank
    assert gallery_text("import os\n# %%\n# text\n") is None
    texts = {"doc/conf.py": CONF, "site/conf.py": 'sphinx_gallery_conf = {"examples_dirs": "../../outside"}\n'}
    assert gallery_dirs(["doc/conf.py", "site/conf.py", "examples/a.py"], texts.get) == ("examples",)

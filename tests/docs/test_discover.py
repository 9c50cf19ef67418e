"""Doc sites outside docs/ and doc/, and agent guides: read and judged while `doc_globs` keeps its default."""

from __future__ import annotations

import tomllib
from conftest import commit

from noface_ctx.cli import main
from noface_ctx.config import load_config
from noface_ctx.docs.discover import doc_sites
from noface_ctx.docs.load import load_docs
from noface_ctx.files.gate import scan_repo
from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
DIALECT = "class Dialect:\n    def insert_lexer_matchers(self, matchers, before):\n        return matchers\n"
SITE = {  # a VitePress site beside a Sphinx tree, as a project publishing its docs twice would have it
    "pkg/__init__.py": "",
    "pkg/dialect.py": DIALECT,
    "docs/source/dialects.rst": "Dialects\n========\n\nSee :meth:`pkg.dialect.Dialect.insert_lexer_matchers`.\n",
    "docsv/.vitepress/config.ts": "export default {}\n",
    "docsv/guide/dialects.md": "# Dialects\n\nCall `Dialect.insert_lexer_matchers()` to add matchers.\n",
    "docsv/components/Badge.vue": "<template></template>\n",
    "pkg/AGENTS.md": "# Working on pkg\n\nLexers: extend `Dialect.insert_lexer_matchers()`.\n",
    "examples/README.md": "# Examples\n\nNot a site: no generator marker.\n",
    "tests/roots/test-basic/conf.py": "project = 'x'\n",  # a test fixture's Sphinx project is no doc site
    "tests/roots/test-basic/index.rst": "Fixture\n=======\n\n:meth:`gone_on_purpose`\n",
}


def _docs(root):
    config = load_config(root)
    return sorted(d.path for d in load_docs(config, scan_repo(config)).docs)


def test_doc_sites_are_found_by_their_generator_marker_never_in_test_folders():
    paths = ["website/docusaurus.config.js", "website/docs/intro.md", "guide/book.toml", "manual/conf.py",
             "manual/index.rst", "pkg/conf.py", "tests/roots/a/conf.py", "tests/roots/a/index.rst",
             "docs/mkdocs.yml", "site/.vitepress/config.ts", "packages/handbook/mkdocs.yml"]
    assert doc_sites(paths) == {
        "guide": "mdBook site (guide/book.toml)",
        "manual": "Sphinx site (manual/conf.py)",  # conf.py beside an index; pkg/conf.py (a settings module) is not
        "packages/handbook": "MkDocs site (packages/handbook/mkdocs.yml)",
        "site": "VitePress site (site/.vitepress)",
        "website": "Docusaurus site (website/docusaurus.config.js)",
    }


def test_a_second_doc_site_and_agent_guides_are_read_and_judged(repo_factory):
    root = repo_factory(SITE, date=JAN)
    assert _docs(root) == ["docs/source/dialects.rst", "docsv/guide/dialects.md", "pkg/AGENTS.md"]
    (root / "pkg/dialect.py").write_text(DIALECT.replace("insert_lexer_matchers", "insert_matchers"))
    commit(root, "rename insert_lexer_matchers")
    report = check_docs(repo=root)
    flagged = {f.path for f in report.findings if f.code == "stale-ref"}
    assert flagged == {"docs/source/dialects.rst", "docsv/guide/dialects.md", "pkg/AGENTS.md"}
    assert all("insert_matchers" in f.message for f in report.findings)


def test_globs_the_user_wrote_are_taken_as_written(repo_factory):
    root = repo_factory({**SITE, ".noface.toml": '[context]\ndoc_globs = ["docs/**/*.rst"]\n'}, date=JAN)
    assert _docs(root) == ["docs/source/dialects.rst"]


def test_init_writes_the_sites_and_guides_it_found(repo_factory, capsys):
    root = repo_factory(SITE, date=JAN)
    assert main(["init", "--repo", str(root)]) == 0
    text = (root / ".noface.toml").read_text()
    globs = tomllib.loads(text)["context"]["doc_globs"]
    assert {"docsv/**/*.md", "docs/**/*.rst", "**/AGENTS.md"} <= set(globs)
    assert not any(g.startswith(("tests/", "examples/")) for g in globs)
    assert "docsv/ — VitePress site (docsv/.vitepress)" in text and "docsv/" in capsys.readouterr().err
    assert _docs(root) == ["docs/source/dialects.rst", "docsv/guide/dialects.md", "pkg/AGENTS.md"]


def test_sphinx_gallery_sources_outside_doc_are_read_and_judged(repo_factory):
    root = repo_factory({
        "lib/toolkit/__init__.py": "",
        "lib/toolkit/divider.py": "def make_axes_locatable(ax):\n    return ax\n",
        "doc/index.rst": "Toolkit\n=======\n\nThe user guide is built from ``galleries/``.\n",
        "galleries/examples/GALLERY_HEADER.rst": "Examples\n========\n",
        "galleries/examples/plot_divider.py": "from toolkit.divider import make_axes_locatable\n",
        "galleries/users_explain/index.rst": "User guide\n==========\n",
        "galleries/users_explain/text/GALLERY_HEADER.rst": "Text\n====\n",
        "galleries/users_explain/toolkits/axes_grid.rst": (
            "Axes grid\n=========\n\nCall :func:`toolkit.divider.make_axes_locatable` on an axes.\n"),
        "tests/gallery/GALLERY_HEADER.rst": "Fixture\n=======\n",  # a test fixture's gallery is no doc site
    }, date=JAN)
    assert "galleries" in doc_sites(["galleries/users_explain/text/GALLERY_HEADER.rst"])
    assert [p for p in _docs(root) if not p.startswith("doc/")] == [
        "galleries/examples/GALLERY_HEADER.rst", "galleries/users_explain/index.rst",
        "galleries/users_explain/text/GALLERY_HEADER.rst", "galleries/users_explain/toolkits/axes_grid.rst"]
    (root / "lib/toolkit/divider.py").write_text("def make_divider(ax):\n    return ax\n")
    commit(root, "rename make_axes_locatable")
    flagged = {f.path for f in check_docs(repo=root).findings if f.code == "stale-ref"}
    assert flagged == {"galleries/users_explain/toolkits/axes_grid.rst"}


PROSE = {  # a folder of Markdown pages beside the code (rich's `questions/`), and folders that are none
    "pkg/__init__.py": "",
    "pkg/log.py": "class ColorHandler:\n    pass\n",
    "faq/q1.md": "# Colour in logs\n\nUse `ColorHandler` for coloured logs.\n",
    "faq/q2.md": "# Other\n\nNothing to see.\n",
    "faq/shot.png": "png",
    ".github/ISSUE_TEMPLATE/bug.md": "# Bug\n\nMention `ColorHandler` if logging.\n",
    ".github/ISSUE_TEMPLATE/feature.md": "# Feature\n",
    "tests/fixtures/doc.md": "Uses `ColorHandler`.\n",
    "tests/fixtures/other.md": "Uses `ColorHandler` too.\n",
    "changes/123.bugfix.md": "Fixed `ColorHandler`.\n",
    "changes/124.feature.md": "New `ColorHandler` option.\n",
    "examples/README.md": "# Examples\n\nRun `demo.py` to see `ColorHandler`.\n",
    "examples/USAGE.md": "# Usage\n\n`ColorHandler` again.\n",
    "examples/demo.py": "print(1)\n",
    "sep/sep-001.rst": "SEP 1\n=====\n\nProposes `ColorHandler`.\n",  # numbered proposals: records of a design
    "sep/sep-002.rst": "SEP 2\n=====\n\nExtends `ColorHandler`.\n",
    "sep/README.rst": "Proposals\n=========\n",
    "design_notes/indexes.md": "# Proposal: indexes\n\nToday `ColorHandler` does it.\n",  # design notes: records too
    "design_notes/arrays.md": "# Named arrays\n\nLike `ColorHandler`.\n",
    "images/README.md": "# Logos\n\n`ColorHandler` logo.\n",
    "images/a.png": "png",
    "images/b.png": "png",
}


def test_a_top_folder_of_prose_is_judged_and_folders_mixing_code_are_not(repo_factory):
    root = repo_factory(PROSE, date=JAN)
    assert _docs(root) == ["faq/q1.md", "faq/q2.md"]
    (root / "pkg/log.py").write_text("class ColourHandler:\n    pass\n")
    commit(root, "rename ColorHandler to ColourHandler")
    assert {(f.path, f.line) for f in check_docs(repo=root).findings} == {("faq/q1.md", 3)}
    (root / ".noface.toml").write_text('[context]\ndoc_globs = ["docs/**/*.md"]\n')
    assert _docs(root) == []  # the user's globs are taken as written

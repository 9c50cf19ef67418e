"""Fast paths that answer as the plain ones did (fspeed10): a doc's headings found by one search
over its text (only the lines that can be one are looked at); a repository's doc sites asked once
per folder a path names; pathspec imported only by a run that needs a `.gitignore`-style spec."""

from __future__ import annotations

import subprocess
import sys

from conftest import commit

from noface_ctx.docs.discover import doc_sites
from noface_ctx.docs.record_titles import headings

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"


def test_headings_of_rst_underlines_markdown_hashes_and_fences():
    rst = "Title\n=====\n\nText\n\n  Indented\n  ---------\n\nShort\n---\n\nAb\n---\n\n====\nOver\n====\n\nX\n--\n\n~~~~~\nlast\n"
    assert headings(rst, True) == ["Title", "Short", "Ab", "Over"]  # not indented; an underline under an overline
    assert headings("=====\nTitle\n=====\n", True) == ["Title"]  # an underline on the first line has nothing above
    assert headings("Title\r\n=====\r\n\r\nA\r\n---\r\n", True) == ["Title", "A"]  # Windows line ends
    assert headings("Title\n==\n", True) == []  # shorter than the title and than three
    assert headings("Title\n=====", True) == ["Title"]  # the text's last line
    md = "# Title\n\n```\n# not a heading\n```\n\n   ## Two ##\n\n    # code\n\n~~~\n# also not\n~~~\n#nospace\n## Three\n"
    assert headings(md, False) == ["Title", "Two", "Three"]
    assert headings("## Section first\n\n# Then\n", False) == ["#Section first", "Then"]
    many = "".join(f"H{i}\n{'=' * 4}\n\n" for i in range(20))
    assert headings(many, True) == [f"H{i}" for i in range(12)]  # the first twelve
    assert headings("".join(f"# H{i}\n" for i in range(20)), False) == [f"H{i}" for i in range(12)]


def test_doc_sites_answer_each_folder_once_whatever_order_and_repeats():
    paths = ["site/mkdocs.yml", "site/a.md", "site/b.md", "web/conf.py", "web/index.rst", "web/x/conf.py",
             "tests/site/mkdocs.yml", "docs/mkdocs.yml", "pkg/sub/book.toml", "pkg/sub/c.md",
             "galleries/users/GALLERY_HEADER.rst", "galleries/users/plot.py", "other/conf.py"]
    want = {"galleries": "sphinx-gallery sources (galleries/users/GALLERY_HEADER.rst)",
            "pkg/sub": "mdBook site (pkg/sub/book.toml)", "site": "MkDocs site (site/mkdocs.yml)",
            "web": "Sphinx site (web/conf.py)"}
    assert doc_sites(paths) == want
    assert doc_sites(reversed(paths + paths)) == want
    assert doc_sites(["web/conf.py"]) == {}  # a conf.py without an index beside it: no Sphinx site


def test_a_check_in_a_git_repository_imports_no_pathspec_and_exclude_patterns_still_apply(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/mod.py": "def run():\n    pass\n\n\ndef gone():\n    pass\n",
                         "docs/guide.md": "# Guide\n\nCall `pkg.mod.run` and `pkg.mod.gone`.\n"}, date=JAN)
    (root / "pkg/mod.py").write_text("def run():\n    pass\n")
    commit(root, "remove gone", date=FEB)
    script = ("import sys, json\nfrom noface_ctx.freshness.check import check_docs\n"
              "r = check_docs(repo=sys.argv[1])\n"
              "print(json.dumps([sorted({f.path for f in r.findings}), 'pathspec' in sys.modules]))\n")
    plain = subprocess.run([sys.executable, "-c", script, str(root)], capture_output=True, text=True, check=True)
    assert plain.stdout.strip() == '[["docs/guide.md"], false]'
    (root / ".noface.toml").write_text('[context]\nexclude = ["docs/"]\n')
    excluded = subprocess.run([sys.executable, "-c", script, str(root)], capture_output=True, text=True, check=True)
    assert excluded.stdout.strip() == "[[], true]"  # the spec read: the excluded doc is not judged

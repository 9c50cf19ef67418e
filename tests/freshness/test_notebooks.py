"""Jupyter notebooks under a doc tree are docs (issue 25, rule 7): markdown cells are prose, code
cells are examples, outputs are never read; a finding names the cell, at the line of the `.ipynb`
file that holds it; a notebook that cannot be read is listed as not judged, with why."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

PLOTS = '''def histplot(data, bins=10, binwidth=None):
    """A histogram."""
    return (data, bins, binwidth)


def kdeplot(data, bw_adjust=1):
    return (data, bw_adjust)
'''


def cell(kind: str, text: str, **extra: object) -> dict[str, object]:
    """A cell as Jupyter writes it: `source` a list of lines, each but the last ending in a newline."""
    lines = text.split("\n")
    source = [line + "\n" for line in lines[:-1]] + [lines[-1]]
    out: dict[str, object] = {"cell_type": kind, "metadata": {}, "source": source}
    if kind == "code":
        out |= {"execution_count": None, "outputs": []}
    return out | extra


def notebook(*cells: dict[str, object], language: str = "python") -> str:
    """nbformat 4 as Jupyter writes it (keys sorted, one source line per file line)."""
    meta = {"kernelspec": {"display_name": language, "language": language, "name": language}}
    return json.dumps({"cells": list(cells), "metadata": meta, "nbformat": 4, "nbformat_minor": 5},
                      indent=1, sort_keys=True) + "\n"


def file_line(root: Path, path: str, text: str) -> int:
    """The line of the notebook file where `text` is written."""
    lines = (root / path).read_text().split("\n")
    return next(i for i, line in enumerate(lines, 1) if text in line)


def sha(root: Path) -> str:
    return git(root, "rev-parse", "--short=10", "HEAD").strip()


TUTORIAL = notebook(
    cell("markdown", "# Histograms\n\nSee :func:`pkg.plots.kdeplot` for densities."),
    cell("code", "%matplotlib inline\nimport pkg"),
    cell("code", "data = [1, 2, 3]\npkg.plots.histplot(data, binwidth=3)",
         outputs=[{"name": "stdout", "output_type": "stream", "text": ["pkg.plots.old_plot(data)\n"]}]),
    cell("markdown", "Done."),
)


def _repo(repo_factory, extra: dict[str, str] | None = None) -> Path:
    files = {"pkg/__init__.py": "", "pkg/plots.py": PLOTS, "doc/tutorial/hist.ipynb": TUTORIAL, **(extra or {})}
    return repo_factory(files, date=JAN)


def test_a_renamed_function_used_in_a_code_cell_is_flagged_at_its_cell(repo_factory):
    root = _repo(repo_factory)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/plots.py").write_text(PLOTS.replace("def histplot", "def histogram"))
    commit(root, "rename histplot to histogram", date=FEB)
    report = check_docs(repo=root)
    got = [(f.path, f.line, f.severity, f.message) for f in report.findings]
    at = file_line(root, "doc/tutorial/hist.ipynb", "pkg.plots.histplot(data, binwidth=3)")
    assert [g[:3] for g in got] == [("doc/tutorial/hist.ipynb", at, "error")]
    assert got[0][3].startswith("cell 3, line 2: references `pkg.plots.histplot()`")
    assert f"removed in {sha(root)}" in got[0][3] and "histogram" in got[0][3]
    assert [d["path"] for d in report.to_dict()["docs"]] == ["doc/tutorial/hist.ipynb"]


def test_a_renamed_keyword_in_a_notebook_call_is_flagged(repo_factory):
    root = _repo(repo_factory)
    (root / "pkg/plots.py").write_text(PLOTS.replace("binwidth", "bin_width"))
    commit(root, "rename histplot's binwidth to bin_width", date=FEB)
    got = [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]
    at = file_line(root, "doc/tutorial/hist.ipynb", "pkg.plots.histplot(data, binwidth=3)")
    assert [(p, n) for p, n, _ in got] == [("doc/tutorial/hist.ipynb", at)]
    assert got[0][2].startswith("cell 3, line 2: ") and "binwidth" in got[0][2]


def test_a_role_in_a_markdown_cell_is_a_reference(repo_factory):
    root = _repo(repo_factory)
    (root / "pkg/plots.py").write_text(PLOTS.replace("kdeplot", "density_plot"))
    commit(root, "rename kdeplot", date=FEB)
    got = [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]
    at = file_line(root, "doc/tutorial/hist.ipynb", "pkg.plots.kdeplot")
    assert [(p, n) for p, n, _ in got] == [("doc/tutorial/hist.ipynb", at)]
    assert got[0][2].startswith("cell 1, line 3: references `pkg.plots.kdeplot`")


def test_outputs_naming_a_removed_name_are_not_a_reference(repo_factory):
    """The stream output prints `pkg.plots.old_plot(data)`; `old_plot` was in the code and is gone."""
    root = repo_factory({"pkg/__init__.py": "", "pkg/plots.py": PLOTS + "\n\ndef old_plot(data):\n    return data\n",
                         "doc/tutorial/hist.ipynb": TUTORIAL}, date=JAN)
    (root / "pkg/plots.py").write_text(PLOTS)
    commit(root, "drop old_plot", date=FEB)
    report = check_docs(repo=root)
    assert report.findings == ()
    assert [(d["path"], d["verdict"]) for d in report.to_dict()["docs"]] == [("doc/tutorial/hist.ipynb", "fresh")]


def test_a_malformed_notebook_is_listed_as_not_judged_with_why(repo_factory):
    root = _repo(repo_factory, {"doc/tutorial/broken.ipynb": '{"cells": [{"cell_type": "code", "source": ["x(",',
                                "doc/tutorial/notes.ipynb": '{"metadata": {}}'})
    report = check_docs(repo=root).to_dict()
    not_judged = {row["path"]: row["reason"] for row in report["not_judged"]}
    assert set(not_judged) == {"doc/tutorial/broken.ipynb", "doc/tutorial/notes.ipynb"}
    assert "invalid JSON" in not_judged["doc/tutorial/broken.ipynb"]
    assert "no `cells`" in not_judged["doc/tutorial/notes.ipynb"]
    assert [d["path"] for d in report["docs"]] == ["doc/tutorial/hist.ipynb"]
    given = check_docs(["doc/tutorial/broken.ipynb"], repo=root).to_dict()  # given explicitly: the same reason
    assert [r["path"] for r in given["not_judged"]] == ["doc/tutorial/broken.ipynb", "doc/tutorial/notes.ipynb"]
    assert given["findings"] == []


def test_the_hook_names_a_notebook_a_staged_rename_makes_stale(repo_factory):
    root = _repo(repo_factory)
    (root / "pkg/plots.py").write_text(PLOTS.replace("def histplot", "def histogram"))
    git(root, "add", "pkg/plots.py")
    report = check_docs(["pkg/plots.py"], repo=root)
    assert [(f.path, f.severity) for f in report.findings] == [("doc/tutorial/hist.ipynb", "error")]
    assert report.findings[0].message.startswith("cell 3, line 2: ")
    staged = check_docs(["doc/tutorial/hist.ipynb"], repo=root)  # the notebook itself staged: judged
    assert [d["path"] for d in staged.to_dict()["docs"]] == ["doc/tutorial/hist.ipynb"]


def test_a_notebook_outside_the_doc_trees_keeps_no_removed_name_alive_and_is_not_a_doc(repo_factory):
    root = _repo(repo_factory, {"examples/demo.ipynb": notebook(cell("code", "import pkg\npkg.plots.kdeplot([1])")),
                                "doc/api.md": "Use `pkg.plots.kdeplot()` for densities.\n"})
    (root / "pkg/plots.py").write_text(PLOTS.replace("kdeplot", "density_plot"))
    commit(root, "rename kdeplot", date=FEB)
    report = check_docs(repo=root).to_dict()
    assert {f["path"] for f in report["findings"]} == {"doc/api.md", "doc/tutorial/hist.ipynb"}
    assert "examples/demo.ipynb" not in {d["path"] for d in report["docs"]}
    given = check_docs(["examples/demo.ipynb"], repo=root).to_dict()
    assert [r["path"] for r in given["not_judged"]] == ["examples/demo.ipynb"]


def test_a_notebook_of_another_kernel_is_judged_by_its_prose_only(repo_factory):
    r_notebook = notebook(cell("markdown", "Call `pkg.plots.kdeplot()` from Python."),
                          cell("code", "histplot(data)\nlibrary(ggplot2)"), language="R")
    root = _repo(repo_factory, {"doc/r/intro.ipynb": r_notebook})
    (root / "pkg/plots.py").write_text(PLOTS.replace("kdeplot", "density_plot").replace("def histplot", "def hist"))
    commit(root, "rename kdeplot and histplot", date=FEB)
    got = {(f.path, f.message.split(":", 1)[0]) for f in check_docs(repo=root).findings if f.path == "doc/r/intro.ipynb"}
    assert got == {("doc/r/intro.ipynb", "cell 1, line 1")}


SEABORNISH = notebook(  # seaborn's API pages: the package through its alias, one function called again and again
    cell("code", "import pkg as pk\nimport numpy as np"),
    cell("markdown", "A histogram:"),
    cell("code", "pk.plots.histplot([1, 2])"),
    cell("markdown", "Wider bins:"),
    cell("code", "pk.plots.histplot([1, 2], binwidth=3)\nnp.histogram([1, 2])"),
)
KWARGS = PLOTS.replace("binwidth=None):", "binwidth=None, **kwargs):")


def test_a_keyword_renamed_in_a_later_call_through_the_package_alias_is_flagged(repo_factory):
    """`sns.histplot(...)` after `import seaborn as sns` is `seaborn.histplot`; the first call passes no
    `binwidth`, a later one does, and `**kwargs` would still take it: the keyword it passes was renamed,
    and nothing defines it any more (the finding is at the call passing it, once: as removed)."""
    root = repo_factory({"pkg/__init__.py": "from pkg import plots\n", "pkg/plots.py": KWARGS,
                         "docs/api/histplot.ipynb": SEABORNISH}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/plots.py").write_text(KWARGS.replace("binwidth", "bin_width"))
    commit(root, "rename histplot's binwidth", date=FEB)
    got = [(f.path, f.line, f.code, f.message) for f in check_docs(repo=root).findings]
    assert [g[:3] for g in got] == [("docs/api/histplot.ipynb", file_line(root, "docs/api/histplot.ipynb",
                                                                           "binwidth=3)"), "stale-ref")]
    assert got[0][3].startswith("cell 5, line 1: passes `binwidth` to `pk.plots.histplot()`, and no code defines")
    assert got[0][3].endswith("(renamed to `bin_width`?)")
    (root / "pkg/plots.py").write_text(KWARGS.replace("bins=10", "bins=20"))  # a default no call passes: no concern
    commit(root, "back, and more bins by default")
    assert check_docs(repo=root).findings == ()


def test_a_method_renamed_on_an_object_made_through_a_module_alias_is_flagged(repo_factory):
    """`p = so.Plot(...)` after `import seaborn.objects as so` makes `p` a `seaborn.objects.Plot`:
    `p.facet(...)` is `Plot.facet`, a plain word no longer defined anywhere once renamed."""
    objects = "class Plot:\n    def __init__(self, data):\n        self.data = data\n\n    def facet(self, col=None):\n        return self\n"
    root = repo_factory({"pkg/__init__.py": "", "pkg/objects.py": objects,
                         "doc/_tutorial/objects.ipynb": notebook(cell("code", "import pkg.objects as po"),
                                                                 cell("code", "p = po.Plot([1])\np.facet(col='a')"))},
                        date=JAN)
    (root / "pkg/objects.py").write_text(objects.replace("def facet", "def split"))
    commit(root, "Plot: facet is split", date=FEB)
    got = [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]
    at = file_line(root, "doc/_tutorial/objects.ipynb", "p.facet(col='a')")
    assert [(p, n) for p, n, _ in got] == [("doc/_tutorial/objects.ipynb", at)]
    assert got[0][2].startswith("cell 2, line 2: references `p.facet()` which no longer exists")

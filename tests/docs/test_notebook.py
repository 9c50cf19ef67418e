"""Reading a notebook as a doc (`docs/notebook.py`): what becomes prose, what becomes an
example, what is never read, and where each line came from; bad JSON is a problem, not a crash."""

from __future__ import annotations

import json

from noface_ctx.docs.notebook import read_notebook


def test_cells_become_prose_and_fenced_python_outputs_and_magics_never_read():
    raw = json.dumps({"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "# Title\nSee `pkg.run()`."},
        {"cell_type": "code", "metadata": {}, "source": ["%matplotlib inline\n", "!pip install pkg\n", "pkg.run(1)\n",
                                                          "pkg.run?"],
         "outputs": [{"output_type": "stream", "text": ["pkg.gone()\n"]}], "execution_count": 1},
        {"cell_type": "code", "metadata": {}, "source": ["%%bash\n", "echo pkg.gone()"], "outputs": []},
        {"cell_type": "raw", "metadata": {"raw_mimetype": "text/html"}, "source": ["<b>pkg.gone()</b>"]},
        {"cell_type": "raw", "metadata": {}, "source": [".. currentmodule:: pkg\n", "\n", "Call it so::\n", "\n",
                                                        "    run(2)\n", "\n", "Done."]},
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    nb = read_notebook(raw)
    assert nb.problem == "" and "gone" not in nb.text
    assert nb.text.split("\n") == [
        "# Title", "See `pkg.run()`.", "",
        "```python", "", "", "pkg.run(1)", "", "```", "",
        "```{currentmodule} pkg", "```", "", "Call it so::", "```python", "", "run(2)", "```", "", "Done.", ""]
    lines = raw.split("\n")
    at = nb.place(7)  # pkg.run(1)
    assert (at.cell, at.line, at.label()) == (2, 3, "cell 2, line 3") and '"pkg.run(1)\\n"' in lines[at.file_line - 1]
    assert nb.place(17).label() == "cell 5, line 5" and "run(2)" in lines[nb.place(17).file_line - 1]


def test_nbformat_3_a_string_source_and_another_kernel():
    v3 = json.dumps({"nbformat": 3, "metadata": {"language": "python"}, "worksheets": [{"cells": [
        {"cell_type": "heading", "level": 2, "source": "Usage"},
        {"cell_type": "code", "input": "import pkg\npkg.run()", "language": "python", "outputs": []}]}]})
    assert read_notebook(v3).text.split("\n") == ["## Usage", "", "```python", "import pkg", "pkg.run()", "```", ""]
    r = json.dumps({"cells": [{"cell_type": "markdown", "source": "Uses `pkg.run()`."},
                              {"cell_type": "code", "source": "library(pkg)"}],
                    "metadata": {"kernelspec": {"language": "R"}}, "nbformat": 4})
    nb = read_notebook(r)
    assert nb.text == "Uses `pkg.run()`.\n" and nb.skipped_code == "R"


def test_what_cannot_be_read_is_a_problem_never_an_exception():
    for raw, why in [("{", "invalid JSON"), ("[1, 2]", "no `cells`"), ('{"cells": 3}', "no `cells`"),
                     ("[" * 100 + "]" * 100, "nested deeper"), ("\ud800", "not a readable notebook")]:
        nb = read_notebook(raw)
        assert nb.text == "" and why in nb.problem, (raw[:10], nb.problem)
    odd = json.dumps({"cells": [7, {"cell_type": "code", "source": [1, None]}, {"cell_type": "markdown"}],
                      "metadata": {"kernelspec": []}})
    assert read_notebook(odd) == read_notebook(odd) and read_notebook(odd).problem == ""


def test_a_notebook_doc_enters_a_prompt_as_its_prose_and_code_never_its_outputs(tmp_path, capsys):
    from conftest import make_repo

    from noface_ctx.cli import main

    notebook = json.dumps({"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Cart totals\n", "Rounding happens in `cart_total()`."]},
        {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": ["from shop.cart import cart_total\n",
                                                                             "cart_total([])"],
         "outputs": [{"output_type": "execute_result", "data": {"text/plain": ["OUTPUT_SECRET_WORD 0"],
                                                                "image/png": "iVBORw0KGgo" * 50}}]},
    ], "metadata": {"kernelspec": {"language": "python"}}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    repo = make_repo(tmp_path / "shop", {
        ".noface.toml": "[context]\nembeddings = false\n",
        "docs/cart.ipynb": notebook,
        "shop/__init__.py": "", "shop/cart.py": "def cart_total(items):\n    return round(sum(items), 2)\n",
        "issue.md": "# Fix cart_total rounding\n\n`cart_total()` rounds cart totals wrong.\n"})
    assert main(["preview", str(repo / "issue.md"), "--repo", str(repo), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["path"] for d in data["docs"] if d["included"]] == ["docs/cart.ipynb"]
    assert "Rounding happens in `cart_total()`." in data["prompt"] and "cart_total([])" in data["prompt"]
    assert "OUTPUT_SECRET_WORD" not in data["prompt"] and "iVBORw0KGgo" not in data["prompt"]

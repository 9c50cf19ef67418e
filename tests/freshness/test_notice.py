"""Precise signature warnings (issue 25, rule 6): a changed parameter warns the docs that use or
state it, not every doc that names the function or class."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

APP = '''class Flask:
    def __init__(self, import_name, static_folder="static", instance_relative_config=False):
        self.import_name = import_name
'''


def test_renaming_one_keyword_warns_only_the_docs_that_use_it(repo_factory):
    root = repo_factory({
        "pkg/__init__.py": "from pkg.app import Flask\n", "pkg/app.py": APP,
        "docs/quickstart.md": "Create a `Flask` application object.\n",
        "docs/views.rst": "Views\n=====\n\nEvery view belongs to a :class:`~pkg.Flask` app.\n",
        "docs/config.rst": ("Config\n======\n\nPass ``instance_relative_config=True`` to load from the instance "
                            "folder::\n\n    app = Flask(__name__, instance_relative_config=True)\n"),
        "docs/factory.md": "```python\nfrom pkg import Flask\napp = Flask(__name__, instance_relative_config=True)\n```\n",
    }, date=JAN)
    (root / "pkg/app.py").write_text(APP.replace("instance_relative_config", "instance_relative"))
    commit(root, "rename instance_relative_config", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = {(f.path, f.line, f.code, f.severity) for f in check_docs(repo=root).findings}
    assert got == {("docs/config.rst", 4, "stale-ref", "error"),  # the keyword named in prose: gone
                   ("docs/config.rst", 6, "changed-ref", "warning"),  # the example's call no longer fits
                   ("docs/factory.md", 2, "changed-ref", "warning")}  # the import, judged by its call
    messages = [f.message for f in check_docs(repo=root).findings]
    assert all(head in m for m in messages)


def test_a_keyword_renamed_in_a_function_the_package_re_exports(repo_factory):
    # pytest's `pytest.skip` is `_pytest.outcomes.skip`, imported by `pytest/__init__.py`
    outcomes = 'def skip(reason="", *, allow_module_level=False):\n    raise RuntimeError(reason)\n'
    root = repo_factory({"pkg/__init__.py": "from pkg._outcomes import skip\n", "pkg/_outcomes.py": outcomes,
                         "pkg/other.py": "def skip(x):\n    return x\n", "pkg/more.py": "def skip(y):\n    return y\n",
                         "pkg/last.py": "def skip(z):\n    return z\n",
                         "docs/skipping.rst": ("Skipping\n========\n\nSkip a module with "
                                               "``pkg.skip(reason, allow_module_level=True)``.\n")}, date=JAN)
    (root / "pkg/_outcomes.py").write_text(outcomes.replace("allow_module_level", "module_level"))
    commit(root, "rename allow_module_level", date=FEB)
    got = [(f.path, f.line, f.code) for f in check_docs(repo=root).findings]
    assert got == [("docs/skipping.rst", 4, "changed-ref")]

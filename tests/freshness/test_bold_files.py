"""A Markdown list item "- **Name** (`pkg/mod.py`)" (an agent guide's architecture list) references `Name` in that
module: a rename flags it with the new name. Negatives: a bold word beside a Markdown file, a directory, bold prose,
a bold phrase, a bold name outside a list item, and a name the module never defined (no removal to report)."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.bold_files import bold_names
from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
GUIDE = """# Agent guide

## Architecture

- **HookCaller** (`src/pkg/hooks.py`): calls the hooks
- **Manager/Relay** (`src/pkg/manager.py`): registers plugins
- **Engine** (`src/pkg/hooks.py`): a name the module never had
- **Note** (`README.md`): read it first
- **Tests** (`tests/`): the suite

The **HookCaller** is central (`src/pkg/hooks.py`).
"""
HOOKS = "class HookCaller:\n    def __call__(self):\n        pass\n"
MANAGER = "class Manager:\n    pass\n\n\nclass Relay:\n    pass\n"


def test_the_bold_names_a_list_pairs_with_a_python_file():
    refs = bold_names(GUIDE.split("\n"))
    assert [(r.line, r.name) for r in refs] == [(5, "pkg.hooks.HookCaller"), (6, "pkg.manager.Manager"),
                                                (6, "pkg.manager.Relay"), (7, "pkg.hooks.Engine")]
    lines = ["- **Hook caller** (`src/pkg/hooks.py`)", "* **Core** (`pkg/__init__.py`)", "1. **Run** (`app.py`)"]
    assert [r.name for r in bold_names(lines)] == ["pkg.Core", "app.Run"]  # a phrase is no name


def test_a_renamed_class_flags_the_guide_and_an_untouched_one_does_not(repo_factory):
    root = repo_factory({"src/pkg/__init__.py": "from pkg.hooks import HookCaller\n", "src/pkg/hooks.py": HOOKS,
                         "src/pkg/manager.py": MANAGER, "README.md": "# pkg\n", "tests/test_a.py": "def test():\n    pass\n",
                         "CLAUDE.md": GUIDE}, date=JAN)
    assert [f for f in check_docs(repo=root).findings if f.path == "CLAUDE.md"] == []  # Engine: never defined
    for path in ("src/pkg/__init__.py", "src/pkg/hooks.py"):
        (root / path).write_text((root / path).read_text().replace("HookCaller", "HookDispatcher"))
    commit(root, "rename HookCaller to HookDispatcher", date=FEB)
    got = [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]
    assert [(p, line) for p, line, _ in got] == [("CLAUDE.md", 5)]
    assert "HookDispatcher" in got[0][2]

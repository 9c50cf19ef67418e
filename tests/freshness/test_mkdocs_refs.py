"""MkDocs' reference forms: mkdocstrings' `::: pkg.module.Name` (and the members its YAML options list)
renders from the code, so a renamed, removed or moved target is a stale reference, blamed and with the
new name suggested, like `.. autofunction::`; autorefs' `[text][pkg.module.Name]` and `[pkg.module.Name][]`
cross-references too, and a bare `[Name][]` (judged only as a removed name of the code). Not references: a `:::` line in a code block, an admonition, a fenced div, a
reference link the page defines, a target not rooted in the repository."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.extract import extract_references

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CORE = ("def parse_config(path):\n    return path\n\n\nclass Client:\n    def send(self, data):\n        return data\n\n"
        "    def close(self):\n        return None\n")
PAGE = """# API

::: pkg.core.parse_config

::: pkg.core.Client
    options:
      members: [send, close]
      show_source: false
"""
XREFS = "# Guide\n\nCall [`parse_config`][pkg.core.parse_config] first, then [pkg.core.Client][].\n"
FILES = {"pkg/__init__.py": "", "pkg/core.py": CORE, "tests/test_core.py": "from pkg.core import parse_config\n",
         "docs/api.md": PAGE, "docs/guide.md": XREFS}


def _found(root):
    return sorted((f.path, f.line, f.message) for f in check_docs(repo=root).findings)


def _rename(root, old, new, date=FEB):
    for path in ("pkg/core.py", "tests/test_core.py"):
        (root / path).write_text((root / path).read_text().replace(old, new))
    commit(root, f"rename {old} to {new}", date=date)
    return git(root, "rev-parse", "--short", "HEAD").strip()


def test_a_renamed_mkdocstrings_target_is_flagged_with_blame_and_the_new_name(repo_factory):
    root = repo_factory(FILES, date=JAN)
    sha = _rename(root, "parse_config", "load_config")
    got = _found(root)
    assert [(p, ln) for p, ln, _ in got] == [("docs/api.md", 3), ("docs/guide.md", 3)], got
    for _, _, message in got:
        assert "parse_config" in message and "load_config" in message and sha[:7] in message, message


def test_a_member_the_options_list_renamed_is_flagged(repo_factory):
    root = repo_factory(FILES, date=JAN)
    _rename(root, "def close(", "def shutdown(")
    got = _found(root)
    assert [(p, ln) for p, ln, _ in got] == [("docs/api.md", 7)], got
    assert "close" in got[0][2] and "shutdown" in got[0][2]


def test_a_target_moved_without_a_reexport_is_flagged_and_one_reexported_is_not(repo_factory):
    root = repo_factory({**FILES, "pkg/config.py": "X = 1\n"}, date=JAN)
    (root / "pkg/core.py").write_text(CORE.replace("def parse_config(path):\n    return path\n\n\n", ""))
    (root / "pkg/config.py").write_text("X = 1\n\n\ndef parse_config(path):\n    return path\n")
    (root / "tests/test_core.py").write_text("from pkg.config import parse_config\n")
    commit(root, "move parse_config to pkg.config", date=FEB)
    assert [(p, ln) for p, ln, _ in _found(root)] == [("docs/api.md", 3), ("docs/guide.md", 3)]
    (root / "pkg/core.py").write_text("from pkg.config import parse_config as parse_config\n\n\n" + (root / "pkg/core.py").read_text())
    commit(root, "re-export parse_config", date="2025-03-01T12:00:00+00:00")
    assert _found(root) == []


def test_a_target_still_defined_is_not_flagged(repo_factory):
    root = repo_factory(FILES, date=JAN)
    (root / "pkg/core.py").write_text(CORE.replace("return path", "return str(path)") + "\n\ndef extra():\n    return 1\n")
    commit(root, "change a body", date=FEB)
    assert _found(root) == []


NOT_REFERENCES = """# Notes

```text
::: pkg.core.parse_config
```

!!! note
    ::: is not written here

::: {.note}
A Pandoc div.
:::

:::note
A Docusaurus admonition.
:::

::: warning
A div with a bare class.
:::

See [the API][numpy.linalg.norm], [the label][pkg.core.old_name] and [pkg.core.old_name][].

[pkg.core.old_name]: https://example.com/old
"""


def test_code_blocks_divs_admonitions_defined_links_and_foreign_targets_are_not_references():
    refs = extract_references(Doc(path="docs/notes.md", slug="notes", title="Notes", text=NOT_REFERENCES))
    assert [r.name for r in refs if r.source in ("autodoc", "xref")] == ["numpy.linalg.norm"]


def test_foreign_and_defined_targets_are_never_flagged(repo_factory):
    root = repo_factory({**FILES, "docs/notes.md": NOT_REFERENCES.replace("old_name", "parse_config")}, date=JAN)
    _rename(root, "parse_config", "load_config")
    assert "docs/notes.md" not in {p for p, _, _ in _found(root)}


def test_mkautodoc_members_block_lists_and_file_names():
    text = ("# API\n\n::: pkg.Client\n    :docstring:\n    :members: get post\n\n::: pkg.util\n    options:\n      members:\n"
            "        - helper\n      show_source: false\n\nSee [setup.py][] and [`pkg.Client.get`][].\n")
    refs = extract_references(Doc(path="docs/api.md", slug="api", title="API", text=text))
    assert [(r.name, r.line) for r in refs if r.source in ("autodoc", "xref")] == [
        ("pkg.Client", 3), ("pkg.Client.get", 5), ("pkg.Client.post", 5), ("pkg.util", 7), ("pkg.util.helper", 10)]


def test_a_renamed_mkdocs_click_command_is_flagged_and_a_kept_one_is_not(repo_factory):
    cli = "def main():\n    return 0\n\n\ndef serve():\n    return 1\n"
    page = ("# CLI\n\n::: mkdocs-click\n    :module: pkg.cli\n    :command: main\n    :prog_name: tool\n\n"
            "::: mkdocs-click\n    :module: pkg.cli\n    :command: serve\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/cli.py": cli, "docs/cli.md": page}, date=JAN)
    (root / "pkg/cli.py").write_text(cli.replace("def main(", "def run("))
    commit(root, "rename main to run", date=FEB)
    got = _found(root)
    assert [(p, ln) for p, ln, _ in got] == [("docs/cli.md", 3)], got
    assert "pkg.cli.main" in got[0][2] and "run" in got[0][2]


BARE = ("# Guide\n\nOpen a [Client][] and call [the parser][parse_config]; see [Installation][] and [str][].\n\n"
        "## Installation\n\nRun it.\n")


def test_a_bare_autoref_to_a_renamed_name_is_flagged_with_the_new_name(repo_factory):
    # autorefs finds `[Client][]` by its anchor: renamed, the link breaks as a dotted one does
    root = repo_factory({**FILES, "docs/bare.md": BARE, "tests/test_client.py": "from pkg.core import Client\n"}, date=JAN)
    assert _found(root) == []
    for path in ("pkg/core.py", "tests/test_client.py"):
        (root / path).write_text((root / path).read_text().replace("Client", "Session"))
    commit(root, "rename Client to Session", date=FEB)
    sha = git(root, "rev-parse", "--short", "HEAD").strip()
    got = [(ln, m) for p, ln, m in _found(root) if p == "docs/bare.md"]
    assert [ln for ln, _ in got] == [3], got
    assert "`Client`" in got[0][1] and "(renamed to `Session`?)" in got[0][1] and sha[:7] in got[0][1], got
    sha = _rename(root, "parse_config", "load_config")
    got = [(ln, m) for p, ln, m in _found(root) if p == "docs/bare.md"]
    assert any("`parse_config`" in m and "(renamed to `load_config`?)" in m and sha[:7] in m for _, m in got), got


def test_a_bare_autoref_to_a_heading_a_defined_label_or_a_kept_name_is_not_flagged(repo_factory):
    # `[Installation][]` is the page's heading (never code); `[client][]` is the page's own link
    defined = "# Links\n\nSee [Client][] and [Installation][].\n\n[client]: https://example.com/client\n"
    root = repo_factory({**FILES, "docs/bare.md": BARE, "docs/links.md": defined}, date=JAN)
    (root / "pkg/core.py").write_text(CORE + "\n\nclass Installation:\n    pass\n")
    commit(root, "add a class", date=FEB)
    (root / "pkg/core.py").write_text(CORE.replace("return data", "return bytes(data)"))
    commit(root, "drop it again, change a body", date="2025-03-01T12:00:00+00:00")
    assert _found(root) == []
    refs = extract_references(Doc(path="docs/links.md", slug="links", title="Links", text=defined))
    assert [r.name for r in refs if r.source in ("xref", "word")] == ["Installation"]

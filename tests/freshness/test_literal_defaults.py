"""Defaults a doc states by a literal value, judged by the change alone (issue 25, rule 5): a list item headed by an
option ("* `--backlog <int>` - ... **Default:** *2048*."), a sentence naming a parameter only in words ("By default,
the tag field name is `_type`"), a Markdown table's Default column. Stale when the code's default at the doc's last
commit was the stated value and is another now; a value that never was the default, the same sentence while the code
still agrees, or a sentence about another parameter is nothing. A default-only change of a function the doc only
names (`run()`, an example passing other keywords) is told at the line stating that default, not as a signature."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.coded_defaults import comparable
from noface_ctx.freshness.literal_defaults import literal_statements, literal_words
from noface_ctx.freshness.option_defaults import declared_default

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CLI = '''import click


@click.command()
@click.option("--backlog", type=int, default=2048, help="Connections held.")
@click.option("--workers", type=int, default=1)
@click.option("--server-header/--no-server-header", default=True)
def main(backlog: int, workers: int, server_header: bool) -> None:
    run("app", backlog=backlog, workers=workers)


def run(app: str, *, host: str = "127.0.0.1", backlog: int = 2048, workers: int = 1) -> None:
    print(app, host, backlog, workers)
'''

SETTINGS = """# Settings

Run it from Python with `serve.cli.run()`:

```python
run("main:app", host="0.0.0.0")
```

## Options

* `--backlog <int>` - Maximum number of connections to hold in backlog. **Default:** *2048*.
* `--workers <int>` - Number of worker processes. **Default:** *1*.
* `--server-header` / `--no-server-header` - Enable/Disable the default `Server` header. **Default:** *True*.
"""

UNIONS = '''def configure_tagged_union(union, converter, tag_name: str = "_type", tag_kind: str = "name") -> None:
    """Tag each member of `union` under `tag_name`."""
    converter.register(union, tag_name, tag_kind)
'''

STRATEGIES = """# Strategies

```python
configure_tagged_union(A | B, converter)
```

By default, the tag field name is `_type` and the tag value is the class name of the union member.
"""


def test_the_units_that_state_a_literal_default():
    lines = SETTINGS.split("\n")
    stated = literal_statements(lines)
    assert (("--backlog",), 11, "2048") in stated and (("--workers",), 12, "1") in stated
    assert (("--server-header",), 13, "True") in stated  # (and `Server`, after "default": judged by the change)
    worded = literal_statements(STRATEGIES.split("\n"))
    assert {names[0] for names, *_ in worded} == {"tag_field_name", "tag_field", "tag_name", "field_name"}
    assert all(value == "_type" and line == 7 for _, line, value in worded)
    assert {"default", "backlog", "tag_name", "server_header"} <= literal_words(SETTINGS + STRATEGIES)
    table = ["| Option | Default | Meaning |", "|---|---|---|", "| `--backlog` | `2048` | held |", "| `--reload` | False | watch |",
             "| `--host` | *the local address* | bound |"]
    assert literal_statements(table) == ((("--backlog",), 3, "2048"), (("--reload",), 4, "False"))
    # no literal, or the words around it not the subject of "is": nothing read
    assert literal_statements(["By default the server binds to the local address."]) == ()
    assert literal_statements(["It works well with `include_subclasses` by default."]) == ()


def _serve(repo_factory):
    return repo_factory({"serve/__init__.py": "", "serve/cli.py": CLI, "docs/settings.md": SETTINGS}, date=JAN)


def test_an_option_lists_changed_default_is_flagged_where_stated(repo_factory):
    root = _serve(repo_factory)
    assert check_docs(repo=root).findings == ()  # the doc agrees with the code
    (root / "serve/cli.py").write_text(CLI.replace("default=2048", "default=4096").replace("backlog: int = 2048", "backlog: int = 4096"))
    commit(root, "a longer listen backlog", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/settings.md", 11)]  # not `run()`'s mention: a default only changed
    assert found[0].message.startswith(f"default of `--backlog` (serve/cli.py) changed in {head}")


def test_a_value_that_never_was_the_default_or_another_options_is_nothing(repo_factory):
    root = _serve(repo_factory)
    doc = SETTINGS.replace("*2048*", "*1024*")  # wrong from the start: not made stale by a change
    (root / "docs/settings.md").write_text(doc)
    commit(root, "docs", date=JAN)
    (root / "serve/cli.py").write_text(CLI.replace('"--backlog", type=int, default=2048', '"--backlog", type=int, default=4096'))
    commit(root, "a longer listen backlog", date=FEB)
    assert [f for f in check_docs(repo=root).findings if f.path == "docs/settings.md"] == []
    (root / "serve/cli.py").write_text(CLI.replace("default=True", "default=False"))  # the header's; `--workers` untouched
    commit(root, "no server header", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.line, "--server-header" in f.message) for f in found] == [(13, True)]  # its item only, not `--workers`'


def test_a_parameter_named_in_words_is_judged_by_its_old_value(repo_factory):
    root = repo_factory({"tags/__init__.py": "", "tags/unions.py": UNIONS, "docs/strategies.md": STRATEGIES}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "tags/unions.py").write_text(UNIONS.replace('tag_kind: str = "name"', 'tag_kind: str = "qualname"'))
    commit(root, "qualified tags", date=FEB)
    assert check_docs(repo=root).findings == ()  # another parameter's default: the sentence names neither its words
    (root / "tags/unions.py").write_text(UNIONS.replace('tag_name: str = "_type"', 'tag_name: str = "type"'))
    commit(root, "public tag field", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/strategies.md", 7)]
    assert found[0].message.startswith(f"default of `tag_name` (tags/unions.py) changed in {head}")


def test_words_that_make_no_parameter_with_that_value_are_nothing(repo_factory):
    # "the tag kind is `_type`": `tag_kind` exists, but its default never was `_type`
    doc = STRATEGIES.replace("the tag field name is `_type`", "the tag kind is `_type`")
    root = repo_factory({"tags/__init__.py": "", "tags/unions.py": UNIONS, "docs/strategies.md": doc}, date=JAN)
    (root / "tags/unions.py").write_text(UNIONS.replace('"_type"', '"type"').replace('"name"', '"qualname"'))
    commit(root, "public tag field, qualified tags", date=FEB)
    assert check_docs(repo=root).findings == ()


def test_a_default_only_change_is_told_where_the_doc_states_it_not_as_a_signature(repo_factory):
    doc = ("# Serving\n\nStart it with `serve.cli.run()`.\n\nThe listen queue holds ``backlog=2048`` connections.\n\n"
           "```python\nrun(\"main:app\", host=\"0.0.0.0\")\n```\n")
    quiet = "# Quiet\n\nStart it with `serve.cli.run()`:\n\n```python\nrun(\"main:app\", host=\"0.0.0.0\")\n```\n"
    root = repo_factory({"serve/__init__.py": "", "serve/cli.py": CLI, "docs/serving.md": doc, "docs/quiet.md": quiet}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "serve/cli.py").write_text(CLI.replace("backlog: int = 2048", "backlog: int = 4096"))
    commit(root, "a longer listen backlog in run()", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/serving.md", 5)]  # the line stating it; quiet.md states none
    assert found[0].message.startswith("default of `backlog` of `serve.cli.run()` (serve/cli.py) changed in ")
    assert declared_default("serve/cli.py", CLI, "--server-header", comparable) == "True"  # click's `"--x/--no-x"` flag

"""Defaults the code holds where plugin systems and factories put them (issue 25, rule 5), stated by the docs as
developers write them:

- an option declared with its help text, `self.config = {'flag': [False, 'Turn it on']}` (a list or tuple of a
  literal, then a string of words), stated in a Markdown table's row (its rows opening with `|` or not) or in the
  indented "Default: `'x'`" paragraph of the list item headed by the option;
- a function whose name says it returns a default (`current_default_pool`) building it with one call of one literal
  (`Pool(40)`), stated as "The default pool has a size of **40**" in the section naming the function.

Each is judged by the change (stale when the code had the stated value at the doc's commit and has another now).
Negatives: a dict of pairs without a help string, a table whose other row says "default", a function whose name says
nothing of a default, and the same function named in another section."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.coded_defaults import built_default, code_default
from noface_ctx.freshness.held_defaults import constant_default, keyed_items
from noface_ctx.freshness.literal_defaults import literal_statements

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

EXTENSION = '''class LinkExtension:
    def __init__(self, **kwargs):
        self.config = {
            'smart_flag': [False, 'Turn the smart mode on'],
            'link_class': ['wikilink', 'CSS class. Leave blank for none.'],
            'substitutions': [{}, 'Overwrite default substitutions'],
            'build_url': [build_url, 'Callable formats URL from label.'],
        }
'''

OPTIONS = """# Links

The following options are provided:

Option          | Default value | Description
------          | ------------- | -----------
`smart_flag`    | `False`       | whether to be smart
`substitutions` | `{}`          | overwrite default substitutions

More options:

* **`link_class`**: CSS class. Leave blank for none.

    Default: `'wikilink'`

* **`build_url`**: Callable which formats the URL from its parts.
"""


def test_an_option_declared_with_its_help_holds_its_default():
    assert keyed_items(EXTENSION) == (("smart_flag", "False"), ("link_class", "'wikilink'"), ("substitutions", "{}"))
    assert constant_default(EXTENSION, "link_class", keys=True) == "wikilink"
    rows = "ROWS = {'smart_flag': [1, 2], 'colour': ('red', 'blue')}\n"  # no help string: a pair of values, no default
    assert keyed_items(rows) == () and constant_default(rows, "smart_flag", keys=True) is None


def test_a_table_row_and_an_items_default_paragraph_state_the_options_default():
    stated = literal_statements(OPTIONS.split("\n"))
    assert (("smart_flag",), 7, "False") in stated  # a row, no `|` opening it (`substitutions`: a plain word, read as no name)
    assert (("link_class",), 14, "wikilink") in stated  # the paragraph the item `link_class` holds
    # a paragraph indented under no item, or under an item heading no option: nothing
    assert literal_statements(["Some prose.", "", "    Default: `'wikilink'`"]) == ()
    assert literal_statements(["* A plain item.", "", "    Default: `'wikilink'`"]) == ()
    nested = ["* **`link_class`**: CSS class, one of:", "", "    * `wikilink` (the default)", "    * `plain`"]
    assert not any(names == ("link_class",) for names, *_ in literal_statements(nested))  # an item of its own: not its paragraph


def _links(repo_factory):
    return repo_factory({"links/__init__.py": "", "links/ext.py": EXTENSION, "docs/links.md": OPTIONS}, date=JAN)


def test_changed_option_defaults_are_flagged_at_the_row_and_the_paragraph_stating_them(repo_factory):
    root = _links(repo_factory)
    assert check_docs(repo=root).findings == ()
    (root / "links/ext.py").write_text(EXTENSION.replace("[False, 'Turn", "[True, 'Turn").replace("['wikilink',", "['wiki-link',"))
    commit(root, "smart by default, a new link class", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/links.md", 7), ("docs/links.md", 14)]  # the row, not the table's end
    assert found[0].message.startswith(f"default of `smart_flag` (links/ext.py) changed in {head}")
    assert found[1].message.startswith(f"default of `link_class` (links/ext.py) changed in {head}")


def test_a_doc_stating_the_new_values_or_a_changed_help_is_nothing(repo_factory):
    root = _links(repo_factory)
    (root / "links/ext.py").write_text(EXTENSION.replace("'Turn the smart mode on'", "'Be smart'"))
    commit(root, "reworded help", date=FEB)
    assert check_docs(repo=root).findings == ()  # the help changed, not the default
    (root / "links/ext.py").write_text(EXTENSION.replace("[False, 'Turn", "[True, 'Turn"))
    (root / "docs/links.md").write_text(OPTIONS.replace("| `False`       |", "| `True`        |"))
    commit(root, "smart by default, documented", date=FEB)
    assert check_docs(repo=root).findings == ()


POOLS = '''class Pool:
    def __init__(self, size: int) -> None:
        self.size = size


def current_default_pool() -> Pool:
    """The pool calls use when given none (built once)."""
    global _pool
    if _pool is None:
        _pool = Pool(40)
    return _pool


_pool = None
'''

THREADS = """# Threads

## Limits

The default worker pool has a size of **40**, so at most 40 threads run at once. Raise it like this:

```python
current_default_pool().size = 60
```

## Other

Nothing here.
"""


def test_a_function_named_as_returning_a_default_holds_the_literal_it_builds_it_with():
    assert built_default(POOLS, "current_default_pool") == "40" == code_default(POOLS, "current_default_pool")
    assert code_default(POOLS.replace("current_default_pool", "make_pool"), "make_pool") is None  # a factory, no default
    two = "def get_default_pool():\n    log('building')\n    return Pool(40)\n"  # two calls of one literal: which one is unknown
    assert built_default(two, "get_default_pool") is None
    stated = literal_statements(THREADS.split("\n"))
    assert (("current_default_pool",), 5, "40") in stated
    elsewhere = THREADS.replace("## Other\n", "## Other\n\nSee `current_default_pool()`.\n").replace(
        "current_default_pool().size = 60", "pool.size = 60")  # named in another section only
    assert not any(names == ("current_default_pool",) for names, *_ in literal_statements(elsewhere.split("\n")))
    setting = THREADS.replace("current_default_pool().size = 60", "pool.size = 60").replace(
        "Raise it like this:", "Set :confval:`current_default_pool` to raise it:")  # a setting's role: no function
    assert not any(names == ("current_default_pool",) for names, *_ in literal_statements(setting.split("\n")))
    other = THREADS.replace("default worker pool has a size", "default timeout has a length")  # words not the function's
    assert not any(names == ("current_default_pool",) for names, *_ in literal_statements(other.split("\n")))


def test_a_changed_built_default_is_flagged_where_the_doc_states_it(repo_factory):
    root = repo_factory({"work/__init__.py": "", "work/pools.py": POOLS, "docs/threads.md": THREADS}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "work/pools.py").write_text(POOLS.replace("Pool(40)", "Pool(64)"))
    commit(root, "a larger default pool", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/threads.md", 5)]
    assert found[0].message.startswith(f"default of `current_default_pool` (work/pools.py) changed in {head}")


def test_a_factory_without_default_in_its_name_is_nothing(repo_factory):
    pools, doc = POOLS.replace("current_default_pool", "make_pool"), THREADS.replace("current_default_pool", "make_pool")
    root = repo_factory({"work/__init__.py": "", "work/pools.py": pools, "docs/threads.md": doc}, date=JAN)
    (root / "work/pools.py").write_text(pools.replace("Pool(40)", "Pool(64)"))
    commit(root, "a larger pool", date=FEB)
    assert check_docs(repo=root).findings == ()

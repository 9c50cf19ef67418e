"""Defaults a doc states (issue 25, rule 5): compared with the code's, a changed one is a warning
naming the commit that changed it."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.coded_defaults import code_default
from noface_ctx.freshness.defaults import stated_defaults

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CONFIG = '''import json


class Config(dict):
    def from_prefixed_env(self, prefix: str = "FLASK", *, loads=json.loads):
        return prefix

    def from_file(self, filename, load, silent=False, text=True):
        return filename


def warn(config):
    return config.getini("tmp_path_retention_count")  # read elsewhere: still one default


def pytest_addoption(parser):
    parser.addini(
        "tmp_path_retention_count",
        help="How many sessions should we keep the `tmp_path` directories",
        default="3",
    )


class Options:
    timeout: int = 10
'''
CONFIG_DOC = """Configuration
=============

The prefix is ``FLASK_`` by default. This is configurable via the
``prefix`` argument of :meth:`~pkg.config.Config.from_prefixed_env`.

Files are read as text by default: see :meth:`~pkg.config.Config.from_file`.

.. confval:: tmp_path_retention_count
   :type: ``str``
   :default: ``"3"``

   How many sessions to keep.
"""
OPTIONS_DOC = "# Options\n\n`Options.timeout` defaults to `10` seconds.\n"


def test_stated_defaults_and_code_defaults_are_read():
    stated = stated_defaults(Doc(path="docs/config.rst", slug="config", title="c", text=CONFIG_DOC))
    assert [(s.names, s.line, s.value) for s in stated] == [  # "read as text by default" says no value: no statement
        (("prefix", "from_prefixed_env", "Config"), 4, "FLASK"), (("tmp_path_retention_count",), 11, "3")]
    assert code_default(CONFIG, "prefix", ["from_prefixed_env"]) == "FLASK"
    assert code_default(CONFIG, "tmp_path_retention_count") == "3"
    assert code_default(CONFIG, "timeout", ["Options"]) == "10"
    assert code_default(CONFIG, "timeout") is None  # a plain word alone: whose?
    assert code_default(CONFIG, "text", ["from_file"]) == "True"


def test_a_changed_default_warns_the_docs_that_state_it(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/config.py": CONFIG, "docs/config.rst": CONFIG_DOC,
                         "docs/options.md": OPTIONS_DOC}, date=JAN)
    assert check_docs(repo=root).findings == ()
    text = CONFIG.replace('prefix: str = "FLASK"', 'prefix: str = "APP"').replace('default="3"', 'default="5"')
    (root / "pkg/config.py").write_text(text.replace("timeout: int = 10", "timeout: int = 30"))
    commit(root, "new defaults", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = {(f.path, f.line, f.code, f.severity): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("docs/config.rst", 4, "changed-ref", "warning"), ("docs/config.rst", 11, "changed-ref", "warning"),
                        ("docs/options.md", 3, "changed-ref", "warning")}
    assert got[("docs/config.rst", 4, "changed-ref", "warning")].startswith(
        f"default of `prefix` (pkg/config.py) changed in {head}")
    # the doc brought up to date: no finding
    (root / "docs/options.md").write_text(OPTIONS_DOC.replace("`10`", "`30`"))
    commit(root, "docs: timeout")
    assert ("docs/options.md", 3, "changed-ref", "warning") not in {
        (f.path, f.line, f.code, f.severity) for f in check_docs(repo=root).findings}


ADAPTERS = '''DEFAULT_RETRIES = 0


class Retry:
    def __init__(self, total=10, backoff_factor=0):
        self.total = total


class Adapter:
    """By default, no retries."""

    def __init__(self, pool_size: int = 10, max_retries: int | Retry = DEFAULT_RETRIES, block=False):
        self.max_retries = max_retries


class Dataset:
    def copy(self, deep: bool = False, data=None):
        return self

    def _copy(self, deep: bool = False):
        return self


def make(retention_count="3"):
    return retention_count
'''
RETRIES_DOC = """Advanced
========

Automatic Retries
-----------------

By default, the adapter does not retry failed connections. However, it is possible
to retry with :class:`~pkg.adapters.Retry`::

    from pkg.adapters import Adapter, Retry

    retries = Retry(
        total=3,
        backoff_factor=0.1,
    )
    adapter = Adapter(max_retries=retries)

Temporary files
---------------

The auto-incrementing number keeps old runs apart.
By default, the last 3 directories are kept,
but this behaviour can be configured with
:func:`~pkg.adapters.make`'s ``retention_count``.
"""
COPY_DOC = """# Datasets

You can copy a `Dataset` by calling the {py:meth}`~pkg.adapters.Dataset.copy`
method. By default, the copy is shallow, so only the container is copied. You
can copy all data by calling `ds.copy(deep=True)`.
"""


def test_a_default_stated_as_behaviour_is_the_default_of_the_keyword_its_paragraph_passes():
    stated = stated_defaults(Doc(path="docs/advanced.rst", slug="a", title="a", text=RETRIES_DOC))
    assert {(s.names[0], s.of, s.line) for s in stated if s.of} == {
        ("total", "Retry", 7), ("backoff_factor", "Retry", 7), ("max_retries", "Adapter", 7)}
    # a sentence over three lines: the name it gives on the third
    assert [(s.line, s.value) for s in stated if not s.of] == [(22, "3")]
    assert {"make", "retention_count"} <= set(next(s.names for s in stated if not s.of))
    copy = stated_defaults(Doc(path="docs/data.md", slug="d", title="d", text=COPY_DOC))
    assert [(s.names, s.of) for s in copy] == [(("deep", "Dataset", "copy"), "Dataset.copy")]


def test_a_changed_default_of_a_passed_keyword_warns_the_paragraph_that_states_it(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/adapters.py": ADAPTERS, "docs/advanced.rst": RETRIES_DOC,
                         "docs/data.md": COPY_DOC}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/adapters.py").write_text(ADAPTERS.replace("block=False", "block=True").replace(
        "total=10", "total=5"))  # neither passed by the doc's examples, nor the doc's (Retry's `total` is passed: see below)
    commit(root, "other defaults", date=FEB)
    assert [f.message for f in check_docs(repo=root).findings if "block" in f.message] == []
    text = (root / "pkg/adapters.py").read_text()
    (root / "pkg/adapters.py").write_text(text.replace("max_retries: int | Retry = DEFAULT_RETRIES", "max_retries: int | Retry = 2")
                                          .replace("def copy(self, deep: bool = False", "def copy(self, deep: bool = True")
                                          .replace('retention_count="3"', 'retention_count="5"'))
    commit(root, "retries, deep copies and five runs by default", date="2025-03-01T12:00:00+00:00")
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert got[("docs/advanced.rst", 7)].startswith(f"default of `max_retries` (pkg/adapters.py) changed in {head}")
    assert got[("docs/advanced.rst", 22)].startswith(f"default of `retention_count` (pkg/adapters.py) changed in {head}")
    assert got[("docs/data.md", 4)].startswith(f"default of `deep` (pkg/adapters.py) changed in {head}")


def test_a_default_changed_by_staged_edits_names_its_commit_once_committed(repo_factory, tmp_path, monkeypatch):
    # the pre-commit hook says "uncommitted edits"; after the commit the finding names the commit,
    # though the changed line (`default="5",`) holds no word of the doc
    monkeypatch.setenv("NOFACE_CTX_CACHE_DIR", str(tmp_path / "cache"))
    root = repo_factory({"pkg/__init__.py": "", "pkg/config.py": CONFIG, "docs/config.rst": CONFIG_DOC}, date=JAN)
    (root / "pkg/config.py").write_text(CONFIG.replace('default="3"', 'default="5"'))
    git(root, "add", "pkg/config.py")
    assert [f.message.split(" changed in ")[1][:17] for f in check_docs(repo=root).findings] == ["uncommitted edits"]
    commit(root, "keep five", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    assert [f.message.split(" changed in ")[1][:10] for f in check_docs(repo=root).findings] == [head]


def test_a_settings_default_line_under_its_directive_follows_the_module_assignment(repo_factory):
    # django's settings.txt: `.. setting:: DATA_UPLOAD_MAX_NUMBER_FIELDS`, its title, "Default: ``1000``"
    settings = "DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000\nDATA_UPLOAD_MAX_MEMORY_SIZE = 2621440  # i.e. 2.5 MB\n"
    doc = (".. setting:: DATA_UPLOAD_MAX_NUMBER_FIELDS\n\n``DATA_UPLOAD_MAX_NUMBER_FIELDS``\n"
           "---------------------------------\n\nDefault: ``1000``\n\nThe maximum number of parameters.\n\n"
           ".. setting:: DATA_UPLOAD_MAX_MEMORY_SIZE\n\n``DATA_UPLOAD_MAX_MEMORY_SIZE``\n"
           "-------------------------------\n\nDefault: ``2621440`` (i.e. 2.5 MB).\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/conf/global_settings.py": settings, "docs/settings.txt": doc,
                         "pkg/http.py": "from pkg.conf import settings\nLIMIT = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS\n"},
                        date=JAN)
    assert [(s.names, s.line, s.value) for s in stated_defaults(Doc(path="docs/settings.txt", slug="s", title="s", text=doc))] \
        == [(("DATA_UPLOAD_MAX_NUMBER_FIELDS",), 6, "1000"), (("DATA_UPLOAD_MAX_MEMORY_SIZE",), 15, "2621440")]
    assert check_docs(repo=root).findings == ()
    (root / "pkg/conf/global_settings.py").write_text(settings.replace("= 1000", "= 2000"))
    commit(root, "raise the field limit", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]
    assert len(got) == 1 and got[0][:2] == ("docs/settings.txt", 6)
    assert got[0][2].startswith(f"default of `DATA_UPLOAD_MAX_NUMBER_FIELDS` (pkg/conf/global_settings.py) changed in {head}")


def test_an_option_list_item_marked_default_follows_the_key_the_code_reads(repo_factory):
    # marshmallow's quickstart: the ``unknown`` option "accepts one of the following:" with
    # "`RAISE <marshmallow.utils.RAISE>` (default)"; `SchemaOpts` reads `getattr(meta, "unknown", RAISE)`
    schema = ('from pkg.utils import EXCLUDE, RAISE\n\n\nclass SchemaOpts:\n    def __init__(self, meta):\n'
              '        self.unknown = getattr(meta, "unknown", RAISE)\n        self.ordered = getattr(meta, "ordered", False)\n')
    doc = ("Unknown fields\n==============\n\nThis behavior can be modified with the ``unknown`` option, which accepts one "
           "of the following:\n\n- `RAISE <pkg.utils.RAISE>` (default): raise an error\n  if there are unknown fields\n"
           "- `EXCLUDE <pkg.utils.EXCLUDE>`: exclude unknown fields\n\nThe list of ``ordered`` choices:\n\n"
           "- ``True``\n- ``False`` (default)\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/utils.py": 'RAISE = "raise"\nEXCLUDE = "exclude"\n',
                         "pkg/schema.py": schema, "docs/quickstart.rst": doc}, date=JAN)
    stated = stated_defaults(Doc(path="docs/quickstart.rst", slug="q", title="q", text=doc))
    assert [(s.names, s.line, s.value) for s in stated if s.keyed] == [(("unknown",), 6, "RAISE"), (("ordered",), 13, "False")]
    assert check_docs(repo=root).findings == ()
    (root / "pkg/schema.py").write_text(schema.replace('"unknown", RAISE', '"unknown", EXCLUDE'))
    commit(root, "exclude unknown fields by default", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]
    assert [g[:2] for g in got] == [("docs/quickstart.rst", 6)]
    assert got[0][2].startswith(f"default of `unknown` (pkg/schema.py) changed in {head}")



SPLITTER = '''class Splitter:
    def split(self, text, sep=")", shallow=True):  # a bracket in a string (or here) closes nothing
        return text.split(sep)
'''
SPLIT_DOC = """# Splitting

You can split a text with the {py:meth}`~pkg.split.Splitter.split` method. By default,
the split is shallow. You can split nested groups by calling `s.split(text, shallow=False)`.
"""


def test_a_default_after_a_bracket_in_a_string_is_read_and_its_change_warns(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/split.py": SPLITTER, "docs/split.md": SPLIT_DOC}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/split.py").write_text(SPLITTER.replace("shallow=True", "shallow=False"))
    commit(root, "deep by default", date=FEB)
    got = [(f.path, f.code, f.message) for f in check_docs(repo=root).findings]
    assert [(p, c) for p, c, _ in got] == [("docs/split.md", "changed-ref")], got
    assert got[0][2].startswith("default of `shallow` (pkg/split.py) changed in "), got


def test_a_default_stated_by_a_value_the_code_had_before_the_docs_last_edit_is_stale(repo_factory):
    # sympy's fp_groups.rst: "(default value = `500`)", 100 since a change the page's later edits kept
    table = "class CosetTable:\n    max_stack_size = {}\n\n    def __init__(self):\n        self.stack = []\n"
    doc = ("Coset tables\n============\n\nOptions:\n\n* ``max_stack_size`` (default value = `500`): the size above which\n"
           "  the stack is emptied.\n\nSee ``CosetTable``.\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/coset_table.py": table.format(500), "docs/groups.rst": doc,
                         "docs/index.rst": "Groups\n======\n\n``CosetTable`` stack: ``stack`` defaults to ``[]``.\n"},
                        date=JAN)  # a page stating a default, never edited since: the files searched changed since it
    (root / "pkg/coset_table.py").write_text(table.format(100))
    commit(root, "a smaller deduction stack", date=FEB)
    sha = git(root, "rev-parse", "--short=10", "HEAD").strip()
    (root / "docs/groups.rst").write_text(doc.replace("See ``CosetTable``.", "See ``CosetTable`` for more."))
    (root / "docs/other.rst").write_text("Other\n=====\n\n* ``max_stack_size`` (default value = `64`): never coded.\n")
    commit(root, "reword the coset table page", date="2025-03-01T12:00:00+00:00")
    lines = check_docs(repo=root).lines()
    assert lines == [f"docs/groups.rst:6: changed-ref: warning: default of `max_stack_size` (pkg/coset_table.py) changed in "
                     f"{sha} (2025-02-01, \"a smaller deduction stack\"): this doc states its value before"]


def test_default_value_equals_states_a_default_quoted_or_not():
    for text in ("* ``max_stack_size`` (default value = 500): the stack size.", "``max_stack_size`` (default value: `500`)"):
        stated = stated_defaults(Doc("docs/d.rst", "d", "D", f"Options\n=======\n\n{text}\n"))
        assert [(st.names[0], st.line, st.value) for st in stated] == [("max_stack_size", 4, "500")]


def test_a_default_changed_on_a_merged_branch_is_blamed_on_the_branch_commit_that_changed_it(repo_factory):
    # sympy's CosetTable.max_stack_size: 500 → 100 in 62790262b0 ("multi step version"), one commit of a pull
    # request merged as c6454a3763: the merge (read against its first parent) finds it, the branch commit is named
    table = "class CosetTable:\n    max_stack_size = {}\n\n    def __init__(self):\n        self.stack = []\n"
    doc = ("Coset tables\n============\n\nOptions:\n\n* ``max_stack_size`` (default value = `500`): the size above which\n"
           "  the stack is emptied.\n\nSee ``CosetTable``.\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/coset_table.py": table.format(500), "docs/groups.rst": doc,
                         "docs/index.rst": "Groups\n======\n\n``CosetTable`` stack: ``stack`` defaults to ``[]``.\n"},
                        date=JAN)
    git(root, "checkout", "-q", "-b", "smaller")
    (root / "pkg/coset_table.py").write_text(table.format(100))
    commit(root, "a smaller deduction stack", date=FEB)
    change = git(root, "rev-parse", "--short=10", "HEAD").strip()
    (root / "pkg/coset_table.py").write_text(table.format(100) + "\n\nTABLES = []\n")
    commit(root, "a list of tables", date=FEB)  # a later commit of the branch touching the file: not the change
    git(root, "checkout", "-q", "main")
    (root / "pkg/__init__.py").write_text('"""Groups."""\n')
    commit(root, "a package docstring", date=FEB)
    git(root, "merge", "-q", "--no-ff", "-m", "Merge branch 'smaller'", "smaller", date="2025-02-15T12:00:00+00:00")
    merge = git(root, "rev-parse", "--short=10", "HEAD").strip()
    assert merge != change
    (root / "docs/groups.rst").write_text(doc.replace("See ``CosetTable``.", "See ``CosetTable`` for more."))
    commit(root, "reword the coset table page", date="2025-03-01T12:00:00+00:00")
    lines = check_docs(repo=root).lines()
    assert lines == [f"docs/groups.rst:6: changed-ref: warning: default of `max_stack_size` (pkg/coset_table.py) changed in "
                     f"{change} (2025-02-01, \"a smaller deduction stack\", merged 2025-02-15): this doc states its value before"]

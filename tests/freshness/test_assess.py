"""Freshness on real git repositories: references, records, removed and changed names, age, clashes,
the history index."""

from __future__ import annotations

import os
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import commit, git, write_tree
from hypothesis import given, settings
from hypothesis import strategies as st

from noface_ctx.code.index import CodeIndex
from noface_ctx.config import load_config
from noface_ctx.datatypes import Candidate, Chosen, Doc, Form, MissingRef, Staleness
from noface_ctx.docs.load import load_docs
from noface_ctx.files.gate import scan_repo
from noface_ctx.freshness import definitions
from noface_ctx.freshness.assess import assess_docs, extract_references, find_clashes

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
NOTE = "Note: this doc may be outdated; prefer the current code as source of truth."


def assess(root: Path, *, index: bool = True, **context):
    config = load_config(root)
    if context:
        config = config.with_context(**context)
    repo_files = scan_repo(config)
    docset = load_docs(config, repo_files)
    symbols = CodeIndex.build(repo_files, config) if index else None
    return assess_docs(docset.docs, repo_files, symbols, config)


LOGIN = '''def get_user(name):
    """Load a user."""
    return {"name": name}


def logout(user):
    return None
'''
APP = "from src.auth.login import get_user\n\n\ndef main():\n    return get_user('x')\n"
AUTH_DOC = """---
title: Auth
---
# Auth

Call `get_user()` in `src/auth/login.py` to load a user.
"""
LIVE_DOC = "# Sessions\n\nEnd a session with `logout()` (see src/auth/login.py).\n"


def renamed_repo(repo_factory) -> Path:
    root = repo_factory(
        {"src/__init__.py": "", "src/auth/__init__.py": "", "src/auth/login.py": LOGIN, "src/app.py": APP,
         "docs/auth.md": AUTH_DOC, "docs/sessions.md": LIVE_DOC},
        date=JAN,
    )
    for rel in ("src/auth/login.py", "src/app.py"):
        p = root / rel
        p.write_text(p.read_text().replace("get_user", "authenticate_user"))
    commit(root, "rename get_user", date=FEB)
    return root


# --------------------------------------------------------------------------- references


def doc(text: str, path: str = "docs/d.md") -> Doc:
    return Doc(path=path, slug=Path(path).stem, title="d", text=text)


def test_extract_references_kinds_names_and_lines():
    text = "\n".join([
        "---",
        "title: `not_a_ref()` in frontmatter",
        "---",
        "Call `get_user()` then `UserService.refresh(token)`; see `src/auth/login.py:42`.",  # line 4
        "The `load_config` helper and `CodeIndex`, plus prose_call() and lib/util.py.",  # line 5
        "```python",
        "from pkg.auth import get_user, check_token",  # line 7
        "def local_helper():",
        "    return build_prompt(issue)",  # line 9
        "local_helper()",
        "```",
        "`removed_thing()`  <!-- noface-ctx: ignore -->",
    ])
    refs = {(r.kind, r.name): r for r in extract_references(doc(text))}
    assert refs[("call", "get_user")].line == 4 and refs[("call", "get_user")].ref == "get_user()"
    assert refs[("method", "UserService.refresh")].line == 4
    path = refs[("path", "src/auth/login.py")]
    assert path.ref == "src/auth/login.py:42" and path.line == 4
    assert refs[("symbol", "load_config")].strict and refs[("symbol", "CodeIndex")].strict
    assert refs[("call", "prose_call")].source == "prose"
    assert refs[("path", "lib/util.py")].line == 5
    assert refs[("method", "pkg.auth.check_token")].line == 7
    assert refs[("call", "build_prompt")].line == 9
    names = {name for _, name in refs}
    assert "not_a_ref" not in names  # frontmatter
    assert "local_helper" not in names  # defined in the block itself
    assert "removed_thing" not in names  # ignore marker


@pytest.mark.parametrize(
    "span",
    ["true", "None", "pip install noface", "--json", "-q", "https://example.com/a/b.py", "$HOME",
     "~/.cache/noface", "/etc/hosts", "*.md", "<name>", "key=value", "MAX_SIZE", "GitHub", "json",
     "__init__", "foo()", "my_function()", "print()", "len(x)", "e.g.", "3.11", "a b c", "Class.method",
     "module.function()"],
)
def test_ordinary_spans_are_never_strict_references(span):
    # a plain lowercase word (`true`) is only a `word`: judged as a removed name of the package (`scan`); an
    # ALL_CAPS one (`MAX_SIZE`) a `constant`: judged as a removed assignment only (`constant_spans`)
    refs = extract_references(doc(f"Use `{span}` here.\n"))
    assert all(not r.strict or (r.source in ("word", "constant") and r.name == span) for r in refs), refs


_BLOCK_TEXT = st.text(alphabet=st.sampled_from([" ", " ", "\n", "\n", "a", ")", "]", "}", "\r", "\x0c", "\u00a0",
                                                   "\x1c", "\u2003", "#"]), max_size=40)


@settings(max_examples=1000, deadline=None)
@given(_BLOCK_TEXT, st.integers(0, 40), st.integers(0, 6))
def test_a_block_end_found_by_one_search_is_the_one_found_line_by_line(text, pos, indent):
    pos = min(pos, len(text))
    assert definitions.block_end(text, pos, indent) == definitions._block_end_by_lines(text, pos, indent)  # private: the slow reference


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["def f(a):", "class C(B):", "    def m(self):", "\tdef t():", "  ", "", "x = 1",
                                 "pub(crate)\nfn g()", "def\n", "struct S {", "async  def h", "export function k",
                                 "    \t  class D", "type T = int", "\r"]), max_size=12))
def test_definition_headers_found_after_newlines_are_those_a_multiline_search_finds(lines):
    text = "\n".join(lines)
    spans = lambda matches: [(m.start("indent"), m.end(), m.group("name"), m.group("kw")) for m in matches]  # noqa: E731
    assert spans(definitions._header_matches(text)) == spans(definitions.DEFINITION_HEADER.finditer(text))  # private: the fast search held to the plain one


def sha(root: Path, rev: str = "HEAD") -> str:
    return git(root, "rev-parse", rev).strip()[:10]


def test_names_defined_in_the_docs_own_examples_are_not_references():
    text = """Subclass it::

    from flask import Flask, Request
    class MyRequest(Request):
        pass
    asgi_app = wrap(app)

Then `MyRequest(Request)` is used and ``asgi_app`` is served; `real_thing()` is not local.

.. code-block:: python

    @signal.connect
    def when_rendered(sender, template):
        pass

Connect `when_rendered(sender, template)` first.
"""
    names = {r.name for r in extract_references(doc(text, "docs/sub.rst"))}
    assert "real_thing" in names and "flask.Request" in names
    assert not names & {"MyRequest", "asgi_app", "when_rendered"}


def test_third_party_imports_in_examples_are_not_references(repo_factory):
    text = ("```python\nfrom otherlib import Model, helper_fn\nimport numpy as np\n"
            "helper_fn(np.zeros(3))\n```\n\nSubclass `Model.query_all()` and call `helper_fn()`.\n")
    root = repo_factory({"app.py": "class Model:\n    pass\n\n\ndef helper_fn():\n    return 1\n",
                         "docs/ext.md": text}, date=JAN)
    (root / "app.py").write_text("def other():\n    return 2\n")
    commit(root, "drop Model and helper_fn", date=FEB)
    fresh = assess(root)
    assert fresh.by_slug["ext"].verdict == "fresh" and fresh.by_slug["ext"].missing == ()


def test_ignore_marker_and_plain_words_and_never_existing_names(repo_factory):
    root = repo_factory({"src/a.py": "def present():\n    pass\n\n\ndef going_away():\n    pass\n",
                         "docs/plan.md": "We will add `planned_feature()` next to `present()`.\n"
                                         "Old: `going_away()` <!-- noface-ctx: ignore -->\n"}, date=JAN)
    (root / "src/a.py").write_text("def present():\n    pass\n")
    commit(root, "remove going_away", date=FEB)
    st = assess(root).by_slug["plan"]
    assert st.verdict == "fresh" and st.missing == () and st.reasons == ()


def test_snippets_in_languages_the_repo_does_not_use_are_ignored(repo_factory):
    text = "```rust\nlet v = old_helper(Widget::build());\n```\n\n```python\nold_helper()\n```\n"
    root = repo_factory({"app.py": "def old_helper():\n    pass\n", "docs/x.md": text}, date=JAN)
    (root / "app.py").write_text("def new_helper():\n    pass\n")
    commit(root, "rename", date=FEB)
    assert [m.ref for m in assess(root).by_slug["x"].missing] == ["old_helper()"]  # the python block only


# --------------------------------------------------------------------------- records


def test_records_are_never_judged_or_ranked_but_still_loaded(repo_factory):
    from noface_ctx.docs.markup import is_record

    assert is_record("CHANGELOG.md") and is_record("docs/releases/1.9.txt") and is_record("a/whatsnew/x.rst")
    assert is_record("doc/en/announce/release-2.4.0.rst")  # pytest keeps release announcements there
    # pydicom's doc/release_notes/v1.2.0.rst, and the same folder however it is spelled
    assert is_record("doc/release_notes/v1.2.0.rst") and is_record("docs/Release-Notes/2.0.md")
    assert is_record("docs/ReleaseNotes/2.0.md") and is_record("notes/Past Notes/x.md", ("past-notes",))
    assert not is_record("docs/ref/paginator.txt") and not is_record("docs/release-process.md")
    assert is_record("docs/past/1.0.md", ("past",)) and not is_record("docs/releases/1.0.md", ("past",))
    root = renamed_repo(repo_factory)
    write_tree(root, {"docs/releases/1.0.md": "# 1.0\n\nRemoved `get_user()`.\n",
                      "HISTORY.md": "# History\n\n`get_user()` was renamed.\n",
                      "docs/deprecated.md": "| name | removed in |\n|---|---|\n| `get_user()` | 2.0 |\n"})
    commit(root, "notes", date="2025-02-10T12:00:00+00:00")
    fresh = assess(root)
    verdicts = {d.path: d.staleness.verdict for d in fresh.details.values()}
    assert verdicts["docs/releases/1.0.md"] == verdicts["HISTORY.md"] == "fresh"
    assert verdicts["docs/deprecated.md"] == "fresh"  # a list of deprecated APIs rightly names what is gone
    assert verdicts["docs/auth.md"] == "stale"
    config = load_config(root)
    paths = {d.path for d in load_docs(config, scan_repo(config)).docs}
    assert {"docs/releases/1.0.md", "HISTORY.md"} <= paths  # NEED_DOC can still serve them


def test_api_change_notes_and_whats_new_pages_are_records(repo_factory):
    """matplotlib keeps its records as `doc/api/prev_api_changes/api_changes_3.7.0/removals.rst`,
    `doc/api/next_api_changes/removals/24984-OG.rst`, `doc/release/prev_whats_new/whats_new_1.4.rst`
    (numpy: `doc/release/upcoming_changes/`): records by a record word after words of time or scope,
    or by a file named like one with its version; a guide naming the same removed API is judged."""
    from noface_ctx.docs.markup import is_record

    assert is_record("doc/api/prev_api_changes/api_changes_3.7.0/removals.rst")
    assert is_record("doc/api/next_api_changes/removals/24984-OG.rst") and is_record("doc/x/upcoming_changes/1.rst")
    assert is_record("doc/release/prev_whats_new/github_stats_3.4.0.rst") and is_record("doc/users/whats_new_1.4.rst")
    assert is_record("doc/api/api_changes_3.3.0.rst") and is_record("docs/Previous-Releases/1.0.md")
    assert not is_record("docs/making_changes.md") and not is_record("docs/interchanges/x.md")
    assert not is_record("docs/new_api/usage.md") and not is_record("docs/python3.md")
    assert not is_record("doc/api/prev_api_changes/x.rst", ("past",))  # configured record_dirs replace the defaults
    root = renamed_repo(repo_factory)
    write_tree(root, {"doc/api/prev_api_changes/api_changes_1.0/removals.md": "# Removals\n\n`get_user()` is removed.\n",
                      "doc/users/whats_new_1.0.md": "# What's new\n\nCall `get_user()` for the user.\n"})
    commit(root, "api change notes", date="2025-02-10T12:00:00+00:00")
    verdicts = {d.path: d.staleness.verdict for d in assess(root).details.values()}
    assert verdicts["doc/api/prev_api_changes/api_changes_1.0/removals.md"] == "fresh"
    assert verdicts["doc/users/whats_new_1.0.md"] == "fresh" and verdicts["docs/auth.md"] == "stale"


def test_record_dirs_config_is_validated(repo_factory):
    from noface_ctx.errors import ConfigError

    root = repo_factory({"a.py": "x = 1\n", ".noface.toml": '[context]\nrecord_dirs = ["past", "notes/*"]\n'})
    with pytest.raises(ConfigError, match="record_dirs"):
        load_config(root)
    (root / ".noface.toml").write_text('[context]\nrecord_dirs = ["past"]\n')
    assert load_config(root).context.record_dirs == ("past",)


# --------------------------------------------------------------------------- removed names


@pytest.mark.parametrize("index", [True, False], ids=["code-index", "light-symbols"])
def test_renamed_function_is_an_error_naming_the_commit_and_the_new_name(repo_factory, index):
    root = renamed_repo(repo_factory)
    auth = assess(root, index=index).by_slug["auth"]
    assert auth.verdict == "stale"
    label = f'{sha(root)} (2025-02-01, "rename get_user")'
    assert auth.missing == (MissingRef("get_user()", 6, "authenticate_user", label),)
    reason = f"references `get_user()` which no longer exists, removed in {label} (renamed to `authenticate_user`?)"
    assert auth.reasons == (reason,)
    assert auth.note().splitlines() == [NOTE, f"- {reason}"]
    assert auth.last_updated == "2025-01-01"


def test_a_name_removed_in_the_commit_that_last_changed_the_doc_is_found_at_its_parent(repo_factory):
    # the code and the doc changed together, the doc still naming the old function
    root = repo_factory({"src/util.py": "def parse_date(x):\n    return x\n", "src/other.py": "def keep():\n    pass\n",
                         "docs/u.md": "Use `parse_date()`.\n"}, date=JAN)
    (root / "src/util.py").write_text("def read_date(x):\n    return x\n")
    (root / "docs/u.md").write_text("Use `parse_date()` on strings.\n")
    commit(root, "read_date", date=FEB)
    st = assess(root).by_slug["u"]
    assert [(m.ref, m.suggestion, m.commit[:10]) for m in st.missing] == [("parse_date()", "read_date", sha(root))]


def test_deleted_function_gets_no_guessed_replacement(repo_factory):
    root = repo_factory({"src/util.py": "def parse_date(x):\n    return x\n\n\ndef parse_data(x):\n    return x\n",
                         "docs/u.md": "Use `parse_date()`.\n"}, date=JAN)
    (root / "src/util.py").write_text("def parse_data(x):\n    return x\n")
    commit(root, "drop parse_date", date=FEB)
    st = assess(root).by_slug["u"]
    assert st.verdict == "stale" and [(m.ref, m.suggestion) for m in st.missing] == [("parse_date()", None)]


def test_a_name_that_was_only_a_local_or_an_instance_attribute_was_never_a_reference(repo_factory):
    # pytest's doc/en/proposals: a proposed helper `fixture_request`; doctest.py had a local and
    # a `self.` attribute of that name, later removed. What a doc can mean is declared: django's
    # removed view parameter `post_change_redirect` (beside the view it is passed to: a parameter counts
    # where the doc names its function, `parameter_only`) and `smart_unicode` (assigned under an `if`) are.
    code = ('"""Items,\nwith a docstring: offsets in the text differ once it is blanked."""\n'
            "import os\nfrom pkg.base import (\n    Base,\n    load_all,\n)\nLIMIT_RATE = 3\n\n\n"
            "class Item(Base):\n    fixture_style = 1\n\n    def setup(self, post_redirect=None):\n"
            "        self.fixture_request = None\n        fixture_state = 2\n        return fixture_state\n\n\n"
            "if os.name:\n    smart_compat = str\n")
    root = repo_factory({
        "src/item.py": code,
        "docs/proposal.md": "A new helper named `fixture_request` would do it; see `fixture_state` too.\n",
        "docs/item.md": ("Set `fixture_style`; `load_all` loads; `LIMIT_RATE` and `limit_rate` differ; "
                         "`post_redirect` (of `setup`) and `smart_compat` are API too.\n"),
    }, date=JAN)
    gone = code.replace("fixture_request", "request").replace("fixture_state", "state").replace("fixture_style", "style")
    gone = gone.replace("post_redirect", "redirect").replace("smart_compat", "compat")
    (root / "src/item.py").write_text(gone.replace("    load_all,\n", ""))
    commit(root, "rename", date=FEB)
    fresh = assess(root)
    assert fresh.by_slug["proposal"].verdict == "fresh"
    assert [m.ref for m in fresh.by_slug["item"].missing] == ["fixture_style", "load_all", "post_redirect", "smart_compat"]


def test_doc_with_only_live_unchanged_references_is_fresh(repo_factory):
    sessions = assess(renamed_repo(repo_factory)).by_slug["sessions"]
    assert sessions.verdict == "fresh" and sessions.reasons == () and sessions.note() == ""
    assert set(sessions.references) >= {"logout", "src/auth/login.py"}


@pytest.mark.parametrize("index", [True, False], ids=["code-index", "light-symbols"])
def test_renamed_method_and_import_in_code_block(repo_factory, index):
    root = repo_factory({
        "pkg/__init__.py": "",
        "pkg/service.py": "class UserService:\n    def get_user(self, name):\n        return name\n",
        "docs/api.md": "Use `UserService.get_user()`:\n\n```python\nfrom pkg.service import UserService\n"
                       "svc = UserService()\nsvc.get_user('a')\n```\n",
    }, date=JAN)
    (root / "pkg/service.py").write_text("class UserService:\n    def fetch_user(self, name):\n        return name\n")
    commit(root, "rename method", date=FEB)
    st = assess(root, index=index).by_slug["api"]
    assert st.verdict == "stale"
    assert [(m.ref, m.line, m.suggestion) for m in st.missing] == [("UserService.get_user()", 1, "UserService.fetch_user")]


def test_moved_file_is_flagged_with_its_new_path(repo_factory):
    root = repo_factory({"src/old_name.py": "def run():\n    return 1\n",
                         "docs/layout.md": "The runner lives in `src/old_name.py`.\n"}, date=JAN)
    git(root, "mv", "src/old_name.py", "src/runner.py")
    commit(root, "move", date=FEB)
    st = assess(root).by_slug["layout"]
    assert st.verdict == "stale"
    assert [(m.ref, m.suggestion) for m in st.missing] == [("src/old_name.py", "src/runner.py")]


# --------------------------------------------------------------------------- changed names


def changed_repo(repo_factory) -> Path:
    big = "".join(f"def filler_{i}(x):\n    return x + {i}\n\n\n" for i in range(40))
    return repo_factory({
        "src/calc.py": "def total(items):\n    return sum(items)\n\n\ndef scale(x, factor=2):\n    return x * factor\n",
        "src/big.py": big,
        "docs/calc.md": "# `total()`\n\nAdds up with ``sum(items)``; `scale(x, factor=2)` multiplies. See `src/big.py`.\n",
        "docs/usage.md": "Example:\n\n```python\nfrom src.calc import total\ntotal([1, 2])\n```\n",
    }, date=JAN)


def test_body_change_is_a_warning_naming_the_commit(repo_factory):
    root = changed_repo(repo_factory)
    (root / "src/calc.py").write_text((root / "src/calc.py").read_text().replace("sum(items)", "math.fsum(items)"))
    commit(root, "total: new body", date=FEB)
    fresh = assess(root)
    calc = fresh.by_slug["calc"]
    assert calc.verdict == "possibly stale" and calc.missing == ()
    assert [(c.ref, c.path, c.what) for c in calc.changed] == [("total()", "src/calc.py", "body")]
    assert calc.changed[0].commit == f'{sha(root)} (2025-02-01, "total: new body")'
    assert calc.reasons == (f"body of `total()` (src/calc.py) changed in {calc.changed[0].commit} since this doc "
                            "was last updated (2025-01-01)",)
    assert fresh.by_slug["usage"].verdict == "fresh"  # an example's use: only a signature change counts


def test_a_body_change_counts_only_where_the_doc_documents_the_symbol(repo_factory):
    # django's false warnings: a bug fix in a function a sentence merely names
    root = repo_factory({
        "src/calc.py": "def total(items):\n    return sum(items)\n",
        "docs/mention.md": "# Carts\n\nPrices are added with `total()` before tax.\n",
        "docs/later.md": "Use `total()` for sums.\n\n## `total()`\n\nAdds up items with `sum`.\n",
        "docs/setext.md": "`total()`\n=========\n\nAdds up items with `sum`.\n",
        "docs/ref.rst": "Reference\n=========\n\n.. function:: total(items)\n\n   Adds up items with ``sum``.\n",
        "docs/title.rst": "``total()``\n-----------\n\nAdds up items with ``sum``.\n",
        "docs/table.md": "| a |\n|---|\n| `total()` |\n",
    }, date=JAN)
    (root / "src/calc.py").write_text("def total(items):\n    return math.fsum(items)\n")
    commit(root, "total: fsum", date=FEB)
    fresh = assess(root)
    for slug in ("later", "setext", "ref", "title"):
        assert [(c.ref, c.what) for c in fresh.by_slug[slug].changed] in ([("total()", "body")], [("total(items)", "body")]), slug
    for slug in ("mention", "table"):
        assert fresh.by_slug[slug].verdict == "fresh", slug
    (root / "src/calc.py").write_text("def total(items, start):\n    return math.fsum(items) + start\n")
    commit(root, "total: start", date="2025-02-10T12:00:00+00:00")
    assert [c.what for c in assess(root).by_slug["mention"].changed] == ["signature"]  # a mention notices that


def test_renaming_a_functions_own_locals_is_no_body_change(repo_factory):
    # django 6485894157 "Renamed wrapped functions to wrapper." under `.. function:: never_cache(view_func)`
    code = ("def never_cache(view_func):\n    @wraps(view_func)\n    def _wrapped(request, *args, **kwargs):\n"
            "        response = view_func(request, *args, **kwargs)\n        add_headers(response)\n"
            "        return response\n\n    return _wrapped\n")
    root = repo_factory({"src/cache.py": code, "docs/cache.rst": ".. function:: never_cache(view_func)\n\n   No caching (``add_headers``).\n"},
                        date=JAN)
    renamed = code.replace("_wrapped", "_wrapper").replace("response", "resp").replace("request", "req")
    (root / "src/cache.py").write_text(renamed)
    commit(root, "Renamed wrapped functions to wrapper.", date=FEB)
    assert assess(root).by_slug["cache"].changed == ()
    (root / "src/cache.py").write_text(renamed.replace("add_headers(resp)", "add_never_cache_headers(resp)"))
    commit(root, "private", date="2025-02-10T12:00:00+00:00")
    assert [c.what for c in assess(root).by_slug["cache"].changed] == ["body"]


def test_a_string_split_to_fit_the_line_length_is_no_body_change(repo_factory):
    # django 7119f40c98 "Refactored code to strictly match 88 characters line length."
    code = 'def save(step=False):\n    if step:\n        raise ValueError("step may not be used with fid_range.")\n'
    root = repo_factory({"src/lm.py": code, "docs/lm.rst": ".. method:: save(step=False)\n\n   Saves.\n"}, date=JAN)
    (root / "src/lm.py").write_text(code.replace('"step may not be used with fid_range."',
                                                 '(\n            "step may not be used "\n            "with fid_range."\n        )'))
    commit(root, "88 characters", date=FEB)
    assert assess(root).by_slug["lm"].changed == ()


def test_functools_wraps_in_either_style_is_no_body_change(repo_factory):
    # django 8cf4de206c "Normalized decorator style for functools.wraps." under `.. function:: csrf_exempt(view)`
    old = ("def csrf_exempt(view_func):\n    def wrapper_view(*args, **kwargs):\n        return view_func(*args, **kwargs)\n\n"
           "    wrapper_view.csrf_exempt = True\n    return wraps(view_func)(wrapper_view)\n")
    root = repo_factory({"src/csrf.py": old, "docs/csrf.rst": ".. function:: csrf_exempt(view)\n\n   Exempts a view: sets ``view.csrf_exempt``.\n"},
                        date=JAN)
    new = old.replace("    def wrapper_view", "    @wraps(view_func)\n    def wrapper_view").replace(
        "return wraps(view_func)(wrapper_view)", "return wrapper_view")
    (root / "src/csrf.py").write_text(new)
    commit(root, "Normalized decorator style for functools.wraps.", date=FEB)
    assert assess(root).by_slug["csrf"].changed == ()
    (root / "src/csrf.py").write_text(new.replace("wrapper_view.csrf_exempt = True", "wrapper_view.exempt = True"))
    commit(root, "not exempt", date="2025-02-10T12:00:00+00:00")
    assert [c.what for c in assess(root).by_slug["csrf"].changed] == ["body"]


def test_a_class_is_judged_by_its_signature_not_its_methods(repo_factory):
    root = repo_factory({
        "src/store.py": "class Store(Base):\n    def get(self, key):\n        return self.rows[key]\n",
        "docs/store.md": "Make a `Store()` to keep rows.\n",
    }, date=JAN)
    (root / "src/store.py").write_text("class Store(Base):\n    def get(self, key):\n        return self.rows.get(key)\n")
    commit(root, "get: no KeyError", date=FEB)
    st = assess(root).by_slug["store"]
    assert st.changed == () and st.verdict == "fresh"  # a method's body changed: not what the doc says of the class
    (root / "src/store.py").write_text("class Store(Base, Mixin):\n    def get(self, key):\n        return self.rows.get(key)\n")
    commit(root, "Store: a mixin", date="2025-02-10T12:00:00+00:00")
    assert assess(root).by_slug["store"].changed == ()  # a base added: what the doc says of Store still holds
    (root / "src/store.py").write_text("class Store(Mixin):\n    def get(self, key):\n        return self.rows.get(key)\n")
    commit(root, "Store: no Base", date="2025-02-20T12:00:00+00:00")
    assert assess(root).by_slug["store"].changed == ()  # a base removed that the doc never names (issue 25 rule 6)
    (root / "docs/store.md").write_text("Make a `Store()` to keep rows: it is a `Base`.\n")
    commit(root, "docs: Store is a Base", date="2025-02-21T12:00:00+00:00")
    (root / "src/store.py").write_text("class Store:\n    def get(self, key):\n        return self.rows.get(key)\n")
    commit(root, "Store: no Mixin", date="2025-02-22T12:00:00+00:00")
    (root / "src/store.py").write_text("class Store(Mixin):\n    def get(self, key):\n        return self.rows.get(key)\n")
    st = assess(root).by_slug["store"]
    assert st.changed == ()  # no base the doc names was lost since its commit (Base was gone already)


def test_signature_change_counts_for_examples_and_names_the_right_commit(repo_factory):
    root = changed_repo(repo_factory)
    (root / "src/calc.py").write_text((root / "src/calc.py").read_text().replace("def total(items)", "def total(items, start)"))
    commit(root, "total takes start", date=FEB)
    target = sha(root)
    (root / "src/calc.py").write_text((root / "src/calc.py").read_text().replace("factor=2):", "factor=2):  # note"))
    commit(root, "comment only", date="2025-02-10T12:00:00+00:00")
    fresh = assess(root)
    for slug in ("calc", "usage"):
        [c] = fresh.by_slug[slug].changed
        assert (c.what, c.commit[:10]) == ("signature", target)


def test_churn_in_a_mentioned_file_and_annotations_are_not_staleness(repo_factory):
    root = changed_repo(repo_factory)
    big = (root / "src/big.py").read_text().replace("return x + 3\n", "return x + 33\n")
    (root / "src/big.py").write_text(big + "def added(y):\n    return y\n")
    text = (root / "src/calc.py").read_text().replace("def scale(x, factor=2)", "def scale(x: int, factor: int = 2) -> int")
    (root / "src/calc.py").write_text(text.replace("return sum(items)", '"""Doc."""\n    return sum(items)  # why'))
    commit(root, "churn", date=FEB)
    for _ in range(6):
        (root / "src/big.py").write_text((root / "src/big.py").read_text() + "\n")
        commit(root, "more churn", date=FEB)
    st = assess(root).by_slug["calc"]
    assert st.verdict == "fresh" and st.reasons == ()


def test_reformatted_headers_comments_in_them_and_type_parameters_are_no_change(repo_factory):
    # as sphinx's history has them: a class header wrapped by the formatter, a `# type: ignore`
    # inside a parameter list, PEP 695 type parameters and subscripted or `Generic` bases
    root = repo_factory({
        "src/nodes.py": ("class Signature(Injector, Part, Inline):\n    def __init__(self, a):\n        self.a = a\n\n\n"
                         "class Adapter(LoggerAdapter):\n    def log(self, level, msg):\n        return level\n\n\n"
                         "class Directive(Base, Generic[T]):\n    pass\n\n\n"
                         "def status(iterable, summary):\n    return iterable\n"),
        "docs/nodes.md": "`Signature` nodes, `Adapter.log()`, `Directive` and `status()` are in `src/nodes.py`.\n",
        "docs/inline.md": "A `Signature` is an `Inline` node.\n",
    }, date=JAN)
    (root / "src/nodes.py").write_text(
        "class Signature(\n    Injector, Part, Inline\n):\n    def __init__(self, a):\n        self.a = a\n\n\n"
        "class Adapter(LoggerAdapter[Logger]):\n    def log(  # type: ignore[override]\n        self, level, msg,\n"
        "    ) -> None:\n        return level  # the level\n\n\n"
        "class Directive[T](Base):\n    pass\n\n\n"
        "def status[T](iterable: list[T], summary: str) -> list[T]:\n    return iterable\n")
    commit(root, "format, type parameters", date=FEB)
    st = assess(root).by_slug["nodes"]
    assert st.verdict == "fresh" and st.changed == ()
    text = (root / "src/nodes.py").read_text()
    (root / "src/nodes.py").write_text(text.replace("    Injector, Part, Inline\n", "    Injector, Part\n"))
    commit(root, "Signature: not inline", date="2025-02-10T12:00:00+00:00")
    fresh = assess(root)
    assert fresh.by_slug["nodes"].changed == ()  # a base removed: the doc not naming it states nothing it changed
    assert [(c.ref, c.what) for c in fresh.by_slug["inline"].changed] == [("Signature", "signature")]


def test_a_signature_change_counts_when_the_doc_would_notice_it(repo_factory):
    # as flask's and django's history has them: `url_for` gained keyword-only parameters with
    # defaults, `send_from_directory` lost one the examples never pass, `CharField.__init__`
    # gained `db_collation=None`; none of that makes a mention or an example call wrong
    root = repo_factory({
        "src/web.py": ("def url_for(endpoint, **values):\n    return endpoint\n\n\n"
                       "def send(directory, path, filename=None, **kwargs):\n    return path\n\n\n"
                       "def scale(x, factor=2):\n    return x * factor\n\n\n"
                       "class CharField(Field):\n    def __init__(self, *args, max_length=None, **kwargs):\n"
                       "        self.max_length = max_length\n"),
        "docs/mention.md": "Build links with `url_for(...)`; a `CharField` holds text; `scale()` multiplies.\n",
        "docs/stated.md": "`scale(x, factor=2)` multiplies.\n",
        "docs/factor.md": "`scale()` multiplies by its `factor` (2 by default).\n",
        "docs/named.md": "`scale()` multiplies by its `factor`.\n",
        "docs/example.md": ("```python\nfrom src.web import url_for, send\nurl_for('index', page=2)\n"
                            "send(folder, name)\nscale(3)\n```\n"),
    }, date=JAN)
    text = (root / "src/web.py").read_text()
    text = text.replace("def url_for(endpoint, **values)", "def url_for(endpoint, *, _anchor=None, **values)")
    text = text.replace("def send(directory, path, filename=None, **kwargs)", "def send(directory, path, **kwargs)")
    text = text.replace("def scale(x, factor=2)", "def scale(x, factor=2, *, clamp=False)")
    text = text.replace("def __init__(self, *args, max_length=None", "def __init__(self, *args, db_collation=None, max_length=None")
    (root / "src/web.py").write_text(text)
    commit(root, "compatible extensions", date=FEB)
    fresh = assess(root)
    assert fresh.by_slug["mention"].changed == () and fresh.by_slug["example"].changed == ()
    assert fresh.by_slug["stated"].changed == ()  # its signature omits `clamp`, only added: it states nothing of it
    text = (root / "src/web.py").read_text().replace("def send(directory, path, **kwargs)", "def send(path, **kwargs)")
    (root / "src/web.py").write_text(text.replace("def scale(x, factor=2, *", "def scale(x, factor=3, *"))
    commit(root, "incompatible", date="2025-02-10T12:00:00+00:00")
    fresh = assess(root)
    assert [(c.ref, c.what) for c in fresh.by_slug["example"].changed] == [("send", "signature")]  # the import, judged by the call
    # a new default of `factor` (issue 25 rule 6): the doc stating its default is told; one naming only `scale()`,
    # or `factor` without its default (scikit-learn's sgd.rst and `eta0`), not; a change of defaults only is told as
    # the default the doc states (`notice.stated_default_line`), not as a changed signature
    assert [(c.ref, c.what) for c in fresh.by_slug["factor"].changed] == [("scale()", "default factor")]
    assert fresh.by_slug["named"].changed == ()
    assert fresh.by_slug["mention"].changed == ()
    assert [(c.ref, c.what) for c in fresh.by_slug["stated"].changed] == [("scale(x, factor=2)", "default factor")]


def test_autodoc_directives_follow_the_code_and_only_break_when_it_is_gone(repo_factory):
    # sphinx's doc/extdev/logging.rst: `.. autofunction:: pending_logging()` renders the
    # function's current docstring and signature, so a change of its body is no staleness
    root = repo_factory({
        "src/logs.py": "def pending_logging():\n    return 1\n\n\ndef prefixed_warnings(prefix):\n    return prefix\n",
        "docs/logs.rst": ("Logging\n=======\n\n.. autofunction:: pending_logging()\n\n"
                          ".. autofunction:: prefixed_warnings()\n\nCall ``pending_logging()`` first.\n"),
    }, date=JAN)
    (root / "src/logs.py").write_text("def pending_logging():\n    return 2\n\n\ndef prefixed(prefix):\n    return prefix\n")
    commit(root, "new body, rename", date=FEB)
    st = assess(root).by_slug["logs"]
    assert [(m.ref, m.suggestion) for m in st.missing] == [("prefixed_warnings()", "prefixed")]
    assert st.changed == ()  # the directive renders the new body; the prose mention only names it


def test_sphinx_api_directive_targets_are_references(repo_factory):
    # django's docs/topics/testing/tools.txt documented `.. attribute:: TransactionTestCase.multi_db`
    # and docs/ref/utils.txt `.. function:: python_2_unicode_compatible`: removed with no parentheses
    root = repo_factory({
        "src/tests.py": "class TransactionTestCase:\n    multi_db = False\n\n\ndef unicode_compatible(klass):\n    return klass\n",
        "docs/tools.rst": ("Tools\n=====\n\n.. class:: TransactionTestCase\n\n"
                           "   .. attribute:: TransactionTestCase.multi_db\n\n"
                           ".. function:: unicode_compatible\n"),
    }, date=JAN)
    (root / "src/tests.py").write_text("class TransactionTestCase:\n    databases = set()\n")
    commit(root, "remove multi_db", date=FEB)
    st = assess(root).by_slug["tools"]
    assert sorted((m.ref, m.line) for m in st.missing) == [("TransactionTestCase.multi_db", 6), ("unicode_compatible", 8)]


def test_a_new_base_class_that_keeps_the_old_one_as_an_ancestor_is_no_change(repo_factory):
    # flask 2.3 split `Flask(Scaffold)` into `Flask(App)` with `App(Scaffold)`: a mention of
    # `Flask` still holds; a base dropped from the ancestry counts for a doc naming it
    root = repo_factory({
        "src/scaffold.py": "class Scaffold:\n    def route(self, rule):\n        return rule\n",
        "src/app.py": "from src.scaffold import Scaffold\n\n\nclass Flask(Scaffold):\n    def run(self):\n        return 1\n",
        "docs/app.md": "A `Flask` object is the application.\n",
    }, date=JAN)
    write_tree(root, {
        "src/sansio.py": "from src.scaffold import Scaffold\n\n\nclass App(Scaffold):\n    pass\n",
        "src/app.py": "from src.sansio import App\n\n\nclass Flask(App):\n    def run(self):\n        return 1\n",
    })
    commit(root, "split sansio", date=FEB)
    assert assess(root).by_slug["app"].changed == ()
    write_tree(root, {  # flask's Blueprint: the new base is an import alias of another `Flask`
        "src/sansio.py": "from src.scaffold import Scaffold\n\n\nclass Flask(Scaffold):\n    pass\n",
        "src/app.py": "from src.sansio import Flask as SansioFlask\n\n\nclass Flask(SansioFlask):\n    def run(self):\n"
                      "        return 1\n",
    })
    commit(root, "an alias", date="2025-02-05T12:00:00+00:00")
    assert assess(root).by_slug["app"].changed == ()
    write_tree(root, {  # django's DecimalRangeField(RangeField) → (ContinuousRangeField), defined in the same file
        "src/app.py": "from src.sansio import Flask as SansioFlask\n\n\nclass Base(SansioFlask):\n    pass\n\n\n"
                      "class Flask(Base):\n    def run(self):\n        return 1\n",
    })
    commit(root, "a base in the same file", date="2025-02-06T12:00:00+00:00")
    assert assess(root).by_slug["app"].changed == ()
    write_tree(root, {"src/sansio.py": "class App:\n    pass\n"})
    commit(root, "App: no Scaffold", date="2025-02-10T12:00:00+00:00")
    assert assess(root).by_slug["app"].changed == ()  # Scaffold left the ancestry: the doc never names it
    write_tree(root, {"docs/app.md": "A `Flask` object is the application, a `Base`.\n"})
    commit(root, "docs: a Base", date="2025-02-11T12:00:00+00:00")
    write_tree(root, {"src/app.py": "class Flask:\n    def run(self):\n        return 1\n"})
    commit(root, "Flask: no base", date="2025-02-12T12:00:00+00:00")
    assert [(c.ref, c.what) for c in assess(root).by_slug["app"].changed] == [("Flask", "signature")]


def test_a_member_of_a_class_reached_through_its_package(repo_factory):
    # flask's docs/async-await.rst names :meth:`flask.Flask.ensure_sync`, defined in
    # src/flask/app.py, not in the package's __init__.py where it was looked for
    root = repo_factory({
        "src/flask/__init__.py": "from .app import Flask\n",
        "src/flask/app.py": "class Flask:\n    def ensure_sync(self, func):\n        return func\n",
        "docs/async.rst": "Async\n=====\n\nUse :meth:`flask.Flask.ensure_sync` to wrap.\n",
    }, date=JAN)
    (root / "src/flask/app.py").write_text("class Flask:\n    def run_sync(self, func):\n        return func\n")
    commit(root, "rename", date=FEB)
    assert [(m.ref, m.suggestion) for m in assess(root).by_slug["async"].missing] == [
        ("flask.Flask.ensure_sync", "flask.Flask.run_sync")]


def test_a_directive_target_is_code_whatever_its_shape(repo_factory):
    # flask's docs/api.rst `.. autoclass:: Request`: one hump, no code shape, but a class
    root = repo_factory({
        "src/wrappers.py": "class Request:\n    pass\n",
        "docs/api.rst": "API\n===\n\n.. autoclass:: Request\n",
    }, date=JAN)
    (root / "src/wrappers.py").write_text("class IncomingRequest:\n    pass\n")
    commit(root, "rename", date=FEB)
    assert [(m.ref, m.suggestion) for m in assess(root).by_slug["api"].missing] == [("Request", "IncomingRequest")]


def test_a_data_directive_is_not_matched_to_a_function_of_that_name(repo_factory):
    # flask's docs/api.rst `.. data:: session` is the proxy in globals.py, not the
    # `RequestContext.session` property whose body changed
    root = repo_factory({
        "src/ctx.py": "class RequestContext:\n    def session(self):\n        return self._session\n",
        "src/globals.py": "session = LocalProxy(_cv_request, 'session')\n",
        "docs/api.rst": "API\n===\n\n.. data:: session\n\n   The session proxy.\n",
    }, date=JAN)
    (root / "src/ctx.py").write_text("class RequestContext:\n    def session(self):\n        return self.open()\n")
    commit(root, "open the session", date=FEB)
    assert assess(root).by_slug["api"].verdict == "fresh"


def test_a_tilde_underline_in_restructuredtext_opens_no_code_fence(repo_factory):
    # pytest's doc/en/reference/reference.rst and django's docs underline subsections with
    # `~~~~`: read as a Markdown fence, everything up to the next one was an unchecked block
    root = repo_factory({
        "src/warning_types.py": "class RemovedIn9Warning(Warning):\n    pass\n",
        "docs/reference.rst": ("Reference\n=========\n\nWarnings\n~~~~~~~~\n\n"
                               ".. autoclass:: src.warning_types.RemovedIn9Warning\n\nMore\n~~~~\n"),
    }, date=JAN)
    (root / "src/warning_types.py").write_text("class RemovedIn10Warning(Warning):\n    pass\n")
    commit(root, "remove RemovedIn9Warning", date=FEB)
    assert [m.ref for m in assess(root).by_slug["reference"].missing] == ["src.warning_types.RemovedIn9Warning"]


def test_a_shell_session_in_a_literal_block_is_not_python(repo_factory):
    # pytest's reference.rst shows `$ pytest --help` output in a `::` block; read as Python, its
    # "... for pytest ..." bound `pytest` as an example name and hid every `pytest.X` in the doc
    root = repo_factory({
        "src/pytest/__init__.py": "from src.warnings import RemovedIn9Warning\n",
        "src/warnings.py": "class RemovedIn9Warning(Warning):\n    pass\n",
        "docs/reference.rst": ("Reference\n=========\n\n.. autoclass:: pytest.RemovedIn9Warning\n\n"
                               "Run ``pytest --help``::\n\n    $ pytest --help\n    options for pytest as pytest runs\n"),
    }, date=JAN)
    write_tree(root, {"src/pytest/__init__.py": "\n", "src/warnings.py": "\n"})
    commit(root, "remove RemovedIn9Warning", date=FEB)
    assert [m.ref for m in assess(root).by_slug["reference"].missing] == ["pytest.RemovedIn9Warning"]


def test_age_counts_against_the_latest_commit_not_the_clock(repo_factory):
    root = changed_repo(repo_factory)
    (root / "src/calc.py").write_text((root / "src/calc.py").read_text().replace("sum(items)", "math.fsum(items)"))
    commit(root, "total: new body", date="2025-03-02T12:00:00+00:00")
    details = assess(root, stale_after_days=30).details["calc"]
    assert details.age_days == 60 and details.age_flagged
    assert details.staleness.reasons[-1] == ("last updated 2025-01-01, 60 days before the latest commit "
                                             "(stale_after_days = 30), and code it names changed since")


def test_frontmatter_updated_date_wins_over_git(repo_factory):
    root = changed_repo(repo_factory)
    (root / "docs/calc.md").write_text("---\nupdated: 2024-06-01\n---\n" + (root / "docs/calc.md").read_text())
    commit(root, "frontmatter", date=FEB)
    assert assess(root).by_slug["calc"].last_updated == "2024-06-01"


def test_uncommitted_edits_are_judged_against_head(repo_factory):
    root = renamed_repo(repo_factory)
    assert assess(root).by_slug["sessions"].verdict == "fresh"
    (root / "src/auth/login.py").write_text(LOGIN.replace("get_user", "authenticate_user").replace("def logout(user)", "def logout(user, force)"))
    st = assess(root).by_slug["sessions"]  # the cached judgement is not reused: a file it depends on changed
    assert [(c.ref, c.what, c.commit) for c in st.changed] == [("logout()", "signature", "uncommitted edits")]
    (root / "docs/auth.md").write_text(AUTH_DOC.replace("get_user", "authenticate_user"))
    auth = assess(root).by_slug["auth"]
    assert auth.verdict == "fresh" and auth.last_updated == "2025-02-01"  # being edited: as of the latest commit


# --------------------------------------------------------------------------- history index, degraded modes


def test_history_index_is_extended_not_rebuilt(repo_factory, tmp_path):
    from noface_ctx.freshness.history import HistoryIndex

    root = renamed_repo(repo_factory)
    db = tmp_path / "h.sqlite"
    index = HistoryIndex(root, db)
    assert index.update(git(root, "rev-parse", "HEAD").strip()) == 2
    first = index.commit(git(root, "rev-parse", "HEAD").strip())
    index.close()
    write_tree(root, {"src/extra.py": "def extra():\n    pass\n"})
    commit(root, "extra", date="2025-02-05T12:00:00+00:00")
    index = HistoryIndex(root, db)
    assert index.update(git(root, "rev-parse", "HEAD").strip()) == 1
    assert index.commit(first.sha) == first  # earlier rows untouched
    assert index.last_touch("src/extra.py").subject == "extra"
    assert index.last_touch("docs/auth.md").seq == 1
    git(root, "reset", "-q", "--hard", first.sha)  # HEAD leaves the indexed line: the tail goes
    assert index.update(first.sha) == 0
    assert index.last_touch("src/extra.py") is None and index.commit(first.sha) == first
    index.close()


def test_without_git_only_members_of_repository_modules_are_checked(tmp_path):
    root = tmp_path / "plain"
    write_tree(root, {"lib.py": "def live_one():\n    return 1\n",
                      "docs/a.md": "Uses `lib.live_one()`, `lib.gone_function()` and `never_there()`.\n",
                      "docs/b.md": "Uses `live_one()`.\n"})
    fresh = assess(root, index=False)
    assert any("not a git repository" in w for w in fresh.warnings)
    assert [m.ref for m in fresh.by_slug["a"].missing] == ["lib.gone_function()"]
    assert fresh.by_slug["b"].verdict == "fresh" and fresh.by_slug["b"].last_updated is None


def test_without_history_a_standard_module_beside_a_package_module_of_its_name_is_not_ours(tmp_path):
    # flask's docs name `logging.config.dictConfig` (the standard library) and flask has `flask/logging.py`
    root = tmp_path / "plain"
    write_tree(root, {"src/pkg/__init__.py": "", "src/pkg/logging.py": "def create_logger(app):\n    return app\n",
                      "src/pkg/app.py": "def run():\n    return 1\n",
                      "docs/a.md": "Configure with :func:`~logging.config.dictConfig` or `logging.handlers.SMTPHandler`;\n"
                                   "see `pkg.logging.create_logger()` and `pkg.app.gone_now()`.\n"})
    fresh = assess(root, index=False)
    assert [m.ref for m in fresh.by_slug["a"].missing] == ["pkg.app.gone_now()"]
    write_tree(root, {"logging.py": "def configure():\n    return None\n"})  # now the repository's own, at the top
    assert "logging.config.dictConfig" in [m.ref.strip("~") for m in assess(root, index=False).by_slug["a"].missing]


def test_shallow_clone_warns_and_checks_members_without_history(repo_factory, tmp_path):
    origin = renamed_repo(repo_factory)
    write_tree(origin, {"docs/mod.md": "Call `login.get_user()` or `get_user()`.\n"})
    commit(origin, "doc", date="2025-02-02T12:00:00+00:00")
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(clone)], check=True)
    fresh = assess(clone)
    assert any("shallow clone" in w for w in fresh.warnings)
    assert fresh.by_slug["sessions"].verdict == "fresh"
    assert [m.ref for m in fresh.by_slug["mod"].missing] == ["login.get_user()"]
    assert not fresh.by_slug["mod"].missing[0].proven  # no history to tell: not proof of staleness
    assert fresh.by_slug["mod"].verdict == "possibly stale"


# --------------------------------------------------------------------------- clashes


def cand(path: str, st: Staleness) -> Candidate:
    form = Form("full", f"### {path}", 3)
    return Candidate(kind="doc", path=path, ref=Path(path).stem, title=path, forms=(form,), score=1.0,
                     request=f"NEED_DOC: {Path(path).stem}", staleness=st)


def test_clash_only_when_docs_state_different_things():
    a = Staleness("fresh", signatures=(("connect", "(host, timeout=30)"), ("render", "(request)")))
    b = Staleness("possibly stale", signatures=(("connect", "(host, timeout=10)"), ("render", "(request)")))
    c = Staleness("fresh", signatures=(("connect", "(host: str, timeout=30)"),))
    d = Staleness("fresh", signatures=(("connect", "(host: bytes, timeout=30)"),))
    e = Staleness("fresh", signatures=(("connect", "('example.org', 5)"),))  # a call, not a signature
    assert find_clashes([cand("docs/a.md", a), cand("docs/b.md", b)]) == [
        "`docs/a.md` and `docs/b.md` disagree about `connect`: `timeout` defaults to `30` in `docs/a.md` but `10` "
        "in `docs/b.md` — `docs/b.md` may be outdated; check the code."
    ]
    assert find_clashes([cand("docs/c.md", c), cand("docs/d.md", d)]) == [
        "`docs/c.md` and `docs/d.md` disagree about `connect`: `host` is `str` in `docs/c.md` but `bytes` in `docs/d.md`"
    ]
    assert find_clashes([cand("docs/a.md", a), cand("docs/c.md", c)]) == []  # agree where both say something
    assert find_clashes([cand("docs/a.md", a), cand("docs/e.md", e)]) == []
    chosen = [Chosen(x, x.forms[0]) for x in (cand("docs/b.md", b), cand("docs/a.md", a))]
    assert len(find_clashes(chosen)) == 1
    # plain calls with other argument names (matplotlib's `bar(bar0)` vs `bar(x)`) are no clash, and no crash
    f = Staleness("fresh", signatures=(("bar", "(bar0)"),))
    g = Staleness("fresh", signatures=(("bar", "(x)"),))
    assert find_clashes([cand("docs/f.md", f), cand("docs/g.md", g)]) == []


def test_clash_between_assessed_docs(repo_factory):
    root = repo_factory({"src/net.py": "def connect(host, timeout=30):\n    return host\n",
                         "docs/a.md": "Call `connect(host, timeout=30)`.\n",
                         "docs/b.md": "Call `connect(host, timeout=5)`; also `connect(host)` works.\n",
                         "docs/c.md": "Mentions `connect()` only.\n"}, date=JAN)
    fresh = assess(root)
    cands = [cand(f"docs/{s}.md", fresh.by_slug[s]) for s in "abc"]
    assert find_clashes(cands) == ["`docs/a.md` and `docs/b.md` disagree about `connect`: `timeout` defaults to "
                                   "`30` in `docs/a.md` but `5` in `docs/b.md`"]


# --------------------------------------------------------------------------- in the prompt


def test_preview_downranks_stale_doc_with_note(repo_factory):
    pipeline = pytest.importorskip("noface_ctx._pipeline")
    from conftest import FakeEmbedder

    now = datetime.now(timezone.utc).replace(microsecond=0)
    old, new = (now - timedelta(days=10)).isoformat(), (now - timedelta(days=1)).isoformat()
    body = "# {t}\n\nTo load the user for a login session, call `{f}()` in `src/auth/login.py`.\n"
    root = repo_factory({
        "src/auth/__init__.py": "", "src/auth/login.py": LOGIN,
        "docs/auth.md": body.format(t="Auth", f="get_user"),
    }, date=old)
    (root / "src/auth/login.py").write_text(LOGIN.replace("get_user", "authenticate_user"))
    (root / "docs/login.md").write_text(body.format(t="Login", f="authenticate_user"))
    commit(root, "rename get_user; new login doc", date=new)
    issue = {"id": "T-1", "issue_type": "feature",  # a cross-cutting issue: room for both docs
             "title": "Refactor how a login session loads the user across the auth subsystem",
             "description": "Loading the user for a login session fails; redesign the user loading end-to-end."}
    prompt = pipeline.build_prompt(issue, repo=root, embed=FakeEmbedder())
    rows = {row["slug"]: row for row in prompt.to_dict()["docs"]}
    label = f'{sha(root)} ({new[:10]}, "rename get_user; new login doc")'
    reason = f"references `get_user()` which no longer exists, removed in {label} (renamed to `authenticate_user`?)"
    assert rows["auth"]["stale"] is True and rows["auth"]["stale_reasons"] == [reason]
    assert rows["login"]["stale"] is False and rows["login"]["stale_reasons"] == []
    assert rows["auth"]["score"] < rows["login"]["score"]  # same text but the name: downranked
    assert rows["auth"]["included"]  # relevant, so still shown: downranked, not dropped
    assert f"{NOTE}\n- {reason}" in prompt.text
    assert prompt.text.index("### login") < prompt.text.index("### auth")


def test_release_notes_are_never_ranked_as_design_docs(repo_factory):
    pipeline = pytest.importorskip("noface_ctx._pipeline")
    from conftest import FakeEmbedder

    notes = "# 1.9\n\nThe paginator now validates page numbers; `Paginator.page()` raises on bad input.\n"
    root = repo_factory({
        "src/paginator.py": "class Paginator:\n    def page(self, number):\n        return number\n",
        "docs/releases/1.9.md": notes, "NEWS.md": notes,
        "docs/paginator.md": "# Paginator\n\nThe paginator splits results into pages; `Paginator.page()`.\n",
    }, date=JAN)
    issue = {"id": "T-2", "title": "Paginator page numbers are not validated",
             "description": "Paginator.page() accepts bad page numbers; validate them."}
    prompt = pipeline.build_prompt(issue, repo=root, embed=FakeEmbedder())
    slugs = {row["path"] for row in prompt.to_dict()["docs"]}
    assert "docs/paginator.md" in slugs and not slugs & {"docs/releases/1.9.md", "NEWS.md"}


def test_a_first_run_reads_references_and_builds_the_history_in_other_processes_with_the_same_answer(
        repo_factory, monkeypatch, tmp_path, history_builders):
    # a first run over many docs reads their references and builds the history index in forked
    # processes while the code is read
    import noface_ctx._process as process
    import noface_ctx.freshness.scan as scan

    files = {"src/calc.py": "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n" for i in range(60))}
    files.update({f"docs/d{i}.md": f"# `helper_{i}()`\n\nAdds ``{i}``; see `helper_{(i + 1) % 60}()`.\n" for i in range(60)})
    root = repo_factory(files, date=JAN)
    (root / "src/calc.py").write_text(files["src/calc.py"].replace("def helper_7(", "def helper_seven(")
                                      .replace("return x + 3\n", "return x + 33\n"))
    commit(root, "rename helper_7; helper_3 adds more", date=FEB)
    pids, builders = tmp_path / "pids", history_builders
    real = scan.extract_references

    def reading(doc):
        with pids.open("a") as f:
            f.write(f"{os.getpid()}\n")
        return real(doc)

    monkeypatch.setattr(scan, "extract_references", reading)
    first = assess(root, index=False)
    readers, built_by = set(pids.read_text().split()), set(builders.read_text().split())
    assert len(readers) == 1 and str(os.getpid()) not in readers  # all 60 docs read by one other process
    assert len(built_by) == 1 and not built_by & (readers | {str(os.getpid())})  # the index by a third
    pids.unlink()
    builders.unlink()
    monkeypatch.setenv("NOFACE_CTX_CACHE_DIR", str(tmp_path / "other-cache"))
    monkeypatch.setattr(process.threading, "active_count", lambda: 2)
    here = assess(root, index=False)
    assert set(pids.read_text().split()) == {str(os.getpid())}  # other threads run: no fork, the same answer
    assert set(builders.read_text().split()) == {str(os.getpid())}  # (the index built in a thread)
    assert {s: (st.verdict, st.reasons) for s, st in first.by_slug.items()} == \
        {s: (st.verdict, st.reasons) for s, st in here.by_slug.items()}
    assert [m.suggestion for m in first.by_slug["d7"].missing] == ["helper_seven"]
    assert [c.what for c in first.by_slug["d3"].changed] == ["body"]
    assert first.by_slug["d2"].verdict == "fresh"  # names `helper_3()` in a sentence: a body change is not enough

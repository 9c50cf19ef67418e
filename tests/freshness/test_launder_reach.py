"""A name a doc kept through many edits after the code dropped it (`launder_reach`): httpx's
docs/advanced.md listed `max_keepalive` among `httpx.Limits`' settings through twenty edits after
0.15.0 removed the argument; the six earlier versions `Presence` reads were all after the removal."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.declarations import declared
from noface_ctx.freshness.launder_reach import class_shaped, proves, takes_keyword

CONFIG = '''class Limits:
    """Limits on the connection pool."""

    def __init__(
        self,
        *,
        max_connections: int = None,
        # the number of keep-alive connections kept
        max_keepalive: int = None,
    ):
        self.max_connections = max_connections
        self.max_keepalive_connections = max_keepalive
'''
DOC = """# Advanced

## Pool limit configuration

You can control the connection pool size with the `limits` keyword argument. It takes
instances of `pkg.Limits` which define:

- `max_keepalive`, number of allowable keep-alive connections. (Defaults 20)
- `max_connections`, maximum number of allowable connections. (Default 100)
- `keepalive_kind`, the kind of pool, or `fifo_pool` for a queue.

## Notes
"""


def _day(i: int) -> str:
    return f"2025-{1 + i // 28:02d}-{1 + i % 28:02d}T12:00:00+00:00"


def test_a_name_a_doc_kept_through_many_edits_after_its_removal_is_blamed_on_the_removal(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from .config import Limits\n", "pkg/config.py": CONFIG,
                         "docs/advanced.md": DOC}, date=_day(0))
    assert check_docs(repo=root).findings == ()
    (root / "pkg/config.py").write_text(CONFIG.replace("max_keepalive: int", "max_keepalive_connections: int")
                                        .replace("= max_keepalive\n", "= max_keepalive_connections\n"))
    commit(root, "Fully deprecate max_keepalive", date=_day(1))
    removal = git(root, "rev-parse", "--short=10", "HEAD").strip()
    text = DOC
    for i in range(14):  # fourteen edits of the page since, none of them to the list
        text += f"\nNote {i}: the pool is shared.\n"
        (root / "docs/advanced.md").write_text(text)
        (root / "pkg/notes.py").write_text(f"NOTES = {i}\n")
        commit(root, f"docs: note {i}", date=_day(2 + i))
    got = check_docs(repo=root).lines()
    assert got == [f"docs/advanced.md:8: stale-ref: references `max_keepalive` which no longer exists, removed in "
                   f"{removal} (2025-01-02, \"Fully deprecate max_keepalive\") (renamed to `max_keepalive_connections`?)"], got
    # `keepalive_kind` and `fifo_pool` were never the code's: no finding, however far back the doc is read


def test_a_constructor_keyword_is_a_field_of_its_class_and_a_parameter_after_a_comment_is_read():
    assert takes_keyword(CONFIG, "max_keepalive", frozenset({"Limits"}))
    assert takes_keyword(CONFIG, "max_connections", frozenset({"Limits"}))
    assert not takes_keyword(CONFIG, "max_keepalive", frozenset({"Timeout"}))  # another class's
    assert not takes_keyword(CONFIG, "max_keepalive_connections", frozenset({"Limits"}))  # an attribute, not a keyword
    method = CONFIG.replace("def __init__(", "def resize(")
    assert not takes_keyword(method, "max_keepalive", frozenset({"Limits"}))  # a method's parameter
    assert "max_keepalive" in declared(CONFIG).names
    assert {"a", "b", "c", "d"} <= declared('def f(a,  # one\n      b,\n      # two\n      c="#", d=1):\n    pass\n').names


MIDDLEWARE = '''class DatabaseMiddleware:
    def __init__(self, app, rollback_on_shutdown=False):
        self.app = app


class SessionMiddleware:
    def __init__(self, app):
        self.app = app
'''
NOTE = """# Databases

Previous versions included a built-in `DatabaseMiddleware`. It is currently still available.
Sessions use the `SessionMiddleware`.
"""
FIXTURE = """# Testing

```python
def client():
    # Because we've configured the DatabaseMiddleware with `rollback_on_shutdown`
    # each test gets a rollback.
    return None
```
"""


def _edited_often(root, path: str, first: int, times: int) -> None:
    text = (root / path).read_text()
    for i in range(times):  # edits of the page since, none of them to the lines naming the class
        text += f"\nNote {i}: use a fresh database per test.\n"
        (root / path).write_text(text)
        commit(root, f"docs: note {i}", date=_day(first + i))


def test_a_class_a_doc_kept_through_many_edits_after_its_removal_is_blamed_on_the_removal(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/middleware.py": MIDDLEWARE, "docs/database.md": NOTE,
                         "docs/testing.md": FIXTURE}, date=_day(0))
    _edited_often(root, "docs/database.md", 1, 3)
    (root / "pkg/middleware.py").write_text(MIDDLEWARE.split("\n\n\n", 1)[1])
    commit(root, "Version 0.11: drop DatabaseMiddleware", date=_day(5))
    removal = git(root, "rev-parse", "--short=10", "HEAD").strip()
    _edited_often(root, "docs/database.md", 6, 9)  # nine edits since: past the six versions read
    _edited_often(root, "docs/testing.md", 16, 8)
    got = check_docs(repo=root).lines()
    # the class, in prose and in an example's comment; its keyword, further back than six versions, is no class
    assert [line.split(" which ")[0] for line in got] == ["docs/database.md:3: stale-ref: references `DatabaseMiddleware`",
                                                          "docs/testing.md:5: stale-ref: references `DatabaseMiddleware`"], got
    assert all(f"removed in {removal} (" in line for line in got), got


def test_a_class_a_doc_took_up_after_its_removal_and_a_word_never_a_class_are_not(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/middleware.py": MIDDLEWARE + 'ROUTES = ["MountedApp"]\n',
                         "docs/database.md": "# Databases\n\nSee the SessionMiddleware.\n"}, date=_day(0))
    (root / "pkg/middleware.py").write_text(MIDDLEWARE.split("\n\n\n", 1)[1])
    commit(root, "Version 0.11: drop DatabaseMiddleware and the mounted app", date=_day(1))
    told = "# Databases\n\nThe `DatabaseMiddleware` went in 0.11; `MountedApp` too. See the `SessionMiddleware`.\n"
    (root / "docs/database.md").write_text(told)  # the doc's account of the removal, written after it
    commit(root, "docs: the middleware went", date=_day(2))
    _edited_often(root, "docs/database.md", 3, 9)
    assert check_docs(repo=root).lines() == []


def test_a_line_rewritten_after_the_removal_names_another_packages_class(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/middleware.py": MIDDLEWARE, "docs/database.md": NOTE}, date=_day(0))
    _edited_often(root, "docs/database.md", 1, 3)
    (root / "pkg/middleware.py").write_text(MIDDLEWARE.split("\n\n\n", 1)[1])
    commit(root, "Version 0.11: DatabaseMiddleware moves to the databases package", date=_day(5))
    text = (root / "docs/database.md").read_text().replace(
        "Previous versions included a built-in `DatabaseMiddleware`. It is currently still available.",
        "You can use the `DatabaseMiddleware` of the `databases` package.")
    (root / "docs/database.md").write_text(text)  # the word kept, the line rewritten: another package's class
    commit(root, "docs: point at the databases package", date=_day(6))
    _edited_often(root, "docs/database.md", 7, 9)
    assert check_docs(repo=root).lines() == []


def test_what_proves_a_name_at_an_earlier_version():
    texts = {"pkg/middleware.py": MIDDLEWARE, "tests/test_app.py": "class OldClient:\n    pass\n",
             "pkg/urls.py": 'NAMES = ["DatabaseMiddleware2"]\n'}
    files = set(texts)
    assert proves(texts.__getitem__, files, "DatabaseMiddleware", None, deep=True, lined=True)  # the class, written
    assert not proves(texts.__getitem__, files, "DatabaseMiddleware", None, deep=True)  # not where its line was written
    assert proves(texts.__getitem__, files, "rollback_on_shutdown", None, deep=False)  # within six versions: the word
    assert not proves(texts.__getitem__, files, "rollback_on_shutdown", None, deep=True, lined=True)  # a class only
    assert not proves(texts.__getitem__, files, "OldClient", None, deep=True, lined=True)  # a test's class is no API
    assert not proves(texts.__getitem__, files, "DatabaseMiddleware2", None, deep=True, lined=True)  # a word in a list
    assert proves(texts.__getitem__, files, "rollback_on_shutdown", frozenset({"DatabaseMiddleware"}), deep=True)  # a field
    assert not class_shaped("Databases") and not class_shaped("database_url") and class_shaped("SessionMiddleware")
    assert not class_shaped("RemovedInSphinx40Warning")  # a name that says when it goes: the schedule, told

"""A name a doc kept through many edits after the code dropped it (`launder_reach`): httpx's
docs/advanced.md listed `max_keepalive` among `httpx.Limits`' settings through twenty edits after
0.15.0 removed the argument; the six earlier versions `Presence` reads were all after the removal."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.declarations import declared
from noface_ctx.freshness.launder_reach import takes_keyword

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

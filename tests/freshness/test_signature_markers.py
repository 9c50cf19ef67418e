"""A signature change warns only the docs that use or state what changed (issue 25 item 6,
starlette's pinned commit): a `/` or `*` added, or a parameter moved across one, changes nothing
for a doc that writes the parameter in a way still valid (by position for a positional-only one,
by keyword for a keyword-only one), and everything for one that no longer does; an annotation
changes nothing for a doc's signature without annotations; a shown signature that omits a
parameter only added (optional) states nothing about it."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.calls import Call, written_call
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.parameters import binds, parameters, written_validly

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"


def _signature_warnings(root):
    return sorted(f.path for f in check_docs(repo=root).findings if f.code == "changed-ref")


REQUESTS = ("class Request:\n    def url_for(self, name, **path_params):\n        return name\n\n\n"
            "class Route:\n    def __init__(self, path, endpoint, name=None):\n        self.name = name\n")


def test_a_name_made_positional_only_keeps_a_doc_calling_it_by_position(repo_factory):
    # starlette's routing.md: "Signature: `url_for(name, **path_params) -> URL`" beside
    # `Route("/", homepage, name="homepage")`, when url_for's `name` became `name, /`: the
    # `name=` the doc passes is Route's, not url_for's
    root = repo_factory({
        "pkg/__init__.py": "from pkg.requests import Request, Route\n", "pkg/requests.py": REQUESTS,
        "docs/routing.md": ("# Routing\n\n* Signature: `url_for(name, **path_params) -> URL`\n\n```python\n"
                            "routes = [Route(\"/\", homepage, name=\"homepage\")]\nurl = request.url_for(\"homepage\")\n```\n"),
        "docs/keyword.md": "# Keyword\n\n```python\nurl = request.url_for(name=\"homepage\")\n```\n",
    }, date=JAN)
    (root / "pkg/requests.py").write_text(REQUESTS.replace("(self, name, **path_params)", "(self, name, /, **path_params)"))
    commit(root, "url_for: name is positional-only", date=FEB)
    assert _signature_warnings(root) == ["docs/keyword.md"]  # `name=` now lands in **path_params


def test_leading_double_underscore_parameters_are_positional_only(repo_factory):
    # the convention before `/` (PEP 484): `url_for(self, __name, **path_params)`, then `name, /`
    assert parameters("def url_for ( self , __name , * * kw ) :") == [("pos", "__name", ""), ("**", "kw", "")]
    assert parameters("def f ( __init__ , b , __c ) :") == [("any", "__init__", ""), ("any", "b", ""), ("any", "__c", "")]
    code = REQUESTS.replace("(self, name, **path_params)", "(self, __name, **path_params)")
    root = repo_factory({
        "pkg/__init__.py": "from pkg.requests import Request, Route\n", "pkg/requests.py": code,
        "docs/routing.md": "# Routing\n\n* Signature: `url_for(name, **path_params) -> URL`\n",
        "docs/call.md": "# Call\n\n```python\nurl = request.url_for(\"user\", username=\"tom\")\n```\n",
    }, date=JAN)
    (root / "pkg/requests.py").write_text(code.replace("(self, __name, **path_params)", "(self, name, /, **path_params)"))
    commit(root, "url_for: a real positional-only marker", date=FEB)
    assert _signature_warnings(root) == []
    (root / "pkg/requests.py").write_text(code.replace("(self, __name, **path_params)", "(self, *, name, **path_params)"))
    commit(root, "url_for: name by keyword only", date=FEB)
    assert _signature_warnings(root) == ["docs/call.md", "docs/routing.md"]  # both pass it by position


FETCH = "def fetch(url, timeout=5):\n    return url\n"
FETCH_DOCS = {
    "docs/keyword.md": "# Keyword\n\nCall `pkg.fetch(url, timeout=10)` to wait longer.\n",
    "docs/example.md": "# Example\n\n```python\nfrom pkg import fetch\nfetch(\"https://x\", timeout=3)\n```\n",
    "docs/mention.md": "# Mention\n\nUse `pkg.fetch`; its `timeout` is in seconds.\n",
    "docs/signature.md": "# Signature\n\n* Signature: `pkg.fetch(url, timeout=5)`\n",
    # a signature written with annotations reads as one without (the code's are read so)
    "docs/annotated.md": "# Annotated\n\n* Signature: `pkg.fetch(url: str, timeout: float = 5) -> bytes`\n",
    "docs/positional.md": "# Positional\n\nCall `pkg.fetch(url, 10)` to wait longer.\n",
    "docs/positional_example.md": "# Example\n\n```python\nfrom pkg import fetch\nfetch(\"https://x\", 3)\n```\n",
}


def test_a_parameter_made_keyword_only_warns_only_the_docs_passing_it_by_position(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from pkg.net import fetch\n", "pkg/net.py": FETCH, **FETCH_DOCS}, date=JAN)
    (root / "pkg/net.py").write_text(FETCH.replace("(url, timeout=5)", "(url, *, timeout=5)"))
    commit(root, "fetch: timeout is keyword-only", date=FEB)
    assert _signature_warnings(root) == ["docs/positional.md", "docs/positional_example.md"]


def test_an_annotation_only_change_is_no_change(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from pkg.net import fetch\n", "pkg/net.py": FETCH, **FETCH_DOCS}, date=JAN)
    (root / "pkg/net.py").write_text(FETCH.replace("(url, timeout=5)", "(url: str, timeout: float = 5) -> bytes"))
    commit(root, "fetch: annotated", date=FEB)
    assert _signature_warnings(root) == []


def test_a_shown_signature_omitting_a_parameter_only_added_is_not_warned(repo_factory):
    directive = ("API\n===\n\n.. function:: fetch(url, timeout=5)\n\n   Fetch it.\n\n"
                 ".. function:: pkg.net.fetch(url, timeout=5)\n\n   The same.\n")
    files = {"pkg/__init__.py": "from pkg.net import fetch\n", "pkg/net.py": FETCH, **FETCH_DOCS, "docs/api.rst": directive}
    root = repo_factory(files, date=JAN)
    (root / "pkg/net.py").write_text(FETCH.replace("(url, timeout=5)", "(url, timeout=5, retries=0, **options)"))
    commit(root, "fetch: retries", date=FEB)
    assert _signature_warnings(root) == []
    # a parameter they state renamed: the signature, the call passing it and the directive are stale
    (root / "pkg/net.py").write_text(FETCH.replace("(url, timeout=5)", "(url, deadline=5, retries=0, **options)"))
    commit(root, "fetch: timeout is deadline", date=FEB)
    assert _signature_warnings(root) == [
        "docs/annotated.md", "docs/api.rst", "docs/example.md", "docs/keyword.md", "docs/mention.md",
        "docs/signature.md"]


def test_a_stated_default_still_counts_and_an_unstated_one_does_not(repo_factory):
    files = {"pkg/__init__.py": "from pkg.net import fetch\n", "pkg/net.py": FETCH,
             "docs/signature.md": FETCH_DOCS["docs/signature.md"],
             "docs/named.md": "# Named\n\n* Signature: `pkg.fetch(url, timeout)`\n"}
    root = repo_factory(files, date=JAN)
    (root / "pkg/net.py").write_text(FETCH.replace("timeout=5", "timeout=30"))
    commit(root, "fetch: wait longer", date=FEB)
    assert _signature_warnings(root) == ["docs/signature.md"]


def test_written_validly_reads_each_marker_by_how_calls_pass_the_parameter():
    before = parameters("def f ( a , b = 1 , c = 2 ) :")
    now = parameters("def f ( a , / , b = 1 , * , c = 2 ) :")
    assert before is not None and now is not None
    assert written_validly(before, now, [(1, ["c"])]) == {"a", "c"}
    assert written_validly(before, now, [(0, ["a"])]) == {"c"}  # `a=` is no longer taken
    assert written_validly(before, now, [(3, [])]) == {"a"}  # `c` passed third: keyword-only now
    # a keyword of a positional-only parameter's name goes to **kwargs and leaves it unfilled
    # a signature as a doc writes it: annotations aside, `/` dropped, the names after `*` by keyword
    assert written_call("f(url: str, /, *, timeout: float = 5, retries) -> bytes", 1, "f") == Call(
        ("url",), (("timeout", "5"), ("retries", "")))
    assert written_call("f(x, key=lambda a: a, n=d[1:2])", 1, "f") == Call(("x",), (("key", "lambda a: a"), ("n", "d[1:2]")))
    kwargs = parameters("def url_for ( self , name , / , * * kw ) :")
    assert kwargs is not None and not binds(kwargs, 0, ["name"]) and binds(kwargs, 1, ["name"])

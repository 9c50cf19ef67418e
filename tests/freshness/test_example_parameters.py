"""A parameter of a function an example defines (`def handle_request(self, request):`) is the
example's own name in that block: `request.url.copy_with(...)` refers to the method name alone
(a `member`), never through the repository's `request`, so a method renamed in the code is stale
there; a method still defined is no finding."""

from __future__ import annotations

from conftest import commit

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.extract import extract_references

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

API = '''"""Top-level helpers."""
from webkit._models import Request


def request(method, url):
    """Send one request."""
    return Request(method, url)
'''
MODELS = '''"""Requests and responses."""
from webkit._urls import URL


class Request:
    def __init__(self, method, url):
        self.method = method
        self.url = URL(url)


class BaseTransport:
    def handle_request(self, request):
        raise NotImplementedError
'''
URLS = '''"""URLs."""


class URL:
    def __init__(self, raw, scheme="http"):
        self.raw = raw
        self.scheme = scheme

    def copy_with(self, scheme=None):
        return URL(self.raw, scheme or self.scheme)

    def join(self, other):
        return URL(self.raw + other, self.scheme)
'''
DOC = """# Transports

Write your own transport:

```python
import webkit

class HTTPSRedirect(webkit.BaseTransport):
    def handle_request(self, request):
        url = request.url.copy_with(scheme="https")
        other = request.url.join("/next")
        return url, other
```
"""
FILES = {"webkit/__init__.py": "from webkit._api import request\nfrom webkit._models import BaseTransport, Request\n",
         "webkit/_api.py": API, "webkit/_models.py": MODELS, "webkit/_urls.py": URLS, "docs/transports.md": DOC}


def test_a_call_on_a_parameter_is_a_member_reference():
    got = {(r.line, r.name, r.kind) for r in extract_references(Doc("docs/transports.md", "d", "d", DOC))}
    assert (10, "copy_with", "member") in got
    assert not [r for r in got if r[1].startswith("request.")]  # never the repository's `request`


def test_a_method_renamed_is_stale_where_an_example_calls_it_on_a_parameter(repo_factory):
    root = repo_factory(FILES, date=JAN)
    (root / "webkit/_urls.py").write_text(URLS.replace("copy_with", "copy_set"))
    commit(root, "rename URL.copy_with to copy_set", date=FEB)
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("docs/transports.md", 10)}  # `join` still defined: no finding
    assert "removed in" in got["docs/transports.md", 10] and "copy_set" in got["docs/transports.md", 10]

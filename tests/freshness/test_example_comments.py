"""Code named in an example's comments (`example_comments`): starlette's routing.md wrote
`site = Router()  # Use eg. `@site.route()` to configure this.`, its config.md `# Because we've
configured the DatabaseMiddleware with `rollback_on_shutdown``; when the decorator or the class
goes, the comment is stale. Prose words in comments, a library's names and names the code still
has are never findings."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.example_comments import comment_refs, comment_text

JAN, FEB = "2025-01-01T12:00:00+00:00", "2025-02-01T12:00:00+00:00"
CODE = '''class Router:
    def __init__(self, routes=None):
        self.routes = routes or []

    def route(self, path):
        def decorator(func):
            self.routes.append((path, func))
            return func
        return decorator

    def mount(self, path, app):
        self.routes.append((path, app))


class AuditMiddleware:
    def __init__(self, app, keep_on_shutdown=False):
        self.app = app
'''
DOC = """# Routing

Host-based routing:

```python
from pkg.routing import Router

site = Router()  # Use eg. `@site.route()` to configure this.
api = Router()  # Mount the API with `api.mount()`, as `json.dumps()` would, in plain Python.


def client():
    # Because we've configured the AuditMiddleware with `keep_on_shutdown`
    # we'll get a complete rollback. Like Django's ModelAdmin, the `ClientFactory` helps.
    return site
```
"""


def test_a_decorator_a_comment_tells_the_reader_to_use_is_stale_when_it_goes(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/routing.py": CODE, "docs/routing.md": DOC}, date=JAN)
    assert check_docs(repo=root).lines() == []
    (root / "pkg/routing.py").write_text(CODE.replace("    def route(self, path):\n", "    def _route(self, path):\n"))
    commit(root, "Remove the route decorator", date=FEB)
    got = check_docs(repo=root).lines()
    assert len(got) == 1 and got[0].startswith("docs/routing.md:8: stale-ref: references `site.route()` which no longer "
                                               "exists, removed in "), got


def test_a_class_a_comment_names_as_a_plain_word_is_stale_when_it_goes(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/routing.py": CODE, "docs/routing.md": DOC}, date=JAN)
    (root / "pkg/routing.py").write_text(CODE.split("class AuditMiddleware")[0])
    commit(root, "Drop AuditMiddleware", date=FEB)
    got = check_docs(repo=root).lines()
    assert len(got) == 2 and all(line.startswith("docs/routing.md:13: stale-ref: references `") for line in got), got
    assert {line.split("`")[1] for line in got} == {"AuditMiddleware", "keep_on_shutdown"}, got


def test_names_the_code_still_has_a_librarys_and_prose_words_are_no_findings(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/routing.py": CODE, "docs/routing.md": DOC}, date=JAN)
    (root / "pkg/other.py").write_text("VALUE = 1\n")
    commit(root, "unrelated", date=FEB)
    # `ModelAdmin`, `ClientFactory`, `json.dumps()` were never the repository's; `api.mount()` still is
    assert check_docs(repo=root).lines() == []


def test_what_a_comment_names():
    block = [(1, 'site = Router()  # Use eg. `@site.route("/")` to configure this.'),
             (2, 'url = "http://example.org/#top"  # the `path_params` of `url_for()`'),
             (3, "value = compute()  # Configure PYTHON_PATH first, see `MAX_SIZE`, `foo` and `site`"),
             (4, "# The request_handler is called by the `HTTPEndpoint` with a Request"),
             (5, 'text = "# `not_a_comment()`"')]
    got = {(r.line, r.name, r.kind, r.strict) for r in comment_refs(block, "python", {"site", "url", "value", "text"},
                                                                     {"site": "pkg.Router"}, {})}
    assert got == {(1, "pkg.Router.route", "method", True), (2, "path_params", "symbol", True),
                   (2, "url_for", "call", True), (4, "request_handler", "symbol", True),
                   (4, "HTTPEndpoint", "symbol", False)}, got  # a span not shaped like code: read, never reported
    assert comment_text('x = "#" + y  # a comment', "#") == " a comment"
    assert comment_text("fetch(url) // see `load()`", "//") == " see `load()`"
    assert comment_text("s = 'it''s' # `x`", "#") == " `x`"

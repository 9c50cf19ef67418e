"""A signature warning needs the doc to pass or state the changed parameter for that callable
(issue 25, precision; httpx's transports.md at 0.28.0): a parameter the doc writes as another
callable's keyword (`Transport(app=app)`) or as a variable of its example (`proxies = [...]`) is
not the class's, and a call unpacking `**kwargs` still passes only the arguments it writes."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.calls import named_for
from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CLIENT = ("class Client:\n    def __init__(self, *, transport=None, app=None, proxies=None):\n"
          "        self.transport = transport\n\n\n"
          "class Transport:\n    def __init__(self, app=None, retries=0, *, local=None):\n        self.app = app\n")
GUIDE = ("# Transports\n\nThe `Client` accepts a `transport` argument.\n\n```python\n"
         "transport = pkg.Transport(app=app)\nproxies = ['http://a', 'http://b']\n"
         "client = pkg.Client(transport=transport)\n```\n")


def _signature_findings(root):
    return sorted((f.path, f.line) for f in check_docs(repo=root).findings if "signature" in f.message)


def test_a_parameter_another_callable_takes_or_a_variable_is_not_the_clients(repo_factory):
    root = repo_factory({
        "pkg/__init__.py": "from pkg.client import Client, Transport\n", "pkg/client.py": CLIENT,
        "docs/guide.md": GUIDE,
        "docs/wsgi.md": "# WSGI\n\nCall `Client` with your app:\n\n```python\nclient = pkg.Client(app=app)\n```\n",
    }, date=JAN)
    (root / "pkg/client.py").write_text(CLIENT.replace(", app=None, proxies=None):", "):", 1))
    commit(root, "Client: no app, no proxies", date=FEB)
    assert _signature_findings(root) == [("docs/wsgi.md", 6)]


def test_a_call_unpacking_keywords_is_not_concerned_by_a_positional_reorder(repo_factory):
    # httpx 0.28.0 moved `trust_env` ahead of `http1`: `HTTPTransport(**kwargs)` passes none by position
    root = repo_factory({
        "pkg/__init__.py": "from pkg.client import Client, Transport\n", "pkg/client.py": CLIENT,
        "docs/wrap.md": ("# Wrapping\n\n```python\nclass Wrapped:\n    def __init__(self, **kwargs):\n"
                         "        self.inner = pkg.Transport(**kwargs)\n\n"
                         "t = pkg.Transport(retries=1)\nu = pkg.Transport(local='x', **kwargs)\n```\n"),
        "docs/positional.md": "# Positional\n\n```python\nt = pkg.Transport(app, 3)\n```\n",
    }, date=JAN)
    (root / "pkg/client.py").write_text(CLIENT.replace("app=None, retries=0,", "retries=0, app=None,"))
    commit(root, "Transport: retries first", date=FEB)
    assert _signature_findings(root) == [("docs/positional.md", 4)]


def test_named_for_reads_spans_and_the_callables_own_keywords():
    text = ("Pass `timeout` or ``Other(app=app)``; `Client(proxy=p)`.\n\n```python\n"
            "c = pkg.Client(\n    verify=False,\n)\nc.Client(cert=c)\nw = Other(retries=2)\nmounts = {}\n```\n")
    named = named_for(text, "pkg.client.Client.__init__")
    assert {"timeout", "proxy", "verify", "cert"} <= named
    assert not {"app", "retries", "mounts"} & named
    # an attribute or a string's word in a span is no parameter of it (`route.name`, `"name"`)
    assert not {"name", "suffix"} & named_for("Read `route.name`, or `url(\"name\")` and `path.suffix`.\n", "pkg.Client")

"""Defaults stated in more phrasings and held in more places (issue 25, rule 5): "(Defaults 20)" in a list item, a
value before "by default", a duration in seconds or in words ("after 5 seconds", "is five seconds"), "an optional
argument ... defaults to ``False``" before an example passing it; the code's default in a default constant built by
a call (`DEFAULT_LIMITS = Limits(max_keepalive_connections=20)`, `DEFAULT_TIMEOUT = Timeout(timeout=5.0)`), or in a
function's one optional parameter."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.default_phrases import phrase_statements
from noface_ctx.freshness.held_defaults import constant_default, docstring_default, optional_default
from noface_ctx.freshness.option_defaults import same_value

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CONFIG = '''class Limits:
    def __init__(self, *, max_connections=None, max_keepalive_connections=None, keepalive_expiry=5.0):
        self.max_connections = max_connections
        self.max_keepalive_connections = max_keepalive_connections
        self.keepalive_expiry = keepalive_expiry


class Timeout:
    def __init__(self, timeout=None, *, connect=None):
        self.timeout = timeout
        self.connect = connect


DEFAULT_TIMEOUT_CONFIG = Timeout(timeout=5.0)
DEFAULT_LIMITS = Limits(max_connections=100, max_keepalive_connections=20)
'''

CLIENT = '''from .config import DEFAULT_LIMITS, DEFAULT_TIMEOUT_CONFIG


class Client:
    def __init__(self, *, timeout=DEFAULT_TIMEOUT_CONFIG, limits=DEFAULT_LIMITS):
        self.timeout = timeout
        self.limits = limits


def get(url, *, timeout=DEFAULT_TIMEOUT_CONFIG):
    return Client(timeout=timeout), url
'''

LIMITS = """# Resource limits

You can control the connection pool size using the `limits` keyword argument on the client:

- `max_keepalive_connections`, number of allowable keep-alive connections, or `None` to always
allow. (Defaults 20)
- `max_connections`, maximum number of allowable connections, or `None` for no limits.
(Default 100)
"""

TIMEOUTS = """# Timeouts

Requests enforce timeouts everywhere by default.

The default behavior is to raise a `TimeoutError` after 5 seconds of
network inactivity.
"""

QUICKSTART = """# Quickstart

## Timeouts

The default timeout for network inactivity is five seconds. You can make it stricter:

```pycon
>>> net.get('https://example.com/', timeout=0.001)
```
"""


def _http(repo_factory):
    return repo_factory({"net/__init__.py": "", "net/config.py": CONFIG, "net/client.py": CLIENT,
                         "docs/limits.md": LIMITS, "docs/timeouts.md": TIMEOUTS, "docs/quickstart.md": QUICKSTART}, date=JAN)


def test_phrasings_tie_a_value_to_one_name():
    assert phrase_statements(LIMITS.split("\n")) == [
        (("max_keepalive_connections",), 6, "20", ""), (("max_connections",), 8, "100", "")]
    assert phrase_statements(TIMEOUTS.split("\n")) == [(("timeout",), 5, "5", "word")]
    assert phrase_statements(QUICKSTART.split("\n")) == [(("timeout",), 5, "5", "word")]
    minutes = "By default the `cache_ttl` is 2 minutes."
    assert phrase_statements([minutes]) == [(("cache_ttl",), 1, "120", "")]  # in seconds
    wrap = "Text wraps to a maximum of 80 characters by default, set with :attr:`~Context.max_content_width`."
    assert phrase_statements([wrap]) == [(("max_content_width", "Context"), 1, "80", "")]
    two = wrap.replace("set with", "set with `max_width` or")
    assert phrase_statements([two]) == []  # two names: which one is unclear
    both = "By default a request waits 5 seconds for a timeout and retries after a delay."
    assert phrase_statements([both]) == []  # two duration words: not judged
    nothing = "The default behavior is to wait 5 seconds."
    assert phrase_statements([nothing]) == []  # no name, no duration word


def test_a_default_constant_built_by_a_call_holds_the_keyword_default():
    assert constant_default(CONFIG, "max_keepalive_connections") == "20"
    assert constant_default(CONFIG, "timeout") == "5"  # 5.0, a number in one form
    assert constant_default(CONFIG, "keepalive_expiry") is None  # not passed: the signature's counts
    plain = CONFIG.replace("DEFAULT_LIMITS", "POOL_LIMITS")
    assert constant_default(plain, "max_keepalive_connections") is None  # a constant nothing says is a default
    used = plain + "\n\ndef pool(limits=POOL_LIMITS):\n    return limits\n"
    assert constant_default(used, "max_keepalive_connections") == "20"  # used as a parameter's default
    assert same_value("5", "5.0") and not same_value("5", "50") and same_value("off", "False")


def test_a_changed_default_constant_flags_the_docs_stating_its_value(repo_factory):
    root = _http(repo_factory)
    assert check_docs(repo=root).findings == ()
    (root / "net/config.py").write_text(CONFIG.replace("timeout=5.0)", "timeout=10.0)"))
    commit(root, "a longer timeout by default", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = check_docs(repo=root).findings
    assert sorted((f.path, f.line) for f in found) == [("docs/quickstart.md", 5), ("docs/timeouts.md", 5)]
    assert all(f.message.startswith(f"default of `timeout` (net/config.py) changed in {head}") for f in found)
    (root / "net/config.py").write_text(CONFIG.replace("max_keepalive_connections=20)", "max_keepalive_connections=10)"))
    commit(root, "fewer idle connections by default", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found if f.path == "docs/limits.md"] == [("docs/limits.md", 6)]
    assert "`max_keepalive_connections` (net/config.py)" in next(f for f in found if f.path == "docs/limits.md").message


def test_a_doc_stating_the_still_right_default_is_quiet(repo_factory):
    root = _http(repo_factory)
    (root / "net/config.py").write_text(CONFIG.replace("max_connections=100,", "max_connections=200,"))
    commit(root, "more connections by default", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/limits.md", 8)]  # 20 keep-alive connections still right
    (root / "net/config.py").write_text(CONFIG.replace("max_connections=100,", "max_connections=200,").replace("timeout=5.0)", "timeout=5)"))
    commit(root, "the timeout as an int", date=FEB)
    assert [f.path for f in check_docs(repo=root).findings] == ["docs/limits.md"]  # 5 seconds is 5


MATRICES = '''def GramSchmidt(vlist, orthonormal=False):
    """Orthogonalize the vectors."""
    return list(vlist)


def eye(n):
    return [[1] * n]
'''

GUIDE = """Matrices
========

There is a Gram-Schmidt orthogonalizer which takes a set of vectors. There is an
optional argument which specifies whether the output should also be normalized, it defaults to ``False``.
Let's orthogonalize some vectors:

    >>> L = [eye(2), eye(3)]
    >>> out1 = GramSchmidt(L)
    >>> out2 = GramSchmidt(L, True)

That is all.
"""


def test_an_optional_argument_is_the_one_the_example_passes(repo_factory):
    assert phrase_statements(GUIDE.split("\n")) == [(("GramSchmidt",), 5, "False", "optional")]
    assert optional_default(MATRICES, "GramSchmidt") == "False"
    assert optional_default(MATRICES.replace("orthonormal=False", "orthonormal=False, iterative=True"), "GramSchmidt") is None
    same = GUIDE.replace("GramSchmidt(L, True)", "GramSchmidt(eye(2))")
    assert phrase_statements(same.split("\n")) == []  # no call passes one more argument
    root = repo_factory({"mat/__init__.py": "", "mat/dense.py": MATRICES, "doc/matrices.rst": GUIDE}, date=JAN)
    (root / "mat/dense.py").write_text(MATRICES.replace('"""Orthogonalize', '"""Orthogonalize all'))
    commit(root, "docstring", date=FEB)
    assert check_docs(repo=root).findings == ()
    (root / "mat/dense.py").write_text(MATRICES.replace("orthonormal=False", "orthonormal=True"))
    commit(root, "orthonormal by default", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line, f.code) for f in found] == [("doc/matrices.rst", 5, "changed-ref")]
    assert "`GramSchmidt` (mat/dense.py)" in found[0].message


CORE = '''class Context:
    """The state of one invocation.

    :param terminal_width: the width of the terminal; detected when not given.
    :param max_content_width: the maximum width for content rendered by
                              help pages.  This defaults to 80 characters if
                              not overridden.
    """

    def __init__(self, terminal_width=None, max_content_width=None):
        self.terminal_width = terminal_width
        self.max_content_width = max_content_width
'''

HELP = """# Documenting commands

## Wrapping

Help text is rewrapped to the width of the terminal, to a maximum of 80 characters by default, but this can be
modified with {attr}`~Context.max_content_width`.
"""


def test_a_default_the_docstring_states_for_a_none_parameter_is_compared(repo_factory):
    assert docstring_default(CORE, "max_content_width") == "80"
    assert docstring_default(CORE, "terminal_width") is None  # says no default
    numpy = "def wrap(text, width=None):\n    '''Wrap.\n\n    width : int, optional\n        Defaults to 70.\n    '''\n"
    assert docstring_default(numpy, "width") == "70"
    root = repo_factory({"cli/__init__.py": "", "cli/core.py": CORE, "docs/documenting.md": HELP}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "cli/core.py").write_text(CORE.replace("help pages.", "help and usage pages."))
    commit(root, "docstring", date=FEB)
    assert check_docs(repo=root).findings == ()  # the default it states is still 80
    (root / "cli/core.py").write_text(CORE.replace("defaults to 80 characters", "defaults to 100 characters"))
    commit(root, "wrap at 100 columns by default", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line, f.code) for f in found] == [("docs/documenting.md", 5, "changed-ref")]
    assert "`max_content_width` (cli/core.py)" in found[0].message

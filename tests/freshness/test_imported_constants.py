"""A parameter default that is a constant of another module (`_defaults.VERBOSE`, an imported `VERBOSE`), and a
constant bound to an environment read with a literal fallback (`env("PKG_VERBOSE", bool, True)`,
`os.environ.get("PKG_TIMEOUT", "30")`), hold that literal: a commit changing only the constant's file changes the
default and is blamed (held-out16: loguru's `diagnose=_defaults.LOGURU_DIAGNOSE`). A default stated by a Python
example's comment line (`# "verbose=True" is the default`) and an opt-out written as an environment variable ("set the
``PKG_VERBOSE=NO`` environment variable") are read. Negatives: a comment without "default", another variable's
fallback changed, a read without a fallback, a constant bound twice."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.comment_defaults import comment_statements
from noface_ctx.freshness.env_fallbacks import env_default
from noface_ctx.freshness.env_opt_outs import env_opt_outs
from noface_ctx.freshness.imported_constants import source_of

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

DEFAULTS = '''import os


def env(key, type_, default=None):
    return os.environ.get(key, default)


VERBOSE = env("PKG_VERBOSE", bool, True)
COLOR = env("PKG_COLOR", bool, True)
TIMEOUT = os.environ.get("PKG_TIMEOUT", "30")
'''

CORE = '''from . import _defaults
from ._defaults import TIMEOUT


class Sinks:
    def add(self, sink, *, verbose=_defaults.VERBOSE, color=_defaults.COLOR, timeout=TIMEOUT):
        return sink, verbose, color, timeout
'''

README = '''# pkg

```python
from pkg.core import Sinks

sinks = Sinks()
# Caution, "verbose=True" is the default and may print secrets
sinks.add("out.log", verbose=True)
```

```python
# color=True here
sinks.add("out.log", color=True)
```
'''

GUIDE = '''Guide
=====

Note that by default, pkg prints every value when a sink fails. Make sure to turn it off in production (or set
the ``PKG_VERBOSE=NO`` environment variable).

.. code-block:: python

    from pkg.core import Sinks

    sinks = Sinks()
    # timeout defaults to "30"
    sinks.add("out.log", timeout="10")
'''


def _repo(repo_factory):
    return repo_factory({"pkg/__init__.py": "", "pkg/_defaults.py": DEFAULTS, "pkg/core.py": CORE,
                         "README.md": README, "docs/guide.rst": GUIDE}, date=JAN)


def test_a_fallback_changed_in_the_constants_module_is_a_changed_default_blamed_on_its_commit(repo_factory):
    root = _repo(repo_factory)
    assert list(check_docs(repo=root).findings) == []  # the docs state the code's defaults
    (root / "pkg/_defaults.py").write_text(DEFAULTS.replace('"PKG_VERBOSE", bool, True', '"PKG_VERBOSE", bool, False'))
    commit(root, "quiet by default", date=FEB)
    found = sorted((f.path, f.line, f.message) for f in check_docs(repo=root).findings)
    assert [(p, line) for p, line, _ in found] == [("README.md", 7), ("docs/guide.rst", 4)]
    assert all("quiet by default" in m for _, _, m in found)
    assert "`verbose`" in found[0][2] and "`PKG_VERBOSE`" in found[1][2]


def test_another_variables_fallback_or_an_imported_constant_changed(repo_factory):
    root = _repo(repo_factory)
    (root / "pkg/_defaults.py").write_text(DEFAULTS.replace('"PKG_COLOR", bool, True', '"PKG_COLOR", bool, False'))
    commit(root, "no colours", date=FEB)  # README's `# color=True here` states no default; nothing states COLOR's
    assert list(check_docs(repo=root).findings) == []
    (root / "pkg/_defaults.py").write_text(DEFAULTS.replace('"PKG_TIMEOUT", "30"', '"PKG_TIMEOUT", "60"'))
    commit(root, "longer timeout", date=FEB)  # `from ._defaults import TIMEOUT`: the comment's stated "30" is old
    found = [(f.path, f.line) for f in check_docs(repo=root).findings]
    assert found == [("docs/guide.rst", 12)]


def test_no_fallback_or_a_constant_bound_twice_holds_nothing(repo_factory):
    twice = DEFAULTS.replace('VERBOSE = env("PKG_VERBOSE", bool, True)',
                             'if os.name == "nt":\n    VERBOSE = False\nelse:\n    VERBOSE = env("PKG_VERBOSE", bool, True)')
    root = repo_factory({"pkg/__init__.py": "", "pkg/_defaults.py": twice, "pkg/core.py": CORE, "README.md": README},
                        date=JAN)
    (root / "pkg/_defaults.py").write_text(twice.replace('"PKG_VERBOSE", bool, True', '"PKG_VERBOSE", bool, False'))
    commit(root, "quiet by default", date=FEB)
    assert list(check_docs(repo=root).findings) == []
    assert env_default('X = os.environ.get("PKG_X")\n', "PKG_X") is None  # no fallback
    assert env_default('A = os.getenv("PKG_X", 5)\nB = os.getenv("PKG_X", 6)\n', "PKG_X") is None  # two
    assert env_default('A = os.getenv("PKG_X", 5)\n', "PKG_X") == "5"


def test_imports_resolved_from_the_importing_file():
    text = "from . import _defaults\nfrom ..conf import LEVEL as DEFAULT_LEVEL\nimport pkg.settings as settings\n"
    assert source_of(text, "src/pkg/sub/core.py", "_defaults.X") == (
        ["src/pkg/sub/_defaults.py", "src/pkg/sub/_defaults/__init__.py"], "X")
    assert source_of(text, "src/pkg/sub/core.py", "DEFAULT_LEVEL") == (["src/pkg/conf.py", "src/pkg/conf/__init__.py"], "LEVEL")
    assert source_of(text, "src/pkg/sub/core.py", "settings.X")[0][:2] == ["src/pkg/settings.py", "src/pkg/settings/__init__.py"]
    assert source_of(text + "_defaults = None\n", "src/pkg/sub/core.py", "_defaults.X") is None  # bound again
    assert source_of(text, "src/pkg/sub/core.py", "other.X") is None  # not imported


def test_comment_and_environment_opt_out_readers():
    lines = ["```python", '# "verbose=True" is the default', "sinks.add(x, verbose=True)", "```", "",
             "```python", "# verbose=True here", "sinks.add(x, verbose=True)", "```", "",
             "```bash", '# "verbose=True" is the default', "```", "",
             "```python", '# "verbose=True" is the default', "a.add(verbose=True)", "b.put(verbose=True)", "```"]
    assert comment_statements(lines) == [(("verbose", "add"), 2, "True", "add")]  # not bash, not two callees
    text = ["By default it prints values. Turn it off (or set the ``PKG_VERBOSE=off`` environment variable).", "",
            "Set the ``PKG_VERBOSE=off`` environment variable to silence it.", "",
            "By default it is quiet; set ``PKG_LEVEL=debug`` environment variable for more."]
    assert env_opt_outs(text) == [(("PKG_VERBOSE",), 1, "False", "", (), False), (("PKG_LEVEL",), 5, "debug", "", (), False)]

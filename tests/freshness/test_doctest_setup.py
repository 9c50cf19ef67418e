"""A doctest's call of a name only conf.py's `doctest_global_setup` binds (attrs' examples call
`Factory(list)` with no import: `from attr import ... Factory` in the setup): renamed with the
setup's import, the example is a NameError, and the doc is stale; a setup still binding it, a name
the doc imports itself, a setup the doc is not under, and a library's class are not."""

from __future__ import annotations

from pathlib import Path

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.doctest_setup import setup_imports

JAN, FEB = "2025-01-01T12:00:00+00:00", "2025-02-01T12:00:00+00:00"
MAKE = ("class Factory:\n    def __init__(self, factory, takes_self=False):\n        self.factory = factory\n\n\n"
        "def define(cls):\n    return cls\n\n\ndef field(default=None):\n    return default\n")
INIT = "from pkg._make import Factory, define, field\n"
CONF = '''project = "pkg"
extensions = ["sphinx.ext.doctest"]

doctest_global_setup = """
from pkg import define, field, Factory
import collections
"""
'''
EXAMPLES = """# Examples

Pools of connections:

```{doctest}
>>> @define
... class ConnectionPool:
...     pool: collections.deque = Factory(collections.deque)
...     debug: bool = False
>>> ConnectionPool()
ConnectionPool(pool=deque([]), debug=False)
```
"""


def renamed(root: Path, conf: str = "docs/conf.py") -> None:
    """Rename `Factory` to `DefaultFactory` in the code and in the setup's import."""
    for rel in ("pkg/_make.py", "pkg/__init__.py", conf):
        p = root / rel
        p.write_text(p.read_text().replace("Factory", "DefaultFactory"))
    commit(root, "rename Factory to DefaultFactory", date=FEB)


def lines(root: Path) -> list[str]:
    return check_docs(repo=root).lines()


def test_the_setup_string_is_read_never_run():
    assert setup_imports(CONF) == {"define": "pkg.define", "field": "pkg.field", "Factory": "pkg.Factory",
                                   "collections": "collections"}
    assert setup_imports('import os\ndoctest_global_setup = "import numpy as np"\n') == {"np": "numpy"}
    computed = 'doctest_global_setup = "from pkg import " + ", ".join(["Factory"])\n'
    assert setup_imports(computed) == {}  # computed: not read
    assert setup_imports('doctest_global_setup = "from pkg import (\\n"\n') == {}  # not Python: nothing
    assert setup_imports('raise SystemExit("never run")\ndoctest_global_setup = "from pkg import Factory"\n') == {
        "Factory": "pkg.Factory"}


def test_a_call_only_the_setup_bound_is_stale_when_the_rename_reached_the_setup(repo_factory):
    files = {"pkg/__init__.py": INIT, "pkg/_make.py": MAKE, "docs/conf.py": CONF, "docs/examples.md": EXAMPLES}
    root = repo_factory(files, date=JAN)
    assert lines(root) == []
    renamed(root)
    got = lines(root)
    assert len(got) == 1 and got[0].startswith("docs/examples.md:8: stale-ref: references `Factory()` which no longer "
                                               "exists, removed in "), got
    assert "rename Factory to DefaultFactory" in got[0] and got[0].endswith("(renamed to `DefaultFactory`?)"), got


def test_a_setup_that_still_binds_the_name_resolves_it(repo_factory):
    files = {"pkg/__init__.py": INIT, "pkg/_make.py": MAKE, "docs/conf.py": CONF, "docs/examples.md": EXAMPLES}
    root = repo_factory(files, date=JAN)
    (root / "pkg/_make.py").write_text(MAKE.replace("takes_self=False", "takes_self=False, name=None"))
    commit(root, "Factory takes a name", date=FEB)
    assert lines(root) == []


def test_without_a_setup_or_outside_it_a_capitalised_call_is_any_librarys(repo_factory):
    no_setup = CONF.split("doctest_global_setup")[0]
    root = repo_factory({"pkg/__init__.py": INIT, "pkg/_make.py": MAKE, "docs/conf.py": no_setup,
                         "docs/examples.md": EXAMPLES}, date=JAN)
    renamed(root)
    assert lines(root) == []  # no setup: `Factory` may be a library's class the page leaves unimported
    root = repo_factory({"pkg/__init__.py": INIT, "pkg/_make.py": MAKE, "site/conf.py": CONF,
                         "docs/examples.md": EXAMPLES}, name="outside", date=JAN)
    renamed(root, "site/conf.py")
    assert lines(root) == []  # the setup of another Sphinx project does not run this page's examples


def test_a_name_the_doc_imports_itself_is_judged_by_its_own_import(repo_factory):
    imported = EXAMPLES.replace(">>> @define", ">>> from pkg import define, Factory\n>>> @define")
    root = repo_factory({"pkg/__init__.py": INIT, "pkg/_make.py": MAKE, "docs/conf.py": CONF,
                         "docs/examples.md": imported}, date=JAN)
    renamed(root)
    got = lines(root)
    assert len(got) == 1 and got[0].startswith("docs/examples.md:6: stale-ref: references `Factory` which"), got  # its import line

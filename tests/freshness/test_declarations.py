"""Definitions, not words (issue 25, rule 1): a name resolves where the code defines it, never
because the word is left somewhere (a notebook, a comment, a string, a leftover call)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.declarations import declared, text_defines

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"


def sha(root: Path) -> str:
    return git(root, "rev-parse", "--short=10", "HEAD").strip()


def findings(root: Path, *paths: str) -> list[tuple[str, int, str, str]]:
    report = check_docs(paths, repo=root)
    return [(f.path, f.line, f.severity, f.message) for f in report.findings]


def test_the_definition_table_of_a_python_file():
    text = '''"""Doc: `def in_docstring(x)` defines nothing."""
from .impl import (open_dataset,
                   load as load_dataset)
import numpy as np
__all__ = ["open_dataset", "exported_name"]
LIMIT: int = 3
if TYPE_CHECKING:
    Alias = int


class Frame:
    size: int
    kind = "x"

    def to_file(self, path, *, mode="w", **options):
        local_value = 1
        self.handle = open(path)
        helper_call(not_defined_here)
        return "to_zarr"


def __getattr__(name):
    if name == "old_corr":
        return corr
    raise AttributeError(name)
'''
    table = declared(text)
    for name in ("open_dataset", "load_dataset", "np", "exported_name", "LIMIT", "Alias", "Frame", "size", "kind",
                 "to_file", "path", "mode", "options", "old_corr", "__getattr__"):
        assert table.defines(name), name
    for name in ("in_docstring", "load", "local_value", "handle", "helper_call", "not_defined_here", "to_zarr", "self"):
        assert not table.defines(name), name
    assert table.defines("handle", member=True)
    top = {"open_dataset", "load_dataset", "np", "exported_name", "LIMIT", "Alias", "Frame", "old_corr", "__getattr__",
           "__all__"}
    assert {n for n in table.names if table.defines(n, top=True)} == top  # a class's members, parameters: not the module's
    assert not declared("def f(r):\n    from .adapters import get_encoding\n    return get_encoding(r)\n").defines(
        "get_encoding")  # an import in a function binds a local
    assert declared("from .core import *\n").stars == (".core",)
    chained = declared("MappingFn = DictFn = Callable\nHTTP_OK = OK = 200\nx = f(a=1)\ny = lambda z=2: z\nn = m == k\n")
    assert all(chained.defines(n, top=True) for n in ("MappingFn", "DictFn", "HTTP_OK", "OK", "x", "y", "n"))
    assert not any(chained.defines(n) for n in ("f", "a", "z", "m", "k"))  # a call's keyword, a comparison


IO = '''class Dataset:
    def to_netcdf(self, path):
        return path
'''
DOC = """# Saving

Write a dataset with `Dataset.to_netcdf()`.

```python
ds = Dataset()
ds.to_netcdf("out.nc")
```
"""


def _renamed_with_leftovers(repo_factory) -> Path:
    """`to_netcdf` renamed in the code; the word stays in a notebook, a comment, a string and a
    leftover call of a test."""
    root = repo_factory({"pkg/__init__.py": "from pkg.io import Dataset\n", "pkg/io.py": IO, "docs/saving.md": DOC,
                         "examples/demo.ipynb": json.dumps({"cells": [{"source": ["ds.to_netcdf('a.nc')"]}]}),
                         "tests/test_io.py": "def test_save(ds):\n    ds.to_netcdf('x')\n"}, date=JAN)
    (root / "pkg/io.py").write_text(IO.replace("to_netcdf", "write_netcdf"))
    (root / "pkg/conf.py").write_text('# formerly to_netcdf\nMETHOD = "to_netcdf"\n')
    commit(root, "rename to_netcdf to write_netcdf", date=FEB)
    return root


def test_docstrings_unclosed_quotes_and_nested_classes_in_the_table():
    """What a docstring holds defines nothing, an unclosed triple quote opens no docstring, four
    quotes close at the first three after the opening; the module's own names (`top`) leave out
    what a class body, however nested, defines, and not what follows it."""
    text = ('x = """"\ndef in_doc(): pass\n"""\nSTRAY = """ never closed\n'
            "class Outer:\n    class Inner:\n        deep = 1\n    shallow: int = 2\n"
            "after_class = 3\n'''\ndef quoted(): pass\n'''\ndef real(a, b=1): pass\n")
    table = declared(text)
    assert not table.defines("in_doc") and not table.defines("quoted")
    for name in ("x", "STRAY", "Outer", "Inner", "deep", "shallow", "after_class", "real", "a", "b"):
        assert table.defines(name), name
    assert {n for n in ("Outer", "Inner", "deep", "shallow", "after_class", "real") if table.defines(n, top=True)} == {
        "Outer", "after_class", "real"}
    for name in ("x", "in_doc", "deep", "nowhere", "Inn", "real"):
        for top in (False, True):
            assert text_defines(text, name, top=top) == table.defines(name, top=top), (name, top)


def test_a_word_left_in_a_notebook_a_comment_a_string_or_a_call_keeps_no_removed_name_alive(repo_factory):
    root = _renamed_with_leftovers(repo_factory)
    got = findings(root)
    assert got[0][:3] == ("docs/saving.md", 3, "error")
    assert f"removed in {sha(root)}" in got[0][3] and "renamed to `Dataset.write_netcdf`?" in got[0][3]
    assert all(path == "docs/saving.md" for path, *_ in got)


def test_a_moved_function_is_gone_from_its_module_unless_re_exported(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/utils.py": "def get_encoding_from_headers(h):\n    return h\n",
                         "pkg/api.py": "from pkg.utils import get_encoding_from_headers\n",
                         "docs/api.md": "Use `pkg.utils.get_encoding_from_headers()` to read it.\n"}, date=JAN)
    (root / "pkg/utils.py").write_text("def other():\n    pass\n")
    (root / "pkg/compat.py").write_text("def get_encoding_from_headers(h):\n    return h\n")
    (root / "pkg/api.py").write_text("from pkg.compat import get_encoding_from_headers\n")
    commit(root, "move get_encoding_from_headers to compat", date=FEB)
    got = findings(root)
    assert [(p, n, s) for p, n, s, _ in got] == [("docs/api.md", 1, "error")]
    assert f"removed in {sha(root)}" in got[0][3]
    # re-exported from its old module: still defined there
    (root / "pkg/utils.py").write_text("from pkg.compat import get_encoding_from_headers  # noqa\n")
    commit(root, "re-export", date=FEB)
    assert findings(root) == []


def test_a_shim_or_all_entry_keeps_a_removed_function_defined(repo_factory):
    code = "def corr(a, b):\n    return a\n\n\ndef cov(a, b):\n    return b\n"
    root = repo_factory({"pkg/__init__.py": "", "pkg/computation.py": code,
                         "docs/stats.md": "Use `corr()` and `cov()`.\n",
                         "tests/test_c.py": 'NAMES = ["corr", "cov"]\n'}, date=JAN)
    (root / "pkg/computation.py").write_text(
        "def __getattr__(name):\n    if name == 'corr':\n        return _deprecated\n    raise AttributeError(name)\n")
    commit(root, "remove corr and cov, corr kept behind a deprecation shim", date=FEB)
    got = findings(root)
    assert [(p, n, s) for p, n, s, _ in got] == [("docs/stats.md", 1, "error")]
    assert got[0][3].startswith("references `cov()` which no longer exists")



def test_names_a_getattr_looks_up_in_a_module_table_stay_defined(repo_factory):
    # pydicom's encaps.py: the old functions became `_read_item`, ..., served by
    # `__getattr__` from `_DEPRECATED = {"read_item": _read_item, ...}` with a warning
    code = "def read_item(fp):\n    return fp\n\n\ndef get_frame(fp):\n    return fp\n\n\ndef itemise(fp):\n    return fp\n"
    root = repo_factory({"pkg/__init__.py": "", "pkg/encaps.py": code,
                         "docs/encaps.rst": ("Encaps\n======\n\n.. currentmodule:: pkg.encaps\n\n.. autosummary::\n\n"
                                             "   read_item\n   get_frame\n   itemise\n")}, date=JAN)
    (root / "pkg/encaps.py").write_text(
        "def _read_item(fp):\n    return fp\n\n\ndef _itemise(fp):\n    return fp\n\n\n"
        "_DEPRECATED = {\n    \"read_item\": _read_item,\n}\n_RENAMED: dict[str, object] = {\"itemise\": _itemise}\n\n\n"
        "def __getattr__(name):\n    if name in _DEPRECATED:\n        return _DEPRECATED[name]\n"
        "    if (new := _RENAMED.get(name)) is not None:\n        return new\n    raise AttributeError(name)\n")
    commit(root, "read_item and itemise deprecated behind __getattr__, get_frame removed", date=FEB)
    got = findings(root)
    assert [(p, n, s) for p, n, s, _ in got] == [("docs/encaps.rst", 9, "error")]
    assert "`get_frame`" in got[0][3]

def test_parameters_fields_and_instance_attributes_are_definitions(repo_factory):
    code = ("class App:\n    debug: bool = False\n\n    def __init__(self, import_name, static_folder=None):\n"
            "        self.config = {}\n")
    doc = "`App.config`, `App.debug` and the `static_folder` argument of `App`.\n"
    root = repo_factory({"pkg/__init__.py": "", "pkg/app.py": code, "docs/app.md": doc}, date=JAN)
    (root / "pkg/app.py").write_text(code + "\n\ndef run():\n    pass\n")
    commit(root, "add run", date=FEB)
    assert findings(root) == []


MODELS = """from pkg.hashers import check_password, make_password


class AbstractBaseUser:
    def check_password(self, raw):
        return check_password(raw, self.password)
"""


def test_a_module_name_gone_while_a_method_of_the_same_name_stays_is_stale(repo_factory):
    # django's fe914341c8 stopped importing `check_password` into `auth/models.py`, whose
    # `AbstractBaseUser.check_password` stayed; `from ...models import User, check_password` broke
    doc = ("Customizing\n===========\n\n.. code-block:: python\n\n    from pkg.models import AbstractBaseUser, check_password\n\n"
           "    check_password(raw, user.password)\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/hashers.py": "def check_password(raw, hashed):\n    return raw == hashed\n\n\n"
                         "def make_password(raw):\n    return raw\n", "pkg/models.py": MODELS, "docs/customizing.rst": doc}, date=JAN)
    assert findings(root) == []
    (root / "pkg/models.py").write_text(MODELS.replace("import check_password, make_password", "import make_password"))
    commit(root, "models: no check_password import", date=FEB)
    got = findings(root)
    assert [(p, n, sev) for p, n, sev, _ in got] == [("docs/customizing.rst", 6, "error")]
    assert f"removed in {sha(root)}" in got[0][3]


def test_a_variable_named_like_a_package_reaches_a_method_not_a_module_name(repo_factory):
    # pytest's `def pytest_configure(config): config.addinivalue_line(...)`: `config` is the
    # `Config` passed in, though `_pytest/config/__init__.py` is a package of that name
    package = "class Config:\n    def addinivalue_line(self, name, line):\n        return name, line\n"
    doc = ("Markers\n=======\n\n.. code-block:: python\n\n    def pytest_configure(config):\n"
           "        config.addinivalue_line(\"markers\", \"env(name): run on an environment\")\n")
    root = repo_factory({"src/_pkg/__init__.py": "", "src/_pkg/config/__init__.py": package, "doc/markers.rst": doc},
                        date=JAN)
    assert findings(root) == []
    (root / "src/_pkg/config/__init__.py").write_text(package.replace("addinivalue_line", "add_ini_line"))
    commit(root, "rename addinivalue_line", date=FEB)
    got = findings(root)
    assert [(p, n) for p, n, _, _ in got] == [("doc/markers.rst", 7)] and f"removed in {sha(root)}" in got[0][3]

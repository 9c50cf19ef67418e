"""Fast paths that answer as the plain ones did (fspeed11): the module constants written as
defaults of `def name(` and `def __init__(` found from one search of a text's `def` headers, kept
per text (the plain search compiled a pattern per name and read the whole text each time)."""

from __future__ import annotations

import re

from conftest import commit

from noface_ctx.freshness.body_tokens import closing
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.constant_defaults import (  # private: fast path
    _NOT_CONSTANTS,
    _header_constants,
    module_literal,
)

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CODE = '''SIZE = 256
LIMIT: int = 3  # a note
TWICE = 1
TWICE = 2
NAME = "x"


class Cache:
    def __init__(self, size=SIZE, *, name=NAME):
        self.size = size

    async def fill(self, limit=LIMIT, other=TWICE):
        pass


def configure(size=SIZE,
              limit=LIMIT):  # a header over two lines
    return size


def configured(size=None): pass
def configure2 (x=LIMIT): pass
def attributed(x=_defaults.DIAGNOSE, y=cfg.lower): pass
'''


def _plain(text: str, name: str) -> set[str]:
    found: set[str] = set()
    for m in re.finditer(rf"^[ \t]*(?:async\s+)?def\s+(?:{name}|__init__)\s*\(", text, re.M):
        end = closing(text, m.end() - 1)
        header = text[m.end():end if end > 0 else m.end() + 2000]
        found |= {n for n in re.findall(r"=\s*([A-Za-z_]\w*)\s*(?=[,)\n#]|$)", header)
                  if n not in _NOT_CONSTANTS and (module_literal(text, n) or n.isupper())}
        found |= set(re.findall(r"=\s*[A-Za-z_]\w*\.([A-Za-z_]\w*)\s*(?=[,)\n#]|$)", header))
    return found


def test_header_constants_answer_as_the_search_per_name():
    texts = [CODE, CODE.replace("class Cache:", "class Cache:\n    pass\n\n\nclass Other:"), "def f(a=1):\n    pass\n",
             CODE.replace("    def __init__", "    def __init__ (self, x=TWICE): pass\n    def __init__"), "x = 1\n"]
    for text in texts:
        for name in ("configure", "fill", "attributed", "__init__", "configured", "configure2", "Cache", "absent", "f"):
            assert _header_constants(text, name) == _plain(text, name), (name, text[:30])
            assert _header_constants(text, name) == _plain(text, name)  # asked again: the kept answer
    assert _header_constants(CODE, "configure") == {"SIZE", "LIMIT", "NAME"}  # with `__init__`'s (a class's call)
    assert _header_constants(CODE, "fill") == {"SIZE", "LIMIT", "NAME", "TWICE"}  # TWICE: an ALL_CAPS name
    assert _header_constants(CODE, "configured") == {"SIZE", "NAME"}


DOC = """Cache
=====

.. class:: pkg.cache.Cache(size=256, *, name="x")

   Keeps things.
"""

OTHER = """Configure
=========

.. function:: pkg.cache.configured(size=None)

   Another function of the file.
"""


def test_a_changed_constant_of_a_class_default_is_judged_and_another_function_is_not(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/cache.py": CODE, "docs/api.rst": DOC, "docs/other.rst": OTHER},
                        date=JAN)
    assert list(check_docs(repo=root).findings) == []
    (root / "pkg/cache.py").write_text(CODE.replace("SIZE = 256", "SIZE = 1024"))
    commit(root, "raise the cache size", date=FEB)
    findings = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in findings] == [("docs/api.rst", 4)]  # not docs/other.rst
    assert "raise the cache size" in findings[0].message

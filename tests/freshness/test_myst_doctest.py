"""MyST's sphinx.ext.doctest fences are examples, read as reStructuredText's directives are:
```{doctest} is a Python session (`pycon`), ```{testsetup} / {testcode} / {testcleanup} Python
whatever group their argument names (attrs writes every example of its docs this way)."""

from __future__ import annotations

from pathlib import Path

from conftest import commit

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.extract import extract_references

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CODE = "class Factory:\n    pass\n\n\ndef evolve(inst, **changes):\n    return inst\n\n\ndef define(cls):\n    return cls\n"
DOC = """# Defaults

```{testsetup} shared
from pkg import define
```

```{doctest}
>>> from pkg import Factory
>>> Factory(list)
Factory(list)
```

```{testcode} shared
import pkg

pkg.evolve(1)
```

```{note}
Nothing here is code: Factory
```
"""


def findings(root: Path) -> list[tuple[str, int, str]]:
    return [(f.path, f.line, f.message) for f in check_docs((), repo=root).findings]


def test_myst_doctest_fences_are_read_as_sessions_and_code():
    refs = extract_references(Doc(path="docs/init.md", slug="init", title="Defaults", text=DOC))
    example = {(r.name, r.line, r.source) for r in refs if r.source in ("pycon", "python")}
    assert ("pkg.Factory", 8, "pycon") in example
    assert ("pkg.define", 4, "python") in example
    assert ("pkg.evolve", 16, "python") in example
    assert not any(r.line == 20 for r in refs)  # a note's prose is not an example


def test_a_name_renamed_under_a_myst_doctest_is_found(repo_factory):
    root = repo_factory({"pkg/__init__.py": CODE, "docs/init.md": DOC}, date=JAN)
    assert findings(root) == []  # every name still there: nothing
    (root / "pkg/__init__.py").write_text(CODE.replace("Factory", "Default").replace("def evolve", "def assoc"))
    commit(root, "rename Factory to Default and evolve to assoc", date=FEB)
    got = findings(root)
    assert [(p, n) for p, n, _ in got] == [("docs/init.md", 8), ("docs/init.md", 16)]
    assert "`Factory`" in got[0][2] and "`pkg.Default`" in got[0][2]
    assert "evolve" in got[1][2]

"""A plain-word method an example calls on a variable of its own whose type it does not tell
(attrs' `for field in fields: ... field.evolve(converter=...)`): the method name alone, checked
for removal only, as a code-shaped one (`to_netcdf`) already was; a builtin value's method
(`results.append`) never, and a word the code still defines is no removal."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.examples import example_refs

JAN, FEB = "2025-01-01T12:00:00+00:00", "2025-02-01T12:00:00+00:00"
CODE = '''class Attribute:
    def __init__(self, name, converter=None):
        self.name = name
        self.converter = converter

    def evolve(self, **changes):
        return Attribute(**{"name": self.name, "converter": self.converter, **changes})


class Pool:
    def append(self, item):
        return item

    def drain(self):
        return []
'''
DOC = """# Extending

A field transformer gets the class and its fields:

```{doctest}
>>> def auto_convert(cls, fields):
...     results = []
...     for field in fields:
...         results.append(field.evolve(converter=int))
...     pool.drain()
...     return results
```
"""


def renamed(root, old: str, new: str) -> None:
    (root / "pkg/attrs.py").write_text((root / "pkg/attrs.py").read_text().replace(f"def {old}(", f"def {new}("))
    commit(root, f"rename {old} to {new}", date=FEB)


def test_a_plain_method_called_on_a_loop_variable_is_stale_when_its_only_definition_was_renamed(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/attrs.py": CODE, "docs/extending.md": DOC}, date=JAN)
    assert check_docs(repo=root).lines() == []
    renamed(root, "evolve", "replace")
    got = check_docs(repo=root).lines()
    assert len(got) == 1 and got[0].startswith("docs/extending.md:9: stale-ref: references `field.evolve()` which no "
                                               "longer exists, removed in "), got
    assert got[0].endswith("(renamed to `replace`?)"), got


def test_a_builtin_values_method_and_a_method_still_defined_are_not(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/attrs.py": CODE, "docs/extending.md": DOC}, date=JAN)
    renamed(root, "append", "push")  # `results` is a list: its `append` is Python's, whatever the code did
    assert check_docs(repo=root).lines() == []
    (root / "pkg/queue.py").write_text("class Queue:\n    def drain(self):\n        return []\n")
    renamed(root, "drain", "empty")  # another class still defines `drain`: no removal
    assert check_docs(repo=root).lines() == []


def test_which_plain_words_are_read_as_methods():
    block = [(1, ">>> def hook(cls, fields):"), (2, "...     for field in fields:"), (3, "...         field.evolve(alias=field.name)"),
             (4, "...         field.name.split('.')"), (5, "...         field.to_dict()"), (6, "...         field.copy()"),
             (7, "...     cls.validate()"), (8, ">>> con = engine.connect()"), (9, ">>> con.execute(query)")]
    local = {"hook", "cls", "fields", "field", "con"}
    got = {r.name for r in example_refs(block, "pycon", local, {}) if r.kind == "member"}
    # `split`, `copy`: a builtin value's; `field.name.split`: on an attribute; `con.execute`: on a variable
    # the example assigns, maybe any library's object (a code-shaped `to_dict` is read on any)
    assert got == {"evolve", "to_dict", "validate"}, got

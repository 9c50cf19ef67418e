"""A dataclass, an attrs class or a NamedTuple has the constructor its fields generate
(held-out12 F1, packaging's pin: `@dataclass(init=False)` with a hand-written keyword-only
`__init__` became `@dataclass(kw_only=True)` with the same fields, and seven docs calling
`VcsInfo(vcs=..., commit_id=...)` were told its signature changed)."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.definitions import definition
from noface_ctx.freshness.parameters import parameters

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

HAND = ("from dataclasses import dataclass\n\n\n@dataclass(init=False)\nclass Info:\n    \"\"\"A record.\"\"\"\n\n"
        "    url: str\n    rev: str | None = None\n\n    def __init__(self, *, url: str, rev: str | None = None) -> None:\n"
        "        self.url = url\n        self.rev = rev\n")
GENERATED = ("from dataclasses import dataclass\n\n\n@dataclass(kw_only=True)\nclass Info:\n    \"\"\"A record.\"\"\"\n\n"
             "    url: str\n    rev: str | None = None\n")
DOCS = {"pkg/__init__.py": "from pkg.info import Info\n",
        "docs/info.md": "# Info\n\n```python\nfrom pkg import Info\ninfo = Info(url=\"https://x\", rev=\"main\")\n```\n",
        "docs/prose.md": "# Prose\n\nA `pkg.Info` holds where a package came from.\n"}


def _changed(root):
    return sorted((f.path, f.code) for f in check_docs(repo=root).findings)


def test_a_hand_written_init_replaced_by_a_kw_only_dataclass_is_no_change(repo_factory):
    root = repo_factory({"pkg/info.py": HAND, **DOCS}, date=JAN)
    (root / "pkg/info.py").write_text(GENERATED)
    commit(root, "simplify the constructor", date=FEB)
    assert _changed(root) == []


def test_a_renamed_dataclass_field_is_a_signature_change(repo_factory):
    root = repo_factory({"pkg/info.py": HAND, **DOCS}, date=JAN)
    (root / "pkg/info.py").write_text(GENERATED.replace("    rev:", "    revision:"))
    commit(root, "rev is revision", date=FEB)
    found = check_docs(repo=root).findings
    assert [f.path for f in found] == ["docs/info.md"] and "rev" in found[0].message  # the example passes `rev=`


def test_the_generated_signature_follows_the_fields():
    text = ("import attr\nfrom dataclasses import KW_ONLY, dataclass, field\nfrom typing import ClassVar, NamedTuple\n\n"
            "@dataclass\nclass A:\n    a: int\n    n: ClassVar[int] = 3\n    _: KW_ONLY\n"
            "    b: list = field(default_factory=list)\n    c: int = field(init=False)\n\n    def m(self):\n        d: int = 1\n\n"
            "class P(NamedTuple):\n    x: int\n    y: int = 2\n\n"
            "@attr.s(auto_attribs=True, kw_only=True)\nclass T:\n    _x: int\n    y: int = attr.ib(default=1)\n\n"
            "@attr.s\nclass U:\n    x = attr.ib()\n    note = 'not a field'\n\n"
            "class Plain:\n    a: int\n\n"
            "@dataclass\nclass Child(Base):\n    a: int\n\n"
            "@dataclass(init=False)\nclass Own:\n    a: int\n")
    assert parameters(definition(text, "A")) == [("any", "a", ""), ("kw", "b", "list ( )")]
    assert parameters(definition(text, "P")) == [("any", "x", ""), ("any", "y", "2")]
    assert parameters(definition(text, "T")) == [("kw", "x", ""), ("kw", "y", "1")]
    assert parameters(definition(text, "U")) == [("any", "x", "")]
    # no decorator, a base whose fields are not written here, `init=False` without `__init__`: none read
    assert [parameters(definition(text, n)) for n in ("Plain", "Child", "Own")] == [None, None, None]

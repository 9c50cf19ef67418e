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
    # no decorator, a base not in this file, `init=False` without `__init__`: none read
    assert [parameters(definition(text, n)) for n in ("Plain", "Child", "Own")] == [None, None, None]


MODEL = ("from pydantic import BaseModel, Field\n\n\nclass Source(BaseModel):\n    url: str\n\n\n"
         "class Info(Source):\n    rev: str | None = Field(None, description=\"a revision\")\n    _cache: dict = {}\n")
MODEL_DOCS = {"pkg/__init__.py": "from pkg.info import Info\n",
              "docs/info.md": "# Info\n\n```python\nfrom pkg import Info\ninfo = Info(url=\"https://x\", rev=\"main\")\n```\n"}


def test_a_pydantic_model_s_fields_are_its_keyword_only_constructor(repo_factory):
    root = repo_factory({"pkg/info.py": MODEL, **MODEL_DOCS}, date=JAN)
    (root / "pkg/info.py").write_text(MODEL + "    mirror: bool = False\n")  # a field with a default: no change
    commit(root, "info: a mirror flag", date=FEB)
    assert _changed(root) == []
    (root / "pkg/info.py").write_text(MODEL.replace("    url: str", "    location: str"))  # the base's field renamed
    commit(root, "source: url is location", date="2025-03-01T12:00:00+00:00")
    found = check_docs(repo=root).findings
    assert [f.path for f in found] == ["docs/info.md"] and "url" in found[0].message  # the example passes `url=`


def test_a_dataclass_s_fields_follow_its_dataclass_bases_of_the_same_file(repo_factory):
    code = ("from dataclasses import dataclass\n\n\n@dataclass\nclass Base:\n    url: str\n\n\n"
            "@dataclass\nclass Info(Base):\n    rev: str = \"main\"\n")
    root = repo_factory({"pkg/info.py": code, **MODEL_DOCS}, date=JAN)
    (root / "pkg/info.py").write_text(code.replace("    url: str", "    location: str"))
    commit(root, "base: url is location", date=FEB)
    found = check_docs(repo=root).findings
    assert [f.path for f in found] == ["docs/info.md"] and "url" in found[0].message


def test_inherited_fields_in_method_resolution_order_and_what_stays_unknown():
    text = ("from dataclasses import dataclass\nfrom pydantic import BaseModel, Field\nfrom other import Remote\n\n"
            "@dataclass\nclass Base:\n    a: int\n    b: str = 'x'\n\n"
            "@dataclass(kw_only=True)\nclass Child(Base):\n    c: int = 0\n    b: str = 'y'\n\n"
            "class Mixin:\n    pass\n\n@dataclass\nclass WithMixin(Mixin, Base):\n    d: int = 1\n\n"
            "@dataclass\nclass Outside(Remote):\n    e: int\n\n"
            "class M(BaseModel):\n    x: int\n    y: str = Field('d', alias='why')\n    _p: int = 0\n\n"
            "class N(M):\n    w: bool = True\n\n"
            "class Own(M):\n    q: int\n\n    def __init__(self, **kw):\n        super().__init__(**kw)\n\n"
            "class Sub(Own):\n    r: int\n\nclass Plain(Mixin):\n    s: int\n\n"
            "class Elsewhere(remote.Model):\n    t: int\n")
    assert parameters(definition(text, "Child")) == [("any", "a", ""), ("kw", "b", '"y"'), ("kw", "c", "0")]
    assert parameters(definition(text, "WithMixin")) == [("any", "a", ""), ("any", "b", '"x"'), ("any", "d", "1")]
    assert parameters(definition(text, "N")) == [("kw", "x", ""), ("kw", "why", '"d"'), ("kw", "w", "True")]
    assert parameters(definition(text, "Own")) == [("**", "kw", "")]  # an explicit `__init__` still wins
    # a base from another module or outside the repository, a model under its own `__init__`, no generator: unknown
    assert [parameters(definition(text, n)) for n in ("Outside", "Sub", "Plain", "Elsewhere")] == [None] * 4
    no_pydantic = text.replace("from pydantic import BaseModel, Field\n", "from models import BaseModel, Field\n")
    assert parameters(definition(no_pydantic, "N")) is None  # a `BaseModel` that is not pydantic's

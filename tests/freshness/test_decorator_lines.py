"""One reader of the decorators above a header (`decorator_lines`), for the keyword contract and the generated
`__init__`: a decorator's arguments over several lines (the last one without a comma), comments between
decorators, a closing bracket at the header's column; not the statement before the definition."""

from __future__ import annotations

from noface_ctx.freshness.decorator_lines import decorators
from noface_ctx.freshness.generated_init import generated_init
from noface_ctx.freshness.keyword_contract import accepted

CODE = '''x = call(
    1,
)
@attr.s(
    frozen=True,
    auto_attribs=True
)
# a note between
@other
class C:
    a: int
    b: int = 2

    @property
    # explained
    @functools.wraps(
        print
    )
    def m(self):
        pass
'''


def test_decorators_are_read_whole_through_comments_and_continuations():
    at = CODE.index("class C")
    assert decorators(CODE, at) == ["@other", "@attr.s( frozen=True, auto_attribs=True )"]
    assert decorators(CODE, CODE.index("    def m")) == ["@functools.wraps( print )", "@property"]
    assert decorators(CODE, CODE.index("@attr.s")) == []  # `x = call(...)` above is no decorator
    assert decorators("def f():\n    pass\n", 0) == []


def test_both_rules_read_the_same_decorators():
    # the generated `__init__` sees attrs' decorator whose last argument has no comma (it used to stop there)
    assert generated_init(CODE, CODE.index("class C"), len(CODE)) == "def __init__(self, a, b=2):"
    # a decorator behind a comment still makes the contract unknown
    wrapped = "@functools.wraps(print)\n# note\ndef run(a):\n    pass\n"
    assert accepted(wrapped, "run") is None
    assert accepted("# note\ndef run(a):\n    pass\n", "run") == {"a"}

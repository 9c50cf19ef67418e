"""The code-default lookups read once per text (`coded_defaults.parameter_defaults`, `classes`;
`held_defaults.constant_default`'s `default_calls` and `keyed_items`) give the answers of the patterns
written around each name that they replace, on crafted texts (odd ones too: a signature holding
`def` in a string, `class` written over two lines, names that are not plain words)."""

from __future__ import annotations

import itertools
import re

from noface_ctx.freshness.coded_defaults import classes, code_default, param_default, parameter_defaults
from noface_ctx.freshness.held_defaults import constant_default, default_calls, keyed_items
from noface_ctx.freshness.references import IDENT

TEXTS = [
    'def f(self, prefix: str = "FLASK", *, silent=False):\n    pass\n\ndef g(prefix=3, key=(1, 2), other=4): ...\n',
    'class Config:\n    timeout = 5\n    def __init__(self, timeout: float = 5.0, retries=3):\n        self.timeout = timeout\n'
    '\nclass Other(Config):\n    timeout = 7\n',
    'def f(x = "def g(", y=1): pass\ndef g(y=2, x=3): pass\n',  # a signature's default holding `def g(`
    'class\n  class Foo:\n    size = 1\nclass Foo:\n    size = 2\n',  # `class` over two lines: the first match swallows the second
    'if True:\n\tclass  Bar(object):\n\t\tlimit: int = 10\n\t\tdef __init__(self, limit=10): ...\nclass Bars:\n    limit = 3\n',
    'def undef(a=1):\n    pass\nx = undef g(a=2)\ndef  h (a = None, b=NONE):\n    if a is None:\n        a = 5\n',
    'DEFAULT_LIMITS = Limits(max_connections=100, max_keepalive_connections=20)\n'
    'TIMEOUT = Timeout(timeout=5.0)\nPLAIN = Thing(timeout=9)\n'
    'def client(limits=DEFAULT_LIMITS, timeout=TIMEOUT): ...\n',
    'DEFAULT_POLICIES = {\n    "urlize.rel": "noopener",\n    "truncate.leeway": 5,\n    \'json.dumps_kwargs\': {"sort_keys": True},\n'
    '    "": 1,\n}\nALIASES = {"short.rel": "x"}\nclass App:\n    default_config = ImmutableDict({"SESSION_COOKIE_NAME": "session"})\n',
    'class Ünï:\n    name = 1\nclass Ün:\n    name = 2\ndef é(name=3): ...\n',
    '',
]
NAMES = ["prefix", "timeout", "retries", "x", "y", "size", "limit", "a", "b", "max_keepalive_connections", "max_connections",
         "urlize.rel", "truncate.leeway", "json.dumps_kwargs", "SESSION_COOKIE_NAME", "short.rel", "name", "silent", "key",
         "x-y", "Foo(", "", "def"]
OWNERS = ["Config", "Other", "Foo", "Bar", "Bars", "App", "Ün", "Ünï", "f", "g", "h", "Config.__init__", "Bar.__init__", "a.b", ""]


def _parameters_by_pattern(text: str, name: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in re.finditer(
        rf"def\s+({IDENT})\s*\([^()]*?(?<![\w.]){re.escape(name)}\s*(?::[^=,()]+)?=\s*([^,()\n]+)", text)]


def _classes_by_pattern(text: str, names: list[str]) -> list[tuple[int, int]]:
    return [(m.end(), len(m.group(1).expandtabs(4))) for m in re.finditer(
        rf"(?:^|\n)([ \t]*)class\s+({'|'.join(map(re.escape, names))})\b", text)] if names else []


def test_parameter_defaults_answer_as_the_pattern() -> None:
    for text, name in itertools.product(TEXTS, NAMES):
        assert parameter_defaults(text, name) == _parameters_by_pattern(text, name), (text, name)
    assert parameter_defaults(TEXTS[2], "x") == [("f", '"def g'), ("g", "3")]  # `def g(` in f's default read past: as `finditer`
    assert parameter_defaults(TEXTS[2], "y") == [("g", "1"), ("g", "2")]  # ... but read where f's match did not reach
    assert parameter_defaults(TEXTS[0], "key") == []  # `key=(1, 2)`: a bracket before the value ends what is read


def test_classes_answer_as_the_pattern() -> None:
    for text in TEXTS:
        for n in range(3):
            for names in itertools.combinations(OWNERS, n):
                assert classes(text, names) == _classes_by_pattern(text, list(names)), (text, names)
    assert len(classes(TEXTS[3], ["Foo"])) == 2 and classes(TEXTS[3], ["class", "Foo"])[0][0] == len("class\n  class")
    assert classes(TEXTS[8], ["Ün"]) == _classes_by_pattern(TEXTS[8], ["Ün"]) != []  # `class Ünï` is not `class Ün`


def test_code_defaults_unchanged_on_crafted_texts() -> None:  # each answer the code before these lookups gave
    assert code_default(TEXTS[0], "prefix", ["f"]) == "FLASK"  # the one of the function named beside it
    assert code_default(TEXTS[1], "retries", ["Config"]) == "3"
    assert code_default(TEXTS[1], "timeout", ["Config"]) == "5"  # its field says 5, its `__init__` 5.0: one number
    assert code_default(TEXTS[3], "size", ["Foo"]) is None  # both `class Foo` bodies read: 1 and 2
    assert code_default(TEXTS[5], "a", ["h"]) == "5"  # None in the signature, 5 applied by the body
    assert param_default(TEXTS[4], "Bar", "limit") == "10" and param_default(TEXTS[4], "Bars", "limit") is None
    assert code_default(TEXTS[4], "limit", ["Bars"]) == "3" and code_default(TEXTS[4], "limit", ["Bar"]) == "10"


def _calls_by_pattern(text: str, name: str) -> set[str]:
    """The literals `constant_default` read with its pattern per constant call (before `default_calls`)."""
    from noface_ctx.freshness.coded_defaults import balanced, comparable
    found = set()
    for m in re.finditer(r"(?m)^([A-Z][A-Z0-9_]*)\s*(?::[^=\n]+)?=\s*[A-Za-z_][\w.]*\s*\(", text):
        constant = m.group(1)
        if re.search(r"(?:^|_)DEFAULTS?(?:_|$)", constant) is None and re.search(
                rf"def\s+{IDENT}\s*\([^()]*=\s*{re.escape(constant)}\s*[,)]", text) is None:
            continue
        given = re.search(rf"(?:^|[,(\s])(?<![\w.]){re.escape(name)}\s*=(?!=)\s*([^,()\n]+?)\s*(?:,|$)", balanced(text, m.end()))
        if given is not None and re.fullmatch(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|True|False|None|\"[^\"\n]*\"|'[^'\n]*'",
                                              given.group(1).strip()):
            found.add(comparable(given.group(1)))
    return found


def test_constant_defaults_read_once_per_text() -> None:
    for text, name in itertools.product(TEXTS, NAMES):
        found = _calls_by_pattern(text, name) if name in text else set()
        assert constant_default(text, name) == (found.pop() if len(found) == 1 else None), (text, name)
    assert constant_default(TEXTS[6], "max_keepalive_connections") == "20" and constant_default(TEXTS[6], "timeout") == "5"
    assert constant_default(TEXTS[6], "timeout", keys=True) == "5"  # `PLAIN` is neither named nor used as a default
    assert len(default_calls(TEXTS[6])) == 2
    keyed = TEXTS[7]
    assert ("urlize.rel", ' "noopener"') in keyed_items(keyed) and ("", " 1") in keyed_items(keyed)
    assert constant_default(keyed, "urlize.rel", keys=True) == "noopener" and constant_default(keyed, "truncate.leeway", keys=True) == "5"
    assert constant_default(keyed, "SESSION_COOKIE_NAME", keys=True) == "session"
    assert constant_default(keyed, "json.dumps_kwargs", keys=True) is None  # not a literal
    assert constant_default(keyed, "short.rel", keys=True) is None  # `ALIASES` does not say it holds defaults
    assert constant_default(keyed, "urlize.rel") is None  # keys not asked


def test_word_start_is_a_leading_word_boundary() -> None:
    from noface_ctx.freshness.coded_defaults import word_start
    texts = ["if x is None:\n    x = 5\nelif x is None:\n    x = 6\n", "elif x is None:\n    x = 1\nif x is None:\n    x = 2\n",
             "_if x is None:\n  x = 3\n", "if x is None:\n if x is None:\n  x = 4\n", "éif x is None:\n x = 7\n", ""]
    rest = r"if\s+x\s+is\s+None\s*:\s*\n[ \t]+x\s*=\s*(\d+)"
    for text in texts:
        expected = [(m.span(), m.group(1)) for m in re.finditer(rf"\b{rest}", text)]
        assert [(m.span(), m.group(1)) for m in word_start(re.compile(rest), text)] == expected, text
    assert [m.group(1) for m in word_start(re.compile(rest), texts[0])] == ["5"]  # not `elif`'s

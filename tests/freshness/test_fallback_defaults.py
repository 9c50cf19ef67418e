"""Defaults the code holds behind a `None` sentinel or per key, and the sentences stating them without writing the
parameter beside the value (issue 25, rule 5): "The default function is :func:`hashlib.md5`" after a paragraph
naming ``hash_function`` (whose `None` falls back to `self.default_hash_function`), "``400`` instead of ``422``"
beside ``DEFAULT_STATUS``, "by default ... `mode=skip` except when the source is `body`" over a dict of defaults by
key. Negatives: a default noun naming no parameter, "instead of" beside no default constant, a change to an
excepted key, defaults that did not change."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness import defaults
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.defaults import Stated
from noface_ctx.freshness.fallback_defaults import fallback_default, field_default, keyed_default, unwrapped
from noface_ctx.freshness.noun_defaults import noun_statements
from noface_ctx.freshness.subject_defaults import code_lines

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

SIGN = '''import hashlib

DEFAULT_ROUNDS = 1000
DEFAULT_STATUS: int = 422
OK_STATUS = 200


def _lazy_md5(data: bytes = b"") -> object:
    """Look the hash up when called."""
    return hashlib.md5(data)


class Signer:
    #: the hash inside the HMAC
    default_hash_function: object = staticmethod(_lazy_md5)
    default_key_salt = "signer"
    status: int = DEFAULT_STATUS

    def __init__(self, hash_function=None, key_salt=None, work_rounds=None, encoding=None):
        if hash_function is None:
            hash_function = self.default_hash_function
        self.hash_function = hash_function
        self.key_salt = key_salt if key_salt is not None else self.default_key_salt
        self.work_rounds = work_rounds or DEFAULT_ROUNDS
        self.encoding = encoding


class Loader:
    DEFAULT_MODE_BY_SOURCE = {
        "body": None,
        "query": "skip",
        "headers": "skip",
    }

    def load(self, source, mode=None):
        return mode if mode is not None else self.DEFAULT_MODE_BY_SOURCE.get(source)
'''

DOC = """Signing
=======

Hashing
-------

A signer takes a ``hash_function``, the hash used inside the HMAC. The
default function is :func:`hashlib.md5`. Some worry about this default.

A signer also takes a ``key_salt``. The default salt is ``"signer"``.

Each signer hashes ``work_rounds`` times. The default count is ``1000``.

Statuses
~~~~~~~~

To answer with ``400`` instead of ``422``, override ``DEFAULT_STATUS``.
To answer ``201`` instead of ``200``, set ``OK_STATUS``.
The name is stored as ``_key_default_name`` instead of ``name``.

Modes
~~~~~

By default, the loader passes `mode=skip` except when the source is `body`.
"""


def test_a_sentinel_falls_back_to_a_class_attribute_or_a_constant():
    assert fallback_default(SIGN, "hash_function") == "hashlib.md5"  # staticmethod, then the call its body returns
    assert fallback_default(SIGN, "key_salt") == "signer" and fallback_default(SIGN, "work_rounds") == "1000"
    assert fallback_default(SIGN, "encoding") is None  # kept None: no fallback
    two = SIGN + "\n\nclass Other:\n    default_key_salt = 'other'\n"
    assert fallback_default(two, "key_salt") is None  # two classes disagree
    local = "def f(key_salt=None):\n    default_key_salt = 'x'\n    if key_salt is None:\n        key_salt = self.default_key_salt\n"
    assert fallback_default(local, "key_salt") is None  # a local is no class attribute
    said_none, said_value = Stated(("work_rounds",), 1, "None"), Stated(("work_rounds",), 1, "1000")
    read = defaults._default_of  # private: the code default a statement is compared with, read alone
    assert read(SIGN, "work_rounds", said_none, "sign/core.py") == "None"  # a doc saying None means the signature's
    assert read(SIGN, "work_rounds", said_value, "sign/core.py") == "1000"
    assert unwrapped(SIGN, "DEFAULT_STATUS", "status") == "422" and unwrapped(SIGN, "staticmethod(hashlib.sha256)") == "hashlib.sha256"


def test_a_field_declaration_gives_its_default():
    assert field_default("dataclasses.field(default=50,repr=False)") == "50" and field_default("attr.ib(default=3)") == "3"
    assert field_default("field(default_factory=list)") == "[]" and field_default("attrs.field(factory=Registry)") == "Registry()"
    assert field_default("field(repr=False)") == "field(repr=False)" and field_default("make(default=3)") == "make(default=3)"
    assert field_default(None) is None


def test_a_dict_of_defaults_by_key_states_one_value_with_exceptions():
    assert keyed_default(SIGN, "mode", "skip", ("body",)) == "skip"
    assert keyed_default(SIGN.replace('"query": "skip"', '"query": None'), "mode", "skip", ("body",)) == "skip except query"
    assert keyed_default(SIGN, "mode", "raise", ("body",)) is None  # no key maps to the stated value: another dict
    assert keyed_default(SIGN, "status", "skip", ()) is None  # the dict's name is not about `status`


def test_the_sentences_read():
    stated = noun_statements(DOC.split("\n"))
    assert (("hash_function",), 8, "hashlib.md5", ()) in stated and (("key_salt",), 10, "signer", ()) in stated
    assert not [s for s in stated if s[0] == ("work_rounds",)]  # "count" is no word of `work_rounds`
    assert (("DEFAULT_STATUS",), 17, "422", ()) in stated and not [s for s in stated if s[0] == ("OK_STATUS",)]
    assert (("mode",), 24, "skip", ("body",)) in stated and len(stated) == 4  # not `_key_default_name`: "default" inside


def test_a_tilde_underline_opens_no_fence():
    lines = DOC.split("\n")
    assert 16 not in code_lines(lines)  # line 17, after "Statuses\n~~~~~~~~"
    assert {1, 2} <= code_lines(["```", "x = 1", "```"])


def _site(repo_factory):
    return repo_factory({"sign/__init__.py": "", "sign/core.py": SIGN, "docs/signing.rst": DOC}, date=JAN)


def test_changed_fallbacks_are_flagged_and_unchanged_ones_are_not(repo_factory):
    root = _site(repo_factory)
    assert check_docs(repo=root).findings == ()
    changed = (SIGN.replace("OK_STATUS = 200", "OK_STATUS = 201")
               .replace('"body": None', '"body": "raise"').replace('"headers": "skip",', '"headers": "skip",\n        "cookies": "skip",'))
    (root / "sign/core.py").write_text(changed)
    commit(root, "created; bodies raise; cookies", date=FEB)
    assert check_docs(repo=root).findings == ()  # no default constant beside "instead of"; an excepted key; a new key
    changed = (changed.replace("staticmethod(_lazy_md5)", "staticmethod(hashlib.sha256)").replace("DEFAULT_STATUS: int = 422", "DEFAULT_STATUS: int = 400")
               .replace('"query": "skip"', '"query": None').replace("DEFAULT_ROUNDS = 1000", "DEFAULT_ROUNDS = 5000"))
    (root / "sign/core.py").write_text(changed)
    commit(root, "sha256, 400, strict queries, more rounds by default", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = sorted(check_docs(repo=root).findings, key=lambda f: f.line)
    assert [(f.path, f.line) for f in found] == [("docs/signing.rst", n) for n in (8, 12, 17, 24)]
    assert all(head in f.message for f in found)
    assert found[0].message.startswith("default of `hash_function` (sign/core.py)")  # line 12: `work_rounds or DEFAULT_ROUNDS`

"""Defaults the code holds in a dict of defaults keyed by strings (issue 25, rule 5): a policy `urlize.rel` a
definition list states ("``urlize.rel``: ... the `rel` attribute ... of the `urlize` filter. The default is
`noopener`."), a setting of a class's `default_config = ImmutableDict({...})` stated under `.. py:data::`; a dict not
named for defaults holds none, and a key the doc does not state the value of is never a finding."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.held_defaults import constant_default
from noface_ctx.freshness.subject_defaults import subject_statements

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

DEFAULTS = '''import typing as t

TRIM_BLOCKS = False

DEFAULT_POLICIES: dict[str, t.Any] = {
    "urlize.rel": "noopener",
    "urlize.target": None,
    "truncate.leeway": 5,
    "json.dumps_kwargs": {"sort_keys": True},
}

ALIASES = {
    "short.rel": "nofollow",
}
'''

APP = '''class ImmutableDict(dict):
    pass


class App:
    default_config = ImmutableDict(
        {
            "DEBUG": None,
            "SESSION_COOKIE_NAME": "session",
        }
    )
'''

API = """Policies
--------

Policies can be configured on the environment::

    env.policies['urlize.rel'] = 'nofollow noopener'

``truncate.leeway``:
    Configures the leeway default for the `truncate` filter.  The default
    is `5`.

``urlize.rel``:
    A string that defines the items for the `rel` attribute of generated
    links with the `urlize` filter.  These items are always added.  The
    default is `noopener`.

``short.rel``:
    The default is `nofollow`.

Configuration
-------------

.. py:data:: SESSION_COOKIE_NAME

    The name of the session cookie.

    Default: ``'session'``
"""


def test_a_dict_of_defaults_gives_its_keys_values():
    assert constant_default(DEFAULTS, "urlize.rel", keys=True) == "noopener" and constant_default(DEFAULTS, "truncate.leeway", keys=True) == "5"
    assert constant_default(DEFAULTS, "json.dumps_kwargs", keys=True) is None  # not a literal
    assert constant_default(DEFAULTS, "short.rel", keys=True) is None  # `ALIASES` does not say it holds defaults
    assert constant_default(APP, "SESSION_COOKIE_NAME", keys=True) == "session" and constant_default(APP, "SESSION_COOKIE_NAME") is None
    stated = subject_statements(API.split("\n"))
    assert (("urlize.rel", "rel", "urlize"), 14, "noopener", False) in stated  # `rel` and `urlize` are the head's own parts
    assert (("truncate.leeway", "leeway", "truncate"), 9, "5", False) in stated


def _site(repo_factory):
    return repo_factory({"tmpl/__init__.py": "", "tmpl/defaults.py": DEFAULTS, "tmpl/app.py": APP, "docs/api.rst": API},
                        date=JAN)


def test_a_changed_policy_and_a_changed_setting_are_flagged(repo_factory):
    root = _site(repo_factory)
    assert check_docs(repo=root).findings == ()
    (root / "tmpl/defaults.py").write_text(DEFAULTS.replace('"urlize.target": None', '"urlize.target": "_blank"')
                                           .replace('"short.rel": "nofollow"', '"short.rel": "noopener"'))
    commit(root, "open links in a new tab; another alias", date=FEB)
    assert check_docs(repo=root).findings == ()  # no value stated for the target; `ALIASES` holds no default
    (root / "tmpl/defaults.py").write_text(DEFAULTS.replace('"urlize.rel": "noopener"', '"urlize.rel": "noopener noreferrer"'))
    (root / "tmpl/app.py").write_text(APP.replace('"session"', '"app_session"'))
    commit(root, "no referrer by default; a named session cookie", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = sorted(check_docs(repo=root).findings, key=lambda f: f.line)
    assert [(f.path, f.line) for f in found] == [("docs/api.rst", 14), ("docs/api.rst", 27)]
    assert found[0].message.startswith(f"default of `urlize.rel` (tmpl/defaults.py) changed in {head}")
    assert "`SESSION_COOKIE_NAME` (tmpl/app.py)" in found[1].message

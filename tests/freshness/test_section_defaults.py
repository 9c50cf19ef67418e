"""Defaults stated in a Markdown argument list under a section titled by a class (issue 25, rule 5): a parameter two
classes share (`max_age`) is judged against the class its section's title names, not folded with the other; a value
spoken in words ("Defaults to 2 weeks", "five seconds", "16 kilobytes") is a duration in seconds or a size; the value
right after "Defaults to" is the one stated, not another sentence's `None` on the same line."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.defaults import stated_defaults
from noface_ctx.freshness.review_defaults import heading_names
from noface_ctx.freshness.written_numbers import spoken

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CORS = '''class CORSMiddleware:
    def __init__(self, app, allow_origins=(), max_age: int = 600) -> None:
        self.app = app
        self.max_age = max_age
'''

SESSIONS = '''class SessionMiddleware:
    def __init__(
        self,
        app,
        secret_key: str,
        max_age: int | None = 14 * 24 * 60 * 60,  # 14 days, in seconds
        path: str = "/",
    ) -> None:
        self.max_age = max_age
        self.path = path
'''

MIDDLEWARE = """# Middleware

## CORSMiddleware

```python
# a comment in a fence is no title
app = Starlette(middleware=[Middleware(CORSMiddleware)])
```

The following arguments are supported:

* `allow_origins` - A list of origins. Defaults to `[]`.
* `max_age` - Sets a maximum time in seconds for browsers to cache CORS responses. Defaults to `600`.

## SessionMiddleware

* `secret_key` - Should be a random string.
* `max_age` - Session expiry time in seconds. Defaults to 2 weeks. If set to `None` then the cookie lasts a session.
* `path` - The path set for the session cookie. Defaults to `'/'`.
"""


def _stated(text: str) -> dict[tuple[int, str], tuple[str, tuple[str, ...]]]:
    doc = Doc(path="docs/middleware.md", slug="middleware", title="Middleware", text=text)
    return {(st.line, st.names[0]): (st.value, st.titled) for st in stated_defaults(doc) if st.value}


def test_spoken_quantities_and_section_titles():
    assert spoken("2 weeks") == "1209600" and spoken("five seconds") == "5" and spoken("30 minutes.") == "1800"
    assert spoken("16 kilobytes") == "16kB" and spoken("2 apples") == "" and spoken("weeks") == ""
    lines = MIDDLEWARE.split("\n")
    titles = heading_names(lines)
    assert titles[6] == ("CORSMiddleware",)  # the fence's `# a comment` titles nothing
    assert titles[19] == ("SessionMiddleware",) and titles[1] == ()
    stated = _stated(MIDDLEWARE)
    assert stated[(13, "max_age")] == ("600", ("CORSMiddleware",))
    assert stated[(18, "max_age")] == ("1209600", ("SessionMiddleware",))  # not the later sentence's `None`
    assert stated[(19, "path")] == ("/", ("SessionMiddleware",))


def _app(repo_factory):
    return repo_factory({"app/__init__.py": "", "app/cors.py": CORS, "app/sessions.py": SESSIONS,
                         "docs/middleware.md": MIDDLEWARE}, date=JAN)


def test_a_shared_parameter_is_judged_against_its_sections_class(repo_factory):
    root = _app(repo_factory)
    assert check_docs(repo=root).findings == ()
    (root / "app/sessions.py").write_text(SESSIONS.replace("14 * 24 * 60 * 60,  # 14 days", "1_209_600,  # 14 days"))
    commit(root, "write the age as one number", date=FEB)
    assert check_docs(repo=root).findings == ()  # still two weeks
    (root / "app/sessions.py").write_text(SESSIONS.replace("14 * 24 * 60 * 60,  # 14 days", "7 * 24 * 60 * 60,  # 7 days"))
    commit(root, "sessions expire after a week", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/middleware.md", 18)]
    assert found[0].message.startswith(f"default of `max_age` (app/sessions.py) changed in {head}")


def test_the_other_classes_parameter_of_the_same_name_is_not_folded_in(repo_factory):
    root = _app(repo_factory)
    (root / "app/cors.py").write_text(CORS.replace("max_age: int = 600", "max_age: int = 1200"))
    commit(root, "cache preflight responses longer", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/middleware.md", 13)]  # CORS's line, not the session's
    assert "`max_age` (app/cors.py)" in found[0].message

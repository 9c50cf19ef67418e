"""Freshness on real git repositories: missing references, renames, churn, age, clashes."""

from __future__ import annotations

import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from conftest import commit, git, write_tree
from noface_ctx.config import load_config
from noface_ctx.datatypes import Candidate, Chosen, Doc, Form, MissingRef, Staleness
from noface_ctx.docs import load_docs
from noface_ctx.files import scan_repo
from noface_ctx.freshness import assess_docs, extract_references, find_clashes
from noface_ctx.index import CodeIndex

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
NOTE = "Note: this doc may be outdated; prefer the current code as source of truth."


def ts(day: str) -> float:
    return datetime.fromisoformat(day).replace(tzinfo=timezone.utc).timestamp()


def assess(root: Path, *, now: str = "2025-03-01", index: bool = True, **context):
    config = load_config(root)
    if context:
        config = config.with_context(**context)
    repo_files = scan_repo(config)
    docset = load_docs(config, repo_files)
    symbols = CodeIndex.build(repo_files, config) if index else None
    return assess_docs(docset.docs, repo_files, symbols, config, now=ts(now))


LOGIN = '''def get_user(name):
    """Load a user."""
    return {"name": name}


def logout(user):
    return None
'''
APP = "from src.auth.login import get_user\n\n\ndef main():\n    return get_user('x')\n"
AUTH_DOC = """---
title: Auth
---
# Auth

Call `get_user()` in `src/auth/login.py` to load a user.
"""
LIVE_DOC = "# Sessions\n\nEnd a session with `logout()` (see src/auth/login.py).\n"


def renamed_repo(repo_factory) -> Path:
    root = repo_factory(
        {"src/__init__.py": "", "src/auth/__init__.py": "", "src/auth/login.py": LOGIN, "src/app.py": APP,
         "docs/auth.md": AUTH_DOC, "docs/sessions.md": LIVE_DOC},
        date=JAN,
    )
    for rel in ("src/auth/login.py", "src/app.py"):
        p = root / rel
        p.write_text(p.read_text().replace("get_user", "authenticate_user"))
    commit(root, "rename get_user", date=FEB)
    return root


# --------------------------------------------------------------------------- references


def doc(text: str, path: str = "docs/d.md") -> Doc:
    return Doc(path=path, slug=Path(path).stem, title="d", text=text)


def test_extract_references_kinds_names_and_lines():
    text = "\n".join([
        "---",
        "title: `not_a_ref()` in frontmatter",
        "---",
        "Call `get_user()` then `UserService.refresh(token)`; see `src/auth/login.py:42`.",  # line 4
        "The `load_config` helper and `CodeIndex`, plus prose_call() and lib/util.py.",  # line 5
        "```python",
        "from pkg.auth import get_user, check_token",  # line 7
        "def local_helper():",
        "    return build_prompt(issue)",  # line 9
        "local_helper()",
        "```",
        "`removed_thing()`  <!-- noface-ctx: ignore -->",
    ])
    refs = {(r.kind, r.name): r for r in extract_references(doc(text))}
    assert refs[("call", "get_user")].line == 4 and refs[("call", "get_user")].ref == "get_user()"
    assert refs[("method", "UserService.refresh")].line == 4
    path = refs[("path", "src/auth/login.py")]
    assert path.ref == "src/auth/login.py:42" and path.line == 4
    assert refs[("symbol", "load_config")].strict and refs[("symbol", "CodeIndex")].strict
    assert refs[("call", "prose_call")].source == "prose"
    assert refs[("path", "lib/util.py")].line == 5
    assert refs[("method", "pkg.auth.check_token")].line == 7
    assert refs[("call", "build_prompt")].line == 9
    names = {name for _, name in refs}
    assert "not_a_ref" not in names  # frontmatter
    assert "local_helper" not in names  # defined in the block itself
    assert "removed_thing" not in names  # ignore marker


@pytest.mark.parametrize(
    "span",
    ["true", "None", "pip install noface", "--json", "-q", "https://example.com/a/b.py", "$HOME",
     "~/.cache/noface", "/etc/hosts", "*.md", "<name>", "key=value", "MAX_SIZE", "GitHub", "json",
     "__init__", "foo()", "my_function()", "print()", "len(x)", "e.g.", "3.11", "a b c", "Class.method",
     "module.function()"],
)
def test_ordinary_spans_are_never_strict_references(span):
    refs = extract_references(doc(f"Use `{span}` here.\n"))
    assert all(not r.strict for r in refs), refs


def test_links_resolve_relative_to_the_doc(repo_factory):
    root = repo_factory({
        "README.md": "# Readme\n", "src/tool.py": "def run_tool():\n    pass\n",
        "docs/guide.md": "See [the readme](../README.md), [the tool](../src/tool.py#L1), [web](https://x.org/y.py),\n"
                         "[a section](#usage) and [the old page](old-page.md).\n",
    })
    details = assess(root).details["guide"]
    assert {"README.md", "src/tool.py"} <= set(details.staleness.references)
    assert [m.ref for m in details.unresolved] == ["old-page.md"]  # never existed: a warning only


def test_snippets_in_languages_the_repo_does_not_use_are_ignored(repo_factory):
    text = "```rust\nlet v = missing_helper(Widget::build());\n```\n\n```python\nvanished_call()\n```\n"
    root = repo_factory({"app.py": "def main():\n    pass\n", "docs/x.md": text})
    assert [m.ref for m in assess(root).details["x"].unresolved] == ["vanished_call()"]


def test_changelog_has_no_references():
    assert extract_references(doc("Renamed `get_user()` to `authenticate_user()`.\n", "CHANGELOG.md")) == []


# --------------------------------------------------------------------------- missing references


@pytest.mark.parametrize("index", [True, False], ids=["code-index", "light-symbols"])
def test_renamed_function_flags_doc_with_reason_and_suggestion(repo_factory, index):
    fresh = assess(renamed_repo(repo_factory), index=index)
    auth = fresh.by_slug["auth"]
    assert auth.verdict == "stale"
    assert auth.missing == (MissingRef("get_user()", 6, "authenticate_user"),)
    reason = "references `get_user()` which no longer exists (renamed to `authenticate_user`?)"
    assert auth.reasons[0] == reason
    assert auth.note().splitlines() == [NOTE, f"- {reason}"]
    assert "src/auth/login.py" in auth.references
    assert auth.last_updated == "2025-01-01"


def test_doc_with_only_live_references_is_fresh(repo_factory):
    fresh = assess(renamed_repo(repo_factory))
    sessions = fresh.by_slug["sessions"]
    assert sessions.verdict == "fresh" and sessions.reasons == () and sessions.note() == ""
    assert set(sessions.references) >= {"logout", "src/auth/login.py"}
    # the rename commit touched the referenced file once: counted, below the threshold
    assert (sessions.churn_commits, sessions.churn_lines) == (1, 2)


@pytest.mark.parametrize("index", [True, False], ids=["code-index", "light-symbols"])
def test_renamed_method_and_import_in_code_block(repo_factory, index):
    root = repo_factory({
        "pkg/__init__.py": "",
        "pkg/service.py": "class UserService:\n    def get_user(self, name):\n        return name\n",
        "docs/api.md": "Use `UserService.get_user()`:\n\n```python\nfrom pkg.service import UserService\n"
                       "svc = UserService()\nsvc.get_user('a')\n```\n",
    }, date=JAN)
    (root / "pkg/service.py").write_text("class UserService:\n    def fetch_user(self, name):\n        return name\n")
    commit(root, "rename method", date=FEB)
    st = assess(root, index=index).by_slug["api"]
    assert st.verdict == "stale"
    assert st.missing == (MissingRef("UserService.get_user()", 1, "UserService.fetch_user"),)


def test_moved_file_is_flagged_with_its_new_path(repo_factory):
    root = repo_factory({"src/old_name.py": "def run():\n    return 1\n",
                         "docs/layout.md": "The runner lives in `src/old_name.py`.\n"}, date=JAN)
    git(root, "mv", "src/old_name.py", "src/runner.py")
    commit(root, "move", date=FEB)
    st = assess(root).by_slug["layout"]
    assert st.verdict == "stale"
    assert st.missing == (MissingRef("src/old_name.py", 1, "src/runner.py"),)
    assert st.reasons == ("references `src/old_name.py` which no longer exists (moved to `src/runner.py`?)",)


def test_reference_that_never_existed_is_unresolved_not_stale(repo_factory):
    root = repo_factory({"src/a.py": "def present():\n    pass\n",
                         "docs/plan.md": "We will add `planned_feature()` next to `present()`.\n"}, date=JAN)
    fresh = assess(root)
    assert fresh.by_slug["plan"].verdict == "fresh"
    assert [m.ref for m in fresh.details["plan"].unresolved] == ["planned_feature()"]


def test_ordinary_tokens_in_a_real_repo_produce_no_findings(repo_factory):
    text = """# Usage

Run `pip install noface` then `noface-ctx check-docs --json`; set `$HOME` or `~/.cache/x`.
Values: `true`, `None`, `MAX_SIZE`, `GitHub`, `<name>`, `*.md`, `foo()`, `my_function()`.
Libraries: `os.path.join()`, `json.dumps(x)`, `console.log()`, `Vec::new()`, `self.value`,
`.pre-commit-config.yaml`, https://example.com/src/missing.py and [site](https://x.org/a.py).

```bash
python -m noface_ctx preview ISSUE-1 --budget 8000
```

```python
import json
result = json.loads(text)
def helper(x):
    return x.strip()
helper(result)
```
"""
    root = repo_factory({"app.py": "import json\n\ndef main():\n    return json.dumps({})\n", "docs/usage.md": text})
    details = assess(root).details["usage"]
    assert details.staleness.verdict == "fresh"
    assert details.staleness.missing == () and details.unresolved == ()


def test_doc_without_references_is_fresh(repo_factory):
    root = repo_factory({"a.py": "x = 1\n", "docs/vision.md": "# Vision\n\nMake agents faster.\n"}, date=JAN)
    st = assess(root, now="2030-01-01").by_slug["vision"]
    assert st == Staleness(verdict="fresh", last_updated="2025-01-01")


# --------------------------------------------------------------------------- churn and age


def churn_repo(repo_factory) -> Path:
    root = repo_factory({
        "src/a.py": "def alpha():\n    return 1\n",
        "src/b.py": "def helper_beta():\n    return 2\n",
        "src/other.py": "def gamma():\n    return 3\n",
        "docs/design.md": "Alpha lives in `src/a.py`; it calls `helper_beta()`.\n",
    }, date=JAN)
    for day, rel in [("05", "src/a.py"), ("06", "src/a.py"), ("07", "src/other.py"), ("08", "src/a.py"),
                     ("09", "src/b.py"), ("10", "src/other.py")]:
        with open(root / rel, "a") as fh:
            fh.write(f"# change {day}\nX_{day} = {day}\n")
        commit(root, f"change {rel}", date=f"2025-02-{day}T12:00:00+00:00")
    return root


def test_churn_is_counted_on_the_referenced_files_only(repo_factory):
    details = assess(churn_repo(repo_factory)).details["design"]
    by_path = {c.path: (c.commits, c.added, c.deleted) for c in details.churn}
    assert by_path == {"src/a.py": (3, 6, 0), "src/b.py": (1, 2, 0)}
    assert (details.staleness.churn_commits, details.staleness.churn_lines) == (4, 8)
    assert details.staleness.verdict == "fresh"  # 4 commits < stale_churn_commits (5)


def test_churn_over_threshold_makes_doc_possibly_stale(repo_factory):
    st = assess(churn_repo(repo_factory), stale_churn_commits=4).by_slug["design"]
    assert st.verdict == "possibly stale"
    assert st.reasons[0] == "src/a.py changed in 3 commits (+6/-0 lines) since this doc was last updated (2025-01-01)"
    assert st.reasons[1].startswith("src/b.py changed in 1 commit (+2/-0 lines)")
    assert st.note().startswith(NOTE)


def test_age_counts_only_when_the_code_changed_since(repo_factory):
    root = churn_repo(repo_factory)
    (root / "docs/still.md").write_text("Gamma is `gamma()` in src/other.py... and `alpha()`.\n")
    write_tree(root, {"docs/quiet.md": "Nothing here changed: `src/untouched.py`.\n", "src/untouched.py": "Y = 1\n"})
    commit(root, "docs", date="2025-02-11T12:00:00+00:00")
    with open(root / "src/other.py", "a") as fh:
        fh.write("Z = 1\n")
    commit(root, "late change", date="2025-02-12T12:00:00+00:00")
    fresh = assess(root, now="2026-01-01", stale_after_days=180)
    still = fresh.details["still"]
    assert still.age_flagged and still.staleness.verdict == "possibly stale"
    assert still.staleness.reasons[-1].startswith("last updated 2025-02-11, 323 days ago (stale_after_days = 180)")
    assert fresh.by_slug["quiet"].verdict == "fresh"  # just as old, but its code never changed


def test_frontmatter_updated_date_wins_over_git(repo_factory):
    root = churn_repo(repo_factory)
    text = "---\nupdated: 2025-02-05\n---\nAlpha lives in `src/a.py`.\n"
    (root / "docs/design.md").write_text(text)
    commit(root, "touch doc", date="2025-02-20T12:00:00+00:00")
    st = assess(root).by_slug["design"]
    assert st.last_updated == "2025-02-05"
    assert st.churn_commits == 2  # a.py on 02-06 and 02-08; 02-05 is the update day itself


def test_doc_being_edited_counts_as_updated_now(repo_factory):
    root = churn_repo(repo_factory)
    with open(root / "docs/design.md", "a") as fh:
        fh.write("More text.\n")
    st = assess(root, stale_churn_commits=1).by_slug["design"]
    assert st.verdict == "fresh" and st.churn_commits == 0 and st.last_updated == "2025-03-01"


# --------------------------------------------------------------------------- without full history


def test_without_git_symbols_still_checked_with_warning(tmp_path):
    root = tmp_path / "plain"
    write_tree(root, {"lib.py": "def live_one():\n    return 1\n",
                      "docs/a.md": "Uses `live_one()` and `gone_function()`.\n",
                      "docs/b.md": "Uses `live_one()`.\n"})
    fresh = assess(root, index=False)
    assert any("not a git repository" in w for w in fresh.warnings)
    assert fresh.by_slug["a"].verdict == "stale"
    assert [m.ref for m in fresh.by_slug["a"].missing] == ["gone_function()"]
    assert fresh.by_slug["b"].verdict == "fresh" and fresh.by_slug["b"].last_updated is None


def test_shallow_clone_warns_and_still_flags(repo_factory, tmp_path):
    origin = renamed_repo(repo_factory)
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(clone)], check=True)
    fresh = assess(clone)
    assert any("shallow clone" in w for w in fresh.warnings)
    # the history before the cut is gone: get_user cannot be proven removed, so it is unresolved
    assert fresh.by_slug["sessions"].verdict == "fresh"
    assert [m.ref for m in fresh.details["auth"].unresolved] == ["get_user()"]


# --------------------------------------------------------------------------- clashes


def cand(path: str, st: Staleness) -> Candidate:
    form = Form("full", f"### {path}", 3)
    return Candidate(kind="doc", path=path, ref=Path(path).stem, title=path, forms=(form,), score=1.0,
                     request=f"NEED_DOC: {Path(path).stem}", staleness=st)


def test_clash_names_the_newer_doc_and_the_suspect():
    old = Staleness("stale", ("x",), (MissingRef("get_user()", 3, "authenticate_user"),), last_updated="2024-01-03",
                    references=("src/auth/login.py",))
    new = Staleness("fresh", last_updated="2025-06-01", references=("authenticate_user", "src/auth/login.py"))
    lines = find_clashes([cand("docs/a.md", old), cand("docs/b.md", new)])
    assert lines == [
        "`docs/a.md` and `docs/b.md` both describe `authenticate_user`, `src/auth/login.py`; "
        "`docs/b.md` is newer (2025-06-01) — treat `docs/a.md` (2024-01-03, stale) as suspect."
    ]
    chosen = [Chosen(c, c.forms[0]) for c in (cand("docs/b.md", new), cand("docs/a.md", old))]
    assert find_clashes(chosen) == lines


def test_clash_between_fresh_docs_prefers_the_newer_one():
    a = Staleness("fresh", last_updated="2025-01-01", references=("load_config", "README.md", "docs/"))
    b = Staleness("fresh", last_updated="2025-06-01", references=("load_config", "README.md", "docs/"))
    assert find_clashes([cand("docs/b.md", b), cand("docs/a.md", a)]) == [
        "`docs/a.md` and `docs/b.md` both describe `load_config`; `docs/b.md` is newer (2025-06-01) — "
        "where they disagree, prefer it over `docs/a.md` (2025-01-01)."
    ]


def test_no_clash_without_shared_references_or_a_difference():
    a = Staleness("fresh", last_updated="2025-01-01", references=("alpha",))
    b = Staleness("fresh", last_updated="2025-06-01", references=("beta",))
    c = Staleness("fresh", last_updated="2025-01-01", references=("alpha",))
    d = Staleness("stale", last_updated="2024-01-01", references=("pyproject.toml", "README.md"))
    e = Staleness("fresh", last_updated="2025-01-01", references=("pyproject.toml", "README.md"))
    assert find_clashes([cand("docs/a.md", a), cand("docs/b.md", b)]) == []
    assert find_clashes([cand("docs/a.md", a), cand("docs/c.md", c)]) == []
    assert find_clashes([cand("docs/d.md", d), cand("docs/e.md", e)]) == []  # not code


def test_clash_between_assessed_docs(repo_factory):
    root = renamed_repo(repo_factory)
    write_tree(root, {"docs/login.md": "Log in with `authenticate_user()` from `src/auth/login.py`.\n"})
    commit(root, "new doc", date="2025-02-15T12:00:00+00:00")
    fresh = assess(root)
    lines = find_clashes([cand("docs/auth.md", fresh.by_slug["auth"]), cand("docs/login.md", fresh.by_slug["login"])])
    assert len(lines) == 1
    assert lines[0].startswith("`docs/auth.md` and `docs/login.md` both describe `authenticate_user`, `src/auth/login.py`")
    assert lines[0].endswith("treat `docs/auth.md` (2025-01-01, stale) as suspect.")


# --------------------------------------------------------------------------- in the prompt


def test_preview_downranks_stale_doc_with_note_and_clash(repo_factory):
    pipeline = pytest.importorskip("noface_ctx.pipeline")
    from conftest import FakeEmbedder

    now = datetime.now(timezone.utc).replace(microsecond=0)
    old, new = (now - timedelta(days=10)).isoformat(), (now - timedelta(days=1)).isoformat()
    body = "# {t}\n\nTo load the user for a login session, call `{f}()` in `src/auth/login.py`.\n"
    root = repo_factory({
        "src/auth/__init__.py": "", "src/auth/login.py": LOGIN,
        "docs/auth.md": body.format(t="Auth", f="get_user"),
    }, date=old)
    (root / "src/auth/login.py").write_text(LOGIN.replace("get_user", "authenticate_user"))
    (root / "docs/login.md").write_text(body.format(t="Login", f="authenticate_user"))
    commit(root, "rename get_user; new login doc", date=new)
    issue = {"id": "T-1", "issue_type": "feature",  # a cross-cutting issue: room for both docs
             "title": "Refactor how a login session loads the user across the auth subsystem",
             "description": "Loading the user for a login session fails; redesign the user loading end-to-end."}
    prompt = pipeline.build_prompt(issue, repo=root, embed=FakeEmbedder())
    rows = {row["slug"]: row for row in prompt.to_dict()["docs"]}
    reason = "references `get_user()` which no longer exists (renamed to `authenticate_user`?)"
    assert rows["auth"]["stale"] is True and rows["auth"]["stale_reasons"] == [reason]
    assert rows["login"]["stale"] is False and rows["login"]["stale_reasons"] == []
    assert rows["auth"]["score"] < rows["login"]["score"]  # same text but the name: downranked
    assert rows["auth"]["included"]  # relevant, so still shown: downranked, not dropped
    assert f"{NOTE}\n- {reason}" in prompt.text
    assert prompt.text.index("### login") < prompt.text.index("### auth")
    assert "`docs/auth.md` and `docs/login.md` both describe `authenticate_user`, `src/auth/login.py`; " \
           f"`docs/login.md` is newer ({new[:10]}) — treat `docs/auth.md` ({old[:10]}, stale) as suspect." in prompt.text

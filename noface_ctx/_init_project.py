"""`noface-ctx init`: a commented `.noface.toml` for an existing repository.

It looks, and writes down what it found and where: the docs (a Sphinx `conf.py`, `mkdocs.yml`
and its `docs_dir`, a `docs/` or `doc/` folder, a doc site elsewhere and agent guides (`docs.discover`),
a monowiki vault), the build and test commands
(`_commands.detect_commands`, each with its source), the default budget, and the exclusions worth
adding (a docs build folder). Nothing is executed and no file but `.noface.toml` is written. The
same repository gives the same file, so running it again changes nothing; an existing file that
differs is kept unless `--force`.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from noface_ctx._commands import detect_commands
from noface_ctx._filebytes import read_head
from noface_ctx.config import CONFIG_NAME, ContextConfig
from noface_ctx.docs.discover import AGENT_GUIDES, doc_sites
from noface_ctx.docs.prose_folders import prose_folders
from noface_ctx.errors import UsageError

_DOC_DIRS = ("docs", "doc", "documentation")
_SPHINX_CONF = ("conf.py", "source/conf.py")
_MKDOCS_DIR = re.compile(r"^docs_dir:\s*['\"]?([^'\"#\s]+)", re.M)
_NAME = re.compile(r"^\s*name\s*=\s*['\"]([^'\"]+)['\"]", re.M)
_MAX_READ = 256 * 1024


@dataclass
class Findings:
    """What `init` found in a repository, each with where it came from."""

    name: str
    name_source: str
    docs: list[tuple[str, str]] = field(default_factory=list)  # (folder, why)
    vault: str = ""
    build: tuple[str, str] = ("", "")  # (command, source)
    test: tuple[str, str] = ("", "")
    exclude: list[tuple[str, str]] = field(default_factory=list)  # (pattern, why)
    guides: bool = False  # AGENTS.md / CLAUDE.md files: guides for coding agents are docs
    notebooks: list[str] = field(default_factory=list)  # doc folders holding Jupyter notebooks


def survey(root: Path) -> Findings:
    """Look at the repository's own files (read, never run)."""
    name, name_source = _project_name(root)
    found = Findings(name, name_source)
    mkdocs = root / "mkdocs.yml"
    if mkdocs.is_file():
        m = _MKDOCS_DIR.search(_read(mkdocs))
        folder = (m.group(1) if m else "docs").strip("/")
        found.docs.append((folder, "MkDocs project (mkdocs.yml" + (" docs_dir)" if m else ")")))
        found.exclude.append(("site/", "MkDocs build output"))
    for d in _DOC_DIRS:
        if not (root / d).is_dir() or any(folder == d or folder.startswith(d + "/") for folder, _ in found.docs):
            continue
        conf = next((c for c in _SPHINX_CONF if "sphinx" in _read(root / d / c).lower()), "")
        if conf:
            found.docs.append((d, f"Sphinx project ({d}/{conf})"))
            build = f"{d}/{conf.rpartition('/')[0]}/_build/".replace("//", "/")
            found.exclude.append((build, "Sphinx build output"))
        else:
            found.docs.append((d, f"{d}/ folder"))
        if (root / d / "monowiki.yml").is_file():
            found.vault = d
    if (root / "monowiki.yml").is_file():
        found.vault = "."
    paths = _shallow_paths(root, 3)
    found.docs += [(folder, why) for folder, why in doc_sites(paths).items()
                   if not any(folder == d or folder.startswith(d + "/") for d, _ in found.docs)]
    found.docs += [(folder, "Markdown/RST prose only") for folder in prose_folders(p for p in paths if (root / p).is_file())
                   if not any(folder == d or folder.startswith(d + "/") for d, _ in found.docs)]
    found.guides = any(p.rpartition("/")[2] in AGENT_GUIDES for p in paths)
    found.notebooks = [d for d, _ in found.docs if _holds_notebook(root / d)]
    commands = detect_commands(root)
    found.build = (commands.build, commands.build_source)
    found.test = (commands.test, commands.test_source)
    return found


def render(found: Findings) -> str:
    """The commented `.noface.toml` for `found` (the same findings give the same text)."""
    ctx = ContextConfig()
    out = [
        "# noface_ctx settings for this repository, written by `noface-ctx init`.",
        "# Every key is optional; delete what you do not need. Reference: the README, \"Configuration\".",
        "",
        "[project]",
        f"name = {_q(found.name)}  # the prompt's role line (from {found.name_source})",
    ]
    for key, (cmd, source) in (("build", found.build), ("test", found.test)):
        if cmd:
            out.append(f"{key} = {_q(cmd)}  # detected from {source}")
        else:
            out.append(f"# {key} = \"...\"  # none detected: the prompt says so; set it to tell the agent")
    if found.vault:
        out += ["", "[monowiki]", f"vault = {_q(found.vault)}  # holds monowiki.yml"]
    out += ["", "[context]", f"budget_tokens = {ctx.budget_tokens}  # the default: a prompt never exceeds it"]
    if found.docs:
        globs = [f"{d}/**/*.{ext}" for d, _ in found.docs
                 for ext in ("md", "rst", "txt") + (("ipynb",) if d in found.notebooks else ())] + ["*.md", "*.rst"]
        globs += [f"**/{name}" for name in AGENT_GUIDES] if found.guides else []
        out.append("# design docs found: " + "; ".join(f"{d}/ — {why}" for d, why in found.docs))
        if found.notebooks:
            out.append("# Jupyter notebooks in " + ", ".join(f"{d}/" for d in found.notebooks)
                       + " are docs too: markdown cells as prose, code cells as examples, outputs never read")
        out.append(f"doc_globs = [{', '.join(_q(g) for g in globs)}]")
    else:
        out.append("# no docs folder found: Markdown and reStructuredText files at the top level are the docs")
        out.append(f"doc_globs = [{', '.join(_q(g) for g in ctx.doc_globs)}]")
    out.append("# always left out: vendor/, node_modules/, dist/, build/, caches, Python environments (pyvenv.cfg,")
    out.append("# conda-meta/), lockfiles, minified and generated files, binaries, secrets; add gitignore patterns:")
    if found.exclude:
        out.append("exclude = [")
        out += [f"    {_q(pattern)},  # {why}" for pattern, why in found.exclude]
        out.append("]")
    else:
        out.append("exclude = []")
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class InitResult:
    path: Path
    status: str  # "written" | "unchanged" | "kept" | "overwritten"
    text: str
    findings: Findings


def init_project(root: str | os.PathLike[str], *, force: bool = False) -> InitResult:
    """Write `<root>/.noface.toml` from `survey`; keep an existing different file unless `force`."""
    base = Path(root)
    if not base.is_dir():
        raise UsageError("not a directory", where=str(root))
    target = base / CONFIG_NAME
    if target.is_symlink() or (target.exists() and not target.is_file()):
        raise UsageError("is a link or not a regular file: not touched", where=str(target))
    found = survey(base)
    text = render(found)
    if target.exists():
        if target.read_bytes() == text.encode("utf-8"):
            return InitResult(target, "unchanged", text, found)
        if not force:
            return InitResult(target, "kept", text, found)
    status = "overwritten" if target.exists() else "written"
    from noface_ctx import _write_gate as write_gate
    if not write_gate.write_atomic(target, text.encode("utf-8"), root=base, confine=True):  # no link followed
        raise UsageError("cannot be written", where=str(target))
    return InitResult(target, status, text, found)


_SAID = {"written": "wrote", "overwritten": "overwrote", "unchanged": "unchanged:",
         "kept": "kept the existing file (it differs from what init would write; --force rewrites it):"}


def init_summary(result: InitResult, repo_arg: str | None) -> tuple[str, str]:
    """(what was done and found, for stderr; the next two commands, for stdout)."""
    found = result.findings
    lines = [f"{_SAID[result.status]} {result.path}"]
    for what, (cmd, source) in (("build", found.build), ("test", found.test)):
        lines.append(f"  {what}: {cmd} (from {source})" if cmd else f"  {what}: none detected")
    lines.append("  docs: " + ("; ".join(f"{d}/ — {why}" for d, why in found.docs) or "no folder: top-level .md/.rst"))
    repo = f" --repo {repo_arg}" if repo_arg else ""
    steps = (f"next:\n  noface-ctx index{repo}\n  noface-ctx preview ISSUE{repo}   "
             "# ISSUE: a beads id, or a .md file (first heading: the title)")
    return "\n".join(lines), steps


def run_from_args(args: argparse.Namespace) -> int:
    """`noface-ctx init [--repo DIR] [--force]`: the summary on stderr, the next commands on stdout."""
    from noface_ctx import _git as git
    if args.repo is None:  # the one command that may start a project where none is yet
        root = git.toplevel(Path.cwd()) or Path.cwd()
    elif not Path(args.repo).is_dir():
        raise UsageError(f"--repo {args.repo}: not a directory")
    else:
        root = Path(args.repo)
    summary, next_steps = init_summary(init_project(root, force=args.force), args.repo)
    print(summary, file=sys.stderr)
    print(next_steps)
    return 0


def _project_name(root: Path) -> tuple[str, str]:
    """The name the project gives itself (`pyproject.toml` / `Cargo.toml`), else its folder's."""
    for name, section in (("pyproject.toml", "[project]"), ("Cargo.toml", "[package]")):
        lines = _read(root / name).split("\n")
        if section in (ln.strip() for ln in lines):
            start = [ln.strip() for ln in lines].index(section) + 1
            body = "\n".join(itertools.takewhile(lambda ln: not ln.lstrip().startswith("["), lines[start:]))
            m = _NAME.search(body)
            if m:
                return m.group(1), f"{name} {section} name"
    return root.resolve().name, "the folder's name"


_NOT_WALKED = {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".nox", "site-packages"}


def _shallow_paths(root: Path, depth: int) -> list[str]:
    """Repo-relative paths of the entries `depth` levels down (links not followed)."""
    out: list[str] = []

    def walk(folder: str, rel: str, left: int) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            out.append(rel + entry.name)
            if left > 1 and entry.name not in _NOT_WALKED and entry.is_dir(follow_symlinks=False):
                walk(entry.path, f"{rel}{entry.name}/", left - 1)

    walk(str(root), "", depth)
    return out


def _holds_notebook(folder: Path, limit: int = 5000) -> bool:
    """Whether a doc folder holds a Jupyter notebook (looking at `limit` entries at most)."""
    seen = 0
    for _dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d not in _NOT_WALKED and not d.startswith("."))
        seen += len(dirnames) + len(filenames)
        if any(f.endswith(".ipynb") for f in filenames):
            return True
        if seen > limit:
            return False
    return False


def _read(path: Path) -> str:
    return read_head(path, _MAX_READ)


def _q(value: str) -> str:
    """A TOML basic string."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'

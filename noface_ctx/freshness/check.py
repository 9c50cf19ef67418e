"""`check-docs` and the `noface-doc-freshness` pre-commit hook: stale docs as linter lines.

Given paths (pre-commit passes the staged files), it checks the docs among them, every doc
that references one of the code files among them (or a file deleted in the index, which
pre-commit never passes), and every doc the uncommitted edits make stale, whatever file it
names (a rename in src, examples and tests stales docs that name none of those files); with no
paths, every doc. Every doc is judged whatever its size (`max_file_size_kb` is for prompts);
a doc given that is not judged (a record: release notes, changelogs; a draft; a file the gate
keeps out) gets a row saying why, and a path that is no file is an exit 2. A removed name is an error (`stale-ref`); a changed definition is a warning
(`changed-ref`) unless `[context] fail_on_changes` makes it an error, or `fail_on_age` does
for a doc older than `stale_after_days`. Never imports the embedding or ranking stages, nor the
tree-sitter index: symbols come from `codebase.LightSymbols`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from noface_ctx import _git as git
from noface_ctx._user_paths import checkable
from noface_ctx.config import Config, load_config
from noface_ctx.datatypes import FileEntry, RepoFiles
from noface_ctx.docs.markup import is_record
from noface_ctx.docs.notebook import NOTEBOOK_SUFFIX, is_notebook, read_notebook
from noface_ctx.docs.record_titles import titled_record
from noface_ctx.freshness.judgement import made_by_edits
from noface_ctx.freshness.references import DOC_EXTS
from noface_ctx.schema import SCHEMA_VERSION, CheckReportJSON, FindingJSON

if TYPE_CHECKING:
    from noface_ctx.freshness.judgement import DocFreshness

Severity = Literal["error", "warning"]
REPORT_VERSION = SCHEMA_VERSION  # the compatibility rule is in schema.py


@dataclass(frozen=True, slots=True)
class Finding:
    """One linter line: a doc, its line, a code (`stale-ref` | `changed-ref`) and the message."""

    path: str
    line: int
    code: str  # "stale-ref" | "changed-ref" | "needs-review" (quarantined by failed outcomes)
    message: str
    severity: Severity = "error"

    def line_text(self) -> str:
        prefix = "" if self.severity == "error" else "warning: "
        return f"{self.path}:{self.line}: {self.code}: {prefix}{self.message}"

    def to_dict(self) -> FindingJSON:
        return {"path": self.path, "line": self.line, "code": self.code, "message": self.message, "severity": self.severity}


@dataclass(frozen=True, slots=True)
class CheckReport:
    """What `check_docs` found: findings, run warnings and one row per checked doc."""

    findings: tuple[Finding, ...]
    warnings: tuple[str, ...] = ()
    docs: tuple[dict[str, Any], ...] = ()  # per checked doc: path, slug, verdict, last_updated, reasons
    seconds: float = 0.0
    not_judged: tuple[tuple[str, str], ...] = ()  # (path, why): docs given, or docs of the repository, not judged

    @property
    def exit_code(self) -> int:
        return 1 if any(f.severity == "error" for f in self.findings) else 0

    def lines(self) -> list[str]:
        """`path:line: code: message`, one per finding, errors first."""
        order = sorted(self.findings, key=lambda f: (f.severity != "error", f.path, f.line, f.code))
        return [f.line_text() for f in order]

    def to_dict(self) -> CheckReportJSON:
        return {
            "version": REPORT_VERSION,
            "exit_code": self.exit_code,
            "findings": [f.to_dict() for f in self.findings],
            "docs": [dict(d) for d in self.docs],
            "warnings": list(self.warnings),
            "not_judged": [{"path": p, "reason": why} for p, why in self.not_judged],
            "seconds": round(self.seconds, 3),
        }


def check_docs(paths: Sequence[str] = (), repo: str | os.PathLike[str] = ".", config: Config | None = None) -> CheckReport:
    """Check the docs given, and the docs referencing the code files given (all docs when none)."""
    from noface_ctx.docs.kept_out import kept_out_docs
    from noface_ctx.docs.load import load_docs
    from noface_ctx.files.gate import scan_repo
    from noface_ctx.freshness.assess import assess_docs, start_history

    t0 = time.perf_counter()
    config = config if config is not None else load_config(os.fspath(repo))
    root = Path(config.root)
    wanted = [checkable(p, root) for p in paths]  # a missing path is an error, as on every surface
    building = start_history(config)  # a first run: `git log` while the files are scanned
    repo_files = scan_repo(config)
    judged_files = with_large_docs(repo_files)  # the size limit is for prompts: every doc is judged
    docset = load_docs(config, judged_files, whole=False, scripts=True)  # freshness reads no sections; gallery pages too
    # symbols=None: a regex symbol table instead of the tree-sitter index keeps the hook fast
    # (no parsers, no numpy) and writes no index cache into the user's repository.
    fresh = assess_docs(docset.docs, judged_files, None, config, building=building)
    if building is not None:
        building()  # finished even when no doc needed it (all records): the next run has its index
    if wanted:
        doc_paths = {d.path for d in docset.docs}
        code = {p for p in wanted if p not in doc_paths}
        if code and repo_files.has_git:
            code |= git.staged_deletions(root)
        selected = [d for d in fresh.by_path.values() if d.path in wanted or d.files & code or made_by_edits(d)]
    else:
        selected = list(fresh.by_path.values())
    titled = {d.path for d in docset.docs if titled_record(d)}  # a changelog known by its title, not its file name
    records = {d.path for d in selected if is_record(d.path, config.context.record_dirs) or d.path in titled}
    selected = [d for d in selected if d.path not in records]
    judged = {d.path for d in selected} | {d.path for d in fresh.by_path.values()}
    drafts = {p for p in wanted if p not in judged and p in {f.path for f in judged_files.files}
              and p.lower().endswith(DOC_SUFFIXES)}
    unread = dict(docset.not_read)
    not_judged = [(p, _why_not(p, judged_files, config, drafts, titled)) for p in wanted
                  if (p not in judged or p in records) and p not in unread]
    not_judged = [(p, why) for p, why in not_judged if why] + list(unread.items())
    if not wanted:  # the whole repository: its docs the gate kept out are named too
        not_judged += kept_out_docs(config, judged_files, DOC_SUFFIXES)
    selected.sort(key=lambda d: d.path)
    findings = [f for d in selected for f in _in_notebook(root, d.path, doc_findings(d, config))]
    findings += _quarantined([doc for doc in docset.docs if doc.path in {d.path for d in selected}], config)
    rows = tuple(
        {"path": d.path, "slug": d.slug, "verdict": d.staleness.verdict, "last_updated": d.staleness.last_updated,
         "reasons": list(d.staleness.reasons)}
        for d in selected
    )
    return CheckReport(tuple(findings), fresh.warnings, rows, time.perf_counter() - t0, tuple(not_judged))


DOC_SUFFIXES = (*tuple(f".{e}" for e in sorted(DOC_EXTS)), NOTEBOOK_SUFFIX)


def with_large_docs(repo_files: RepoFiles) -> RepoFiles:
    """The scan with the docs kept out of prompts only for their size put back (as docs)."""
    large = [FileEntry(e.path, repo_files.stats.get(e.path, (0, 0))[0], "doc") for e in repo_files.excluded
             if e.category == "size" and e.path.lower().endswith(DOC_SUFFIXES)]
    if not large:
        return repo_files
    paths = {f.path for f in large}
    return replace(repo_files, files=repo_files.files + tuple(large),
                   excluded=tuple(e for e in repo_files.excluded if e.path not in paths), _by_path={}, _excluded_by_path={})


def _why_not(path: str, repo_files: RepoFiles, config: Config, drafts: set[str], titled: set[str]) -> str:
    """Why a path given was not judged ("" for a code file: it selects the docs naming it)."""
    if is_record(path, config.context.record_dirs) or path in titled:
        return "a record (release notes, changelog, history): never judged"
    if path in drafts:
        return "not a doc freshness reads (a draft, or outside the doc globs / vault)"
    excluded = repo_files.exclusion(path)
    if excluded is not None and path.lower().endswith(DOC_SUFFIXES):
        return f"kept out by the file gate: {excluded.reason}"
    return ""


def doc_findings(d: DocFreshness, config: Config) -> list[Finding]:
    """What `check_docs` reports for one judged doc (`assess_docs(...).by_path[path]`)."""
    from noface_ctx.freshness.judgement import changed_reason, missing_reason

    ctx = config.context
    out = [Finding(d.path, m.line, "stale-ref", missing_reason(m), "error" if m.proven else "warning")
           for m in d.staleness.missing]
    sev: Severity = "error" if ctx.fail_on_changes or (ctx.fail_on_age and d.age_flagged) else "warning"
    for c in d.staleness.changed:
        out.append(Finding(d.path, c.line, "changed-ref", changed_reason(c, d.staleness.last_updated), sev))
    return out


def _in_notebook(root: Path, path: str, found: list[Finding]) -> list[Finding]:
    """A notebook's findings at the line of the `.ipynb` file that holds the line named, the
    cell and its line said first in the message (`cell 12, line 3: references ...`)."""
    if not found or not is_notebook(path):
        return found
    from noface_ctx.docs.load import read_doc_file

    try:
        notebook = read_notebook(read_doc_file(path, root / path))
    except OSError:
        return found
    out = []
    for f in found:
        place = notebook.place(f.line)
        out.append(f if place is None else replace(f, line=place.file_line, message=f"{place.label()}: {f.message}"))
    return out


def _quarantined(docs: Sequence[Any], config: Config) -> list[Finding]:
    """Docs the ledger's failures withhold from prompts: named as needing review (a warning)."""
    from noface_ctx.trust.effects import weigh_docs

    weights = weigh_docs(config, docs)
    return [Finding(path, 1, "needs-review", t.reasons[0], "warning")
            for path, t in sorted(weights.items()) if t.quarantined]

"""The frozen values that cross stage boundaries.

Paths are repo-relative POSIX strings; line numbers are 1-based and inclusive.
Types used inside a single stage live in that stage's module.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Literal, TypeAlias

from noface_ctx.schema import SCHEMA_VERSION, CodeRow, DocRow, PromptJSON, TokensJSON

# --------------------------------------------------------------------------- issue + manifest


@dataclass(frozen=True, slots=True)
class ManifestEntry:
    """One manifest path, optionally narrowed to a line range (`path:12-40`).

    A path ending in `/` is a directory entry and matches everything under it.
    """

    path: str
    start: int | None = None
    end: int | None = None

    @property
    def is_dir(self) -> bool:
        return self.path.endswith("/")

    def matches(self, path: str) -> bool:
        """True when `path` is this entry's file or lies under this directory entry."""
        if self.is_dir:
            return path.startswith(self.path) or self.path in ("./", "/")
        return path == self.path

    def __str__(self) -> str:
        if self.start is not None:
            return f"{self.path}:{self.start}-{self.end if self.end is not None else self.start}"
        return self.path


@dataclass(frozen=True, slots=True)
class Manifest:
    """What the agent may edit (`primary`), may read (`read`) and must never touch (`forbidden`)."""

    primary: tuple[ManifestEntry, ...] = ()
    read: tuple[ManifestEntry, ...] = ()
    forbidden: tuple[ManifestEntry, ...] = ()
    source: str = ""  # e.g. "explicit", "beads comment 3", ".noface/state.json"

    @property
    def empty(self) -> bool:
        return not (self.primary or self.read or self.forbidden)

    def is_forbidden(self, path: str) -> bool:
        return any(e.matches(path) for e in self.forbidden)

    def role(self, path: str) -> Literal["primary", "read", "forbidden"] | None:
        """Forbidden wins over everything; primary over read."""
        if self.is_forbidden(path):
            return "forbidden"
        if any(e.matches(path) for e in self.primary):
            return "primary"
        if any(e.matches(path) for e in self.read):
            return "read"
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "primary": [str(e) for e in self.primary],
            "read": [str(e) for e in self.read],
            "forbidden": [str(e) for e in self.forbidden],
            "source": self.source,
        }


@dataclass(frozen=True, slots=True)
class Issue:
    """An issue as plain text fields; never raw JSON."""

    id: str
    title: str
    description: str = ""
    design: str = ""
    acceptance_criteria: str = ""
    notes: str = ""
    labels: tuple[str, ...] = ()
    comments: tuple[str, ...] = ()
    issue_type: str = ""
    source: str = ""  # where it was read from, for messages
    manifest: Manifest | None = None


# What a caller may pass where an issue or a manifest is expected (`build_prompt`, `load_issue`):
# a beads id, a path to a .json/.md/.txt file or "-" for stdin, a beads-shaped mapping, or the value.
IssueRef: TypeAlias = "str | os.PathLike[str] | Mapping[str, Any] | Issue"
# a `Manifest`, a mapping with primary_files / read_files / forbidden_files, or a path to such JSON
ManifestRef: TypeAlias = "Manifest | Mapping[str, Any] | str | os.PathLike[str]"


# --------------------------------------------------------------------------- repository files

FileKind = Literal["code", "doc", "other"]


@dataclass(frozen=True, slots=True)
class FileEntry:
    """A file that may become context: it passed every exclusion rule."""

    path: str
    size: int
    kind: FileKind
    language: str | None = None  # tree-sitter language name, None when no grammar applies
    last_commit: int | None = None  # unix time of the last commit touching it, when known


ExclusionCategory = Literal[
    "secret", "forbidden", "path", "generated", "lockfile", "binary", "data", "size", "config"
]


@dataclass(frozen=True, slots=True)
class Excluded:
    """A file kept out of every prompt, and why."""

    path: str
    reason: str
    category: ExclusionCategory

    @property
    def servable_on_request(self) -> bool:
        """Only size exclusions may be lifted by an explicit NEED_CODE request."""
        return self.category == "size"


@dataclass(frozen=True, slots=True)
class RepoFiles:
    """The result of scanning a repository: candidates and exclusions."""

    root: str  # absolute path of the repository root
    files: tuple[FileEntry, ...]
    excluded: tuple[Excluded, ...]
    has_git: bool
    warnings: tuple[str, ...] = ()
    _by_path: Mapping[str, FileEntry] = field(default_factory=dict, repr=False, compare=False)
    _excluded_by_path: Mapping[str, Excluded] = field(
        default_factory=dict, repr=False, compare=False
    )
    # Digest of every listed path with its stat (content for files changed in the last seconds)
    # and verdict: equal fingerprints mean the same files with the same contents, so caches of
    # derived data (freshness) may be reused. "" = unknown (never reuse).
    fingerprint: str = field(default="", repr=False, compare=False)
    # path -> (size, mtime_ns) of each regular file as this scan found it (links left out), so
    # later stages need not stat the tree again
    stats: Mapping[str, tuple[int, int]] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self._by_path:
            object.__setattr__(self, "_by_path", {f.path: f for f in self.files})
        if not self._excluded_by_path:
            object.__setattr__(self, "_excluded_by_path", {e.path: e for e in self.excluded})

    def get(self, path: str) -> FileEntry | None:
        return self._by_path.get(path)

    def exclusion(self, path: str) -> Excluded | None:
        return self._excluded_by_path.get(path)

    def abspath(self, path: str) -> str:
        """The absolute path of a repository path (the same as joining with `PurePosixPath`,
        without building one for the plain relative paths git lists)."""
        if (path and path[0] != "/" and self.root != "/" and not self.root.endswith("/") and "//" not in path
                and not path.endswith(("/", "/.")) and path != "." and not path.startswith("./") and "/./" not in path):
            return f"{self.root}/{path}"
        return str(PurePosixPath(self.root) / path)


# --------------------------------------------------------------------------- docs


@dataclass(frozen=True, slots=True)
class WikiLink:
    """`[[target#heading|label]]` as written, and the slug it points at."""

    raw: str
    target: str  # slugified target (basename fallback applied by the resolver, not here)
    heading: str = ""
    label: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class Section:
    """A heading-delimited part of a doc. The preamble before the first heading has heading ""."""

    doc_slug: str
    heading: str
    anchor: str  # slugified heading, for `NEED_DOC: slug#anchor`
    level: int
    start_line: int
    end_line: int
    text: str


@dataclass(frozen=True, slots=True)
class Doc:
    """A design doc from the vault (or the `[context] doc_globs` fallback)."""

    path: str
    slug: str
    title: str
    text: str
    sections: tuple[Section, ...] = ()
    aliases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    doc_type: str = ""
    date: str | None = None
    updated: str | None = None
    description: str = ""
    links: tuple[WikiLink, ...] = ()
    is_instruction: bool = False  # runbooks, checklists, how-to skills: a higher bar to include
    frontmatter: Mapping[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- code


@dataclass(frozen=True, slots=True)
class CodeChunk:
    """A definition (function, method, class) or, without a grammar, a window of lines."""

    path: str
    symbol: str  # qualified name, e.g. "Class.method"; "" for a line window
    kind: str  # "function" | "method" | "class" | "window" | ...
    start_line: int
    end_line: int
    signature: str = ""
    docstring: str = ""
    text: str = ""
    parent: str = ""  # qualified name of the enclosing definition, "" at module level
    references: tuple[str, ...] = ()  # identifiers it calls or reads, for callers/callees
    language: str | None = None


# --------------------------------------------------------------------------- freshness

Verdict = Literal["fresh", "possibly stale", "stale"]


@dataclass(frozen=True, slots=True)
class MissingRef:
    """A code reference in a doc that resolved when the doc was last updated and no longer does."""

    ref: str
    line: int
    suggestion: str | None = None  # what replaced it in the commit that removed it, if anything
    commit: str | None = None  # that commit: `sha (date, "subject")`
    proven: bool = True  # False: no history here (no git, a shallow clone) to tell it ever existed
    never: bool = False  # its module never defined it while the doc wrote it (`never_defined`): `commit` wrote the line


@dataclass(frozen=True, slots=True)
class ChangedRef:
    """A symbol a doc names whose definition changed since the doc was last updated."""

    ref: str
    line: int
    path: str  # the file defining it
    commit: str  # the commit that made it what it is now: `sha (date, "subject")`, or "uncommitted edits"
    what: str = "body"  # "signature" | "body"


@dataclass(frozen=True, slots=True)
class Staleness:
    """How far a doc can be trusted, with reasons a person can read."""

    verdict: Verdict = "fresh"
    reasons: tuple[str, ...] = ()
    missing: tuple[MissingRef, ...] = ()
    changed: tuple[ChangedRef, ...] = ()
    last_updated: str | None = None  # ISO date
    references: tuple[str, ...] = ()  # resolved code refs (symbols and paths) the doc talks about
    signatures: tuple[tuple[str, str], ...] = ()  # (symbol, "(args)") as the doc's prose states them

    @property
    def stale(self) -> bool:
        return self.verdict != "fresh"

    def note(self) -> str:
        """The warning placed next to a stale doc in any prompt or answer."""
        if not self.stale:
            return ""
        lines = ["Note: this doc may be outdated; prefer the current code as source of truth."]
        lines += [f"- {r}" for r in self.reasons]
        return "\n".join(lines)


# --------------------------------------------------------------------------- ranking + budget

CandidateKind = Literal["doc", "code"]


@dataclass(frozen=True, slots=True)
class Form:
    """One way to render a candidate: `text` is the complete block as it appears in the prompt."""

    label: str  # "full" | "sections" | "outline" | "range" | ...
    text: str
    tokens: int
    ranges: tuple[tuple[int, int], ...] = ()  # lines this form shows: a doc's, or code's when not the candidate's span


@dataclass(frozen=True, slots=True)
class Candidate:
    """A doc or code item competing for budget, with the evidence for its score.

    `forms` go from most to least complete; the packer takes the first that fits, and an
    item whose smallest form does not fit is omitted with `request` as the way to get it.
    """

    kind: CandidateKind
    path: str
    ref: str  # doc slug, or code qualified symbol ("" = whole file)
    title: str
    forms: tuple[Form, ...]
    score: float
    request: str  # e.g. "NEED_CODE: a.py:10-40" / "NEED_DOC: auth-design"
    scores: Mapping[str, float] = field(default_factory=dict)
    reasons: tuple[str, ...] = ()
    start_line: int = 0
    end_line: int = 0
    symbol_kind: str = ""
    required: bool = False  # manifest files: always try to include, before ranked items
    staleness: Staleness | None = None


@dataclass(frozen=True, slots=True)
class Chosen:
    candidate: Candidate
    form: Form


@dataclass(frozen=True, slots=True)
class Omitted:
    """Relevant context that was left out, and the exact line that fetches it."""

    kind: CandidateKind
    path: str
    ref: str
    reason: str
    request: str
    score: float = 0.0
    required: bool = False  # a manifest item: listed first, never dropped as low-scored


@dataclass(frozen=True, slots=True)
class Selection:
    docs: tuple[Chosen, ...]
    code: tuple[Chosen, ...]
    omitted: tuple[Omitted, ...]
    budget: int
    docs_budget: int
    code_budget: int
    skipped: tuple[Omitted, ...] = ()  # decided but not listed: duplicates, beyond the omitted cap
    unlisted: int = 0  # relevant omissions not even listed (over the cap or its room): counted in the prompt


# --------------------------------------------------------------------------- output


@dataclass(frozen=True, slots=True)
class Prompt:
    """The finished prompt and everything needed to explain it."""

    text: str
    issue: Issue
    tokens: TokensJSON  # total, budget, docs, code, fixed, omitted
    docs: tuple[DocRow, ...]  # per ranked doc: path, slug, scores, included, reason, stale, ...
    code: tuple[CodeRow, ...]  # per included code item: path, symbol, lines, kind, tokens
    excluded: tuple[Excluded, ...]
    omitted: tuple[Omitted, ...]
    warnings: tuple[str, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)  # complexity, K, embedder, timings

    SCHEMA_VERSION = SCHEMA_VERSION  # the compatibility rule is in schema.py

    def to_dict(self) -> PromptJSON:
        """The versioned JSON form (`schema.PromptJSON`)."""
        return {
            "version": self.SCHEMA_VERSION,
            "issue": {"id": self.issue.id, "title": self.issue.title, "source": self.issue.source},
            "prompt": self.text,
            "tokens": self.tokens.copy(),
            "docs": [d.copy() for d in self.docs],
            "code": [c.copy() for c in self.code],
            "excluded": [{"path": e.path, "reason": e.reason, "category": e.category} for e in self.excluded],
            "omitted": [
                {"path": o.path, "ref": o.ref, "kind": o.kind, "reason": o.reason, "request": o.request}
                for o in self.omitted
            ],
            "warnings": list(self.warnings),
            "details": dict(self.details),
        }

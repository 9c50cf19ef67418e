"""The JSON that noface_ctx emits (`preview --json`, `Prompt.to_dict()`, the MCP `build_prompt` tool).

Every object carries `version` (`SCHEMA_VERSION`). The compatibility rule: within one version,
fields are only ever added, never removed, renamed or given another type or meaning; a consumer
must ignore fields it does not know. Removing or changing a field bumps the version. The rows
below are `TypedDict`s so that the code building them and a caller reading them agree on names.
"""

from __future__ import annotations

from typing import Any, TypedDict

SCHEMA_VERSION = 1


class IssueJSON(TypedDict):
    id: str
    title: str
    source: str  # where the issue was read from: a path, `bd show ID`, `stdin`, ...


class TokensJSON(TypedDict, total=False):
    total: int  # the whole prompt, cl100k tokens; never over `budget`
    budget: int
    docs: int
    code: int
    fixed: int  # role, issue, manifest, commands, protocol sections
    omitted: int  # the OMITTED CONTEXT list


class DocRow(TypedDict, total=False):
    """One ranked doc: its scores, the verdict of the relevance bar and of the packer."""

    path: str
    slug: str
    title: str
    bm25: float
    embedding: float | None  # cosine similarity; None when ranking was BM25 only
    lexical: float
    relevance: float
    threshold: float
    linked: bool  # the issue links it explicitly
    via: list[str]  # docs that link to it, when it came in as a neighbour
    instruction: bool  # a runbook / checklist / how-to (a higher bar)
    score: float
    relevant: bool
    reason: str
    stale: bool
    stale_reasons: list[str]
    included: bool
    tokens: int
    form: str  # full, sections, ... (what the packer chose)
    ranges: list[list[int]]  # the file lines the included form shows, [[start, end], ...]
    trust: dict[str, Any]  # only when outcomes or age changed its weight: factor, quarantined, failures, reasons, restore


class CodeRow(TypedDict, total=False):
    """One code item in the prompt (or, in `details`, a ranked one)."""

    path: str
    symbol: str  # qualified name; "" for a whole file
    kind: str  # function, class, method, file, ...
    start_line: int  # 1-based, inclusive; 0 for a whole file
    end_line: int
    tokens: int
    score: float
    form: str
    required: bool  # from the manifest: always shown
    reason: str
    bm25: float
    embedding: float | None
    boosts: float
    reasons: list[str]
    ranges: list[list[int]]  # [start, end] line ranges shown, when the form shows only some


class ExcludedRow(TypedDict):
    path: str
    reason: str
    category: str  # path, secret, size, binary, generated, forbidden, ...


class OmittedRow(TypedDict):
    path: str
    ref: str  # slug#section or qualified symbol
    kind: str  # doc or code
    reason: str
    request: str  # the NEED_CODE / NEED_DOC line that fetches it


class PromptJSON(TypedDict):
    """`Prompt.to_dict()`: the prompt and everything needed to explain it."""

    version: int
    issue: IssueJSON
    prompt: str
    tokens: TokensJSON
    docs: list[DocRow]
    code: list[CodeRow]
    excluded: list[ExcludedRow]
    omitted: list[OmittedRow]
    warnings: list[str]
    details: dict[str, Any]  # complexity, k, embedder, ranked_files, timings, manifest, clashes, ...


# --------------------------------------------------------------------------- check-docs --json


class FindingJSON(TypedDict):
    path: str
    line: int
    code: str  # stale-ref | changed-ref
    message: str
    severity: str  # error | warning


class CheckReportJSON(TypedDict):
    """`check-docs --json`, `CheckReport.to_dict()`, the MCP `check_docs` tool."""

    version: int
    exit_code: int  # 1 when any finding is an error
    findings: list[FindingJSON]
    docs: list[dict[str, Any]]  # per checked doc: path, slug, verdict, last_updated, reasons
    warnings: list[str]
    seconds: float
    not_judged: list[dict[str, str]]  # {path, reason}: a doc given (or of the repository) that was not judged, and why


# --------------------------------------------------------------------------- signals --json


class RequestJSON(TypedDict, total=False):
    """One `NEED_CODE:` / `NEED_DOC:` line as parsed (the location fields only when it is valid)."""

    kind: str  # code | doc
    target: str
    request: str  # the canonical request line
    path: str
    start: int | None
    end: int | None
    symbol: str
    heading: str
    error: str  # why the line was rejected
    line: int  # where it appeared in the agent's output
    raw: str


class ParseResultJSON(TypedDict):
    version: int
    format: str  # text | stream-json | events
    requests: list[RequestJSON]
    rejected: list[RequestJSON]


class AnswerItemJSON(TypedDict):
    request: str
    kind: str
    target: str
    line: int
    outcome: str  # served | partial | refused | not found | over budget ...
    reason: str
    tokens: int
    suggestions: list[str]
    next: str  # the request that fetches what was left out, when anything was
    path: str  # the file served ("" when nothing was)
    ranges: list[list[int]]  # its lines the answer covers, [[start, end]]
    form: str  # "full" (all that was asked), "section", "partial" (cut or outline), "" (not served)


class AnswerJSON(TypedDict):
    """`signals --resolve --json`, `Answer.to_dict()`, the MCP `need_code` / `need_doc` tools."""

    version: int
    text: str  # the CONTEXT YOU REQUESTED: block
    tokens: int
    budget: int
    items: list[AnswerItemJSON]
    warnings: list[str]
    log: str | None

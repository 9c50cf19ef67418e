"""`noface-ctx mcp`: the prompt builder as an MCP server over stdio, one process per repository.

`Workspace` holds one repository (and optionally one issue, whose manifest then governs every
answer) and answers the five tools with the package's public functions — `build_prompt`,
`resolve_requests`, `rank_code`, `check_docs` — so every fix to those applies here too. Nothing is
re-implemented: the warm path is the package's own in-process caches (the index memo keyed by the
scan's fingerprint, the loaded embedder and its vectors, the scan/doc caches), kept alive because
the process is. Each call rescans (stat + content hashes of changed files), so edits made while
the server runs are seen on the next call.

`serve()` wraps the workspace in the official SDK's `MCPServer` (mcp 2.x). A `NofaceError`
becomes an MCP tool error carrying its one-line message; argument validation errors are the
SDK's own tool errors; anything else is logged to stderr and returned as a tool error too. The
SDK diverts fd 1 to stderr while serving, so only protocol messages reach stdout.
"""

# No `from __future__ import annotations`: the SDK evaluates the tool signatures at registration.

import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from noface_ctx._mcp_answers import shape
from noface_ctx._wording import need_code, need_code_range
from noface_ctx._wording_mcp import issue_outside
from noface_ctx.config import Config
from noface_ctx.datatypes import Issue, Manifest
from noface_ctx.errors import InputError, NofaceError, UsageError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

log = logging.getLogger("noface_ctx.mcp")

MAX_TARGET_CHARS = 1000
MAX_QUERY_CHARS = 4000
MAX_K = 50
MAX_PATHS = 200

INSTRUCTIONS = (
    "Context for coding agents in one repository. Call build_prompt first for the issue you work "
    "on; then ask need_code / need_doc for anything the prompt lists under OMITTED CONTEXT or that "
    "you still need, and search_code to find definitions by description. Forbidden and secret "
    "files are always refused."
)


class Workspace:
    """One repository (and optional issue) with warm caches; every method is one tool call."""

    def __init__(self, config: Config, issue: Issue | None = None, issues_dir: Path | None = None) -> None:
        self.config = config
        self.root = Path(config.root).resolve()
        self.issue = issue
        self.issues_dir = issues_dir  # `mcp --issues-dir`: build_prompt may read issue files there too
        self.manifest: Manifest | None = issue.manifest if issue is not None else None
        self._lock = threading.Lock()  # the package's caches are per process, not per thread
        self._prompts: dict[tuple[Any, ...], dict[str, Any]] = {}  # the latest prompt, by input state
        self._served: dict[tuple[Any, ...], list[Any]] = {}  # its ledger rows (`noface_ctx.trust`)
        self._last_issue = issue.id if issue is not None else ""  # whom need_* / search_code answers serve

    # ------------------------------------------------------------------ tools

    def build_prompt(self, issue: str | None = None, budget: int | None = None) -> dict[str, Any]:
        from noface_ctx._pipeline import build_prompt
        from noface_ctx.trust.record import prompt_rows

        ref = self._issue_ref(issue)
        if budget is not None and budget <= 0:
            raise UsageError(f"budget must be a positive number of tokens, got {budget}")
        with self._lock:
            t0 = time.perf_counter()
            key, the_issue = self._prompt_key(ref, budget)
            details = self._prompts.get(key) if key else None
            rows = self._served.get(key, []) if key else []
            reused = details is not None
            if details is None:
                prompt = build_prompt(the_issue, repo=self.root, config=self.config, budget=budget)
                built: dict[str, Any] = {**prompt.to_dict()}
                details, rows = built, prompt_rows(prompt, self.root)
                if key:
                    self._prompts.clear()  # only the latest state is worth keeping
                    self._served.clear()
                    self._prompts[key], self._served[key] = details, rows
            self._last_issue = the_issue.id
            self._record(rows, "build_prompt")
            seconds = time.perf_counter() - t0
        return {**details, "seconds": round(seconds, 3), "reused": reused}

    def _prompt_key(self, ref: Any, budget: int | None) -> tuple[Any, Issue]:
        """(key, issue): the same issue text and manifest, budget, file state (paths, stats, verdicts:
        the scan's fingerprint) and git HEAD give the same prompt, so it is built once per state.
        Key None (no reuse) when the state cannot be fingerprinted."""
        from noface_ctx._stages import input_state

        the_issue = ref if isinstance(ref, Issue) else self._named_issue(ref)
        state = input_state(the_issue, self.config)
        return ((repr(the_issue), budget, state) if state else None), the_issue

    def need(self, kind: str, target: str) -> dict[str, Any]:
        """The answer `signals --resolve` gives to one `NEED_CODE:` / `NEED_DOC:` line."""
        from noface_ctx.signals.parse import parse_signals_detailed
        from noface_ctx.signals.respond import resolve_requests
        from noface_ctx.trust.record import answer_rows

        if not isinstance(target, str) or not target.strip():
            raise UsageError("target must be a non-empty string")
        if len(target) > MAX_TARGET_CHARS or "\n" in target or "\r" in target:
            raise UsageError(f"target must be one line of at most {MAX_TARGET_CHARS} characters")
        line = f"NEED_{kind.upper()}: {target.strip()}"
        parsed = parse_signals_detailed(line)
        with self._lock:
            answer = resolve_requests(parsed, repo=self.root, issue=self.issue, config=self.config,
                                      manifest=self.manifest)
            self._record(answer_rows(answer, self.root, f"need_{kind}"), f"need_{kind}")
        out: dict[str, Any] = {**answer.to_dict()}
        out["request"] = line
        out["outcome"] = out["items"][0]["outcome"] if out["items"] else "refused"
        return out

    def search_code(self, query: str, k: int = 10) -> dict[str, Any]:
        """Ranked definitions for a free-text query: the hybrid code ranker, no prompt."""
        from noface_ctx._stages import search_code
        from noface_ctx.rank.code_report import code_location

        if not isinstance(query, str) or not query.strip():
            raise UsageError("query must be a non-empty string")
        if len(query) > MAX_QUERY_CHARS:
            raise UsageError(f"query is longer than {MAX_QUERY_CHARS} characters")
        if not 1 <= k <= MAX_K:
            raise UsageError(f"k must be between 1 and {MAX_K}, got {k}")
        with self._lock:
            t0 = time.perf_counter()
            found = search_code(query, self.config, self.manifest)  # forbidden files are not even candidates
        results: list[dict[str, Any]] = []
        seen: set[tuple[object, ...]] = set()
        # by score: the candidates come in the packer's order (one item per file first, so a
        # prompt covers several files), which put `locate_app` 11th for a query it answers best
        for cand in sorted(found.ranking.candidates, key=lambda c: -c.score):
            if self._refused(cand.path) or found.files.get(cand.path) is None:
                continue
            where = (cand.path, cand.ref) if cand.ref else (cand.path, cand.start_line, cand.end_line)
            if where in seen:  # `@overload` stubs and their implementation: one row, which serves the body
                continue
            seen.add(where)
            row = code_location(cand)
            row.update(score=round(float(cand.score), 4), reasons=list(cand.reasons),
                       request=need_code(cand.path, cand.ref) if cand.ref
                       else need_code_range(cand.path, cand.start_line, cand.end_line) if cand.start_line
                       else need_code(cand.path))
            results.append(row)
            if len(results) >= k:
                break
        from noface_ctx.trust.record import location_rows

        self._record(location_rows(results, self.root, "search_code"), "search_code")
        return {"query": query, "results": results, "embeddings": found.embeddings,
                "seconds": round(time.perf_counter() - t0, 3)}

    def check_docs(self, paths: list[str] | None = None) -> dict[str, Any]:
        from noface_ctx._user_paths import checkable
        from noface_ctx.freshness.check import check_docs
        from noface_ctx.signals.parse import normalise_path

        if len(paths or []) > MAX_PATHS:
            raise UsageError(f"at most {MAX_PATHS} paths per call")
        wanted = []
        for raw in paths or []:
            norm, problem = normalise_path(raw)
            if problem:
                raise UsageError(f"{raw}: {problem}")
            refusal = self._refused(norm)
            if refusal:
                raise UsageError(f"{raw}: {refusal}")
            wanted.append(checkable(norm, self.root, from_cwd=False))
        paths = wanted
        with self._lock:
            report = check_docs(paths, repo=self.root, config=self.config)
        out: dict[str, Any] = {**report.to_dict()}
        out["findings"] = [f for f in out["findings"] if not self._refused(f.get("path", ""))]
        out["docs"] = [d for d in out["docs"] if not self._refused(str(d.get("path", "")))]
        out["lines"] = [ln for ln in report.lines() if not self._refused(ln.split(":", 1)[0])]
        return out

    def warm_up(self) -> float:
        """Scan, index and load the embedder once so the first tool call is already warm."""
        from noface_ctx._stages import warm_up

        with self._lock:
            return warm_up(self.config, self.manifest)

    def report_outcome(self, outcome: str, issue: str | None = None, note: str = "") -> dict[str, Any]:
        """An orchestrator's verdict on an issue (`ok` | `failed`), kept in the ledger: failures
        weigh against the docs served to it in full (`docs/trust.md`)."""
        from noface_ctx.trust.commands import outcome as record

        the_id = self.issue.id if self.issue is not None else (issue or "").strip()
        if self.issue is not None and issue and issue not in (self.issue.id, self.issue.source):
            raise UsageError(f"this server serves issue {self.issue.id}: start another with --issue {issue}")
        if not the_id:
            raise UsageError("issue is required: the id build_prompt served")
        with self._lock:
            line = record(self.config, the_id, outcome, note, source="mcp")
        return {"issue": the_id, "outcome": outcome, "recorded": line}

    # ------------------------------------------------------------------ helpers

    def _record(self, rows: list[Any], via: str) -> None:
        """What a tool served, into the ledger under the current issue, one turn per call."""
        from dataclasses import replace

        from noface_ctx.trust.ledger import Ledger

        if not rows:
            return
        issue = self._last_issue or "(no issue)"
        ledger = Ledger.of(self.config)
        ledger.record_served(issue, ledger.last_turn(issue) + 1, "mcp", [replace(r, via=via) for r in rows],
                             root=self.root)

    def _issue_ref(self, issue: str | None) -> Any:
        if self.issue is not None:
            if issue and issue not in (self.issue.id, self.issue.source):
                raise UsageError(f"this server serves issue {self.issue.id}: start another with --issue {issue}")
            return self.issue
        if not issue or not isinstance(issue, str) or not issue.strip():
            raise UsageError("issue is required: a beads id or a repository-relative .md/.json issue file")
        return issue.strip()  # an id, or a file the reader gate judges (`_prompt_key`)

    def _named_issue(self, ref: str) -> Issue:
        """The issue an agent names: an id, or a file in the repository or in `--issues-dir`, past
        the reader gate (`_issue_sources`: the NEED_CODE gate, links leaving the folder refused)."""
        from noface_ctx._issue_sources import in_folder, load_issue_ref, names_file

        try:
            return load_issue_ref(ref, self.config, in_folder(self.root, self.root), manifest=self.manifest)[0]
        except InputError as exc:
            in_repo = not Path(ref).is_absolute() and os.path.lexists(self.root / ref)
            if not names_file(ref) or in_repo:
                raise  # an unknown id, or a repository file the gate refused: refused everywhere
            if self.issues_dir is None:
                if "refused" not in str(exc):
                    raise
                raise InputError(issue_outside(ref, str(exc).split("; ")[0])) from None
        target = ref if Path(ref).is_absolute() else str(self.issues_dir / ref)
        return load_issue_ref(target, self.config, in_folder(self.issues_dir, self.root), manifest=self.manifest)[0]

    def _refused(self, path: str) -> str:
        from noface_ctx.files.gate import is_secret_path

        if self.manifest is not None and self.manifest.is_forbidden(path):
            return "forbidden by the issue manifest"
        if is_secret_path(path):
            return "secret file: never served"
        return ""


# ---------------------------------------------------------------------- the MCP layer


def create_server(workspace: Workspace) -> "MCPServer":
    """An `MCPServer` whose tools call `workspace`; a NofaceError becomes a tool error."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        from mcp_types import CallToolResult, TextContent, ToolAnnotations
    except ImportError as exc:
        raise UsageError(f"the MCP server needs the mcp package (>= 2.3): pip install 'noface_ctx[mcp]' ({exc})") from None

    from noface_ctx import __version__

    server = MCPServer(name="noface-ctx", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    def call(tool: str, fn: Any, *args: Any, details: bool = False) -> CallToolResult:
        try:
            data = fn(*args)
        except NofaceError as exc:
            raise ToolError(str(exc)) from None
        except (OSError, ValueError) as exc:
            log.exception("tool failed")
            raise ToolError(f"{type(exc).__name__}: {exc}") from None
        texts, structured = shape(tool, data, details=details)  # sized for the agent, see _mcp_answers
        return CallToolResult(content=[TextContent(type="text", text=t) for t in texts], structured_content=structured)

    @server.tool(
        name="build_prompt",
        description=(
            "Build the implementation prompt for an issue: the issue and its manifest, the design docs "
            "and code that matter, under a token budget, with OMITTED CONTEXT lines naming what was "
            "left out. `issue`: a beads id (e.g. nfc-1) or a repository-relative .md/.json issue file; "
            "optional when the server was started with --issue. `budget`: total tokens (default: the "
            "repository's [context] budget_tokens). Returns the prompt text and a line stating its size "
            "in tokens. `details: true` adds the JSON details (ranking of docs and code, omitted and "
            "excluded files), whose size the line states beforehand."
        ),
        annotations=read_only,
    )
    def build_prompt(issue: str | None = None, budget: int | None = None, details: bool = False) -> CallToolResult:
        return call("build_prompt", workspace.build_prompt, issue, budget, details=details)

    @server.tool(
        name="need_code",
        description=(
            "Fetch code: the answer to `NEED_CODE: <target>`. `target` is `path`, `path:START-END` "
            "(1-based, inclusive), `path::Qualified.name` (a method inherited from a base class is "
            "found there; the implementation, not @overload stubs) or a name alone (`Class.method`). Forbidden, secret and outside-the-repository paths are refused; the answer "
            "is capped at the request budget and says how to fetch the rest."
        ),
        annotations=read_only,
    )
    def need_code(target: str) -> CallToolResult:
        return call("need_code", workspace.need, "code", target)

    @server.tool(
        name="need_doc",
        description=(
            "Fetch a design doc: the answer to `NEED_DOC: <target>`. `target` is a doc slug, alias or "
            "path, optionally with `#section`. Staleness is noted; forbidden and secret docs are refused."
        ),
        annotations=read_only,
    )
    def need_doc(target: str) -> CallToolResult:
        return call("need_doc", workspace.need, "doc", target)

    @server.tool(
        name="search_code",
        description=(
            "Find definitions (functions, classes, methods) matching a description, best first, with "
            "path, symbol, kind and line range, plus the NEED_CODE request that fetches each. Uses "
            "the same BM25 + embedding ranker as build_prompt; no prompt is built. `k`: 1-50, default 10."
        ),
        annotations=read_only,
    )
    def search_code(query: str, k: int = 10) -> CallToolResult:
        return call("search_code", workspace.search_code, query, k)

    @server.tool(
        name="check_docs",
        description=(
            "Check design docs for staleness: references to symbols or paths that no longer exist, "
            "churn in the code they describe, age. `paths`: docs or code files (repository-relative); "
            "a code file checks the docs that reference it; none checks every doc. Returns findings "
            "(path, line, code, message, severity) and per-doc verdicts."
        ),
        annotations=read_only,
    )
    def check_docs(paths: list[str] | None = None) -> CallToolResult:
        return call("check_docs", workspace.check_docs, paths)

    @server.tool(
        name="report_outcome",
        description=(
            "Report how the work on an issue ended: `outcome` is `ok` (accepted: tests pass, review "
            "passed) or `failed`. A failure weighs against the design docs that issue was served in "
            "full; repeated failures withhold a doc pending review. `issue`: the id build_prompt "
            "served (optional when the server was started with --issue); `note`: why, in a line."
        ),
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
    )
    def report_outcome(outcome: Literal["ok", "failed"], issue: str | None = None, note: str = "") -> CallToolResult:
        return call("report_outcome", workspace.report_outcome, outcome, issue, note)

    return server


def serve(config: Config, issue_ref: str | None = None, *, warm: bool = True, issues_dir: Path | None = None) -> int:
    """Run the server on stdin/stdout until the client closes the connection."""
    from noface_ctx.issue.load import load_issue

    logging.basicConfig(level=logging.WARNING, format="noface-ctx mcp: %(message)s")
    issue = load_issue(issue_ref, config.root) if issue_ref else None  # typed by the user: any form
    workspace = Workspace(config, issue, issues_dir)
    server = create_server(workspace)
    if warm:  # in the background: the client's initialize and list_tools need not wait for it
        def _warm() -> None:
            try:
                seconds = workspace.warm_up()
                log.info("warm in %.2fs", seconds)
            except Exception as exc:
                log.warning("warm-up failed: %s: %s", type(exc).__name__, exc)

        threading.Thread(target=_warm, name="noface-warm", daemon=True).start()
    server.run("stdio")
    return 0

"""`resolve_requests`: answer parsed requests from the repository within a token budget, and log them.

The one place that joins the signals stages: requests (`values`) go through the `Resolver`
(`resolve`), are packed by `answer`, and come back as an `Answer`. Parsing never imports this.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noface_ctx._tokens import count_tokens
from noface_ctx._wording_answers import ANSWER_HEADER, not_answered
from noface_ctx.datatypes import Issue, IssueRef, Manifest
from noface_ctx.errors import UsageError
from noface_ctx.signals._answer import assemble, write_log
from noface_ctx.signals._resolve import Resolver
from noface_ctx.signals.values import Answer, AnswerItem, ParseResult, Request

if TYPE_CHECKING:
    from noface_ctx.config import Config

__all__ = ["ANSWER_HEADER", "DEFAULT_BUDGET_SHARE", "MAX_REQUESTS", "resolve_requests"]

DEFAULT_BUDGET_SHARE = 0.25  # of [context] budget_tokens, when no budget is given
# Requests looked up per answer (a turn): an agent printing thousands of NEED_* lines gets the
# first ones answered and one line saying how many were not, in time linear in its output.
MAX_REQUESTS = 20


def resolve_requests(
    requests: str | Iterable[Request] | ParseResult,
    repo: str | Path = ".",
    *,
    issue: IssueRef | None = None,
    config: Config | None = None,
    budget: int | None = None,
    log: bool = True,
    manifest: Manifest | None = None,
) -> Answer:
    """Answer requests from the repository, within `budget` tokens, and append them to the log.

    `issue` (an `Issue`, id or path) supplies the manifest whose forbidden files are refused;
    a rejected `Request` (or a whole `ParseResult`, or agent output given as text, parsed here) is
    answered with its parse error, as `signals --resolve` and MCP `need_code` answer it. Paths never
    leave the repository; secrets are always refused; only size exclusions yield to a request.
    """
    from noface_ctx.config import load_config

    if isinstance(requests, str):
        from noface_ctx.signals.parse import parse_signals_detailed

        requests = parse_signals_detailed(requests)
    if isinstance(requests, ParseResult):
        requests = (*requests.requests, *requests.rejected)
    reqs = list(requests)
    config = config if config is not None else load_config(repo)
    issue_obj = _load_issue(issue, config)
    if manifest is None and issue_obj is not None:
        manifest = issue_obj.manifest
    if budget is None:
        budget = max(1, int(config.context.budget_tokens * DEFAULT_BUDGET_SHARE))
    if budget <= 0:
        raise UsageError(f"answer budget must be a positive number of tokens, got {budget}")
    kept, left = _cap(reqs)
    resolver = Resolver(config, manifest)
    drafts = [resolver.resolve(req) for req in kept]
    over = sum(1 for _req, repeat in left if not repeat)
    footer = not_answered(over, len(left) - over, MAX_REQUESTS) if left else ""
    text, items = assemble(drafts, budget, header=ANSWER_HEADER, footer=footer)
    warnings: list[str] = []
    log_path = None
    if log and items:
        issue_id = issue_obj.id if issue_obj is not None else (str(issue) if issue else None)
        log_path, warning = write_log(config, items, issue_id)
        if warning:
            warnings.append(warning)
    items += [AnswerItem(req, "refused", not_answered(int(not repeat), int(repeat), MAX_REQUESTS)[2:])
              for req, repeat in left]
    return Answer(text, tuple(items), count_tokens(text), budget, tuple(warnings), log_path)


def _cap(reqs: list[Request]) -> tuple[list[Request], list[tuple[Request, bool]]]:
    """(the first `MAX_REQUESTS` distinct requests, in order; the others, each with whether it
    repeats one of those). One pass, whatever the number of requests."""
    kept: list[Request] = []
    seen: set[str] = set()
    left: list[tuple[Request, bool]] = []
    for req in reqs:
        key = req.signal
        if key in seen:
            left.append((req, True))
        elif len(kept) < MAX_REQUESTS:
            seen.add(key)
            kept.append(req)
        else:
            left.append((req, False))
    return kept, left


def _load_issue(issue: Any, config: Config) -> Issue | None:
    """The issue `issue` names (an `Issue`, an id or a path), or None when none is given."""
    if issue is None or issue == "":
        return None
    if isinstance(issue, Issue):
        return issue
    from noface_ctx.issue.load import load_issue

    return load_issue(issue, config.root)

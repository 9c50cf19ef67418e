"""The sentences the MCP tools add around their answers: sizes in tokens, and how to ask for more.

`_wording.py` holds the prompt's and the answers' own sentences; this module the lines an MCP
tool result carries besides them. No logic beyond formatting.
"""

from __future__ import annotations


def prompt_size(prompt_tokens: int, budget: int, answer_tokens: int, details_tokens: int, *, details: bool) -> str:
    """After a prompt: its size, this answer's, and the details left out (or sent) with their size."""
    head = f"[prompt: {prompt_tokens:,} tokens of a {budget:,}-token budget; this answer: {answer_tokens:,} tokens."
    if details:
        return f"{head} The details above (ranking, omitted and excluded files) are {details_tokens:,} of them.]"
    return (f"{head} Details (ranking of docs and code, omitted and excluded files, about {details_tokens:,} "
            "tokens) are not included: call build_prompt again with details: true to get them.]")


def answer_size(answer_tokens: int, budget: int = 0) -> str:
    """After any other tool's answer: its size."""
    of = f" (answer budget {budget:,})" if budget else ""
    return f"[this answer: {answer_tokens:,} tokens{of}]"


def search_row(request: str, kind: str, start: int, end: int, score: float) -> str:
    """One search result: the request that fetches it first, then what it is."""
    return f"{request}  ({kind}, lines {start}-{end}, score {score:.2f})"


NO_RESULTS = "no definition matches this query"


def check_summary(docs: int, errors: int, warnings: int) -> str:
    """The first line of a check_docs answer."""
    return f"{docs} doc(s) checked: {errors} error(s), {warnings} warning(s)"


def outcome_recorded(issue: str, outcome: str) -> str:
    return f"recorded: issue {issue} ended {outcome}"


def issue_outside(ref: str, why: str) -> str:
    """Why build_prompt refused an issue file an agent named, and how the user allows it."""
    return (f"issue {ref}: an agent may name an issue file only inside the repository or the server's "
            f"issues folder ({why}); to allow a folder of issue files, start the server with "
            "`noface-ctx mcp --issues-dir DIR`, or pin one issue with `--issue FILE`")

"""Every sentence an answer to NEED_CODE / NEED_DOC requests shows the agent: the answer's
header, the heads of served code and docs, what was cut or not served and how to ask again.

`signals/_answer.py` and `signals/_resolve.py` decide; this module words (the request lines
themselves are the prompt's, in `_wording.py`). Functions are pure string builders.
"""

from __future__ import annotations

ANSWER_HEADER = "CONTEXT YOU REQUESTED:"
NOT_SERVED = "NOT SERVED:"
WHOLE_FILE = "whole file"  # what a request for a file asks for
CAPPED = "file excluded for size: served capped"


def answer_code_head(signal: str, path: str, start: int, end: int, what: str) -> str:
    """The first line of served code."""
    return f"### {signal} → {path}:{start}-{end} ({what})"


def overloads_listed(name: str, stubs: list[tuple[str, int, int]]) -> str:
    """Under an implementation: the `@overload` signatures of the same name, not shown."""
    asks = ", ".join(f"{path}:{start}-{end}" for path, start, end in stubs)
    return f"[{len(stubs)} @overload signature(s) of {name} not shown: NEED_CODE: {asks}]"


def elsewhere_listed(name: str, places: list[str]) -> str:
    """Under a definition found by name alone: the other definitions of that name."""
    shown = ", ".join(places[:3]) + (f" (+{len(places) - 3} more)" if len(places) > 3 else "")
    return f"[{name} is also defined in: NEED_CODE: {shown}]"


def answer_outline_head(signal: str, path: str, lines: int, why: str) -> str:
    """The first line of a file served as its outline."""
    return f"### {signal} → outline of {path} (lines 1-{lines}; {why})"


def answer_doc_head(signal: str, path: str, what: str, title: str) -> str:
    """The first line of a served doc."""
    return f"### {signal} → {path} ({what}: {title})"


def too_big_for_answer(what: str, tokens: int) -> str:
    """Why a piece is served in part."""
    return f"{what} is {tokens} tokens, more than this answer has room for"


def outline_cut(k: int, total: int, rest: str) -> str:
    """Under an outline of the first `k` definitions: the request for the rest."""
    return f"[outline cut after {k} of {total} definitions; the rest: {rest}]"


def bodies_omitted(path: str) -> str:
    """Under a complete outline: how to ask for a body."""
    return f"[bodies omitted: ask for a definition (NEED_CODE: {path}::NAME) or a range from this outline]"


def outline_reason(k: int, total: int, why: str) -> str:
    """Why an outline of the first `k` of `total` definitions was served."""
    return f"outline of {k} of {total} definitions: {why}" if k < total else f"outline only: {why}"


def cut_marker(last: int, rest: str = "") -> str:
    """Where served text was cut, with the request for the rest when there is one."""
    return f"[cut after line {last} to fit the answer budget" + (f"; the rest: {rest}]" if rest else "]")


def cut_reason(last: int, why: str = "") -> str:
    """Why text was served cut."""
    return f"cut after line {last}: {why}" if why else f"cut after line {last} to fit the budget"


def more_sections(asks: list[str], more: int) -> str:
    """Under a doc served in part: the requests for its other sections."""
    return f"[more sections: {', '.join(asks)}" + (f" (+{more} more)" if more > 0 else "") + "]"


def sections_left(left: int, total: int) -> str:
    """Why a doc was served in part."""
    return f"{left} of {total} sections left out to fit the budget"


def not_served_line(signal: str, outcome: str, reason: str, closest: list[str]) -> str:
    """One NOT SERVED entry, with the closest names when there are some."""
    return f"- {signal} — {outcome}: {reason}" + (f" (closest: {', '.join(closest)})" if closest else "")


def ask_alone(budget: int, signal: str) -> str:
    """Why a request that fits on its own was refused."""
    return f"does not fit in this answer's budget ({budget} tokens); ask again on its own: {signal}"


def line_too_long(line: int, budget: int, signal: str) -> str:
    """Why a request whose first line alone exceeds the budget was refused."""
    return (f"line {line} alone is longer than an answer of {budget} tokens, so no request "
            f"can serve it within this budget; only a larger budget can: {signal}")


def ask_for_part(budget: int, signal: str) -> str:
    """Why a request too big even alone was refused."""
    return (f"too big for an answer of {budget} tokens even on its own; ask for a part: a line range "
            f"(NEED_CODE: path:START-END) or a section (NEED_DOC: slug#anchor), or use a larger budget: {signal}")


def not_answered(over_cap: int, repeats: int, cap: int) -> str:
    """The last NOT SERVED line when a turn asked for more than `cap` requests, or repeated some;
    with `over_cap + repeats == 1`, why that one request was not looked up."""
    parts = [f"{over_cap} over the cap of {cap} requests per turn (ask again next turn for those still needed)",
             f"{repeats} repeating an earlier request of this turn (answered there)"]
    return f"- … {over_cap + repeats} more requests not answered: " + "; ".join(p for p in parts if p[0] != "0")


def not_listed(n: int) -> str:
    """The last NOT SERVED line when refusals had to be dropped."""
    return f"- … {n} more not listed for lack of room"

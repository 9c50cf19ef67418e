"""The turn contract of `noface-ctx run`: what each turn's input holds, within one budget.

A turn's input is the prompt, then the answers of earlier turns that still fit, then the
continuation note, then the plan section (the agent's latest plan last of all). When it would go
over the budget, earlier answers are evicted item by item, oldest first; each evicted item leaves
one line naming the turn that served it, where, its size, and the request that serves it again,
under a heading that says how much was left out. Eviction is for good: a later turn never brings
an evicted item back unasked. When the input is over budget with every answer evicted, the turn
is not sent (the caller shrinks the prompt or ends the issue `over_budget`).

Pure: no I/O, no agent; `_orchestrate.py` drives it.
"""

from __future__ import annotations

from dataclasses import dataclass

from noface_ctx._tokens import count_tokens
from noface_ctx._wording_answers import ANSWER_HEADER, NOT_SERVED
from noface_ctx._wording_run import EVICTED_TITLE, evicted_line, evicted_summary, over_budget_reason
from noface_ctx.signals.values import Answer

__all__ = ["Held", "TurnInput", "Window"]

_SEP = "\n\n"


@dataclass(frozen=True, slots=True)
class Held:
    """One served answer item: the turn whose input first carried it, where it comes from, its size,
    the request that serves it again, and its block of text."""

    turn: int
    where: str
    tokens: int
    request: str
    text: str

    def restore_line(self) -> str:
        return evicted_line(self.turn, self.where, self.tokens, self.request)


@dataclass(frozen=True, slots=True)
class TurnInput:
    """One turn's input and its figures; `over` is the reason when it cannot be sent."""

    text: str
    tokens: int
    answers_tokens: int  # of earlier answers kept in it
    evicted_now: int  # tokens of answer items evicted by this turn
    evicted_total: int  # tokens of every item evicted so far in this issue
    evicted_items: int
    over: str = ""


class Window:
    """The answers an issue's turns have been served, and which of them still fit."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.held: list[Held] = []  # oldest first
        self.evicted: list[Held] = []
        self._refusals = ""  # the newest answer's NOT SERVED block: shown once, in the next turn
        self._latest = 0  # the turn the newest answer is sent in

    def add(self, turn: int, answer: Answer) -> list[Held]:
        """Keep what `answer` served for the input of `turn` (the turn it is sent in)."""
        new = [Held(turn, item.where, item.tokens, item.request.signal, item.text)
               for item in answer.items if item.text and item.outcome in ("served", "partial")]
        self.held.extend(new)
        self._latest = turn
        _head, sep, tail = answer.text.partition(NOT_SERVED)
        self._refusals = (sep + tail).strip() if sep else ""
        return new

    def compose(self, prompt: str, note: str, plan: str, *, keep_newest: bool = True) -> TurnInput:
        """The input of the next turn within the budget, evicting earlier answers oldest first.
        With `keep_newest` the answer to the last turn's requests is never evicted (the caller
        shrinks the prompt first and asks again without it)."""
        before = len(self.evicted)
        while True:
            text = self._render(prompt, note, plan)
            tokens = count_tokens(text)
            if tokens <= self.budget or not self.held or (keep_newest and self.held[0].turn == self._latest):
                break
            self.evicted.append(self.held.pop(0))
        now = sum(h.tokens for h in self.evicted[before:])
        total = sum(h.tokens for h in self.evicted)
        kept = sum(h.tokens for h in self.held)
        over = over_budget_reason(tokens, self.budget) if tokens > self.budget else ""
        self._refusals = ""
        return TurnInput(text, tokens, kept, now, total, len(self.evicted), over)

    def _render(self, prompt: str, note: str, plan: str) -> str:
        parts = [prompt]
        if self.evicted:
            total = sum(h.tokens for h in self.evicted)
            lines = "\n".join(h.restore_line() for h in self.evicted)
            parts.append(f"{EVICTED_TITLE}\n{evicted_summary(len(self.evicted), total, self.budget)}\n{lines}")
        turns = sorted({h.turn for h in self.held})
        for turn in turns:
            blocks = [h.text for h in self.held if h.turn == turn]
            parts.append(_SEP.join([ANSWER_HEADER, *blocks]))
        if self._refusals:
            alone = self._latest not in turns  # nothing of the newest answer served: its header still says so
            parts.append(_SEP.join([ANSWER_HEADER, self._refusals]) if alone else self._refusals)
        parts += [p for p in (note, plan) if p]
        return _SEP.join(parts)

"""NEED_CODE / NEED_DOC requests: parsing agent output and answering it through the gate.

`parse` (text → `Request`s) never imports the answering side; `respond.resolve_requests` joins
`resolve` (requests → drafts through the gate) and `answer` (drafts → one budgeted block).
"""

from noface_ctx.signals.parse import parse_signals
from noface_ctx.signals.respond import resolve_requests

__all__ = ["parse_signals", "resolve_requests"]

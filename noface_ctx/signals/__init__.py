"""NEED_CODE / NEED_DOC requests: parsing agent output and answering it through the gate.

`parse` (text → `Request`s) never imports the answering side; `respond.resolve_requests` joins
`resolve` (requests → drafts through the gate) and `answer` (drafts → one budgeted block).
This file imports nothing, so `import noface_ctx.signals.parse` loads the parser alone: import
`parse_signals` from `noface_ctx.signals.parse` and `resolve_requests` from
`noface_ctx.signals.respond` (or both from `noface_ctx`).
"""

"""noface_ctx: build the implementation prompt an agent orchestrator hands to a coding agent."""

from __future__ import annotations

__version__ = "0.1.0"

"""noface_ctx: build the implementation prompt an agent orchestrator hands to a coding agent.

    from noface_ctx import build_prompt
    prompt = build_prompt("nfc-1", repo=".")
    print(prompt.text)

Names are resolved on first use (module `__getattr__`), so `import noface_ctx` stays cheap and
the `check-docs` hook never loads the ranking stages or an embedding model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.2.0"  # the one source: pyproject reads it, packaging/build_meta.py pins it

# name -> the module defining it. Every exported function's argument and return types are
# exported too (`IssueRef` -> `build_prompt` -> `Prompt`, `check_docs` -> `CheckReport`, ...).
_EXPORTS: dict[str, str] = {
    # the four entry points and the loaders
    "build_prompt": "noface_ctx._pipeline",
    "check_docs": "noface_ctx.freshness.check",
    "parse_signals": "noface_ctx.signals.parse",
    "resolve_requests": "noface_ctx.signals.respond",
    "load_config": "noface_ctx.config",
    "load_issue": "noface_ctx.issue.load",
    # what they take and return
    "Config": "noface_ctx.config",
    "IssueRef": "noface_ctx.datatypes",
    "ManifestRef": "noface_ctx.datatypes",
    "Issue": "noface_ctx.datatypes",
    "Manifest": "noface_ctx.datatypes",
    "Prompt": "noface_ctx.datatypes",
    "Embedder": "noface_ctx.rank.embed",
    "CheckReport": "noface_ctx.freshness.check",
    "Finding": "noface_ctx.freshness.check",
    "Request": "noface_ctx.signals.values",
    "ParseResult": "noface_ctx.signals.values",
    "Answer": "noface_ctx.signals.values",
    # the JSON they emit (see schema.py for the version rule)
    "SCHEMA_VERSION": "noface_ctx.schema",
    "PromptJSON": "noface_ctx.schema",
    "CheckReportJSON": "noface_ctx.schema",
    "ParseResultJSON": "noface_ctx.schema",
    "AnswerJSON": "noface_ctx.schema",
    # errors: exit code 2 (ConfigError, InputError, UsageError) or 3 (InternalError)
    "NofaceError": "noface_ctx.errors",
    "ConfigError": "noface_ctx.errors",
    "InputError": "noface_ctx.errors",
    "UsageError": "noface_ctx.errors",
    "InternalError": "noface_ctx.errors",
}

__all__ = [*_EXPORTS, "__version__"]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only (`as`: an explicit re-export)
    from noface_ctx._pipeline import build_prompt as build_prompt
    from noface_ctx.config import Config as Config
    from noface_ctx.config import load_config as load_config
    from noface_ctx.datatypes import Issue as Issue
    from noface_ctx.datatypes import IssueRef as IssueRef
    from noface_ctx.datatypes import Manifest as Manifest
    from noface_ctx.datatypes import ManifestRef as ManifestRef
    from noface_ctx.datatypes import Prompt as Prompt
    from noface_ctx.errors import ConfigError as ConfigError
    from noface_ctx.errors import InputError as InputError
    from noface_ctx.errors import InternalError as InternalError
    from noface_ctx.errors import NofaceError as NofaceError
    from noface_ctx.errors import UsageError as UsageError
    from noface_ctx.freshness.check import CheckReport as CheckReport
    from noface_ctx.freshness.check import Finding as Finding
    from noface_ctx.freshness.check import check_docs as check_docs
    from noface_ctx.issue.load import load_issue as load_issue
    from noface_ctx.rank.embed import Embedder as Embedder
    from noface_ctx.schema import SCHEMA_VERSION as SCHEMA_VERSION
    from noface_ctx.schema import AnswerJSON as AnswerJSON
    from noface_ctx.schema import CheckReportJSON as CheckReportJSON
    from noface_ctx.schema import ParseResultJSON as ParseResultJSON
    from noface_ctx.schema import PromptJSON as PromptJSON
    from noface_ctx.signals.parse import parse_signals as parse_signals
    from noface_ctx.signals.respond import resolve_requests as resolve_requests
    from noface_ctx.signals.values import Answer as Answer
    from noface_ctx.signals.values import ParseResult as ParseResult
    from noface_ctx.signals.values import Request as Request


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'noface_ctx' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

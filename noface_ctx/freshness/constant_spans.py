"""An ALL_CAPS code span names a module constant or setting (``INSTALLED_ADDONS``): judged as a removed name only.

`references.codeish` leaves ALL_CAPS names out (environment variables, other libraries' constants, acronyms), so a
``NAME`` span is no reference of its own. But a span shaped like a constant (upper case with an underscore:
``INSTALLED_ADDONS``, ``MEMDEBUG_NOTIFY``; not ``DEBUG``, ``HTTP``) that the repository's code defined by an
assignment when the doc was written, and that nothing defines now, is a setting or constant the code took away
(scrapy's `INSTALLED_ADDONS = ()` replaced by `ADDONS = {}`): stale, blamed on the commit that removed it, with
the name that commit put in its place. `constant_spans` marks such spans strict with source `constant`: found now
they are checked for nothing more (no signature, no default: `scan`), missing they are candidates `presence` proves
removed from history (a local of a function, or a name the code never assigned, ``NO_COLOR``, ``HTTP_PROXY``, is
never proved: nothing is said).
"""

from __future__ import annotations

import re
from dataclasses import replace

from noface_ctx.freshness.references import EXTERNAL_NAMES, Reference, placeholder

CONSTANT = "constant"  # the source of such a reference
_SHAPE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def constant_spans(prose: list[Reference]) -> list[Reference]:
    """The ALL_CAPS spans of `prose` (a doc's text outside examples) as strict references of source `constant`."""
    return [replace(r, strict=True, source=CONSTANT) for r in prose if r.kind == "symbol" and r.source == "span" and (
        not r.strict and r.ref == r.name and _SHAPE.fullmatch(r.name) is not None and not placeholder(r.name)
        and r.name not in EXTERNAL_NAMES)]

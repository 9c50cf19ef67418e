"""Whether a name is used as code in a Python text (`used_as_code`): an import, a call, a definition, an
attribute; not a word of a string or a comment (a log line's "Context impl %s", a docstring)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from noface_ctx.freshness.name_lookups import identifiers_among
from noface_ctx.freshness.option_defaults import SOURCE_TOKEN


def used_as_code(text: str, name: str) -> bool:
    """Whether `name` is an identifier of `text` once its strings and comments are blanked."""
    return name in text and bool(identifiers_among(SOURCE_TOKEN.sub(_blank, text), {name}))


def _blank(m: re.Match[str]) -> str:
    """A string or a comment as a space (`SOURCE_TOKEN`'s brackets and commas kept)."""
    return " " if m.group()[0] in "\"'#" else m.group()


_DECLARING = re.compile(r"^[ \t]*\.\.[ \t]+(?:py:)?(?:class|function|method|attribute|data|exception|decorator"
                        r"|classmethod|staticmethod|property)::[ \t]+([\w.]+)", re.M)


def declared_by_docs(texts: Iterable[str]) -> set[str]:
    """The last names of the objects docs declare themselves (`.. class:: WebSupport`, `.. py:function:: f`): a
    role aimed at one resolves to that doc whatever the code holds."""
    return {m.group(1).rsplit(".", 1)[-1] for text in texts if ".. " in text for m in _DECLARING.finditer(text)}

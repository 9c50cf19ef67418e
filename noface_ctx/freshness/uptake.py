"""When a doc took up a name it uses (`took_up`): the version that began the run of versions
writing it, up to now. A doc older than the name can still be born stale *for that name*: a
branch started before a rename and merged after it brings an example written against the old
name into a doc the rename had already updated (astropy's custom-fitter example typed its
model `~astropy.modeling.ParametricModel` two months after the class became `FittableModel`;
the guide itself dates from 2012). `born` then looks for the name before the uptake, as it looks
before a doc's birth.

Only a use counts: an example's code, a role or a cross-reference naming the repository's module or
class, which break when the name is gone. A literal in prose may tell the name's history ("``AutodocReporter`` was used for this"),
so it is never followed this way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from noface_ctx._filetypes import is_test_path
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.name_lookups import identifiers_among
from noface_ctx.freshness.references import FENCE_LANGS, Reference

USES = frozenset({"xref", "role"})  # a role's target; code blocks (their language tags) too
# characters of a doc's versions read back for its uptakes: a bound that depends on the doc's own history
# only (a full run and a pre-commit run read the same); a long reference page changed often is read 10 deep
READ_BACK = 1 << 20


def is_use(ref: Reference, scope: Sequence[str], importable: Callable[[str], bool]) -> bool:
    """Whether a reference breaks with its name: a role or a cross-reference naming a module or class
    of the repository (`scope`: its files, not only tests), or an example's code naming one from a
    module of the repository (`importable`: `pkg.core.Model`). A method called on an object of unknown
    type or a keyword passed (`self.model.from_json(...)`, a user's model; `item.get_marker(...)` in a
    "replace this" example) is no name of ours to follow."""
    if not scope or all(is_test_path(p) for p in scope) or ref.kind in ("member", "keyword"):
        return False
    return ref.source in USES or (ref.source in FENCE_LANGS and importable(ref.name.split(".", 1)[0]))


def took_up(index: HistoryIndex, since: Commit, path: str, versions: Sequence[tuple[Commit, str]],
            names: Iterable[str]) -> dict[str, tuple[Commit, str]]:
    """For each of `names` that some earlier version lacks: the version (commit, the doc's path then)
    from which every version up to the doc's commit `since` (the doc now, at `path`) writes it as a
    word. `versions`: the doc's earlier ones, newest first, read back until each name is settled (or
    `READ_BACK` characters are read). A name every version read writes is left out."""
    held, out, budget = set(names), dict[str, tuple[Commit, str]](), READ_BACK
    newer = (since, path)
    for commit, then in versions:
        if not held or budget <= 0:
            break
        text = index.versions.text_at(commit.sha, then) or ""
        budget -= len(text)
        still = identifiers_among(text, held)
        out.update(dict.fromkeys(held - still, newer))
        held, newer = still, (commit, then)
    return out

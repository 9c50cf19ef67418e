"""A first run's two readers (`start_reading`): what the docs' texts say (`scan.read_texts`: their
references, the names their statements of defaults are about, the removals they announce) and a
share of the code's words (`code_words.handed_out`), pure work read in two forked processes while
the run reads the rest of the code. The docs are split between the two so that both end about
together: the run needs every doc's reading as soon as it has read its share of the code, and one
process reading them all, while the other had only its share of the code to read, left a core
idle and the run waiting (django: references 5 s of CPU, its handed code words 0.9 s). Each doc's
reading is its own, so the split changes no answer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from noface_ctx import _state as state
from noface_ctx._process import in_forks
from noface_ctx.datatypes import Doc, RepoFiles
from noface_ctx.freshness.code_words import Content, Handed, contents
from noface_ctx.freshness.defaults import Stated, stated_defaults
from noface_ctx.freshness.scan import StatedDefaults, TextReading, read_text
from noface_ctx.freshness.worded_defaults import word_statements

# CPU per character of a doc's reading against per byte of a code file's words: its references
# 6 to 12 on django, sphinx, xarray and astropy (0.56-0.89 us a character, 0.074-0.106 us a byte),
# its whole reading (`read_texts`: with its statements of defaults) 1.7 to 3.1 times its references'
# on xarray, django, sphinx
REFERENCE_COST = 19

References = Callable[[], dict[str, TextReading]]


def start_reading(docs: Sequence[Doc], repo_files: RepoFiles, handed: list[str]) -> tuple[References, Handed | None] | None:
    """Start reading `docs`' texts (`scan.read_texts`) and the `handed` files' words in forked
    processes: (the wait for every doc's reading, by path; the handed files and the wait for their `contents`,
    None when none are handed). None where no process can be forked (`in_forks`)."""
    k = len(docs) - docs_with_code(docs, sum(repo_files.stats.get(p, (0, 0))[0] for p in handed)) if handed else len(docs)
    reading = in_forks((read_texts, (docs[:k],)),
                       *([(_code_and_references, (repo_files.root, handed, docs[k:]))] if handed else []))
    if reading is None:
        return None
    if not handed:
        return _once(lambda: _kept(docs, reading[0]())), None
    both = _once(reading[1])
    return _once(lambda: _kept(docs, {**reading[0](), **both()[1]})), (frozenset(handed), lambda: both()[0])


def read_texts(docs: Sequence[Doc]) -> dict[str, TextReading]:
    """Every doc's `TextReading` with its statements of defaults, by path (pure work, seconds for a
    large repository: a first run reads them in two other processes while it reads the code)."""
    return {d.path: replace(read_text(d), defaults=_statements(d)) for d in docs}


# each doc text's statements of defaults (`defaults.stated_defaults`, `worded_defaults.word_statements`): a first
# run's readers read them with the rest of the text, kept here before the defaults worker is forked (`_kept`)
_DEFAULTS: state.Memo[str, StatedDefaults] = state.memo("freshness.first_reads.defaults", maxsize=4096)


def doc_defaults(doc: Doc) -> tuple[list[Stated], list[tuple[int, str]]]:
    """`stated_defaults(doc)` and `word_statements(doc.text)`, read once per text."""
    kept = _statements(doc)
    return list(kept[0]), list(kept[1])


def _statements(doc: Doc) -> StatedDefaults:
    return _DEFAULTS.get_or_put(doc.text, lambda: (tuple(stated_defaults(doc)), tuple(word_statements(doc.text))))


def _kept(docs: Sequence[Doc], readings: dict[str, TextReading]) -> dict[str, TextReading]:
    """`readings`, their statements of defaults kept here: a worker forked next (`defaults_apart`)
    finds them read."""
    for doc in docs:
        if (reading := readings.get(doc.path)) is not None:
            _DEFAULTS.put(doc.text, reading.defaults)
    return readings


def docs_with_code(docs: Sequence[Doc], code_bytes: int) -> int:
    """How many docs, from the end, the process reading `code_bytes` of code reads the references
    of: both processes' shares of the work equal (`REFERENCE_COST`), none when the code is the
    larger share alone."""
    chars = sum(len(d.text) for d in docs)
    share, taken = (REFERENCE_COST * chars - code_bytes) / (2 * REFERENCE_COST), 0
    for i in range(len(docs) - 1, -1, -1):
        taken += len(docs[i].text)
        if taken > share:
            return len(docs) - 1 - i
    return len(docs)


def _code_and_references(root: str, paths: list[str], docs: Sequence[Doc]
                         ) -> tuple[dict[str, Content | None], dict[str, TextReading]]:
    return contents(root, paths), read_texts(docs)


def _once(wait: Callable[[], Any]) -> Callable[[], Any]:
    """`wait`, called once: its answer kept for the next calls."""
    kept: list[Any] = []

    def answer() -> Any:
        if not kept:
            kept.append(wait())
        return kept[0]
    return answer


"""What a test file's place says about the code it tests: its name (`test_cli.py` for `cli.py`),
the package it is named after (`test_assertion.py` for `assertion/util.py`, `unittest_lint.py`
for `lint/expand_modules.py`), the tests folder mirroring the source folder (`tests/migrations/`
for `django/db/migrations/`, `tests/auth_tests/` for `django/contrib/auth/`), and the issue
title's words (`tests/proxy_models/tests.py` for "... crash on proxy models"). Pure functions of
paths and words: `code_tests` weighs them.
"""

from __future__ import annotations

import itertools
import re

from noface_ctx._state import cached

TEST_ROOTS = ("tests", "test", "testing")  # the folders a test tree starts with
GENERIC = frozenset({"test", "tests", "testing", "src", "lib", "core", "base", "main", "utils", "util",
                     "common", "misc", "helpers", "models", "init", "app", "api", "types"})  # name no topic of their own
INFLECTIONS = ("s", "es", "ed", "ing")  # endings that leave a short word the same word
APP_FILES = ("tests", "test")  # a test file named only `tests.py`: its folder names what it tests


def module_of(path: str) -> tuple[str, str]:
    """(folder, module name) of a source path: a package's `__init__` is named by its folder."""
    folder, _, base = path.rpartition("/")
    stem = base.rpartition(".")[0] or base
    return folder, folder.rpartition("/")[2] if stem == "__init__" else stem


def tested_name(test_path: str) -> str:
    """The module name a test file's name carries: `test_cli.py`, `cli_test.go`, `unittest_cli.py` → `cli`."""
    stem = test_path.rpartition("/")[2].rpartition(".")[0]
    for prefix in ("unittest_", "tests_", "test_", "test"):
        if stem.startswith(prefix) and len(stem) > len(prefix):
            stem = stem[len(prefix):]
            break
    for suffix in ("_tests", "_test"):
        if stem.endswith(suffix) and len(stem) > len(suffix):
            stem = stem[: -len(suffix)]
            break
    return stem


def named(tested: str, module: str, folder: str = "") -> bool:
    """A test file's name carries the module's: equal (`_pprint` → `pprint`), starting with it
    (`commonmatrix` for `common`, `utils` for `util`), its first words (`brain_builtin` for
    `brain_builtin_inference`), or the module's name after words naming its folders (`util_typing` for
    `util/typing.py`, `environment_indexentries` for `environment/adapters/indexentries.py`)."""
    module = module.lstrip("_")
    if not tested or not module:
        return False
    if tested == module:
        return True
    if len(module) >= 4 and tested.startswith(module):
        return True
    if len(tested) >= 4 and module.startswith(tested + "_"):
        return True
    head = tested[: -len(module)].rstrip("_") if tested.endswith(module) else ""
    parts = [p.lstrip("_") for p in folder.split("/") if p]
    return len(head) >= 3 and all(any(p.startswith(w) for p in parts) for w in head.split("_") if w)


def placed(test_folder: str, source_folder: str) -> bool:
    """A test folder that can hold the source folder's tests: a tests tree at the top (`tests/`,
    `testing/`), or one inside the source folder or an ancestor of it (`xarray/tests` for
    `xarray/core`), not inside another package (`astropy/modeling/tests` for `astropy/io/fits`)."""
    parts = test_folder.split("/") if test_folder else []
    cut = next((k for k, p in enumerate(parts) if p in TEST_ROOTS), len(parts))
    owner = parts[:cut] if cut < len(parts) else []
    return owner == source_folder.split("/")[: len(owner)]


def named_by_folder(tested: str, folder: str) -> bool:
    """A test file named after the package a module sits in: `assertion` (or `test_assertion_*`)
    for `_pytest/assertion/util.py`, `ext_autodoc_configs` for `sphinx/ext/autodoc/typehints.py`.
    A folder with a generic name (`core`, `utils`) names nothing."""
    parts = [p.lstrip("_") for p in folder.split("/") if p]
    if not tested or not parts or parts[-1] in GENERIC or len(parts[-1]) < 3:
        return False
    names = {parts[-1], "_".join(parts[-2:])} if len(parts) >= 2 else {parts[-1]}
    return any(tested == n or tested.startswith(n + "_") for n in names)


def mirrors(test_folder: str, source_folder: str) -> bool:
    """The test folder mirrors the source folder: `tests/lint` for `pylint/lint`, `tests/migrations`
    for `django/db/migrations`, `tests/auth_tests` for `django/contrib/auth`, `testing/io` for
    `_pytest/_io` (the last folder's name, with or without `_tests`, under a tests folder)."""
    test_parts = test_folder.split("/")
    source = source_folder.rpartition("/")[2].lstrip("_")
    if len(test_parts) < 2 or not source or source in GENERIC or not any(p in TEST_ROOTS for p in test_parts[:-1]):
        return False
    last = test_parts[-1].lstrip("_")
    return last in (source, f"{source}_tests", f"{source}_test")


def title_named(test_path: str, title_words: frozenset[str]) -> bool:
    """The test file (or, for a plain `tests.py`, its folder) is named with words of the issue's
    title, in any of their forms: `tests/proxy_models/tests.py` for "... crash on proxy models",
    `tests/model_inheritance/tests.py` for "Inherited model doesn't ...", `test_pickle.py` for
    "Unable to pickle figure"."""
    folder, _, base = test_path.rpartition("/")
    stem = base.rpartition(".")[0]
    name = folder.rpartition("/")[2] if stem in APP_FILES else tested_name(test_path)
    if not name.isidentifier() or name in GENERIC or len(name) < 4:
        return False
    words = [w for w in name.lower().split("_") if w and w not in ("test", "tests")]
    return name.lower() in title_words or (bool(words) and all(_in_title(w, title_words) for w in words))


@cached(maxsize=8192)
def _in_title(word: str, title_words: frozenset[str]) -> bool:
    """`word` is a form of one of the title's words (memoised: thousands of test paths share their words)."""
    return any(same_word(word, t) for t in title_words)


def title_words(title: str) -> frozenset[str]:
    """The words of an issue title, an identifier kept whole (`select_related()` is one word, not
    `select` and `related`; `QuerySet` is `queryset`), and each two neighbours written as one
    (`constrainedlayout` for "Constrained layout", as test files glue them)."""
    found = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9_]*", title)]
    return frozenset([*found, *(a + b for a, b in itertools.pairwise(found))])


def same_word(a: str, b: str) -> bool:
    """Two forms of one word: equal, one the other plus an ending (`model`, `models`; `order`,
    `ordering`; `pickle`, `pickling`), or sharing a start of 6 letters or more with at most 4 letters after it in each
    (`inherited`, `inheritance`); never `form` and `format`, `special` and `specified`, nor
    `model` and `modelchoicefield`."""
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    for stem in (short, short[:-1] if short.endswith("e") else ""):  # `pickle` → `pickl` + `ing`
        if len(stem) >= 3 and long.startswith(stem) and long[len(stem):] in INFLECTIONS:
            return True
    common = next((k for k, (x, y) in enumerate(zip(short, long, strict=False)) if x != y), len(short))
    return len(short) > common >= 6 and len(long) - common <= 4  # (a whole word followed by more: endings only)


def words(folder: str) -> set[str]:
    """The words of a folder path (`tests/forms_tests/tests` → forms, ...), test folders aside."""
    return {w for part in folder.split("/") for w in part.split("_")
            if len(w) > 2 and w not in ("test", "tests", "testing", "src", "lib")}


_FENCE = re.compile(r"^\s{0,3}(?:```|~~~)")
_CODE_LINE = re.compile(r"^(?:    |\t)|^\s*(?:>>>|\.\.\. |\$ |Traceback \(|File \"|In \[\d|Out\[\d)")
NAME_WORD = 3  # a test name's word counts from this many letters (`key`, not `ok`)


def prose_words(title: str, description: str) -> frozenset[str]:
    """The words an issue says in its own sentences: its title and the description's lines outside
    code blocks, indented code, sessions and tracebacks (a pasted traceback names every module it
    passed through, not what the issue is about)."""
    from noface_ctx._lexical import tokenize

    kept, fenced = [title], False
    for line in description.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and not _CODE_LINE.match(line):
            kept.append(line)
    return frozenset(tokenize("\n".join(kept)))


def issue_named(test_symbol: str, issue_words: frozenset[str], code_words: frozenset[str]) -> tuple[str, ...]:
    """The words of a test's name (`test_json_key_sorting` → json, key, sorting) the issue says in
    any of their forms, leaving out the words of the code it tests (`code_words`): the test is named
    after what the issue describes (key sorting), not only after the function (`test_jsonify_*`)."""
    from noface_ctx._lexical import tokenize

    bare = test_symbol.rpartition(".")[2]
    name = [w for w in tokenize(bare) if "_" not in w and w != bare.lower() and len(w) >= NAME_WORD
            and w not in ("test", "tests")]
    return tuple(w for w in dict.fromkeys(name) if not any(same_word(w, c) for c in code_words)
                 and any(same_word(w, u) for u in issue_words))

"""The standard library's abstract base classes and their ancestors (`collections.abc`, the
`typing` aliases of them, the builtin containers that implement them). For
`parameters.compatible_change`: a class whose base moved along one of these lineages
(`Mapping` → `MutableMapping`, `Iterable` → `Iterator`, `Dict` → `dict`) keeps every method a
caller used, as a base only named `object` does; a base that leaves the lineage (`Mapping` →
`Sequence`) is a change. Read by name (`parameters.bases`), never imported.
"""

from __future__ import annotations

from collections.abc import Iterable

_COLLECTION = ("Collection", "Sized", "Iterable", "Container")
_PARENTS: dict[str, tuple[str, ...]] = {
    "Iterator": ("Iterable",), "Reversible": ("Iterable",), "Generator": ("Iterator",),
    "AsyncIterator": ("AsyncIterable",), "AsyncGenerator": ("AsyncIterator",), "Coroutine": ("Awaitable",),
    "Collection": ("Sized", "Iterable", "Container"),
    "Mapping": _COLLECTION, "MutableMapping": ("Mapping",),
    "Sequence": ("Reversible", *_COLLECTION), "MutableSequence": ("Sequence",), "ByteString": ("Sequence",),
    "Set": _COLLECTION, "AbstractSet": ("Set",), "MutableSet": ("Set", "AbstractSet"),
    "MappingView": ("Sized",), "KeysView": ("MappingView", "Set"), "ItemsView": ("MappingView", "Set"),
    "ValuesView": ("MappingView", "Collection"),
    # the builtin containers as the ABCs they implement, each the same class as its `typing` alias
    "dict": ("Dict", "MutableMapping"), "Dict": ("dict",), "OrderedDict": ("dict",),
    "defaultdict": ("DefaultDict", "dict"), "DefaultDict": ("defaultdict",), "list": ("List", "MutableSequence"),
    "List": ("list",), "tuple": ("Tuple", "Sequence"), "Tuple": ("tuple",), "set": ("MutableSet",),
    "frozenset": ("FrozenSet", "Set"), "FrozenSet": ("frozenset",),
}


def abc_ancestors(names: Iterable[str]) -> set[str]:
    """Every standard-library ancestor of these base names (`MutableMapping` →
    `Mapping`, `Collection`, `Sized`, `Iterable`, `Container`), the names themselves aside."""
    todo = list(names)
    seen: set[str] = set()
    while todo:
        for parent in _PARENTS.get(todo.pop(), ()):
            if parent not in seen:
                seen.add(parent)
                todo.append(parent)
    return seen

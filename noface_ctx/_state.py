"""The one owner of process-wide state: every in-memory memo of the package lives here.

Thread-safety contract: the package may be called from several threads at once (the MCP server
answers tool calls concurrently, an orchestrator may build prompts in a thread pool).
- A `Memo` is a small bounded mapping guarded by its own lock: `get`, `put` and `clear` are
  atomic; a value is computed outside the lock, so two threads may both compute it and the last
  `put` wins. Values stored must therefore be immutable, or never mutated after `put`.
- Objects that are not thread-safe themselves (a tree-sitter `Parser`) are kept per thread with
  `per_thread(name, factory)`.
- Pure functions may be memoised with `@cached(maxsize)` (functools' LRU cache, which is
  thread-safe), registered here so that `clear_all()` reaches them too.
- `clear_all()` empties every memo (tests, or a long-lived process that wants memory back).
Nothing here touches the disk; on-disk caches are `_cachefile.py`'s.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")

_REGISTRY: dict[str, Memo[object, object]] = {}
_REGISTRY_LOCK = threading.Lock()
_LOCAL = threading.local()
_CACHED: list[functools._lru_cache_wrapper[object]] = []
F = TypeVar("F", bound=Callable[..., object])


class Memo(Generic[K, V]):
    """A bounded, locked mapping; the oldest entry goes first when `maxsize` is reached."""

    def __init__(self, name: str, maxsize: int | None) -> None:
        self.name = name
        self.maxsize = maxsize
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            return self._data.get(key)

    def __contains__(self, key: K) -> bool:
        with self._lock:
            return key in self._data

    def put(self, key: K, value: V) -> V:
        with self._lock:
            if key not in self._data and self.maxsize is not None:
                while len(self._data) >= self.maxsize:
                    self._data.popitem(last=False)
            self._data[key] = value
        return value

    def get_or_put(self, key: K, make: Callable[[], V]) -> V:
        """The value kept for `key`, else `make()` kept (made outside the lock: a race makes it twice)."""
        found = self.get(key)
        return found if found is not None else self.put(key, make())

    def pop(self, key: K) -> V | None:
        with self._lock:
            return self._data.pop(key, None)

    def values(self) -> list[V]:
        """A snapshot of the values, oldest first."""
        with self._lock:
            return list(self._data.values())

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)


def memo(name: str, maxsize: int | None = 8) -> Memo[K, V]:
    """The process-wide memo called `name` (created on first use; one per name)."""
    with _REGISTRY_LOCK:
        found = _REGISTRY.get(name)
        if found is None:
            found = _REGISTRY[name] = Memo(name, maxsize)
    return found  # type: ignore[return-value]  # one name, one key/value type, by convention


def per_thread(name: str, factory: Callable[[], T]) -> T:
    """This thread's own instance of `name`, made by `factory` on first use in the thread."""
    store: dict[str, object] | None = getattr(_LOCAL, "store", None)
    if store is None:
        store = _LOCAL.store = {}
    if name not in store:
        store[name] = factory()
    return store[name]  # type: ignore[return-value]


def cached(maxsize: int | None = 128) -> Callable[[F], F]:
    """`functools.lru_cache(maxsize)` for a pure function, registered for `clear_all()`."""

    def wrap(fn: F) -> F:
        wrapper = functools.lru_cache(maxsize=maxsize)(fn)
        with _REGISTRY_LOCK:
            _CACHED.append(wrapper)
        return wrapper  # type: ignore[return-value]

    return wrap


def clear_all() -> None:
    """Empty every memo and cache of this process (per-thread objects are kept: they hold no results)."""
    with _REGISTRY_LOCK:
        memos = list(_REGISTRY.values())
        caches = list(_CACHED)
    for m in memos:
        m.clear()
    for c in caches:
        c.cache_clear()


def memo_names() -> list[str]:
    """The names of the memos created so far (for docs and tests)."""
    with _REGISTRY_LOCK:
        return sorted(_REGISTRY)

"""_state.py: the one owner of process-wide memos."""

from __future__ import annotations

import threading

from noface_ctx import _state as state
from noface_ctx._filebytes import looks_binary
from noface_ctx._write_gate import write_atomic


def test_memo_is_bounded_oldest_first():
    m = state.memo("test.bounded", maxsize=2)
    m.put("a", 1)
    m.put("b", 2)
    m.put("c", 3)
    assert m.get("a") is None and m.get("b") == 2 and m.get("c") == 3 and len(m) == 2
    assert state.memo("test.bounded") is m  # one memo per name


def test_get_or_put_makes_a_value_once_per_key():
    m = state.memo("test.get_or_put", maxsize=4)
    made: list[str] = []
    for key in ("a", "a", "b", "a"):
        assert m.get_or_put(key, lambda k=key: made.append(k) or (k * 2,)) == (key * 2,)
    assert made == ["a", "b"]


def test_clear_all_reaches_memos_and_cached_functions():
    m = state.memo("test.clear", maxsize=None)
    m.put("k", "v")
    calls = []

    @state.cached(maxsize=4)
    def double(x: int) -> int:
        calls.append(x)
        return 2 * x

    assert double(2) == 4 and double(2) == 4 and calls == [2]
    state.clear_all()
    assert m.get("k") is None and len(m) == 0
    assert double(2) == 4 and calls == [2, 2]  # recomputed after the clear


def test_memo_survives_concurrent_writers():
    m = state.memo("test.threads", maxsize=50)

    def writer(base: int) -> None:
        for i in range(2000):
            m.put((base, i % 100), i)
            m.get((base, (i * 7) % 100))

    threads = [threading.Thread(target=writer, args=(b,)) for b in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(m) == 50


def test_per_thread_objects_are_not_shared():
    seen = {}

    def grab(name: str) -> None:
        seen[name] = state.per_thread("test.parser", object)

    grab("main")
    assert state.per_thread("test.parser", object) is seen["main"]
    t = threading.Thread(target=grab, args=("other",))
    t.start()
    t.join()
    assert seen["other"] is not seen["main"]


def test_every_memo_is_registered_by_name():
    import noface_ctx._cachefile
    import noface_ctx.config  # noqa: F401

    names = state.memo_names()
    assert {"cachefile.values", "config.cache_dirs"} <= set(names)


def test_binary_sniff_and_atomic_write(tmp_path):
    assert looks_binary(b"abc\0def") and not looks_binary(b"plain text\n")
    assert not looks_binary(b"x" * 8192 + b"\0")  # only the first 8 KiB decide
    target = tmp_path / "sub" / "file.bin"
    assert write_atomic(target, b"one") and target.read_bytes() == b"one"
    assert write_atomic(target, b"two") and target.read_bytes() == b"two"
    assert [p.name for p in target.parent.iterdir()] == ["file.bin"]  # no temp file left
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    assert write_atomic(blocker / "no.bin", b"x") is False

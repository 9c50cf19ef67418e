"""Cache files without pickle: a damaged file or a forged field makes the file absent, never an error."""

from __future__ import annotations

import json

import pytest

from noface_ctx import _cachefile as cachefile
from noface_ctx import _state as state
from noface_ctx.datatypes import Doc


@pytest.mark.parametrize("damage", [b"", b"not a pickle", b"\x80\x04K\x01."])
def test_a_damaged_cache_file_is_rebuilt(tmp_path, damage):
    path = tmp_path / "x.cache"
    assert cachefile.save(path, 1, {"a": 1})
    assert cachefile.load(path, 1) == {"a": 1} and cachefile.load(path, 2) is None
    path.write_bytes(damage)
    state.clear_all()  # what a new process sees: only the disk
    assert cachefile.load(path, 1) is None


@pytest.mark.parametrize("field,value", [("heading", 7), ("level", "2"), ("level", True), ("start_line", None),
                                         ("extra", "x")])
def test_an_object_with_a_field_of_the_wrong_type_makes_the_file_absent(tmp_path, field, value):
    from noface_ctx.datatypes import Section

    path = tmp_path / "x.cache"
    good = Section("doc", "Heading", "heading", 2, 1, 3, "text")
    assert cachefile.save(path, 1, {"s": good, "opt": Doc(path="d.md", slug="d", title="T", text="", date=None)})
    state.clear_all()  # what a new process sees: only the disk
    assert cachefile.load(path, 1) == {"s": good, "opt": Doc(path="d.md", slug="d", title="T", text="", date=None)}
    data = path.read_bytes()
    n = len(cachefile.MAGIC)
    header = json.loads(data[n + 8:n + 8 + int.from_bytes(data[n:n + 8], "little")])

    def write(v):
        header["value"]["s"]["v"][field] = v  # the object as stored, one field forged
        head = json.dumps(header).encode()
        path.write_bytes(cachefile.MAGIC + len(head).to_bytes(8, "little") + head)
        state.clear_all()  # what a new process sees: only the disk

    if field != "extra":  # the control: a forged value of the right type is read
        write({"heading": "Other", "level": 3, "start_line": 2}[field])
        assert getattr(cachefile.load(path, 1)["s"], field) == {"heading": "Other", "level": 3, "start_line": 2}[field]
    write(value)
    forged = path.read_bytes()
    assert forged != data
    assert cachefile.load(path, 1) is None

"""An attribute reached through an example object's attribute chain (`chain = Chain(system)`,
then `chain.results.ac`): the field of a result object the example never types is checked by
history, as a member this repository defined and removed; a function's local of the same name
(`ac = inverter(dc)`) defines no member and keeps nothing alive."""

from __future__ import annotations

from conftest import commit

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.extract import extract_references

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CODE = '''"""Run a PV system through a chain of models."""
from dataclasses import dataclass


@dataclass
class ChainResult:
    dc: float = 0.0
    ac: float = 0.0


def inverter(dc):
    return 0.96 * dc


class Chain:
    def __init__(self, system):
        self.system = system
        self.results = ChainResult()

    def run(self, weather):
        dc = weather * self.system
        ac = inverter(dc)
        self.results.dc = dc
        self.results.ac = ac
        return self
'''

DOC = """Model chains
============

Run a chain and sum its yearly AC energy:

.. code-block:: python

    chain = Chain(4.2)
    chain.run(weather)
    chain.results.dc
    yearly = chain.results.ac.sum()
"""

RESULT = """Results
=======

.. code-block:: python

    chain = Chain(4.2)
    chain.run(weather)
    chain.results.ac
"""

OTHER = """Inverters
=========

.. code-block:: python

    ac = inverter(dc)
    print(ac)
"""


def test_an_attribute_chain_of_a_typed_example_object_is_a_reference():
    refs = {(r.line, r.name) for r in extract_references(Doc("docs/chain.rst", "d", "d", DOC))}
    assert (10, "Chain.results") in refs
    assert (10, "Chain.results.dc") in refs  # the chain, not only its first attribute
    assert (11, "Chain.results.ac.sum") in refs


def test_a_renamed_result_field_is_stale_where_an_example_reads_it_through_the_chain(repo_factory):
    root = repo_factory({"pvchain/__init__.py": "", "pvchain/chain.py": CODE, "docs/chain.rst": DOC,
                         "docs/result.rst": RESULT, "docs/inverter.rst": OTHER}, date=JAN)
    renamed = CODE.replace("    ac: float = 0.0", "    ac_power: float = 0.0").replace("results.ac ", "results.ac_power ")
    assert "        ac = inverter(dc)" in renamed  # the local keeps its name
    (root / "pvchain/chain.py").write_text(renamed)
    commit(root, "rename ChainResult.ac to ac_power", date=FEB)
    report = check_docs(repo=root)
    got = {(f.path, f.line): f.message for f in report.findings}
    # `ac = inverter(dc)` in inverter.rst is the example's own; in chain.py, a function's local: no member
    assert set(got) == {("docs/chain.rst", 11), ("docs/result.rst", 8)}
    assert all("removed in" in message and "rename ChainResult.ac" in message for message in got.values())
    assert all("ac_power" in message for message in got.values())

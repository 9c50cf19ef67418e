"""A default built by a factory is "computed" (issue 25, rule 5): `attrs.Factory(lambda: ...)`,
`field(default_factory=lambda: ...)` and a lambda compute it; a change between computed and a literal is a default
change, one computed default for another is none (judged on a doc in `test_default_instances`)."""

from __future__ import annotations

from noface_ctx.freshness.fallback_defaults import field_default


def test_factories_and_lambdas_compute_their_default():
    assert field_default("attrs.Factory(lambda:random.uniform(10000,200000))") == "computed"
    assert field_default("Factory(list)") == "[]"
    assert field_default("field(default_factory=lambda:[1])") == "computed"
    assert field_default("field(default_factory=make)") == "make()"
    assert field_default("lambda:0") == "computed"
    assert field_default("0.0") == "0.0"

"""Signature warnings need a doc that uses or states what changed (issue 25, precision): a doc
that only names a callable (a list entry, a role, a title over its autodoc) is not warned when a
parameter it never writes changed, when a new required parameter appears, or when a default it
never states changed; a doc stating the old default, or calling with the parameter, still is."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

SGD = ('class SGD:\n    def __init__(self, loss="hinge", *, eta0=0.0, shuffle=True):\n'
       '        self.eta0 = eta0\n')


def test_a_changed_default_warns_only_the_doc_that_states_it(repo_factory):
    # scikit-learn's eta0 0.0 -> 0.01: sgd.rst names ``eta0`` ("use ``eta0`` to specify the
    # starting rate") and says ``shuffle=True`` is used by default, stating no default of eta0
    root = repo_factory({
        "pkg/__init__.py": "from pkg.sgd import SGD\n", "pkg/sgd.py": SGD,
        "docs/sgd.rst": ("SGD\n===\n\nThe :class:`pkg.SGD` estimator learns online. Use ``shuffle=True``\n"
                         "to shuffle (used by default). For a constant rate use ``eta0`` to specify\n"
                         "the starting learning rate. See the :class:`~pkg.SGD` reference.\n"),
        "docs/tuning.rst": "Tuning\n======\n\nWith :class:`pkg.SGD`, ``eta0`` is ``0.0`` unless given.\n",
        "docs/says.rst": "Says\n====\n\nBy default, the :class:`pkg.SGD` estimator starts slowly.\n",
    }, date=JAN)
    (root / "pkg/sgd.py").write_text(SGD.replace("eta0=0.0", "eta0=0.01"))
    commit(root, "eta0 defaults to 0.01", date=FEB)
    got = {(f.path, f.code) for f in check_docs(repo=root).findings}
    assert got == {("docs/tuning.rst", "changed-ref"), ("docs/says.rst", "changed-ref")}


def test_a_sentence_stating_another_parameters_default_says_nothing_of_this_one(repo_factory):
    # model_evaluation.rst: "use :func:`make_scorer`, set ``greater_is_better`` to ``False``
    # (``True`` by default)" when response_method's default changed
    code = 'def make_scorer(func, *, response_method="default", greater_is_better=True):\n    return func\n'
    root = repo_factory({
        "pkg/__init__.py": "from pkg.scorer import make_scorer\n", "pkg/scorer.py": code,
        "docs/scoring.rst": ("Scoring\n=======\n\nWrap a loss with :func:`pkg.make_scorer`, set ``greater_is_better``\n"
                             "to ``False`` (``True`` by default).\n"),
    }, date=JAN)
    (root / "pkg/scorer.py").write_text(code.replace('"default"', '"predict"'))
    commit(root, "response_method defaults to predict", date=FEB)
    assert check_docs(repo=root).findings == ()


def test_a_new_required_parameter_warns_a_call_not_a_mention(repo_factory):
    # astropy's tiled_compression.rst lists `decompress_image_data_section` (a new required
    # `image_header`); a doc writing the call with its old arguments is warned
    code = "def decompress(data, first, last):\n    return data[first:last]\n"
    root = repo_factory({
        "pkg/__init__.py": "", "pkg/tiles.py": code,
        "docs/list.rst": "Tiles\n=====\n\n1. `~pkg.tiles.decompress`, called by the HDU.\n",
        "docs/call.rst": "Call\n====\n\nRead a section with ``pkg.tiles.decompress(data, 0, 4)``.\n",
    }, date=JAN)
    (root / "pkg/tiles.py").write_text(code.replace("(data, first", "(data, header, first"))
    commit(root, "decompress needs the header", date=FEB)
    assert [(f.path, f.code) for f in check_docs(repo=root).findings] == [("docs/call.rst", "changed-ref")]


def test_a_class_given_its_own_init_does_not_warn_a_doc_only_naming_it(repo_factory):
    # astropy's BinTableHDU inherited its __init__, then defined one: a title over its autodoc
    # and a mention name no parameter
    code = ("class Base:\n    def __init__(self, data=None):\n        self.data = data\n\n\n"
            "class BinTable(Base):\n    pass\n")
    root = repo_factory({
        "pkg/__init__.py": "from pkg.hdu import BinTable\n", "pkg/hdu.py": code,
        "docs/tables.rst": ("Tables\n======\n\n:class:`BinTable`\n==================\n"
                            ".. autoclass:: pkg.BinTable\n   :members:\n\nA :class:`pkg.BinTable` holds rows.\n"),
    }, date=JAN)
    (root / "pkg/hdu.py").write_text(code.replace(
        "class BinTable(Base):\n    pass\n",
        "class BinTable(Base):\n    def __init__(self, data=None, logical_as_bytes=False):\n        self.data = data\n"))
    commit(root, "BinTable: logical_as_bytes", date=FEB)
    assert [f for f in check_docs(repo=root).findings if f.code == "changed-ref" and "signature" in f.message] == []


def test_a_call_unpacking_keywords_notices_what_a_mention_would(repo_factory):
    # scikit-learn's sample_generators.rst: `make_classification(n_features=2, **param)` in a
    # plot's source, when `return_X_y=False` was added; a parameter it passes, renamed, counts
    code = "def make_data(n_samples=100, n_features=20, shuffle=True):\n    return n_samples\n"
    root = repo_factory({
        "pkg/__init__.py": "from pkg.data import make_data\n", "pkg/data.py": code,
        "docs/data.rst": ("Data\n====\n\n.. plot::\n\n   from pkg import make_data\n\n   for param in params:\n"
                          "       X = make_data(n_features=2, **param)\n"),
    }, date=JAN)
    (root / "pkg/data.py").write_text(code.replace("shuffle=True", "shuffle=True, return_X_y=False"))
    commit(root, "make_data: return_X_y", date=FEB)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/data.py").write_text(code.replace("n_features=20", "features=20"))
    commit(root, "make_data: features", date="2025-03-01T12:00:00+00:00")
    # the plot body is an example (`blocks.rst_block_lang`): the keyword it passes is gone too
    assert sorted((f.path, f.code) for f in check_docs(repo=root).findings) == [
        ("docs/data.rst", "changed-ref"), ("docs/data.rst", "stale-ref")]


def test_a_by_default_sentence_naming_the_parameter_without_its_value_states_no_default(repo_factory):
    # marshmallow's extending.rst: "By default, pre- and post-processing methods receive one
    # object at a time, transparently handling the ``many`` parameter passed to the ``Schema``'s
    # dump/load" when `Schema(many=False)` became `many=None`
    schema = "class Schema:\n    def __init__(self, *, only=None, many=False):\n        self.many = many\n"
    root = repo_factory({
        "pkg/__init__.py": "from pkg.schema import Schema\n", "pkg/schema.py": schema,
        "docs/extending.rst": ("Extending\n=========\n\nBy default, processing methods receive one object at a time, "
                               "handling the ``many`` parameter\npassed to the ``Schema``'s load method.\n"),
    }, date=JAN)
    (root / "pkg/schema.py").write_text(schema.replace("many=False", "many=None"))
    commit(root, "many from Meta", date=FEB)
    assert check_docs(repo=root).findings == ()

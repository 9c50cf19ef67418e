"""Precise signature warnings (issue 25, rule 6): a changed parameter warns the docs that use or
state it, not every doc that names the function or class."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

APP = '''class Flask:
    def __init__(self, import_name, static_folder="static", instance_relative_config=False):
        self.import_name = import_name
'''


def test_renaming_one_keyword_warns_only_the_docs_that_use_it(repo_factory):
    root = repo_factory({
        "pkg/__init__.py": "from pkg.app import Flask\n", "pkg/app.py": APP,
        "docs/quickstart.md": "Create a `Flask` application object.\n",
        "docs/views.rst": "Views\n=====\n\nEvery view belongs to a :class:`~pkg.Flask` app.\n",
        "docs/config.rst": ("Config\n======\n\nPass ``instance_relative_config=True`` to load from the instance "
                            "folder::\n\n    app = Flask(__name__, instance_relative_config=True)\n"),
        "docs/factory.md": "```python\nfrom pkg import Flask\napp = Flask(__name__, instance_relative_config=True)\n```\n",
    }, date=JAN)
    (root / "pkg/app.py").write_text(APP.replace("instance_relative_config", "instance_relative"))
    commit(root, "rename instance_relative_config", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = {(f.path, f.line, f.code, f.severity) for f in check_docs(repo=root).findings}
    # the keyword named in prose, and the one the call passes: gone (the signature change of the
    # call passing it says the same: told once)
    assert got == {("docs/config.rst", 4, "stale-ref", "error"), ("docs/factory.md", 3, "stale-ref", "error")}
    messages = [f.message for f in check_docs(repo=root).findings]
    assert all(head in m for m in messages)


def test_a_keyword_renamed_in_a_function_the_package_re_exports(repo_factory):
    # pytest's `pytest.skip` is `_pytest.outcomes.skip`, imported by `pytest/__init__.py`
    outcomes = 'def skip(reason="", *, allow_module_level=False):\n    raise RuntimeError(reason)\n'
    root = repo_factory({"pkg/__init__.py": "from pkg._outcomes import skip\n", "pkg/_outcomes.py": outcomes,
                         "pkg/other.py": "def skip(x):\n    return x\n", "pkg/more.py": "def skip(y):\n    return y\n",
                         "pkg/last.py": "def skip(z):\n    return z\n",
                         "docs/skipping.rst": ("Skipping\n========\n\nSkip a module with "
                                               "``pkg.skip(reason, allow_module_level=True)``.\n")}, date=JAN)
    (root / "pkg/_outcomes.py").write_text(outcomes.replace("allow_module_level", "module_level"))
    commit(root, "rename allow_module_level", date=FEB)
    got = [(f.path, f.line, f.code) for f in check_docs(repo=root).findings]
    assert got == [("docs/skipping.rst", 4, "stale-ref")]  # the keyword: gone (the signature change says the same)


def test_a_call_written_in_prose_is_warned_only_when_what_it_passes_changed(repo_factory):
    # xarray's ``xarray.open_dataset(path, engine='my_custom_format')``: renaming `use_cftime` is not its concern
    api = "def open_dataset(filename, *, engine=None, use_cftime=None, **kwargs):\n    return filename\n"
    root = repo_factory({"pkg/__init__.py": "from pkg.api import open_dataset\n", "pkg/api.py": api,
                         "docs/backends.rst": "Backends\n========\n\nOpen with ``pkg.open_dataset(path, engine='mine')``.\n",
                         "docs/signature.rst": "API\n===\n\nThe signature: ``pkg.open_dataset(filename, engine=None)``.\n"},
                        date=JAN)
    (root / "pkg/api.py").write_text(api.replace("use_cftime", "use_cf_time"))
    commit(root, "rename use_cftime", date=FEB)
    assert [(f.path, f.code) for f in check_docs(repo=root).findings] == [("docs/signature.rst", "changed-ref")]
    (root / "pkg/api.py").write_text(api.replace("engine=None", "backend=None"))
    commit(root, "engine is now backend", date="2025-03-01T12:00:00+00:00")
    assert {f.path for f in check_docs(repo=root).findings} == {"docs/backends.rst", "docs/signature.rst"}


def test_new_bases_warn_only_a_doc_naming_the_base_the_class_lost(repo_factory):
    # marshmallow's `Schema` and django's `LoginView` changed bases, not parameters: a doc naming
    # the class states nothing those commits made false
    schema = ("class Base:\n    pass\n\n\nclass Mixin:\n    pass\n\n\n"
              "class Schema(Base):\n    def __init__(self, *, many=False):\n        self.many = many\n")
    root = repo_factory({"pkg/__init__.py": "from pkg.schema import Schema\n", "pkg/schema.py": schema,
                         "docs/why.rst": "Why\n===\n\nPass arguments to the :class:`~pkg.Schema` constructor.\n",
                         "docs/bases.rst": "Bases\n=====\n\nA :class:`~pkg.Schema` is a ``Base``.\n"}, date=JAN)
    (root / "pkg/schema.py").write_text(schema.replace("class Schema(Base)", "class Schema(Mixin)"))
    commit(root, "Schema derives from Mixin", date=FEB)
    assert [(f.path, f.code) for f in check_docs(repo=root).findings] == [("docs/bases.rst", "changed-ref")]


def test_new_bases_of_a_class_without_init_warn_only_a_doc_naming_the_lost_base(repo_factory):
    # django's `LoginView(SuccessURLAllowedHostsMixin, FormView)` became `LoginView(RedirectURLMixin, FormView)`
    views = "class AllowedHostsMixin:\n    pass\n\n\nclass RedirectMixin:\n    pass\n\n\nclass LoginView(AllowedHostsMixin):\n    template = 'login.html'\n"
    root = repo_factory({"pkg/__init__.py": "", "pkg/views.py": views,
                         "docs/auth.rst": "Auth\n====\n\nLog in with :class:`~pkg.views.LoginView`.\n"}, date=JAN)
    (root / "pkg/views.py").write_text(views.replace("class LoginView(AllowedHostsMixin)", "class LoginView(RedirectMixin)"))
    commit(root, "refactored out RedirectMixin", date=FEB)
    assert check_docs(repo=root).findings == ()


RUN = ('''class Run:
    """Run the linter."""

    option_groups = (("Commands", "Options which are actually commands. Options in this \\
group are mutually exclusive."),)

    def __init__(self, args, reporter=None, exit=True):
        self.args = args
''')


def test_a_class_holding_a_string_continued_at_column_0_keeps_its_init(repo_factory):
    # pylint's `Run`: a backslash-continued string whose next line starts at column 0 is inside the
    # class, so renaming the `exit` keyword of its `__init__` warns the example that passes it
    root = repo_factory({"pkg/__init__.py": "", "pkg/run.py": RUN,
                         "docs/api.rst": ("API\n===\n\n.. code-block:: python\n\n    from pkg.run import Run\n"
                                          "    Run([\"x.py\"], exit=False)\n")}, date=JAN)
    (root / "pkg/run.py").write_text(RUN.replace("exit=True", "sys_exit=True"))
    commit(root, "rename Run's exit to sys_exit", date=FEB)
    got = [(f.path, f.line, f.code) for f in check_docs(repo=root).findings]
    assert got == [("docs/api.rst", 7, "changed-ref")]  # the import, judged by its call: at the call
    assert check_docs(repo=root).findings[0].message.startswith("passes `exit` to `Run`, which no longer takes it")


def test_an_example_passing_by_position_a_variable_named_as_a_renamed_parameter_still_fits(repo_factory):
    # pvlib's tracking notebook: `singleaxis(apparent_zenith, apparent_azimuth, axis_tilt=0)` after
    # `apparent_azimuth` became `solar_azimuth`: the example runs as it did (its variable is not the
    # parameter); a call passing the renamed parameter by keyword no longer does
    track = "def singleaxis(apparent_zenith, apparent_azimuth, axis_tilt=0):\n    return apparent_zenith\n"
    positional = ("Tracking\n========\n\n.. code-block:: python\n\n    from pkg.tracking import singleaxis\n"
                  "    apparent_azimuth = 180\n    singleaxis(10, apparent_azimuth, axis_tilt=0)\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/tracking.py": track, "docs/tracking.rst": positional,
                         "docs/keyword.rst": positional.replace("singleaxis(10, apparent_azimuth,",
                                                                "singleaxis(10, apparent_azimuth=apparent_azimuth,")}, date=JAN)
    (root / "pkg/tracking.py").write_text(track.replace("apparent_azimuth", "solar_azimuth"))
    commit(root, "rename apparent_azimuth to solar_azimuth", date=FEB)
    assert {f.path for f in check_docs(repo=root).findings} == {"docs/keyword.rst"}


STORAGE = '''def get_available_name(name, max_length=None):
    """A free name."""
    from storage.paths import split_name
    root, ext = split_name(name)
    if max_length is None:
        return root + ext
    raise SuspiciousFileOperation("Storage can not find an available filename")
'''
STORAGE_DOC = (".. function:: get_available_name(name, max_length=None)\n\n"
               "   Returns a free file name; raises ``SuspiciousFileOperation`` when it cannot.\n"
               "   Names are cut at ``max_length``.\n\n"
               ".. function:: other()\n\n   Uses ``split_name`` and ``Storage can not find``.\n")


def test_a_bug_fix_that_keeps_what_the_doc_states_is_no_warning(repo_factory):
    # django's false alarms: `.. function::` docs whose code got a bug fix or a refactor
    root = repo_factory({"pkg/storage.py": STORAGE, "docs/storage.rst": STORAGE_DOC}, date=JAN)
    fixed = STORAGE.replace("    if max_length is None:\n", "    name = name.strip()\n    if max_length is None:\n")
    fixed = fixed.replace("    from storage.paths import split_name\n", "")  # the import moved to the module's top
    (root / "pkg/storage.py").write_text("from storage.paths import split_name\n\n\n" + fixed)
    commit(root, "Fixed a path traversal", date=FEB)
    assert check_docs(repo=root).findings == ()


def test_a_body_change_taking_away_what_the_doc_states_warns(repo_factory):
    root = repo_factory({"pkg/storage.py": STORAGE, "docs/storage.rst": STORAGE_DOC}, date=JAN)
    (root / "pkg/storage.py").write_text(STORAGE.replace("raise SuspiciousFileOperation(", "raise ValueError("))
    commit(root, "raise ValueError", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line, f.code) for f in found] == [("docs/storage.rst", 1, "changed-ref")]
    assert "body of `get_available_name" in found[0].message


def test_only_the_part_of_the_doc_about_the_symbol_counts(repo_factory):
    # the helper's name and the message's text are stated under `other()`, not under the function
    root = repo_factory({"pkg/storage.py": STORAGE, "docs/storage.rst": STORAGE_DOC}, date=JAN)
    (root / "pkg/storage.py").write_text(STORAGE.replace("split_name(name)", "name.rpartition('.')[::2]").replace(
        "Storage can not find an available filename", "no free name"))
    commit(root, "inline split_name, shorter message", date=FEB)
    assert check_docs(repo=root).findings == ()


def test_a_literal_the_doc_shows_in_an_example_counts(repo_factory):
    code = 'def limit():\n    return 1000\n'
    doc = "Limits\n======\n\n.. function:: limit()\n\n   The limit::\n\n       >>> limit()\n       1000\n"
    root = repo_factory({"pkg/limits.py": code, "docs/limits.rst": doc}, date=JAN)
    (root / "pkg/limits.py").write_text(code.replace("1000", "2000"))
    commit(root, "raise the limit", date=FEB)
    assert [(f.path, f.code) for f in check_docs(repo=root).findings] == [("docs/limits.rst", "changed-ref")]


def test_a_changed_default_does_not_warn_a_doc_that_passes_its_own_value(repo_factory):
    # marshmallow's `Schema(many=False)` became `many=None`: `why.rst` names `Schema` and passes
    # `many=True` in an example of a subclass; a doc writing the old default is concerned
    schema = "class Schema:\n    def __init__(self, *, only=None, many=False):\n        self.many = many\n"
    root = repo_factory({
        "pkg/__init__.py": "from pkg.schema import Schema\n", "pkg/schema.py": schema,
        "docs/why.rst": ("Why\n===\n\nA :class:`Schema <pkg.Schema>` is configured by its constructor::\n\n"
                         "    class GameSchema(Schema):\n        pass\n\n    games = GameSchema(many=True, only=('id',))\n"),
        "docs/api.rst": "API\n===\n\nA :class:`pkg.Schema` takes ``many`` (``many=False`` serializes one object).\n",
    }, date=JAN)
    (root / "pkg/schema.py").write_text(schema.replace("many=False", "many=None"))
    commit(root, "many from Meta", date=FEB)
    got = {(f.path, f.code) for f in check_docs(repo=root).findings}
    assert got == {("docs/api.rst", "changed-ref")}


def test_a_changed_default_warns_a_doc_saying_what_the_function_does_by_default(repo_factory):
    # pvlib's clear-sky guide: "By default, the :py:func:`~pvlib.clearsky.lookup_linke_turbidity`
    # function will linearly interpolate" (wrapped over two lines) when `interp_turbidity=True`
    # became False; a doc naming the function with no such sentence is not concerned
    code = "def lookup(time, latitude, interp_turbidity=True):\n    return interp_turbidity\n"
    root = repo_factory({
        "sky/__init__.py": "", "sky/clearsky.py": code,
        "docs/clearsky.rst": ("Clear sky\n=========\n\nThe :py:func:`~sky.clearsky.lookup` function takes a time. By\n"
                              "default, the :py:func:`~sky.clearsky.lookup` function will linearly\n"
                              "interpolate from month to month.\n"),
        "docs/api.rst": "API\n===\n\nCall :py:func:`~sky.clearsky.lookup` for the turbidity. By default, plots are blue.\n",
    }, date=JAN)
    (root / "sky/clearsky.py").write_text(code.replace("interp_turbidity=True", "interp_turbidity=False"))
    commit(root, "no interpolation unless asked", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = check_docs(repo=root).findings
    assert {(f.path, f.code, f.severity) for f in found} == {("docs/clearsky.rst", "changed-ref", "warning")}
    assert head in found[0].message


def test_a_comment_added_after_a_docstring_is_no_change(repo_factory):
    # pydicom's "Add ruff" commit put a ruff E501 suppression comment after `Dataset.compress`'s closing quotes:
    # the definition seemed to end there, its whole body "removed", and the compression guide
    # (which writes `encoding_plugin` and `compress`) was warned
    code = ('class Dataset:\n    def compress(self, uid, encoding_plugin=""):\n        """Compress.\n\n'
            '        A long line about the encoding plugins.\n        """\n        compress(self, uid, encoding_plugin)\n')
    doc = ("Compressing\n===========\n\n.. currentmodule:: pkg.data\n\n.. method:: Dataset.compress(uid, encoding_plugin='')\n\n"
           "   Compresses with ``encoding_plugin`` by calling ``compress``.\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/data.py": code, "docs/compress.rst": doc}, date=JAN)
    (root / "pkg/data.py").write_text(code.replace('        """\n        compress(', '        """  # noqa: E501\n        compress('))
    commit(root, "Add ruff as a replacement for black", date=FEB)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/data.py").write_text(code.replace("compress(self, uid, encoding_plugin)\n", "pass\n"))
    commit(root, "compress nothing", date="2025-03-01T12:00:00+00:00")  # the control: a body change it states
    assert [(f.path, f.code) for f in check_docs(repo=root).findings] == [("docs/compress.rst", "changed-ref")]


def test_a_tuple_default_is_read_and_a_new_keyword_with_a_default_warns_no_example(repo_factory):
    """seaborn's `barplot(data=None, *, errorbar=("ci", 95), ...)`: the header parses, so adding
    `log_scale=None` is a compatible change, not "any change counts" for every example calling it."""
    plot = 'def barplot(data=None, *, x=None, errorbar=("ci", 95), width=.8, **kwargs):\n    return data\n'
    root = repo_factory({"pkg/__init__.py": "from pkg.plots import barplot\n", "pkg/plots.py": plot,
                         "docs/bars.md": "```python\nimport pkg\npkg.barplot([1], x='a')\n```\n"}, date=JAN)
    (root / "pkg/plots.py").write_text(plot.replace("width=.8,", "width=.8, log_scale=None,"))
    commit(root, "barplot: log_scale", date=FEB)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/plots.py").write_text(plot.replace("x=None", "xs=None"))
    commit(root, "barplot: x renamed")
    # through the doc's `import pkg` the keyword is `pkg.barplot`'s, and no code defines `x` any more: removed
    assert [(f.path, f.code) for f in check_docs(repo=root).findings] == [("docs/bars.md", "stale-ref")]

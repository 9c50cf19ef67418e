"""Registry: file extension → tree-sitter grammar, the node types that are definitions, and a query
for the identifiers a definition references (calls, attribute and member names).

Each grammar ships as its own wheel (`tree_sitter_python`, ...); a language whose wheel is not
installed is simply absent, and its files fall back to line windows.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from noface_ctx._state import cached, per_thread

if TYPE_CHECKING:
    from tree_sitter import Language, Parser, Query

from noface_ctx._filetypes import EXTENSIONS_BY_GRAMMAR, FENCE_BY_EXTENSION, GRAMMAR_BY_EXTENSION


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    """How to find definitions in one language.

    `definitions` maps a node type to the kind of chunk it makes ("class" kinds may hold methods);
    `references` is a tree-sitter query whose `@ref` captures are called or accessed names.
    """

    name: str
    extensions: tuple[str, ...]
    module: str
    function: str
    definitions: Mapping[str, str]
    references: str
    comment_types: tuple[str, ...] = ("comment",)
    python_docstrings: bool = False
    # wrappers whose start (decorators, `export`, `template<>`) belongs to the definition
    wrappers: tuple[str, ...] = ()
    fence: str = ""  # language tag for Markdown code fences
    extra: Mapping[str, Any] = field(default_factory=dict)


CONTAINER_KINDS = frozenset({"class", "interface", "struct", "enum", "trait", "impl", "module", "namespace", "object"})

def _spec(name: str, definitions: str, references: str, *, module: str = "",
          function: str = "language", **more: Any) -> LanguageSpec:
    """One row of the registry: `definitions` as `node_type:kind` words; the extensions come from
    `filetypes.FILE_TYPES`, the module defaults to `tree_sitter_<name>` and the fence tag to the name."""
    return LanguageSpec(
        name=name,
        extensions=EXTENSIONS_BY_GRAMMAR[name],
        module=module or f"tree_sitter_{name}",
        function=function,
        definitions=dict(word.split(":") for word in definitions.split()),
        references=references,
        **{"fence": name, **more},
    )


_C_REFS = """
(call_expression function: (identifier) @ref)
(call_expression function: (field_expression field: (field_identifier) @ref))
(field_expression field: (field_identifier) @ref)
"""
_JS_REFS = """
(call_expression function: (identifier) @ref)
(member_expression property: (property_identifier) @ref)
(new_expression constructor: (identifier) @ref)
"""
_BOTH_COMMENTS = ("line_comment", "block_comment")

# A JS/TS `variable_declarator` counts only when its value is a function, a Zig `variable_declaration`
# only when it declares a container (both checked in symbols); tsx takes typescript's rules below.
SPECS: tuple[LanguageSpec, ...] = (
    _spec(
        "python", "function_definition:function class_definition:class",
        "(call function: (identifier) @ref) (attribute attribute: (identifier) @ref)",
        python_docstrings=True, wrappers=("decorated_definition",),
    ),
    _spec(
        "javascript",
        "function_declaration:function generator_function_declaration:function class_declaration:class "
        "method_definition:function variable_declarator:function",
        _JS_REFS, wrappers=("export_statement", "lexical_declaration", "variable_declaration"),
    ),
    _spec(
        "typescript",
        "function_declaration:function generator_function_declaration:function class_declaration:class "
        "abstract_class_declaration:class interface_declaration:interface enum_declaration:enum "
        "type_alias_declaration:type method_definition:function method_signature:function "
        "abstract_method_signature:function internal_module:namespace variable_declarator:function",
        _JS_REFS, function="language_typescript",
        wrappers=("export_statement", "lexical_declaration", "variable_declaration", "expression_statement"),
    ),
    _spec("tsx", "", "", module="tree_sitter_typescript", function="language_tsx",
          extra={"like": "typescript"}),
    _spec(
        "go", "function_declaration:function method_declaration:method type_spec:struct",
        "(call_expression function: (identifier) @ref) (selector_expression field: (field_identifier) @ref)",
        wrappers=("type_declaration",),
    ),
    _spec(
        "rust",
        "function_item:function function_signature_item:function struct_item:struct enum_item:enum "
        "union_item:struct trait_item:trait impl_item:impl mod_item:module macro_definition:macro",
        """
        (call_expression function: (identifier) @ref)
        (call_expression function: (scoped_identifier name: (identifier) @ref))
        (field_expression field: (field_identifier) @ref)
        (macro_invocation macro: (identifier) @ref)
        """,
        comment_types=_BOTH_COMMENTS,
    ),
    _spec(
        "zig", "function_declaration:function variable_declaration:struct test_declaration:test",
        "(call_expression function: (identifier) @ref) (field_expression member: (identifier) @ref)",
    ),
    _spec(
        "java",
        "class_declaration:class interface_declaration:interface enum_declaration:enum record_declaration:class "
        "annotation_type_declaration:interface method_declaration:function constructor_declaration:function",
        """
        (method_invocation name: (identifier) @ref)
        (object_creation_expression type: (type_identifier) @ref)
        (field_access field: (identifier) @ref)
        """,
        comment_types=_BOTH_COMMENTS,
    ),
    _spec(
        "c",
        "function_definition:function struct_specifier:struct union_specifier:struct enum_specifier:enum",
        _C_REFS, wrappers=("type_definition",),
    ),
    _spec(
        "cpp",
        "function_definition:function class_specifier:class struct_specifier:struct union_specifier:struct "
        "enum_specifier:enum namespace_definition:namespace",
        _C_REFS + "(call_expression function: (qualified_identifier name: (identifier) @ref))",
        wrappers=("template_declaration", "type_definition"),
    ),
    _spec(
        "ruby", "method:function singleton_method:function class:class module:module",
        "(call method: (identifier) @ref)",
    ),
)

def _resolve_like(spec: LanguageSpec) -> LanguageSpec:
    """A spec with `like=<other>` takes the other language's rules, keeping its own name and grammar."""
    like = spec.extra.get("like")
    if not like:
        return spec
    base = next(s for s in SPECS if s.name == like)
    return LanguageSpec(
        name=spec.name,
        extensions=spec.extensions,
        module=spec.module,
        function=spec.function,
        definitions=base.definitions,
        references=base.references,
        comment_types=base.comment_types,
        wrappers=base.wrappers,
        fence=spec.fence,
    )


_BY_NAME: dict[str, LanguageSpec] = {spec.name: _resolve_like(spec) for spec in SPECS}

ALIASES = {"py": "python", "js": "javascript", "jsx": "javascript", "ts": "typescript", "c++": "cpp", "rb": "ruby"}
_BY_EXT = GRAMMAR_BY_EXTENSION

# Fence tags for common text files that have no grammar here.
_FENCES = FENCE_BY_EXTENSION


def language_for_path(path: str) -> str | None:
    """The grammar name for a file path (by extension), or None when no grammar applies."""
    suffix = PurePosixPath(path).suffix.lower()
    name = _BY_EXT.get(suffix)
    return name if name and available(name) else None


def spec_for(language: str | None) -> LanguageSpec | None:
    """The spec for a language name or alias, or None."""
    if not language:
        return None
    name = ALIASES.get(language.lower(), language.lower())
    return _BY_NAME.get(name)


def fence_for(path: str, language: str | None = None) -> str:
    """The Markdown fence tag for a file ('' when unknown)."""
    spec = spec_for(language) or spec_for(_BY_EXT.get(PurePosixPath(path).suffix.lower()))
    if spec:
        return spec.fence
    return _FENCES.get(PurePosixPath(path).suffix.lower(), "")


@cached(maxsize=None)
def available(name: str) -> bool:
    """True when the grammar wheel for `name` can be imported."""
    spec = spec_for(name)
    if spec is None:
        return False
    try:
        importlib.import_module(spec.module)
    except ImportError:
        return False
    return True


def grammar(name: str) -> tuple[Language, Parser, Query, Query | None]:
    """(Language, Parser, definitions Query, references Query or None). The language and the
    queries are shared by the process; the parser is this thread's own (a tree-sitter `Parser`
    is not thread-safe)."""
    import tree_sitter as ts

    lang, defs, refs = _compiled(name)
    parser = per_thread(f"code.parser.{name}", lambda: ts.Parser(lang))
    return lang, parser, defs, refs


@cached(maxsize=None)
def _compiled(name: str) -> tuple[Language, Query, Query | None]:
    import tree_sitter as ts

    spec = spec_for(name)
    if spec is None:
        raise KeyError(name)
    module = importlib.import_module(spec.module)
    lang = ts.Language(getattr(module, spec.function)())
    defs = ts.Query(lang, "\n".join(f"({t}) @def" for t in spec.definitions))
    refs = ts.Query(lang, spec.references) if spec.references.strip() else None
    return lang, defs, refs


def languages() -> tuple[str, ...]:
    """Names of the languages whose grammar is installed."""
    return tuple(name for name in _BY_NAME if available(name))

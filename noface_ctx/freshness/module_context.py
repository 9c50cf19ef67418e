"""Names read under a `.. currentmodule::` / `.. module::` context, one rule for roles, autodoc directives,
autosummary entries and autodoc member lists, as Sphinx reads them (`in_module`, `autodoc_name`):

- a name written from the module's own root package (`scrapy.Item` under `scrapy.item`) is written in full;
- an autodoc target takes the module only where autodoc looks it up there: a module-level object's bare name
  (`.. autoclass:: Item`), a class-level one's `Class.member` (`.. automethod:: Item.copy`); a longer name names its
  own module (`.. autoclass:: scrapy.Item` is `scrapy`'s `Item`), and `.. automodule::` always does; a member list
  (`:members: copy, fields`) hangs on the target read that way (`scrapy.Item.copy`, never `scrapy.item.scrapy.Item.copy`);
- any other role target or autosummary entry takes the module as a prefix; the py domain tries a role's target as
  written first and autosummary tries an entry as written second, so `Codebase` reads a dotted lower-case one as written
  when the module has no such submodule (`numpy.mean` under `xarray`).
"""

from __future__ import annotations

from dataclasses import replace

from noface_ctx.freshness.references import Reference

# autodoc's class-level documenters (`ClassLevelDocumenter`): a target is `Class.member`, the class from the module
CLASS_LEVEL = frozenset({"method", "classmethod", "staticmethod", "attribute", "property", "decoratormethod"})


def absolute(directive: str, name: str) -> bool:
    """Whether autodoc's `.. auto<directive>:: name` names its module itself: `automodule` always; a module-level
    object written dotted (`pkg.Item`); a class-level one with a module before its class (`pkg.Item.copy`)."""
    return directive == "module" or name.count(".") >= (2 if directive in CLASS_LEVEL else 1)


def in_module(ref: Reference, module: str) -> Reference:
    """A reference read in a module context (`corr` under `xarray`: `xarray.corr`); a plain word (`regex`), a path
    and a name written from the module's root package (`xarray.corr`) stay as they are."""
    if not module or not ref.strict or ref.kind == "path" or ref.name.split(".", 1)[0] == module.split(".", 1)[0]:
        return ref
    return replace(ref, name=f"{module}.{ref.name}", kind="method")


def autodoc_ref(directive: str, ref: Reference, module: str) -> Reference:
    """A reference an autodoc directive `.. auto<directive>::` makes, read in the module context as autodoc reads it."""
    return ref if absolute(directive, ref.name) else in_module(ref, module)


def autodoc_name(directive: str, name: str, module: str) -> str:
    """The object `.. auto<directive>:: name` documents under the module context `module`."""
    if not module or absolute(directive, name) or name.split(".", 1)[0] == module.split(".", 1)[0]:
        return name
    return f"{module}.{name}"

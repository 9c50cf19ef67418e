"""Whether a Python text can define a name at all, read from the name's occurrences alone
(`may_define`): what spares `declarations.declared` reading a whole definition table to answer
"no" for a file that only uses the name.

Every name of a definition table (`declarations`) is a whole word of the text (its neighbours
are not ASCII letters, digits or `_`) standing where a definition puts a name: after `def`,
`class` or `import`; at a quote (a string in `__all__`, a key of an alias table or of a
`__getattr__`'s dict); after a comma (a parameter, a name imported or assigned in a list); or
before what ends a name being bound — `=`, `:`, `,`, `)`, `;`, an operator of an augmented
assignment, a comment, a line continuation, a quote, the line's or the text's end (white space
aside). Docstrings, blanked before a table is read, start and end with quotes, so a blank next
to a name there is a quote here. A name none of whose occurrences stands so (`name(...)`,
`obj.name`, `name.attr`, `[name]`) is defined nowhere in the text: the answer is exact.
"""

from __future__ import annotations

import re

_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
# what may follow a name being bound, blanks of its line aside (`-` last: literal in the class)
_BINDING_END = re.compile(r"[^\S\n]*+(?:[\n:=,);#\\'\"*/|&+-]|\Z)")
_BEFORE = ("def", "class", "import")  # a header's name; `import name.sub` binds `name`


def may_define(text: str, name: str) -> bool:
    """Whether some whole-word occurrence of `name` in `text` stands where a definition puts a
    name (see the module docstring); False: `declarations.declared(text)` holds no `name`, as a
    name, an instance attribute or a module's own name."""
    size, at = len(name), text.find(name)
    while at >= 0:
        end = at + size
        if not ((at and text[at - 1] in _WORD_CHARS) or (end < len(text) and text[end] in _WORD_CHARS)) and (
                _bound_at(text, at, end)):
            return True
        at = text.find(name, at + 1)
    return False


def _bound_at(text: str, at: int, end: int) -> bool:
    """Whether the occurrence `text[at:end]` stands where a definition puts a name."""
    if _BINDING_END.match(text, end) is not None:
        return True
    before = at
    while before and text[before - 1].isspace():
        before -= 1
    if before and text[before - 1] in "'\",":
        return True
    for word in _BEFORE:
        start = before - len(word)
        if start >= 0 and text.startswith(word, start) and (start == 0 or text[start - 1] not in _WORD_CHARS):
            return True
    return False

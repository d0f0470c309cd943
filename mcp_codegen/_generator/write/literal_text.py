"""The cheap first step of the literal-only check: recognise the renderer's text without compiling it.

``compile()`` of a 142 KB generated module costs ~25 ms (a 10,000-tool build spent ~5 s of its
parent's CPU on it). Generated modules are a very small language, which a few regular-expression
passes (all of them in C) recognise in ~4 ms:

1. a header of ``#`` comment lines, each of printable characters only;
2. then statements ``NAME = value`` (``NAME`` upper case, at column 0), each value made of
3. *atoms* — a double-quoted string with no prefix, whose characters are printable and whose
   escapes are exactly the ones ``mcp_codegen._generator.render.literal.string_literal`` writes; an
   int or float as ``repr`` writes it (an optional ``-`` sign included); ``True``, ``False``,
   ``None`` — each replaced by ``0``;
4. then, innermost first, every ``[...]``, ``(...)`` holding ``0`` items separated by commas
   (optional trailing comma) and every ``{...}`` holding ``0: 0`` pairs the same way is replaced
   by ``0``, until nothing changes; the value must then be a single ``0`` at the end of its line.

Why it is sound (whatever it accepts is literal-only, as ``builds_literals_only`` means it):
after step 3, any character that is not part of an atom is still there, and step 4 accepts only
``0``, brackets, ``,``, ``:``, spaces and newlines, so no name, attribute, operator, call,
keyword, comment or string prefix can survive in a value. An atom cannot be cut differently by
Python's tokenizer: strings hold no newline and no unescaped ``"``, so the first ``"`` outside a
string opens one and its end is where Python ends it; a number or keyword glued to anything but
punctuation leaves a letter, a ``.``, a digit or a second ``0`` next to it, which step 4 refuses
(that also refuses implicit string concatenation, ``1 -2`` and ``"a"(1)``-style calls: two
values are never adjacent). Step 4 builds values only as list, tuple, dict displays and
parentheses over values, so it also proves the brackets of each statement balanced and nested,
dict items as ``key: value``, and no statement beginning inside another one's brackets.
Anything else (tabs, ``\\r``, a BOM, implicit concatenation, a complex number, a name on the
right-hand side, ...) is simply not recognised: the caller then runs the full check, which
accepts or refuses it with a position. The source-encoding declaration that Python honours in
the first two lines is checked separately (``encoding_problem``): neither this recognition nor
``compile()`` of a ``str`` sees it, but an import of the written file does.
"""

from __future__ import annotations

import re

_UNPRINTABLE = "\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\ud800-\\udfff"
_STRING = (
    f'"(?:[^{_UNPRINTABLE}"\\\\]++'
    r'|\\[\\"nrt]|\\x[0-9a-f]{2}|\\u[0-9a-f]{4}|\\U000[0-9a-f]{5}|\\U0010[0-9a-f]{4})*+"'
)
_NUMBER = r"-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?(?:e[+-][0-9]++)?"
_ATOM = re.compile(f"{_STRING}|{_NUMBER}|True|False|None")
_HEADER = re.compile(f"(?:#[^{_UNPRINTABLE}]*+\\n)*+")
_STATEMENT = re.compile(r"^[A-Z_][A-Z0-9_]*+ = ", re.MULTILINE)
_INDENT = re.compile(r"\n +")
_SPACE = re.compile(r"[ \n]+")
_ITEMS = r"(?:0(?:,0)*+,?)?"
_DISPLAY = re.compile(rf"\[{_ITEMS}\]|\({_ITEMS}\)|\{{(?:0:0(?:,0:0)*+,?)?\}}")
_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.ASCII)


def recognised(content: str) -> bool:
    """True when ``content`` is in the small language above, so literal-only without compiling."""
    header = _HEADER.match(content)
    parts = _STATEMENT.split(content[header.end() if header else 0 :])
    if len(parts) < 2 or parts[0].strip("\n"):
        return False
    for part in parts[1:]:
        # Indentation first (no string holds a newline, so none is touched): fewer characters
        # for the atom pass to look at.
        value = _ATOM.sub("0", _INDENT.sub("\n", part))
        if value.startswith("\n"):
            return False  # ``NAME =`` then a line break: a syntax error
        value = _SPACE.sub("", value)  # no string is left, so no space inside one
        count = 1
        while count:
            value, count = _DISPLAY.subn("0", value)
        if value != "0":
            return False
    return True


def encoding_problem(content: str) -> str | None:
    """A source-encoding declaration (PEP 263) other than UTF-8 in the first two lines, which
    would make an import decode the written UTF-8 file as something else (``utf-7`` turns
    ``+ACI-`` inside a string into a quote: code); ``None`` when there is none."""
    for line in content.split("\n", 2)[:2]:
        found = _COOKIE.match(line)
        if found and found.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
            return f"it declares the source encoding {found.group(1)!r}; generated files are UTF-8"
        if line.strip(" \t\f") and not line.lstrip(" \t\f").startswith("#"):
            break  # Python looks at the second line only when the first is a comment or blank
    return None

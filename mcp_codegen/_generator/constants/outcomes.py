"""The values and the error of ``mcp_codegen._generator.constants.evaluate``: what an evaluated expression can be
besides plain Python data, and ``Unresolved``, the part that is known only at run time."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Protocol

SCALARS = (str, int, float, bool, type(None))


class _Evaluates(Protocol):
    def evaluate(self, node: ast.expr) -> Any: ...


@dataclass(frozen=True)
class Constructed:
    """A ``ToolAnnotations(...)`` or ``Icon(...)`` call: the type's name and its keywords."""

    type_name: str
    keywords: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class ModuleRef:
    """A name bound to a module by an import (``from pkg import consts``)."""

    dotted: str


@dataclass(frozen=True)
class EnumMember:
    """``Kind.READ``: only its ``.value`` and ``.name`` are values a decorator may use."""

    name: str
    value: Any
    where: str  # "Kind.READ", for messages


@dataclass(frozen=True)
class EnumClass:
    """A module-level ``class Kind(str, Enum)``; members are read from its body."""

    name: str
    evaluator: _Evaluates
    node: ast.ClassDef

    def member(self, attribute: str, where: str) -> EnumMember:
        values = [
            statement.value
            for statement in self.node.body
            if isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id == attribute
        ]
        if len(values) != 1:
            raise Unresolved(where, f"is not a member of enum {self.name} bound once")
        try:
            return EnumMember(attribute, self.evaluator.evaluate(values[0]), where)
        except Unresolved as inner:
            raise Unresolved(
                where, f"is a member of enum {self.name} whose value is not constant: {inner}"
            ) from None


class Unresolved(Exception):
    """A part of an expression whose value is known only at run time."""

    def __init__(
        self,
        part: str,
        why: str,
        *,
        run_time_input: str = "",
        instead: str = "",
        local_of: str = "",
    ) -> None:
        self.part = part
        self.why = why
        self.instead = instead  # what to write instead, when it is specific to the part
        #: the enclosing function whose parameter the value comes from
        self.run_time_input = run_time_input
        #: the enclosing function that sets the value as a local variable (a loop's target)
        self.local_of = local_of
        #: the innermost expression of the evaluated module that could not be resolved (its
        #: position is the error's); parts in other modules are wrapped at the import
        self.node: ast.AST | None = None
        super().__init__(f"`{part}` {why}")


def short_source(node: ast.AST) -> str:
    """The source of ``node`` as messages quote it (at most 60 characters)."""
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."


def dotted_name(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of attributes on a name; ``None`` for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))

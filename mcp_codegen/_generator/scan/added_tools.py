"""Tools registered by call, not by decorator (scanner helper, no user code runs).

Published servers write ``mcp.add_tool(fn)``, ``mcp.add_tool(fn, name=..., description=...)``
(MCP SDK 1.x/2.x), ``mcp.add_tool(Tool.from_function(fn, name=...))`` or ``mcp.tool(fn,
name=...)`` (fastmcp). Each is the decorator ``@mcp.tool(name=..., ...)`` applied to ``fn`` by
hand, so the scanner rewrites the call
into that decorator and records ``fn``'s ``def`` with it: the tool then goes through exactly the
path a decorated tool takes (constant evaluation, flavors, runtime bindings).

A function the scanner cannot find the ``def`` of in the same module (imported, ``module.fn``, a
bound method ``self.method`` / ``obj.method``) is recorded as a *registered* tool: the worker
takes it from the registration the real server made at that call when the module is imported.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.helpers import get_full_name_for_node

from mcp_codegen._generator.constants.outcomes import short_source
from mcp_codegen._shared.format import FRAMEWORK_MARKER

METHOD = "add_tool"
FROM_FUNCTION = "from_function"


@dataclass(frozen=True)
class AddedTool:
    """One ``<server>.add_tool(...)`` statement, as the equivalent decorator."""

    function: str  # the name passed as the tool function: ``fn``, ``module.fn``, ``self.method``
    function_node: ast.expr  # where that name is written
    decorator: cst.Decorator  # ``@<server>.tool(<the options>)``
    located_decorator: ast.Call  # the same, with the options' source positions
    call: ast.Call  # the ``add_tool(...)`` call itself
    #: the function is wrapped at the call: the tool is the registration's, never the ``def``
    wrapped: bool = False
    #: ``<server>.tool(fn, ...)``: the first argument may also be the tool's name held in a
    #: constant (``register = mcp.tool(NAME)``), which registers nothing here
    direct: bool = False


class NotStatic(Exception):
    """The call's tool function is not a plain name the scanner can find the ``def`` of."""

    def __init__(self, node: ast.AST, message: str) -> None:
        self.node = node
        super().__init__(message)


def added_call(statement: cst.BaseSmallStatement) -> cst.Call | None:
    """The ``<x>.add_tool(...)``, ``<x>.<decorator>(...)(fn)`` or ``<x>.<decorator>(fn, ...)``
    call this statement consists of, or assigns (``wrapped = mcp.tool(...)(wrapped)``), if it
    is one (the last two only count when the decorator patterns match them)."""
    if not isinstance(statement, (cst.Expr, cst.Assign, cst.AnnAssign)):
        return None
    value = statement.value
    if not isinstance(value, cst.Call):
        return None
    func = value.func
    if isinstance(func, cst.Attribute) and func.attr.value == METHOD:
        return value
    if _call_form(value) or _direct_form(value):
        return value
    return None


def _call_form(call: cst.Call) -> bool:
    """``<x>.<attr>(...)(fn)``: a decorator applied by hand to one function."""
    return (
        isinstance(call.func, cst.Call)
        and isinstance(call.func.func, cst.Attribute)
        and len(call.args) == 1
        and call.args[0].keyword is None
        and not call.args[0].star
    )


def _direct_form(call: cst.Call) -> bool:
    """``<x>.<attr>(fn, name=...)``: the decorator called with the function itself (fastmcp's
    ``mcp.tool(fn)``), its one positional argument a function reached by name (or wrappers
    around one), never a literal such as the tool's name."""
    positional = [arg for arg in call.args if arg.keyword is None]
    return (
        isinstance(call.func, cst.Attribute)
        and len(positional) == 1
        and call.args[0] is positional[0]
        and not positional[0].star
        and not any(arg.star for arg in call.args)
        and _innermost(positional[0].value) is not None
    )


def _located_direct_form(node: ast.Call) -> bool:
    return (
        isinstance(node.func, ast.Attribute)
        and len(node.args) == 1
        and not isinstance(node.args[0], ast.Starred)
        and all(keyword.arg is not None for keyword in node.keywords)
        and _located_innermost(node.args[0])
    )


def _located_innermost(node: ast.expr) -> bool:
    """``_innermost`` on the ``ast`` side: a name, or wrapper calls around one."""
    while isinstance(node, ast.Call) and _located_dotted(node.func) and node.args:
        if isinstance(node.args[0], ast.Starred):
            return False
        node = node.args[0]
    return _located_dotted(node)


def _located_dotted(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return True
    return isinstance(node, ast.Attribute) and _located_dotted(node.value)


def _located_call_form(node: ast.Call) -> bool:
    return (
        isinstance(node.func, ast.Call)
        and isinstance(node.func.func, ast.Attribute)
        and len(node.args) == 1
        and not node.keywords
        and not isinstance(node.args[0], ast.Starred)
    )


def located_calls(tree: ast.Module) -> list[ast.Call]:
    """Every statement-level ``<x>.add_tool(...)`` / ``<x>.<attr>(...)(fn)`` call (alone or
    assigned), in source
    order (the order in which the scanner's statement walk meets the libcst ones)."""
    found = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, (ast.Expr, ast.Assign, ast.AnnAssign))
        and isinstance(node.value, ast.Call)
        and (
            (isinstance(node.value.func, ast.Attribute) and node.value.func.attr == METHOD)
            or _located_call_form(node.value)
            or _located_direct_form(node.value)
        )
    ]
    return sorted(found, key=lambda call: (call.lineno, call.col_offset))


def server_decorator(call: cst.Call) -> cst.Decorator:
    """``@<server>.tool`` for ``<server>.add_tool(...)``, ``@<server>.<attr>`` for the call
    and direct forms: what the decorator patterns match."""
    if _call_form(call):
        assert isinstance(call.func, cst.Call)
        return cst.Decorator(decorator=call.func.func)
    assert isinstance(call.func, cst.Attribute)
    if call.func.attr.value != METHOD:
        return cst.Decorator(decorator=call.func)
    return cst.Decorator(decorator=cst.Attribute(value=call.func.value, attr=cst.Name("tool")))


def as_decorator(call: cst.Call, located: ast.Call, server: str) -> AddedTool:
    """The decorator ``call`` amounts to; ``NotStatic`` when its function is not a plain name."""
    if _call_form(call):
        return _as_call_form(call, located, server)
    assert isinstance(call.func, cst.Attribute)
    if call.func.attr.value != METHOD:
        return _as_direct_form(call, located, server)
    options: Sequence[cst.Arg] = call.args[1:]
    located_options = _in_order(located)[1:]
    first = call.args[0] if call.args else None
    if first is None or first.star or (first.keyword and first.keyword.value != "fn"):
        raise NotStatic(
            located,
            f"{server}.add_tool(...) without its tool function as the first argument cannot be "
            f"read statically; write {server}.add_tool(function, name=..., ...)",
        )
    target, located_target = first.value, _value(_in_order(located)[0])
    if isinstance(target, cst.Call) and isinstance(located_target, ast.Call):
        dotted = get_full_name_for_node(target.func) or ""
        at = _function_argument(target)
        if dotted.rsplit(".", 1)[-1] != FROM_FUNCTION or at is None:
            raise NotStatic(
                located_target,
                f"{server}.add_tool({dotted or '...'}(...)) builds the tool with a call the "
                "generator cannot read; pass the function itself "
                f"({server}.add_tool(function, name=...)), Tool.from_function(function, ...), "
                f"or decorate the function with @{server}.tool(...), or end this line with "
                f'"{FRAMEWORK_MARKER}" to keep the tool with the framework',
            )
        if call.args[1:]:
            raise NotStatic(
                _value(located_options[0]),
                f"{server}.add_tool(Tool.from_function(...), ...) takes no further arguments "
                "here; pass the options to Tool.from_function",
            )
        options = [arg for index, arg in enumerate(target.args) if index != at]
        in_order = _in_order(located_target)
        located_options = [node for index, node in enumerate(in_order) if index != at]
        target, located_target = target.args[at].value, _value(in_order[at])
    if _dotted(target) is None:
        raise NotStatic(
            located_target,
            f"{server}.add_tool(...) registers `{ast.unparse(located_target)}`, which is not a "
            "function reached by name (a name, `module.function`, `obj.method`), so the "
            "generator cannot tell which function it is; pass the function by its name, or "
            f"decorate the function with @{server}.tool(...) where it is defined",
        )
    assert isinstance(call.func, cst.Attribute)
    decorator = cst.Decorator(
        decorator=cst.Call(
            func=cst.Attribute(value=call.func.value, attr=cst.Name("tool")),
            args=[arg.with_changes(comma=cst.MaybeSentinel.DEFAULT) for arg in options],
        )
    )
    positional = [node for node in located_options if not isinstance(node, ast.keyword)]
    keywords = [node for node in located_options if isinstance(node, ast.keyword)]
    located_decorator = ast.Call(func=copy.copy(located.func), args=positional, keywords=keywords)
    ast.copy_location(located_decorator, located)
    return AddedTool(_dotted(target) or "", located_target, decorator, located_decorator, located)


def _as_call_form(call: cst.Call, located: ast.Call, server: str) -> AddedTool:
    """``<server>.tool(...)(fn)``: the decorator is the inner call itself. A function wrapped
    at the call (``errors_as_text(logged(fn))``) is what the server receives: the tool is
    taken from the registration at this call, like an imported function (``wrapped``)."""
    assert isinstance(call.func, cst.Call) and isinstance(located.func, ast.Call)
    target, located_target = call.args[0].value, located.args[0]
    dotted = _innermost(target)
    if dotted is None:
        reached = "built at run time" if isinstance(target, cst.Call) else "not reached by name"
        raise NotStatic(
            located_target,
            f"{server}.tool(...)(`{ast.unparse(located_target)}`) registers a function "
            f"{reached}, with no function reached by name (a name, `module.function`, "
            "`obj.method`, or wrapper calls around one), so the generator cannot tell which "
            "function it is; define the function with def and register it by name, with its "
            f"wrappers as decorators under @{server}.tool(...)",
        )
    return AddedTool(
        dotted,
        located_target,
        cst.Decorator(decorator=call.func),
        located.func,
        located,
        wrapped=isinstance(target, cst.Call),
    )


def _as_direct_form(call: cst.Call, located: ast.Call, server: str) -> AddedTool:
    """``<server>.tool(fn, name=...)``: the decorator ``@<server>.tool(name=...)`` applied to
    ``fn`` (a wrapped ``fn`` as in the call form)."""
    assert isinstance(located.func, ast.Attribute)
    target, located_target = call.args[0].value, located.args[0]
    options = [arg.with_changes(comma=cst.MaybeSentinel.DEFAULT) for arg in call.args[1:]]
    located_decorator = ast.Call(func=copy.copy(located.func), args=[], keywords=located.keywords)
    ast.copy_location(located_decorator, located)
    return AddedTool(
        _innermost(target) or "",
        located_target,
        cst.Decorator(decorator=call.with_changes(args=options)),
        located_decorator,
        located,
        wrapped=isinstance(target, cst.Call),
        direct=True,
    )


def _innermost(node: cst.BaseExpression) -> str | None:
    """``fn`` for ``fn`` and for wrapper calls around it, ``errors_as_text(logged(fn))`` (each
    wrapper a name called with the wrapped function first); None for anything else."""
    while isinstance(node, cst.Call) and _dotted(node.func) is not None and node.args:
        first = node.args[0]
        if first.keyword is not None or first.star:
            return None
        node = first.value
    return _dotted(node)


#: names libcst reads as ``Name`` that ``ast`` reads as constants: never a function
_CONSTANTS = frozenset({"None", "True", "False"})


def _dotted(node: cst.BaseExpression) -> str | None:
    """``fn``, ``module.fn`` or ``self.method`` as text; None for any other expression."""
    if isinstance(node, cst.Name):
        return node.value if node.value not in _CONSTANTS else None
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr.value}" if head is not None else None
    return None


def _in_order(call: ast.Call) -> list[ast.AST]:
    nodes: list[ast.AST] = [*call.args, *call.keywords]
    return sorted(nodes, key=lambda node: (node.lineno, node.col_offset))  # type: ignore[attr-defined]


def _value(node: ast.AST) -> ast.expr:
    return node.value if isinstance(node, ast.keyword) else node  # type: ignore[return-value]


def through_variable(
    call: cst.Call, located: ast.Call, body: Sequence[ast.stmt], server: str, in_function: bool
) -> tuple[cst.Call, ast.Call]:
    """``<server>.add_tool(name)`` where ``name`` is a variable of the same scope (``body``):
    the call with the value inlined when it is one ``Tool.from_function(...)`` assigned before
    the call (``read_tool = Tool.from_function(fn, name=...)``). Inside a function
    (``in_function``), ``NotStatic`` when it is set from anything else: a tool object only the
    running code builds, which calling the function with stand-ins cannot name. Else the call
    unchanged (at module level the worker takes what the import registered there)."""
    func = call.func
    first = call.args[0] if call.args else None
    if not (
        isinstance(func, cst.Attribute)
        and func.attr.value == METHOD
        and first is not None
        and first.keyword is None
        and isinstance(first.value, cst.Name)
    ):
        return call, located
    name = first.value.value
    values = [
        value
        for value in _assigned(body, name)
        if (getattr(value, "end_lineno", None) or value.lineno) < located.lineno
    ]
    if not values or any(value is _LOOP_TARGET for value in values):
        return call, located
    value = values[-1]
    if len(values) == 1 and isinstance(value, ast.Call) and _is_from_function(value):
        inlined = cst.parse_expression(ast.unparse(value))
        rewritten = call.with_changes(args=[first.with_changes(value=inlined), *call.args[1:]])
        args = [value, *located.args[1:]]
        copied = ast.Call(func=located.func, args=args, keywords=located.keywords)
        return rewritten, ast.copy_location(copied, located)
    if not in_function:
        return call, located
    raise NotStatic(
        _value(_in_order(located)[0]),
        f"`{name}` is a variable set from `{short_source(value)}` when the code runs, not a "
        "function the generator can read a schema from; register the function by its name "
        f"({server}.add_tool(function) or Tool.from_function(function, ...)), or end this line "
        f'with "{FRAMEWORK_MARKER}" to keep the tool with the framework',
    )


def _is_from_function(node: ast.Call) -> bool:
    func = node.func
    has_function = bool(node.args) or any(k.arg == "fn" for k in node.keywords)
    return isinstance(func, ast.Attribute) and func.attr == FROM_FUNCTION and has_function


def _function_argument(call: cst.Call) -> int | None:
    """The index of ``Tool.from_function``'s function among ``call``'s arguments: the first
    positional one, else ``fn=`` (``Tool.from_function(name=..., fn=wrappers.bitbucket)``)."""
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None or arg.keyword.value == "fn":
            return index
    return None


#: what ``_assigned`` gives for a loop or ``with`` target: no single value
_LOOP_TARGET = ast.Constant(value=None, lineno=0)


def _assigned(body: Sequence[ast.stmt], name: str) -> list[ast.expr]:
    """The values assigned to ``name`` by the statements of one scope (nested blocks
    included, nested functions and classes not), in source order."""
    found: list[ast.expr] = []
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if (
            isinstance(statement, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == name for t in statement.targets)
        ) or (
            isinstance(statement, ast.AnnAssign)
            and statement.value is not None
            and isinstance(statement.target, ast.Name)
            and statement.target.id == name
        ):
            found.append(statement.value)
        targets = [getattr(statement, "target", None)]
        targets += [item.optional_vars for item in getattr(statement, "items", ())]
        if not isinstance(statement, ast.AnnAssign) and any(
            isinstance(n, ast.Name) and n.id == name
            for target in targets
            if target is not None
            for n in ast.walk(target)
        ):
            found.append(_LOOP_TARGET)
        for block in _blocks(statement):
            found += _assigned(block, name)
    return found


def _blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The statement blocks nested in ``statement`` (its bodies, handlers and cases)."""
    blocks = [
        value
        for field in ("body", "orelse", "finalbody")
        if isinstance(value := getattr(statement, field, None), list)
    ]
    blocks += [handler.body for handler in getattr(statement, "handlers", ())]
    blocks += [case.body for case in getattr(statement, "cases", ())]
    return blocks

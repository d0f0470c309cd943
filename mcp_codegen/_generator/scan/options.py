"""Decorator options as the scanner records them, and the messages for the ones it cannot read.

An evaluated decorator argument (``mcp_codegen._generator.constants.evaluate``) becomes an option here: ``ToolAnnotations``
and ``Icon`` calls as dicts of MCP wire names, the seed-001 shorthands merged into ``annotations``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mcp_codegen._generator.constants.evaluate import Constructed, EnumClass, EnumMember, Unresolved
from mcp_codegen._generator.constants.module_scope import Enclosing
from mcp_codegen._generator.model import JSON, Position
from mcp_codegen._generator.scan.factory_entry import FactoryEntry
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.format import FRAMEWORK_MARKER

#: ``ToolAnnotations(...)`` keyword names (snake_case) and the seed-001 shorthands, to MCP wire names.
ANNOTATION_KEYS = {
    "title": "title",
    "read_only_hint": "readOnlyHint",
    "destructive_hint": "destructiveHint",
    "idempotent_hint": "idempotentHint",
    "open_world_hint": "openWorldHint",
}
SHORTHAND_ANNOTATIONS = {
    "read_only": "readOnlyHint",
    "destructive": "destructiveHint",
    "idempotent": "idempotentHint",
    "open_world": "openWorldHint",
}
#: Option key holding a ``ToolAnnotations(...)`` call's keywords as written (see ``_record``).
ANNOTATIONS_AS_WRITTEN = "annotations_as_written"


EXAMPLES = {
    "name": 'name="search"',
    "title": 'title="Search"',
    "description": 'description="..."',
    "annotations": "annotations=ToolAnnotations(readOnlyHint=True)",
    "meta": 'meta={"key": "value"}',
    "icons": 'icons=[Icon(src="https://...")]',
    "tags": 'tags={"search"}',
}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def as_option(key: str, value: object) -> tuple[object, dict[str, object] | None]:
    """An evaluated decorator argument as the options record it: ``ToolAnnotations(...)`` as a
    dict of wire names (plus its keywords as written), ``Icon(...)`` calls in ``icons=`` as
    dicts of wire names. A constructed value anywhere else is refused."""
    if key == "annotations" and isinstance(value, Constructed):
        if value.type_name != "ToolAnnotations":
            raise Unresolved(f"{value.type_name}(...)", "is not a ToolAnnotations value")
        # ``title=None`` is the field's default: the model serves no such key (a helper
        # ``def read_only(title=None): return ToolAnnotations(title=title, ...)`` passes it).
        written = {k: v for k, v in value.keywords if v is not None}
        _no_constructed(written)
        return {ANNOTATION_KEYS.get(k, k): v for k, v in written.items()}, written
    if key == "icons" and isinstance(value, list | tuple):
        icons: list[object] = []
        for icon in value:
            if isinstance(icon, Constructed) and icon.type_name == "Icon":
                icon = {_camel(k): v for k, v in icon.keywords}
            _no_constructed(icon)
            icons.append(icon)
        return icons if isinstance(value, list) else tuple(icons), None
    _no_constructed(value)
    return value, None


def _no_constructed(value: object) -> None:
    if isinstance(value, EnumMember):
        raise Unresolved(
            value.where,
            "is an enum member, which the generator does not pass on as a value (its "
            "representation differs between Python versions)",
            instead=f"write {value.where}.value",
        )
    if isinstance(value, EnumClass):
        raise Unresolved(value.name, "is an enum class, not a value")
    if isinstance(value, Constructed):
        raise Unresolved(
            f"{value.type_name}(...)",
            "is a value the generator reads only as annotations= (ToolAnnotations) or as an "
            "item of icons= (Icon)",
        )
    if isinstance(value, dict):
        for item in value.values():
            _no_constructed(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            _no_constructed(item)


def normalise_annotations(
    options: dict[str, JSON], positions: dict[str, Position], relative: str
) -> Diagnostic | None:
    """Merge the shorthands into ``options["annotations"]`` (wire names), in place; a diagnostic
    when ``annotations=`` is neither a dict nor a ``ToolAnnotations(...)`` call."""
    problem = None
    annotations = options.get("annotations")
    if annotations is not None and not isinstance(annotations, dict):
        pos = positions.get("annotations", Position(1, 1))
        problem = Diagnostic(
            relative,
            pos.line,
            pos.column,
            "annotations= must be a dict or a ToolAnnotations(...) call",
        )
        annotations = None
    merged = {ANNOTATION_KEYS.get(k, k): v for k, v in (annotations or {}).items()}
    for short, wire in SHORTHAND_ANNOTATIONS.items():
        if short in options:
            merged[wire] = options.pop(short)
            positions.setdefault("annotations", positions[short])
    if merged:
        options["annotations"] = merged
    else:
        options.pop("annotations", None)
    return problem


def unresolved_message(
    key: str,
    problem: Unresolved,
    *,
    module: str,
    registrars: set[str],
    enclosing: Sequence[Enclosing],
    suggest: Callable[[str], FactoryEntry | None] | None = None,
    server: str = "",
    by_call: bool = False,
) -> str:
    """The message for a decorator argument that depends on run-time values.

    ``registrars`` are the enclosing functions that take the tool's server as a parameter,
    ``server`` that parameter's name, ``enclosing`` the functions around the tool, outermost
    first; ``suggest`` gives the ``factories`` entry for an enclosing function by its name
    (None: a placeholder call); ``by_call``: the tool is registered by a call (``add_tool``),
    not a decorator.
    """
    if problem.instead:
        instead = problem.instead
    elif problem.run_time_input in registrars and problem.part == server:
        # ``self.tool_settings.description`` in a method of a server class: an attribute of
        # the server itself, not a stand-in's for another parameter
        instead = (
            f"write the value literally or as a module-level constant (`{server}` is the "
            "server itself: its attributes are set only when it is built)"
        )
    elif problem.run_time_input and problem.run_time_input in registrars:
        instead = (
            "write the value literally or as a module-level constant (the generator calls "
            f"{problem.run_time_input}() with the server and stand-ins for its other "
            "parameters, so their values are unknown)"
        )
    elif problem.run_time_input:
        function = problem.run_time_input
        entry = suggest(function) if suggest is not None else None
        if entry is not None:
            hint = entry.hint("")
        else:
            around = next((e for e in enclosing if e.name == function), None)
            example = around.example_call() if around else f"{function}(...)"
            hint = (
                f'e.g. factories = ["{module}:{example}"] with literal arguments{fill_in(around)}'
            )
        instead = (
            f"write the value literally, or, if {function}() builds the server, list the "
            f"call in `factories` ({hint}) so the generator calls it"
        )
    else:
        example = EXAMPLES.get(key, f"{key}=...")
        instead = (
            f"write the value literally (e.g. {example}) or as a module-level constant "
            "built from literals"
        )
        function = problem.local_of
        entry = suggest(function) if function and suggest is not None else None
        if entry is not None and entry.complete and function not in registrars:
            # ``setup()`` registering a loop's tools: calling it tells each name
            instead += (
                f", or, if {function}() registers the tools when it runs (a loop over "
                f"functions), list the call in `factories` ({entry.hint('')}) so the generator "
                "calls it and generates each tool it registers"
            )
        if function:  # a loop's variable: the marker keeps every tool it registers
            instead += (
                f', or end the registration\'s line with "{FRAMEWORK_MARKER}" to keep the tools '
                "it registers with the framework"
            )
    where = "registration" if by_call else "decorator"
    return (
        f"{where} argument {key}= cannot be known at build time: `{problem.part}` "
        f"{problem.why}; {instead}"
    )


def fill_in(function: Enclosing | None) -> str:
    """How to complete an ``example_call()`` hint, when it has placeholders."""
    if function is None or not function.required:
        return ""
    names = ", ".join(name for name, _ in function.required)
    return f"; replace each ... with a literal value for {names}"

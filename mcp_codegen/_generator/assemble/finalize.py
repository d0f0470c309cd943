"""Stage 3: turn raw schemas into final MCP tool definitions (transforms, boxing, metadata, checks)."""

from __future__ import annotations

from typing import Any

from mcp_codegen._generator.assemble.field_lines import field_lines
from mcp_codegen._generator.config import Config
from mcp_codegen._generator.inspection.resolve import registrar_of
from mcp_codegen._generator.model import (
    JSON,
    InspectedModule,
    InspectedTool,
    ModuleDefinition,
    Position,
    ScannedModule,
    ScannedTool,
    ToolDefinition,
)
from mcp_codegen._generator.schema.inputs import final_input_schema
from mcp_codegen._generator.schema.outputs import output_variants
from mcp_codegen._profiles.name_limits import check_names, unservable_name
from mcp_codegen._shared.annotations import TOOL_HINTS
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.format import PRIVATE_KEY
from mcp_codegen._shared.protocols import variants_of
from mcp_codegen._shared.schema_transforms import Memo

MAX_DESCRIPTION_BYTES = 100_000
MODEL_API_NAME_LIMIT = 64


def _at(
    module: ScannedModule, position: Position, message: str, severity: str = "error"
) -> Diagnostic:
    return Diagnostic(module.relative_path, position.line, position.column, message, severity)


def _check_schema(
    schema: Any, what: str, *, metaschema: bool, object_root: bool = True
) -> str | None:
    """Problems with a schema as MCP needs it: valid 2020-12 and (``object_root``) an object at
    the root, which every revision before 2026-07-28 requires.

    The metaschema check costs ~2 ms a schema (jsonschema's 2020-12 ``$dynamicRef`` walk), so it
    runs on user-written overrides at build time; inferred schemas are checked by the test suite.
    """
    if not isinstance(schema, dict):
        return f"{what} must be a JSON object (a dict), got {type(schema).__name__}"
    if metaschema:
        from jsonschema import Draft202012Validator  # only overrides pay for importing it
        from jsonschema.exceptions import SchemaError

        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            location = "/".join(str(p) for p in exc.absolute_path) or "(root)"
            return f"{what} is not a valid JSON Schema 2020-12 at {location}: {exc.message}"
    if object_root and schema.get("type") != "object":
        return f'{what} must have "type": "object" at its root (MCP requires it)'
    return None


def _metadata_problems(module: ScannedModule, tool: ScannedTool) -> list[Diagnostic]:
    problems = []
    options, where = tool.options, tool.option_positions

    def bad(key: str, message: str) -> None:
        problems.append(_at(module, where.get(key, tool.position), message))

    for key in ("name", "title", "description", "box_field"):
        if key in options and not isinstance(options[key], str):
            bad(key, f"{key}= must be a string")
    if (
        "box_field" in options
        and isinstance(options["box_field"], str)
        and not options["box_field"]
    ):
        bad("box_field", "box_field= must not be empty")
    annotations = options.get("annotations", {})
    for key, value in annotations.items():
        if key in TOOL_HINTS and not isinstance(value, bool):
            bad("annotations", f"annotation {key} must be true or false, got {value!r}")
        elif key == "title" and not isinstance(value, str):
            bad("annotations", "annotation title must be a string")
        elif key not in TOOL_HINTS and key != "title":
            bad(
                "annotations",
                f"unknown tool annotation {key!r}; MCP defines title, {', '.join(TOOL_HINTS)}",
            )
    icons = options.get("icons")
    if icons is not None and not (
        isinstance(icons, list)
        and all(isinstance(i, dict) and isinstance(i.get("src"), str) for i in icons)
    ):
        bad("icons", 'icons= must be a list of dicts, each with a "src" string')
    if "meta" in options and not isinstance(options["meta"], dict):
        bad("meta", "meta= must be a dict")
    for key, value in options.items():
        if _has_lone_surrogate(value):
            bad(
                key,
                f"{key}= contains a lone surrogate (U+D800-U+DFFF), which is not text and "
                "has no UTF-8 or JSON form; remove it",
            )
    if _has_lone_surrogate(tool.docstring):
        bad(
            "",
            "the docstring contains a lone surrogate (U+D800-U+DFFF), which is not text and "
            "has no UTF-8 or JSON form; remove it",
        )
    return problems


def _has_lone_surrogate(value: JSON) -> bool:
    """True when a string anywhere in ``value`` (keys included) cannot be encoded as UTF-8."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_lone_surrogate(item) for item in value)
    return False


def _name_problems(module: ScannedModule, tool: ScannedTool, config: Config) -> list[Diagnostic]:
    """An error for a name that cannot be served (``mcp_codegen._profiles.name_limits.unservable_name``), else a
    warning per name limit it breaks (``mcp_codegen._profiles.name_limits.check_names``): the spec says tool names
    SHOULD match its pattern, and the drop-in flavors must list exactly what the framework serves."""
    where = tool.option_positions.get("name", tool.position)
    name = tool.name
    if not isinstance(name, str) or _has_lone_surrogate(name):
        return []  # said by the scanner (name= must be a string) and by _metadata_problems
    unservable = unservable_name(name)
    if unservable is not None:
        return [_at(module, where, f"invalid tool name {name!r}: {unservable}")]
    warnings = []
    if len(name) > MODEL_API_NAME_LIMIT:
        warnings.append(
            _at(
                module,
                where,
                f"tool name {name!r} is {len(name)} characters; model APIs (OpenAI, "
                f"Gemini) reject function names over {MODEL_API_NAME_LIMIT}",
                severity="warning",
            )
        )
    for finding in check_names([name], config.server_name, config.name_budget):
        if finding.transform == "model_name" and len(name) > MODEL_API_NAME_LIMIT:
            continue  # said above, with the length
        message = finding.message
        if finding.transform == "spec_name":
            message = f"tool name {name!r}: {message}"
        warnings.append(_at(module, where, message, severity="warning"))
    return warnings


def assemble_tool(
    module: ScannedModule,
    tool: ScannedTool,
    inspected: InspectedTool,
    config: Config,
    memo: Memo | None = None,
) -> tuple[ToolDefinition | None, list[Diagnostic]]:
    """The tool's final definition (``None`` with errors) and the problems found on the way."""
    problems = _metadata_problems(module, tool) + _name_problems(module, tool, config)
    flavored = inspected.flavored
    if flavored is not None:
        description = flavored["wire"].get("description")
    else:
        description = tool.options.get("description", inspected.description)
    problems += _description_problems(module, tool, description)
    if any(p.severity == "error" for p in problems):
        return None, problems
    if flavored is not None:  # flavors "mcp"/"fastmcp": exactly what the framework serves
        wire, box_field = flavored["wire"], flavored["box"]
        return _definition(
            module, tool, inspected, wire, box_field, flavored[PRIVATE_KEY]
        ), problems
    input_schema = final_input_schema(tool, inspected, memo)
    output_schema, box_field, variant_keys = output_variants(tool, inspected, config, memo)
    problems += _schema_problems(module, tool, config, input_schema, output_schema)
    if any(p.severity == "error" for p in problems):
        return None, problems
    wire: dict[str, JSON] = {"name": tool.name}
    if "title" in tool.options:
        wire["title"] = tool.options["title"]
    if description:
        wire["description"] = description
    wire["inputSchema"] = input_schema
    if output_schema is not None:
        wire["outputSchema"] = output_schema
    for option, key in (("annotations", "annotations"), ("icons", "icons"), ("meta", "_meta")):
        if option in tool.options:
            wire[key] = tool.options[option]
    return _definition(module, tool, inspected, wire, box_field, variant_keys), problems


def _description_problems(
    module: ScannedModule, tool: ScannedTool, description: JSON
) -> list[Diagnostic]:
    if (
        isinstance(description, str)
        and len(description.encode("utf-8", "surrogatepass")) > MAX_DESCRIPTION_BYTES
    ):
        return [
            _at(
                module,
                tool.position,
                f"the description of {tool.name!r} is over {MAX_DESCRIPTION_BYTES // 1000} "
                "KB; shorten the docstring or pass a shorter description=",
            )
        ]
    return []


def _schema_problems(
    module: ScannedModule,
    tool: ScannedTool,
    config: Config,
    input_schema: JSON,
    output_schema: JSON,
) -> list[Diagnostic]:
    """The final schemas checked (``_check_schema``); a user-written override against the
    metaschema too."""
    problems = []
    for schema, what, key in (
        (input_schema, "inputSchema", "input_schema"),
        (output_schema, "outputSchema", "output_schema"),
    ):
        if schema is None:
            continue
        problem = _check_schema(
            schema,
            what,
            metaschema=key in tool.options,
            # 2026-07-28 alone takes any output root; an older revision needs an object.
            object_root=key == "input_schema" or "boxed" in variants_of(config.protocols),
        )
        if problem is not None:
            where = tool.option_positions.get(key, tool.position)
            hint = "fix the override" if key in tool.options else "report this as a bug"
            problems.append(_at(module, where, f"{problem}; {hint}"))
    return problems


def _definition(
    module: ScannedModule,
    tool: ScannedTool,
    inspected: InspectedTool,
    wire: dict[str, JSON],
    box_field: str | None,
    more_keys: dict[str, JSON],
) -> ToolDefinition:
    """The definition of ``wire``, with the ``x-codegen`` keys ``diff`` and the runtime read."""
    return ToolDefinition(
        wire=wire,
        function=inspected.function or f"{module.module}:{tool.qualname}",
        box_field=box_field,
        position=tool.position,
        extra={
            **_parameter_lines(tool, wire),
            **field_lines(inspected.models, wire, box_field is not None, tool.options),
            **_registrar_keys(module, tool),
            **_defined_elsewhere(inspected),
            **more_keys,
        },
    )


def _parameter_lines(tool: ScannedTool, wire: dict[str, JSON]) -> dict[str, JSON]:
    """``{"parameters": {name: line}}``: the source line of each parameter the input schema
    lists, so ``diff`` can point a change at its parameter rather than at the ``def``."""
    schema = wire.get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return {}
    lines = {p.name: p.position.line for p in tool.parameters if p.name in properties}
    return {"parameters": lines} if lines else {}


def _defined_elsewhere(inspected: InspectedTool) -> dict[str, JSON]:
    """``{"function_sha256": ...}`` for a tool whose function another file defines (registered
    by ``mcp.tool()(imported)``, ``add_tool(obj.method)``): the hook checks that file too."""
    sha = inspected.function_sha256
    return {"function_sha256": sha} if sha else {}


def _registrar_keys(module: ScannedModule, tool: ScannedTool) -> dict[str, JSON]:
    """Where the runtime finds a tool defined inside a registration function (see
    ``mcp_codegen._registration.registrar``); nothing for a module-level tool."""
    site = registrar_of(tool)
    if site is None:
        return {}
    return {"registrar": f"{module.module}:{site[0]}", "registrar_parameter": site[1]}


def assemble_module(
    inspected: InspectedModule, config: Config
) -> tuple[ModuleDefinition, list[Diagnostic]]:
    """Build the tool definitions of one module."""
    module = inspected.module
    diagnostics = list(inspected.diagnostics)
    by_name = {t.name: t for t in inspected.tools}
    memo = Memo()  # the module's tools share raw definitions and output schemas
    tools = []
    for scanned in module.tools:
        inspected_tool = by_name.get(scanned.name)
        if inspected_tool is None:
            continue  # its failure is already among the module's diagnostics
        diagnostics.extend(inspected_tool.diagnostics)
        definition, problems = assemble_tool(module, scanned, inspected_tool, config, memo)
        diagnostics.extend(problems)
        if definition is not None:
            tools.append(definition)
    return ModuleDefinition(source=module, tools=tuple(tools)), diagnostics


def duplicate_names(
    modules: list[ScannedModule], *, across_modules: bool = True
) -> list[Diagnostic]:
    """The import names of tool modules must be unique across the project, and tool names
    within each module; ``across_modules``: tool names across the project too (flavor "clean",
    one flat list; the framework flavors check names per server once built)."""
    diagnostics = []
    first_seen: dict[str, tuple[ScannedModule, ScannedTool]] = {}
    modules_seen: dict[str, ScannedModule] = {}
    for module in modules:
        if not across_modules:
            first_seen = {}
        if (other_module := modules_seen.setdefault(module.module, module)) is not module:
            diagnostics.append(
                Diagnostic(
                    module.relative_path,
                    1,
                    1,
                    f"module name {module.module!r} is also the import name of "
                    f"{other_module.relative_path}; one name cannot import (or generate) two "
                    "files — add __init__.py files to make them packages, or rename one",
                )
            )
        for scanned in module.tools:
            if scanned.factory is not None:  # its name is the factory server's to decide
                continue
            if scanned.name in first_seen:
                other_module, other = first_seen[scanned.name]
                hint = (
                    "pass a distinct name= to one of them"
                    if across_modules or other.decorator == scanned.decorator
                    else "the tools of one module are built together, so two servers in one "
                    "module cannot share a name: move one server's tools to its own module, or "
                    "pass a distinct name="
                )
                diagnostics.append(
                    _at(
                        module,
                        scanned.position,
                        f"duplicate tool name {scanned.name!r}: also defined at "
                        f"{other_module.relative_path}:{other.position.line}:{other.position.column}; "
                        f"{hint}",
                    )
                )
            else:
                first_seen[scanned.name] = (module, scanned)
    return diagnostics

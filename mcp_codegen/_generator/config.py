"""Load and validate ``[tool.mcp-codegen]`` from ``pyproject.toml`` or ``mcp-codegen.toml``.

Runs in: parent, worker.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_codegen._generator.project import nearest_config
from mcp_codegen._profiles import PROFILES
from mcp_codegen._registration.factory_calls import (
    FactoryCallError,
    is_factory_call,
    parse_factory_call,
)
from mcp_codegen._shared.diagnostics import CodegenError, Diagnostic
from mcp_codegen._shared.format import DEFAULT_REGENERATE, FLAVORS
from mcp_codegen._shared.project_config import (
    TABLE,
    ConfigError,
    ProjectConfig,
    read_config,
)
from mcp_codegen._shared.protocols import REVISIONS, sort_revisions
from mcp_codegen._shared.toml_positions import key_position

#: Decorator patterns matched (with fnmatch) against a decorator's dotted name, with any call stripped:
#: ``@tool``, ``@tool()``, ``@mcp.tool`` and ``@app.tool(...)`` all match by default.
DEFAULT_DECORATORS = ("tool", "*.tool")

#: Parameter types that frameworks inject; they never appear in an input schema. Matched against the
#: fully qualified name of every class in the annotation's MRO, also inside ``Optional[...]``.
DEFAULT_INJECTED_TYPES = (
    "mcp.server.mcpserver.context.Context",
    "mcp.server.fastmcp.server.Context",
    "mcp.server.session.ServerSession",
    "fastmcp.server.context.Context",
)


@dataclass(frozen=True)
class Config:
    """Validated generator settings. Paths are absolute."""

    root: Path
    config_file: Path
    sources: tuple[Path, ...]
    output: Path
    decorators: tuple[str, ...] = DEFAULT_DECORATORS
    injected_types: tuple[str, ...] = DEFAULT_INJECTED_TYPES
    box_field: str = "result"
    box_marker: bool = True
    flavor: str = "clean"
    permissive_fallback: bool = False
    version: str = "0.1.0"
    import_timeout: float = 60.0
    regenerate_command: str = DEFAULT_REGENERATE
    python_path: tuple[Path, ...] = field(default_factory=tuple)
    factories: tuple[
        str, ...
    ] = ()  # "module:function(literal args)", see mcp_codegen._registration.factory_calls
    profiles: tuple[str, ...] = ()
    server_name: str = ""
    name_budget: int = 60
    max_tool_bytes: int | None = None
    max_total_bytes: int | None = None
    tokenizer: str = "bytes/4"
    protocols: tuple[str, ...] = REVISIONS  # oldest first, no repeats
    #: ``mcp-codegen run`` targets whose server's initialize answer is recorded (fast path).
    run_targets: tuple[str, ...] = ()
    #: ``path:line:col: warning:`` diagnostics for old key spellings (the CLI prints them).
    warnings: tuple[Diagnostic, ...] = field(default=(), compare=False)

    def relative(self, path: Path) -> str:
        """``path`` relative to the project root, with ``/`` separators."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()


# key -> (expected python types, human description)
_SCHEMA: dict[str, tuple[tuple[type, ...], str]] = {
    "sources": ((list,), "a list of paths"),
    "output": ((str,), "a path"),
    "decorators": ((list,), "a list of dotted names"),
    "injected_types": ((list,), "a list of dotted class names"),
    "extra_injected_types": ((list,), "a list of dotted class names"),
    "box_field": ((str,), "a string"),
    "box_marker": ((bool,), "true or false"),
    "flavor": ((str,), f"one of {', '.join(FLAVORS)}"),
    "permissive_fallback": ((bool,), "true or false"),
    "version": ((str,), "a semantic version string"),
    "import_timeout": ((int, float), "a number of seconds"),
    "regenerate_command": ((str,), "a string"),
    "python_path": ((list,), "a list of paths"),
    "factories": ((list,), 'a list of factory calls such as "pkg.server:create_server()"'),
    "profiles": ((list,), f"a list of client profiles ({', '.join(PROFILES)})"),
    "server_name": ((str,), "the server name clients show (for the name budget)"),
    "name_budget": ((int,), "a positive number of characters"),
    "max_tool_bytes": ((int,), "a positive number of bytes"),
    "max_total_bytes": ((int,), "a positive number of bytes"),
    "tokenizer": ((str,), 'a tokenizer name ("bytes/4" or a bpe-openai encoding)'),
    "diff": ((dict,), "a table: [tool.mcp-codegen.diff] (docs/review-workflow.md)"),
    "run_targets": ((list,), 'a list of `mcp-codegen run` targets such as "pkg.server:mcp"'),
    "protocol": ((str, list), f"one of {', '.join(map(repr, REVISIONS))}, or a list of them"),
}
_POSITIVE = ("name_budget", "max_tool_bytes", "max_total_bytes")


def find_config(start: Path) -> Path:
    """Return the nearest configuration (``mcp-codegen.toml`` or ``pyproject.toml``) at or
    above ``start``."""
    found = nearest_config(start)
    if found is not None:
        return found
    raise CodegenError(
        [
            Diagnostic(
                str(start),
                0,
                0,
                "no pyproject.toml or mcp-codegen.toml found here or above; pass --config PATH",
            )
        ]
    )


def _key_position(text: str, key: str) -> tuple[int, int]:
    """Best-effort line/column of ``key`` inside the ``[tool.mcp-codegen]`` table."""
    return key_position(text, TABLE, key)


def read_table(path: Path) -> ProjectConfig:
    """``path``'s ``[tool.mcp-codegen]`` (old spellings renamed), or ``CodegenError``."""
    try:
        return read_config(str(path))
    except ConfigError as exc:
        raise CodegenError([Diagnostic(exc.path, exc.line, exc.column, exc.message)]) from None


def load_config(config_file: Path | None = None, *, cwd: Path | None = None) -> Config:
    """Read ``[tool.mcp-codegen]``; every problem becomes a ``path:line:col`` diagnostic, and each
    old key spelling a warning in ``Config.warnings``."""
    path = (config_file or find_config((cwd or Path.cwd()).resolve())).resolve()
    project = read_table(path)
    text = project.text
    warnings = tuple(
        Diagnostic(str(path), line, col, message, severity="warning")
        for line, col, message in project.warnings
    )
    table: dict[str, Any] = project.table
    root = path.parent
    problems = _key_problems(path, text, table)
    if problems:
        raise CodegenError(problems)
    flavor = table.get("flavor", "clean")
    if flavor not in FLAVORS:
        line, col = _key_position(text, "flavor")
        raise CodegenError(
            [Diagnostic(str(path), line, col, f"flavor must be one of {', '.join(FLAVORS)}")]
        )
    factories = tuple(table.get("factories", ()))
    if factories:
        _check_factories(path, text, factories, flavor)
    _check_run_targets(path, text, table.get("run_targets", ()))
    protocols = _protocols(table.get("protocol", list(REVISIONS)), path, text)
    if "sources" not in table:
        message = (
            "[tool.mcp-codegen] needs `sources = [...]`: the tool files or package directories"
        )
        raise CodegenError([Diagnostic(str(path), 1, 1, message)])
    output = (root / table.get("output", "generated")).resolve()
    sources = tuple((root / s).resolve() for s in table["sources"])
    _check_output_is_its_own(path, text, table, output, sources)
    return Config(
        root=root,
        config_file=path,
        sources=sources,
        output=output,
        decorators=tuple(table.get("decorators", DEFAULT_DECORATORS)),
        injected_types=_injected_types(table),
        box_field=table.get("box_field", "result"),
        box_marker=table.get("box_marker", True),
        flavor=flavor,
        permissive_fallback=table.get("permissive_fallback", False),
        version=table.get("version", "0.1.0"),
        import_timeout=float(table.get("import_timeout", 60.0)),
        regenerate_command=table.get("regenerate_command", DEFAULT_REGENERATE),
        python_path=tuple((root / p).resolve() for p in table.get("python_path", ())),
        factories=factories,
        profiles=tuple(dict.fromkeys(table.get("profiles", ()))),
        server_name=table.get("server_name", ""),
        name_budget=table.get("name_budget", 60),
        max_tool_bytes=table.get("max_tool_bytes"),
        max_total_bytes=table.get("max_total_bytes"),
        tokenizer=table.get("tokenizer", "bytes/4"),
        protocols=protocols,
        run_targets=tuple(dict.fromkeys(table.get("run_targets", ()))),
        warnings=warnings,
    )


def _key_problems(path: Path, text: str, table: dict[str, Any]) -> list[Diagnostic]:
    """Unknown keys, values of the wrong type, counts below 1 and unknown profiles."""
    problems: list[Diagnostic] = []
    for key, value in table.items():
        line, col = _key_position(text, key)
        if key not in _SCHEMA:
            close = difflib.get_close_matches(key, list(_SCHEMA), n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(_SCHEMA)}"
            problems.append(Diagnostic(str(path), line, col, f"unknown key {key!r}; {hint}"))
            continue
        types, description = _SCHEMA[key]
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            problems.append(
                Diagnostic(
                    str(path),
                    line,
                    col,
                    f"{key} must be {description}, got {type(value).__name__} {value!r}",
                )
            )
        elif isinstance(value, list) and not all(isinstance(item, str) for item in value):
            problems.append(Diagnostic(str(path), line, col, f"{key} must be {description}"))
    for key in _POSITIVE:
        if isinstance(table.get(key), int) and not isinstance(table[key], bool) and table[key] < 1:
            line, col = _key_position(text, key)
            problems.append(Diagnostic(str(path), line, col, f"{key} must be at least 1"))
    for name in table.get("profiles", []) if isinstance(table.get("profiles"), list) else []:
        if isinstance(name, str) and name not in PROFILES:
            line, col = _key_position(text, "profiles")
            close = difflib.get_close_matches(name, list(PROFILES), n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(PROFILES)}"
            problems.append(
                Diagnostic(str(path), line, col, f"unknown profile {name!r} in profiles; {hint}")
            )
    return problems


def _injected_types(table: dict[str, Any]) -> tuple[str, ...]:
    """``injected_types`` (the defaults when not given) and ``extra_injected_types``, once each."""
    injected = tuple(table.get("injected_types", DEFAULT_INJECTED_TYPES)) + tuple(
        table.get("extra_injected_types", ())
    )
    # Framework contexts stay injected even when the user lists their own types.
    if "injected_types" in table:
        injected = DEFAULT_INJECTED_TYPES + injected
    return tuple(dict.fromkeys(injected))


def _check_output_is_its_own(
    path: Path, text: str, table: dict[str, Any], output: Path, sources: tuple[Path, ...]
) -> None:
    """generate replaces the output directory as a whole, so it must hold nothing else of ours."""
    ours = [(f"source {s!r}", p) for s, p in zip(table["sources"], sources, strict=True)]
    for what, inside in [("the config file", path), *ours]:
        if inside == output or output in inside.parents:
            line, col = _key_position(text, "output")
            message = (
                f"output {table.get('output', 'generated')!r} contains {what}; "
                "generate replaces the output directory as a whole, so give it a "
                'directory of its own (e.g. output = "generated")'
            )
            raise CodegenError([Diagnostic(str(path), line, col, message)])


def _check_factories(path: Path, text: str, factories: tuple[str, ...], flavor: str) -> None:
    """Each entry must be a factory call with literal arguments, under a framework flavor."""
    line, col = _key_position(text, "factories")
    problems = []
    if flavor == "clean":
        problems.append(
            Diagnostic(
                str(path),
                line,
                col,
                'factories needs flavor = "mcp" or "fastmcp": the tools are generated as the '
                "factory's server lists them, and only a framework server lists them",
            )
        )
    seen: set[tuple[str, str]] = set()
    for entry in factories:
        try:
            call = parse_factory_call(entry)
        except FactoryCallError as exc:
            problems.append(Diagnostic(str(path), line, col, f"factories: {exc}"))
            continue
        if (call.module, call.qualname) in seen:
            problems.append(
                Diagnostic(
                    str(path),
                    line,
                    col,
                    f"factories: {call.module}:{call.qualname} is listed twice; one call per "
                    "factory (its tools could not have two definitions)",
                )
            )
        seen.add((call.module, call.qualname))
    if problems:
        raise CodegenError(problems)


def _check_run_targets(path: Path, text: str, targets: list[str]) -> None:
    """Each ``run_targets`` entry is ``module:attribute`` or a factory call with literal
    arguments (what ``mcp-codegen run`` accepts)."""
    line, col = _key_position(text, "run_targets")
    problems = []
    for target in targets:
        module, colon, attribute = str(target).partition(":")
        if is_factory_call(str(target)):
            try:
                parse_factory_call(target)
            except FactoryCallError as exc:
                problems.append(Diagnostic(str(path), line, col, f"run_targets: {exc}"))
        elif not (
            colon
            and all(part.isidentifier() for part in module.split("."))
            and all(part.isidentifier() for part in attribute.split("."))
        ):
            problems.append(
                Diagnostic(
                    str(path),
                    line,
                    col,
                    f"run_targets: {target!r} is not module:object, module:function or "
                    'module:factory(literal arguments), e.g. "pkg.server:mcp"',
                )
            )
    if problems:
        raise CodegenError(problems)


def _protocols(value: str | list[str], path: Path, text: str) -> tuple[str, ...]:
    """The ``protocol`` key: one revision or a list of them, oldest first."""
    chosen = [value] if isinstance(value, str) else value
    unknown = [revision for revision in chosen if revision not in REVISIONS]
    if unknown or not chosen:
        line, col = _key_position(text, "protocol")
        what = f"unknown protocol revision {unknown[0]!r}" if unknown else "protocol is empty"
        raise CodegenError(
            [
                Diagnostic(
                    str(path),
                    line,
                    col,
                    f"{what}; use one of {', '.join(map(repr, REVISIONS))} or a list of them "
                    "(default: all)",
                )
            ]
        )
    return sort_revisions(chosen)

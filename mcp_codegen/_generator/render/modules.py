"""Stage 4: render generated modules in memory with jinja2.

Every value reaches the text through a literal-safe filter (``mcp_codegen._generator.render.literal``); the write stage
parses each file before it replaces anything on disk.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import jinja2

from mcp_codegen import __version__
from mcp_codegen._generator.config import Config
from mcp_codegen._generator.model import ModuleDefinition, RenderedFile, ToolDefinition
from mcp_codegen._generator.render.literal import comment_text, lines_literal, python_literal
from mcp_codegen._generator.render.templates import template_dir
from mcp_codegen._shared.format import (
    FORMAT,
    INFERENCE_DISTRIBUTIONS,
    MANIFEST,
    PRIVATE_KEY,
    SERVERS_FILE,
    module_path,
)


def _template_dir() -> Path:
    found = template_dir()
    if found is None:
        raise FileNotFoundError("mcp-codegen templates are missing from the installation")
    return Path(found)


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_template_dir()),
        autoescape=False,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["literal"] = lambda value: _Rendered(python_literal(value))
    env.filters["comment"] = lambda value: _Rendered(comment_text(str(value)))
    env.filters["lines"] = lambda value: _Rendered(lines_literal(value))
    # Values reach the output only through the filters above: a bare ``{{ x }}`` is a bug.
    env.finalize = _require_filtered
    return env


class _Rendered(str):
    """Marks strings that passed through a literal-safe filter."""


def _require_filtered(value: object) -> object:
    if not isinstance(value, _Rendered):
        raise TypeError(f"template value {value!r:.60} was not passed through |literal or |comment")
    return value


def tool_entry(tool: ToolDefinition) -> dict[str, object]:
    return {
        **tool.wire,
        PRIVATE_KEY: {
            "function": tool.function,
            "box": {"field": tool.box_field} if tool.box_field else None,
            "line": tool.position.line,
            "column": tool.position.column,
            **tool.extra,
        },
    }


def prepare_module_template() -> None:
    """Compile the module template now (jinja2 compiles a template on its first use): called
    while a worker inspects, so rendering after it is only rendering."""
    _environment().get_template("module.py.jinja")


def _render(template: str, **context: object) -> str:
    return _environment().get_template(template).render(**context)


def render_module(definition: ModuleDefinition, config: Config) -> RenderedFile:
    source = definition.source
    content = _render(
        "module.py.jinja",
        format=FORMAT,
        generator_version=__version__,
        source_path=source.relative_path,
        source_sha256=source.sha256,
        source_module=source.module,
        flavor=config.flavor,
        protocols=config.protocols,
        regenerate_command=config.regenerate_command,
        tools=tuple(tool_entry(t) for t in definition.tools),
    )
    return RenderedFile(module_path(source.module), content)


def render_manifest(modules: list[RenderedFile], config: Config) -> RenderedFile:
    paths = tuple(sorted(m.relative_path for m in modules))
    content = _render(
        "manifest.py.jinja",
        format=FORMAT,
        generator_version=__version__,
        schema_set_version=config.version,
        server_name=config.server_name,
        flavor=config.flavor,
        protocols=config.protocols,
        regenerate_command=config.regenerate_command,
        dependencies=inference_versions(config.flavor),
        modules=paths,
    )
    return RenderedFile(MANIFEST, content)


def inference_versions(flavor: str) -> dict[str, str]:
    """The installed versions of the distributions that decide inference for ``flavor``
    (``DEPENDENCIES``); one not installed is recorded as ``"not installed"``."""
    # importlib.metadata (~10 ms): only a rendered manifest or drift reads versions, no cache hit
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in INFERENCE_DISTRIBUTIONS[flavor]:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "not installed"
    return found


def render_servers(servers: list[dict[str, object]], config: Config) -> RenderedFile:
    """The server records of ``mcp-codegen run``'s fast path (``SERVERS_FILE``), sorted."""
    content = _render(
        "servers.py.jinja",
        format=FORMAT,
        generator_version=__version__,
        regenerate_command=config.regenerate_command,
        servers=tuple(sorted(servers, key=lambda server: str(server["object"]))),
    )
    return RenderedFile(SERVERS_FILE, content)

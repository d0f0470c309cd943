"""One module's output from its inspection: assembled, checked for leaked process state,
rendered and checked to be literal-only.

Runs in: parent. For each inspection a worker sends, and for each one taken from the build
cache when its rendering is not stored (a configuration key applied here changed, ``box_field``
for example). Never in a worker: the worker ran user code, which could patch the renderer or the
check.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp_codegen._generator.assemble.finalize import assemble_module
from mcp_codegen._generator.assemble.stability import leaked_state
from mcp_codegen._generator.config import Config
from mcp_codegen._generator.model import InspectedModule, ModuleDefinition, RenderedFile
from mcp_codegen._generator.render.modules import render_module
from mcp_codegen._generator.write.output import unsafe
from mcp_codegen._shared.diagnostics import Diagnostic


@dataclass(frozen=True)
class ModuleOutput:
    definition: ModuleDefinition
    #: None when the module has no tools or has errors.
    rendered: RenderedFile | None
    #: The inspection's diagnostics and everything found after it.
    problems: tuple[Diagnostic, ...]
    #: ``rendered`` was checked to be literal-only (``unsafe``) and passed.
    checked: bool


def module_output(inspected: InspectedModule, config: Config) -> ModuleOutput:
    definition, problems = assemble_module(inspected, config)
    problems.extend(leaked_state(definition, config))
    rendered = None
    checked = False
    if definition.tools and not any(p.severity == "error" for p in problems):
        rendered = render_module(definition, config)
        found = unsafe(rendered)
        problems.extend(found)
        checked = not found
    return ModuleOutput(definition, rendered, tuple(problems), checked)

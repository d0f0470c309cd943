"""One module's output from its inspection: assembled, checked for leaked process state,
rendered and checked to be literal-only.

Runs in: worker, parent. A worker does this right after inspecting a module, so the build's
per-module CPU is spread over the workers and the generator process only collects the texts;
the generator does it for inspections taken from the build cache when their rendering is not
stored (a configuration key applied here changed, ``box_field`` for example).
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


def module_output(
    inspected: InspectedModule, config: Config, *, check: bool = True
) -> ModuleOutput:
    """``check=False`` (in a worker): the literal-only check is left to the generator process,
    which writes the file and has never run user code."""
    definition, problems = assemble_module(inspected, config)
    problems.extend(leaked_state(definition, config))
    rendered = None
    checked = False
    if definition.tools and not any(p.severity == "error" for p in problems):
        rendered = render_module(definition, config)
        if check:
            found = unsafe(rendered)
            problems.extend(found)
            checked = not found
    return ModuleOutput(definition, rendered, tuple(problems), checked)

"""Never a silent omission: every tool a real server registered at import is generated or reported.

The workers record each tool the user's own servers register while their modules are imported
(``mcp_codegen.generator.inspection.registrations``). Here, in the generator, each record is checked
against what the scanner found: a tool with that name and that function, or an error already
reported in its file. Anything else is an error at the registration, saying which form the
generator did not understand.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from mcp_codegen.generator.inspection.registrations import Registration
from mcp_codegen.generator.model import ScannedModule
from mcp_codegen.shared.diagnostics import Diagnostic
from mcp_codegen.shared.format import FRAMEWORK_MARKER


def omissions(
    registrations: Iterable[Registration],
    scanned: Sequence[ScannedModule],
    diagnostics: Sequence[Diagnostic],
    project_files: dict[str, str],
) -> list[Diagnostic]:
    """One error per registered tool the generator neither generated nor reported.

    ``project_files`` maps each source's real path to its path relative to the project root.
    """
    project = dict(project_files)
    by_path = {os.path.realpath(m.path): m for m in scanned}
    project.update({path: m.relative_path for path, m in by_path.items()})
    reported = {d.path for d in diagnostics if d.severity == "error"}
    # Tools marked to stay with the framework were skipped on purpose, each with a note at its
    # decorator: registering them is expected.
    kept = {
        (d.path, d.line)
        for d in diagnostics
        if d.severity == "note" and FRAMEWORK_MARKER in d.message
    }
    # Tools taken from the registration at their call (``ScannedTool.registered_at``)
    by_call = {
        (m.relative_path, tool.registered_at.line, tool.name)
        for m in scanned
        for tool in m.tools
        if tool.registered_at is not None
    }
    found: dict[tuple[str, int, str], Diagnostic] = {}
    for record in registrations:
        place = _place(record, project)
        if place is None:
            continue  # registered by code outside the project (a library of its own)
        path, line, column = place
        if (path, line, record.name) in by_call:
            continue
        function_file = os.path.realpath(record.function_file) if record.function_file else ""
        if path in reported or project.get(function_file) in reported or (path, line) in kept:
            continue
        module = by_path.get(function_file)
        same_function = [
            tool
            for m in ([module] if module is not None else scanned)
            for tool in m.tools
            if record.function_qualname is not None and tool.qualname == record.function_qualname
        ]
        if any(tool.name in (record.name, record.copy_of) for tool in same_function):
            continue  # generated; or a composing server's renamed copy of a generated tool
        if (
            module is None
            and record.function_qualname is None
            and any(tool.name == record.name for m in scanned for tool in m.tools)
        ):
            continue  # the function cannot be told apart: its name is enough
        message = _message(record, path, line, [tool.name for tool in same_function])
        found.setdefault((path, line, record.name), Diagnostic(path, line, column, message))
    return list(found.values())


def _place(record: Registration, project: dict[str, str]) -> tuple[str, int, int] | None:
    """The innermost project frame of the registering call, or the function's definition."""
    for file, line, column in record.frames:
        path = project.get(os.path.realpath(file))
        if path is not None:
            return path, line, column
    if record.function_file is not None:
        path = project.get(os.path.realpath(record.function_file))
        if path is not None:
            return path, record.function_line or 1, 1
    return None


def _source_line(record: Registration, path: str, line: int) -> str:
    for file, frame_line, _ in record.frames:
        if frame_line == line:
            try:
                lines = Path(file).read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                return ""
            return lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return ""


def _message(record: Registration, path: str, line: int, names: list[str]) -> str:
    function = record.function_qualname or "a function"
    if names:
        return (
            f"tool {record.name!r} is registered here under a name computed at run time "
            f"(in source, {function} is tool {', '.join(repr(n) for n in names)}), so the "
            "generator cannot know it before the code runs; pass a literal name=..., or list "
            "the call that builds the server in `factories` with literal arguments"
        )
    text = _source_line(record, path, line)
    defined = (record.function_qualname or "").rpartition(".")[2]
    if defined and defined != record.name and "name=" not in text:
        return (
            f"tool {record.name!r} is registered here under a name computed at run time (its "
            f"function is {function}, whose __name__ was changed), so the generator cannot know "
            "it before the code runs; pass a literal name=... to the registration, or list the "
            "call that builds the server in `factories` with literal arguments"
        )
    shown = f" (`{text[:80]}`)" if text else ""
    if text.startswith("@"):
        form = (
            "a decorator that matches none of the configured `decorators`; add its name to "
            "`decorators` in [tool.mcp-codegen]"
        )
    elif ".tool(" in text and ")(" in text:
        form = (
            "the call form <server>.tool(...)(function) with a function the generator cannot "
            "read here; decorate the function with @<server>.tool(...) where it is defined"
        )
    elif "add_tool" in text:
        form = (
            "add_tool of a function the generator cannot read here; pass a function defined "
            "in a module of the project by its name, or decorate it with @<server>.tool(...)"
        )
    else:
        form = (
            "code the generator does not read (a loop, a helper function, or a function "
            "built at run time); register the tool with @<server>.tool(...) on its def, or "
            "<server>.add_tool(function) at module level"
        )
    return (
        f"tool {record.name!r} ({function}) is registered here{shown} but was not generated: "
        f"mcp-codegen did not understand this form of registration, {form}"
    )

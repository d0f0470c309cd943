"""Never a silent omission: every tool a real server registered at import is generated or reported.

The workers record each tool a real server registers while the project's modules are imported
(``mcp_codegen._generator.inspection.registrations``). Here, in the generator, each record is checked
against what the scanner found: a tool with that name and that function, or an error already
reported in its file. Anything else is an error at the registration, saying which form the
generator did not understand.

Only the project's own servers count (``mcp_codegen._registration.own_servers``, the rule the
hook shares): a registration on a server that another installed package creates in its own
module body, imported by a project module, is ignored, with an ``info`` note (shown by
``generate -v``) at the project line whose import made them.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from mcp_codegen._generator.inspection.registrations import Registration
from mcp_codegen._generator.model import ScannedModule
from mcp_codegen._generator.scan.factory_entry import factory_hint_at
from mcp_codegen._registration.own_servers import ProjectCode
from mcp_codegen._registration.providers import built_from
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.format import FRAMEWORK_MARKER


def omissions(
    registrations: Iterable[Registration],
    scanned: Sequence[ScannedModule],
    diagnostics: Sequence[Diagnostic],
    project_files: dict[str, str],
    project_dirs: Iterable[str] = (),
    named_modules: frozenset[str] = frozenset(),
) -> list[Diagnostic]:
    """One error per registered tool the generator neither generated nor reported, and one
    ``info`` note per project line whose import registered tools on another package's server.

    ``project_files`` maps each source's real path to its path relative to the project root;
    ``project_dirs``: the project root and the top-level package directory of each source;
    ``named_modules``: the modules ``run_targets`` and ``factories`` name.
    """
    project = dict(project_files)
    owned = ProjectCode(project, project_dirs, named_modules)
    registrations = list(registrations)
    attached = _providers(
        [r for r in registrations if r.provider is not None and _counts(owned, r)], project
    )
    registrations = [record for record in registrations if record.provider is None]
    # A configured factory's own call made these: generated from that call, as is the same
    # tool an import registers at the same site (``mcp = create_server(False)`` at the bottom
    # of the module the factory is in)
    by_factory = {
        (*place[:2], record.name)
        for record in registrations
        if record.factory is not None and (place := _place(record, project)) is not None
    }
    registrations = [record for record in registrations if record.factory is None]
    notes = _ignored([record for record in registrations if not _counts(owned, record)], project)
    registrations = [record for record in registrations if _counts(owned, record)]
    by_path = {os.path.realpath(m.path): m for m in scanned}
    project.update({path: m.relative_path for path, m in by_path.items()})
    reported = {d.path for d in diagnostics if d.severity == "error"}
    # Tools marked to stay with the framework were skipped on purpose, each with a note at its
    # decorator: registering them is expected.
    kept = _kept_places(diagnostics)
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
        if (path, line, record.name) in by_call or (path, line, record.name) in by_factory:
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
        hint = _factory_hint(record, project, scanned)
        # another name for a tool the scanner read is a name computed at run time only where
        # the function's own module registers it; elsewhere it is a form the scanner did not read
        own_module = module is not None and module.relative_path == path
        names = [tool.name for tool in same_function] if own_module else []
        message = _message(record, path, line, names, hint)
        found.setdefault((path, line, record.name), Diagnostic(path, line, column, message))
    return [*attached, *found.values(), *notes]


def kept_names(
    registrations: Iterable[Registration],
    diagnostics: Sequence[Diagnostic],
    project_files: dict[str, str],
) -> frozenset[str]:
    """The names real servers registered the tools marked ``FRAMEWORK_MARKER`` under (at each
    such note's decorator): the fast path cannot list them, as their notes say already."""
    kept = _kept_places(diagnostics)
    return frozenset(
        record.name
        for record in registrations
        if record.provider is None
        and (place := _place(record, project_files)) is not None
        and place[:2] in kept
    )


def _kept_places(diagnostics: Iterable[Diagnostic]) -> set[tuple[str, int]]:
    """Where the scanner kept a tool with the framework (its notes' positions)."""
    return {
        (d.path, d.line)
        for d in diagnostics
        if d.severity == "note" and FRAMEWORK_MARKER in d.message
    }


def _providers(records: list[Registration], project: dict[str, str]) -> list[Diagnostic]:
    """One error per project line that attaches a tool-building provider to a project server
    (``_registration.providers``), or one note where that line keeps them with the framework
    (``FRAMEWORK_MARKER`` on the lines of its statement)."""
    found: dict[tuple[str, int, str], Diagnostic] = {}
    for record in records:
        place = _place(record, project)
        kind = record.provider or ""
        if place is None or (place[0], place[1], kind) in found:
            continue
        path, line, column = place
        source = f"tools that {kind} builds at run time from {built_from(kind)}"
        absolute = next((f for f, at, _ in record.frames if at == line), None)
        if absolute is not None and _statement_marked(absolute, line):
            message = (
                f"{source} are kept with the framework ({FRAMEWORK_MARKER}): not generated; "
                "the framework builds their schemas at start-up and answers tools/list for "
                "their server"
            )
            found[(path, line, kind)] = Diagnostic(path, line, column, message, "note")
            continue
        message = (
            f"{source} cannot be generated: no registration names them, and mcp-codegen reads "
            "a schema from a registered Python function; to serve them with the schemas the "
            f'framework builds at start-up, end this line with "{FRAMEWORK_MARKER}" (the '
            "server's registered tools are still generated)"
        )
        found[(path, line, kind)] = Diagnostic(path, line, column, message)
    return list(found.values())


def _statement_marked(file: str, line: int) -> bool:
    """Whether ``FRAMEWORK_MARKER`` is on a line of the innermost statement holding ``line``
    (a call spread over several lines may carry it on any of them; of a compound statement,
    only its header counts)."""
    try:
        text = Path(file).read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return False
    first, last = line, line
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.end_lineno is not None:
            body = getattr(node, "body", None)
            end = max(node.lineno, body[0].lineno - 1) if body else node.end_lineno
            if node.lineno <= line <= end:
                spans.append((end - node.lineno, node.lineno, end))
    if spans:
        _, first, last = min(spans)
    return any(FRAMEWORK_MARKER in each for each in text.splitlines()[first - 1 : last])


def _counts(owned: ProjectCode, record: Registration) -> bool:
    """Whether ``record`` is on one of the project's servers (``own_servers``)."""
    return owned.owns(record.frames[0][0] if record.frames else None, record.server)


def _ignored(records: list[Registration], project: dict[str, str]) -> list[Diagnostic]:
    """One note per project line whose import registered tools on another package's server."""
    by_place: dict[tuple[str, int, int, str], set[str]] = {}
    for record in records:
        place = _place(record, project)
        if place is None or not record.server:
            continue
        creator = next((m for _, body, m in record.server if body), record.server[0][2])
        by_place.setdefault((*place, creator), set()).add(record.name)
    return [
        Diagnostic(
            path,
            line,
            column,
            f"ignored {len(names)} tool(s) registered while this line ran on a server that "
            f"module {creator} creates ({', '.join(repr(n) for n in sorted(names))}): not a "
            "server of this project (only servers the project creates, or that `run_targets` "
            "or `factories` name, are checked)",
            "info",
        )
        for (path, line, column, creator), names in sorted(by_place.items())
    ]


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


def _factory_hint(
    record: Registration, project: dict[str, str], scanned: Sequence[ScannedModule]
) -> str:
    """`` (factories = [...])`` for the innermost project function on the registering call's
    stack that returns a value (it may build the server), as ``factory_entry`` prints it."""
    roots = sorted({m.import_root for m in scanned}, key=len, reverse=True)
    for file, line, _ in record.frames:
        real = os.path.realpath(file)
        relative = project.get(real)
        if relative is None:
            continue
        root = Path(real[: -len(relative)]) if real.endswith(relative) else None
        module = _module_of(real, roots)
        hint = factory_hint_at(module, real, line, root) if module else ""
        if hint:
            return hint
    return ""


def _module_of(real: str, import_roots: list[str]) -> str | None:
    """The dotted name of the file ``real`` under the longest import root holding it."""
    for root in import_roots:
        prefix = os.path.realpath(root) + os.sep
        if real.startswith(prefix) and real.endswith(".py"):
            parts = real[len(prefix) : -3].split(os.sep)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            return ".".join(parts) if parts and all(p.isidentifier() for p in parts) else None
    return None


def _message(record: Registration, path: str, line: int, names: list[str], hint: str = "") -> str:
    function = record.function_qualname or "a function"
    if names:
        return (
            f"tool {record.name!r} is registered here under a name computed at run time "
            f"(in source, {function} is tool {', '.join(repr(n) for n in names)}), so the "
            "generator cannot know it before the code runs; pass a literal name=..., or list "
            f"the call that builds the server in `factories` with literal arguments{hint}"
        )
    text = _source_line(record, path, line)
    defined = (record.function_qualname or "").rpartition(".")[2]
    if defined and defined != record.name == record.function_name and "name=" not in text:
        return (
            f"tool {record.name!r} is registered here under a name computed at run time (its "
            f"function is {function}, whose __name__ was changed), so the generator cannot know "
            "it before the code runs; pass a literal name=... to the registration, or list the "
            f"call that builds the server in `factories` with literal arguments{hint}"
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

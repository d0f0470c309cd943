"""Read one side of a diff: a directory of generated modules, or a git revision.

Generated modules are parsed with ``ast`` and each top-level assignment's value is evaluated with
``ast.literal_eval``; nothing is ever imported or executed, so old revisions are safe to read.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path, PurePosixPath

from mcp_codegen._diff.changes import JSON, Change
from mcp_codegen._shared.diagnostics import CodegenError, Diagnostic
from mcp_codegen._shared.format import (
    MANIFEST,
    PRIVATE_KEY,
    GeneratedModuleError,
    field_location,
    is_generated,
    tool_server,
)
from mcp_codegen._shared.json_pointer import unescape
from mcp_codegen._shared.protocols import FORMAT1_PROTOCOLS
from mcp_codegen._shared.reader import existing_generated, module_protocols, parse_literal_module


@dataclass(frozen=True)
class ToolEntry:
    """One tool dict as found on a side, with where it came from."""

    name: str
    tool: dict[str, JSON]
    module: str  # generated module path, relative to the output directory
    source_path: str | None  # tool source file, relative to the project root
    line: int  # 1-based line of the tool's ``def``; 0 when unknown
    #: The protocol revisions its module was built for (``PROTOCOLS``; format 1: the default).
    protocols: tuple[str, ...] = FORMAT1_PROTOCOLS

    def location_for(self, pointer: str) -> tuple[str | None, int]:
        """The source file and line a change at ``pointer`` comes from: the model field (or
        model) it is inside, when the tree records it (``x-codegen.fields``, which names the
        model's own file); else its parameter's line (``x-codegen.parameters``, since format 3);
        else the ``def`` line. A field removed from a model points at the model's ``class``."""
        meta = self.tool.get(PRIVATE_KEY)
        fields = self.field_locations
        prefix = pointer
        while prefix:
            if prefix in fields:
                return fields[prefix]
            prefix = prefix.rpartition("/")[0]
        prefix = "/inputSchema/properties/"
        if pointer.startswith(prefix):
            name = unescape(pointer[len(prefix) :].split("/", 1)[0])
            lines = meta.get("parameters") if isinstance(meta, dict) else None
            line = lines.get(name) if isinstance(lines, dict) else None
            if isinstance(line, int) and not isinstance(line, bool) and line > 0:
                return self.source_path, line
        return self.source_path, self.line

    @cached_property
    def field_locations(self) -> dict[str, tuple[str, int]]:
        """``x-codegen.fields`` by pointer: well-formed entries only (``malformed_fields``)."""
        meta = self.tool.get(PRIVATE_KEY)
        entries = meta.get("fields") if isinstance(meta, dict) else None
        found = {}
        for entry in entries if isinstance(entries, list) else ():
            if (location := field_location(entry)) is not None:
                found[location[0]] = location[1:]
        return found

    @property
    def malformed_fields(self) -> bool:
        """Whether ``x-codegen.fields`` holds anything but well-formed entries."""
        meta = self.tool.get(PRIVATE_KEY)
        entries = meta.get("fields") if isinstance(meta, dict) else None
        if entries is None:
            return False
        return not isinstance(entries, list) or len(self.field_locations) != len(entries)

    def line_for(self, pointer: str) -> int:
        """The line of ``location_for``."""
        return self.location_for(pointer)[1]

    def locate(self, change: Change) -> Change:
        """``change`` with the source file and line it comes from (``location_for``)."""
        path, line = self.location_for(change.pointer)
        return replace(change, path=path, line=line)


@dataclass(frozen=True)
class Side:
    """All tools of one revision (or working tree) of the generated output."""

    label: str
    tools: Mapping[str, ToolEntry]
    version: str | None  # SCHEMA_SET_VERSION from the manifest
    exists: bool  # False when the output directory does not exist on this side
    warnings: tuple[Diagnostic, ...] = field(default=())
    #: ``DEPENDENCIES`` from the manifest (format 3): the versions that decided inference.
    dependencies: Mapping[str, str] | None = None


def to_json(value: object) -> JSON:
    """Tuples become lists, recursively: both are JSON arrays and must compare equal."""
    if isinstance(value, tuple | list):
        return [to_json(item) for item in value]
    if isinstance(value, dict):
        return {key: to_json(item) for key, item in value.items()}
    return value


def parse_module(text: str, path: str) -> dict[str, JSON]:
    """The literal top-level assignments of a generated module, by name."""
    try:
        values = parse_literal_module(text, path)
    except GeneratedModuleError as error:
        raise CodegenError(
            [Diagnostic(error.path, error.line, error.column, error.message)]
        ) from None
    return {name: to_json(value) for name, value in values.items()}


def _tools_of(
    module_path: str, values: Mapping[str, JSON], display_path: str
) -> tuple[list[ToolEntry], list[Diagnostic]]:
    tools = values.get("TOOLS", [])
    source = values.get("SOURCE_PATH")
    source_path = source if isinstance(source, str) else None
    protocols = module_protocols(dict(values))
    entries: list[ToolEntry] = []
    problems: list[Diagnostic] = []
    if not isinstance(tools, list):
        return [], [Diagnostic(display_path, 1, 1, "TOOLS is not a tuple of dicts")]
    for tool in tools:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            problems.append(Diagnostic(display_path, 1, 1, "a TOOLS entry has no string 'name'"))
            continue
        meta = tool.get(PRIVATE_KEY)
        line = meta.get("line") if isinstance(meta, dict) else None
        entry = ToolEntry(
            name=tool["name"],
            tool=tool,
            module=module_path,
            source_path=source_path,
            line=line if isinstance(line, int) and not isinstance(line, bool) else 0,
            protocols=protocols,
        )
        if entry.malformed_fields:
            message = (
                f"tool {entry.name!r} has a malformed {PRIVATE_KEY}.fields (a tuple of "
                "(pointer, relative path, line)); regenerate the tree"
            )
            problems.append(Diagnostic(display_path, 1, 1, message))
        entries.append(entry)
    return entries, problems


def _server_of(entry: ToolEntry) -> str | None:
    return tool_server(entry.tool.get(PRIVATE_KEY))


def shared_key(entry: ToolEntry) -> str:
    """The key of a tool whose name another tool of its side shares (on another server of a
    composed package): ``"name [module:qualname]"``."""
    meta = entry.tool.get(PRIVATE_KEY)
    function = meta.get("function") if isinstance(meta, dict) else None
    return f"{entry.name} [{function if isinstance(function, str) else entry.module}]"


def _assemble(
    label: str,
    manifest: Mapping[str, JSON] | None,
    modules: Iterable[tuple[str, str, str]],
) -> Side:
    """Build a side from the manifest values and ``(module path, display path, text)`` triples."""
    found: list[tuple[str, ToolEntry]] = []
    for module_path, display_path, text in modules:
        entries, problems = _tools_of(module_path, parse_module(text, display_path), display_path)
        if problems:
            raise CodegenError(problems)
        found += [(display_path, entry) for entry in entries]
    # A composed package's servers may share a name (x-codegen.server): such tools are keyed
    # by name and function, so two `search` tools are compared each with its own. Unkeyed
    # duplicates (never generated) keep the first, with a warning.
    counts = Counter(entry.name for _, entry in found if _server_of(entry) is not None)
    tools: dict[str, ToolEntry] = {}
    warnings: list[Diagnostic] = []
    for display_path, entry in found:
        key = shared_key(entry) if counts[entry.name] > 1 and _server_of(entry) else entry.name
        if key in tools:
            warnings.append(
                Diagnostic(
                    display_path,
                    entry.line,
                    1,
                    f"tool {entry.name!r} is also in {tools[key].module}; the first one is "
                    "compared",
                    severity="warning",
                )
            )
            continue
        tools[key] = entry
    version = manifest.get("SCHEMA_SET_VERSION") if manifest else None
    dependencies = manifest.get("DEPENDENCIES") if manifest else None
    if not (
        isinstance(dependencies, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in dependencies.items())
    ):
        dependencies = None
    return Side(
        label=label,
        tools=tools,
        version=version if isinstance(version, str) else None,
        exists=True,
        warnings=tuple(warnings),
        dependencies=dependencies,
    )


def read_texts(label: str, manifest_text: str, modules: Mapping[str, str]) -> Side:
    """A side from texts in memory: a manifest and the modules it lists (``check``'s fresh build)."""
    manifest = parse_module(manifest_text, MANIFEST)
    names = _listed_modules(manifest, MANIFEST)
    return _assemble(label, manifest, ((name, name, modules[name]) for name in names))


def _listed_modules(manifest: Mapping[str, JSON], display_path: str) -> list[str]:
    modules = manifest.get("MODULES")
    if not isinstance(modules, list) or not all(isinstance(m, str) for m in modules):
        raise CodegenError([Diagnostic(display_path, 1, 1, "MODULES is not a tuple of strings")])
    return list(modules)


def read_directory(output: Path, label: str | None = None) -> Side:
    """Read the generated modules under ``output`` (the manifest decides which, when present)."""
    label = label or str(output)
    if not output.is_dir():
        return Side(label=label, tools={}, version=None, exists=False)
    manifest_file = output / MANIFEST
    manifest: dict[str, JSON] | None = None
    if manifest_file.is_file():
        manifest = parse_module(manifest_file.read_text(encoding="utf-8"), str(manifest_file))
        names = _listed_modules(manifest, str(manifest_file))
    else:
        names = sorted(existing_generated(output))

    def texts() -> Iterable[tuple[str, str, str]]:
        for name in names:
            path = output / name
            if not path.is_file():
                raise CodegenError(
                    [
                        Diagnostic(
                            str(manifest_file), 1, 1, f"MODULES lists {name}, which is missing"
                        )
                    ]
                )
            yield name, str(path), path.read_text(encoding="utf-8")

    return _assemble(label, manifest, texts())


# --- git -------------------------------------------------------------------------------------


class GitError(CodegenError):
    """A git command failed; carries git's own message."""


def git(repo: Path, *args: str, input_bytes: bytes | None = None) -> bytes:
    """Run ``git -C repo ARGS`` and return stdout; raise ``GitError`` with stderr on failure."""
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args],
            input=input_bytes,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError:
        raise GitError([Diagnostic(str(repo), 0, 0, "git is not installed")]) from None
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip() or f"git {args[0]} failed"
        raise GitError([Diagnostic(str(repo), 0, 0, message)])
    return done.stdout


def toplevel(path: Path) -> Path:
    """The root of the git work tree containing ``path``."""
    return Path(git(path, "rev-parse", "--show-toplevel").decode().strip()).resolve()


def resolve_commit(repo: Path, revision: str) -> str:
    """The full commit id of ``revision``; ``GitError`` when it names no commit."""
    try:
        return (
            git(repo, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}").decode().strip()
        )
    except GitError:
        raise GitError(
            [Diagnostic(str(repo), 0, 0, f"{revision!r} is neither a directory nor a git revision")]
        ) from None


def default_branch(repo: Path) -> str:
    """``origin/HEAD``'s target when set, else ``main``, else ``master``."""
    try:
        ref = git(repo, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD").decode().strip()
        return ref.removeprefix("refs/remotes/")
    except GitError:
        pass
    for candidate in ("main", "master"):
        try:
            resolve_commit(repo, candidate)
            return candidate
        except GitError:
            continue
    raise GitError(
        [
            Diagnostic(
                str(repo),
                0,
                0,
                "cannot find the default branch (no origin/HEAD, main or master); pass BASE",
            )
        ]
    )


def merge_base(repo: Path, first: str, second: str) -> str:
    """The best common ancestor of two revisions."""
    try:
        return git(repo, "merge-base", first, second).decode().strip()
    except GitError as exc:
        raise GitError(
            [
                Diagnostic(
                    str(repo),
                    0,
                    0,
                    f"no merge-base of {first} and {second} ({exc}); fetch the full history "
                    "(fetch-depth: 0 in CI) or pass BASE explicitly",
                )
            ]
        ) from None


def _read_blobs(repo: Path, commit: str, paths: list[str]) -> dict[str, bytes | None]:
    """Contents of ``paths`` at ``commit`` from one ``git cat-file --batch`` (None: missing)."""
    if not paths:
        return {}
    request = "".join(f"{commit}:{path}\n" for path in paths).encode()
    out = git(repo, "cat-file", "--batch", input_bytes=request)
    blobs: dict[str, bytes | None] = {}
    offset = 0
    for path in paths:
        end = out.index(b"\n", offset)
        header = out[offset:end].decode(errors="replace")
        offset = end + 1
        parts = header.split()
        if len(parts) == 3 and parts[1] == "blob":
            size = int(parts[2])
            blobs[path] = out[offset : offset + size]
            offset += size + 1  # the content is followed by a newline
        elif len(parts) == 3:  # a tree or other object at that path: skip its body
            offset += int(parts[2]) + 1
            blobs[path] = None
        else:  # "<object> missing" or "ambiguous"
            blobs[path] = None
    return blobs


def read_revision(repo: Path, revision: str, output_rel: str, label: str | None = None) -> Side:
    """Read the generated modules under ``output_rel`` (relative to ``repo``) at ``revision``."""
    commit = resolve_commit(repo, revision)
    label = label or f"{revision} ({commit[:10]})"
    prefix = PurePosixPath(output_rel)
    manifest_path = (prefix / MANIFEST).as_posix()
    display = f"{revision}:{manifest_path}"
    manifest_blob = _read_blobs(repo, commit, [manifest_path])[manifest_path]
    manifest: dict[str, JSON] | None = None
    if manifest_blob is not None:
        manifest = parse_module(manifest_blob.decode("utf-8"), display)
        names = _listed_modules(manifest, display)
    else:
        listing = git(repo, "ls-tree", "-r", "--name-only", "-z", commit, "--", f"{prefix}/")
        files = [name for name in listing.decode().split("\0") if name.endswith(".py")]
        if not files:
            return Side(label=label, tools={}, version=None, exists=False)
        names = [PurePosixPath(name).relative_to(prefix).as_posix() for name in files]
    paths = [(prefix / name).as_posix() for name in names]
    blobs = _read_blobs(repo, commit, paths)

    def texts() -> Iterable[tuple[str, str, str]]:
        for name, path in zip(names, paths, strict=True):
            blob = blobs[path]
            if blob is None:
                if manifest is not None:
                    raise CodegenError(
                        [Diagnostic(display, 1, 1, f"MODULES lists {name}, which is missing")]
                    )
                continue
            text = blob.decode("utf-8")
            if manifest is None and not is_generated(text):
                continue
            yield name, f"{revision}:{path}", text

    return _assemble(label, manifest, texts())

"""The data types passed between pipeline stages. Each boundary has one type; all are frozen.

sources   -> SourceFile     (a candidate file's bytes and import name, read once by the generator)
scan      -> ScannedModule  (static facts from libcst: no user code runs)
inspect   -> InspectedModule (raw pydantic schemas, computed in an isolated child process)
assemble  -> ToolDefinition  (MCP tool dicts after the schema transforms)
render    -> RenderedFile    (module text, in memory)
write     -> WriteReport     (what changed on disk, or would change)

Runs in: parent, worker.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp_codegen._shared.diagnostics import Diagnostic

JSON = Any  # a JSON-compatible value: None, bool, int, float, str, list, dict


@dataclass(frozen=True)
class Position:
    """1-based line and column in a source file."""

    line: int
    column: int


@dataclass(frozen=True)
class SourceFile:
    """One source file as the generator read it: what is scanned is what the header hashes."""

    path: str  # absolute path of the source file
    relative_path: str  # relative to the project root, "/" separators
    module: str  # dotted import name
    import_root: str  # directory that must be on sys.path to import ``module``
    sha256: str
    data: bytes

    def location(self) -> dict[str, str]:
        """The fields a ``ScannedModule`` of this source takes from it, never from a worker."""
        return {
            "path": self.path,
            "relative_path": self.relative_path,
            "module": self.module,
            "import_root": self.import_root,
            "sha256": self.sha256,
        }


@dataclass(frozen=True)
class ScannedParameter:
    name: str
    kind: (
        str  # inspect.Parameter kind name: POSITIONAL_OR_KEYWORD, KEYWORD_ONLY, VAR_POSITIONAL, ...
    )
    annotation_source: str | None
    default_source: str | None
    position: Position


@dataclass(frozen=True)
class ScannedTool:
    """A decorated function as written in source."""

    function_name: str
    qualname: str  # dotted path inside the module; "<locals>" marks a nested scope
    name: str  # the tool name: decorator name= or the function name
    position: Position
    is_async: bool
    docstring: str | None
    parameters: tuple[ScannedParameter, ...]
    return_annotation_source: str | None
    options: dict[str, JSON]  # literal decorator keyword arguments, normalised (see scan.py)
    option_positions: dict[str, Position]
    decorator: str = ""  # the matched decorator's dotted name, call stripped: "mcp.tool"
    factory: str | None = None  # the configured factory call defining it (``factories``)
    #: set when the function is not defined here by that name (imported, ``module.fn``, a bound
    #: method ``self.method``): ``qualname`` is the expression as written, and the function is
    #: the one the real server registered, when the module was imported, by the call starting
    #: at this line and 1-based byte column
    registered_at: Position | None = None


@dataclass(frozen=True)
class ScannedModule:
    path: str  # absolute path of the source file
    relative_path: str  # relative to the project root, "/" separators
    module: str  # dotted import name
    import_root: str  # directory that must be on sys.path to import ``module``
    sha256: str
    tools: tuple[ScannedTool, ...]
    diagnostics: tuple[Diagnostic, ...] = ()

    @classmethod
    def failed(cls, source: SourceFile, message: str) -> ScannedModule:
        """A source whose scan could not finish: no tools, one diagnostic at its start."""
        return cls(
            **source.location(),
            tools=(),
            diagnostics=(Diagnostic(source.relative_path, 1, 1, message),),
        )

    @property
    def inspectable(self) -> bool:
        """Imported and inspected only when the scan found tools and no errors."""
        return bool(self.tools) and not any(d.severity == "error" for d in self.diagnostics)


@dataclass(frozen=True)
class ModelSource:
    """One project class a tool's schemas describe (``mcp_codegen._generator.inspection.model_sources``):
    its ``class`` line, the property names its schema may have, and the line of each field.
    Paths are relative to the project root, "/" separators."""

    names: tuple[str, ...]  # the ``$defs`` keys pydantic may give it
    path: str
    line: int
    properties: dict[str, int]  # every property name (aliases too) -> its field's index
    size: int  # how many fields
    optional: int  # how many may be missing from a schema (excluded from serialization)
    fields: dict[str, tuple[str, int]] = field(default_factory=dict)  # property -> (path, line)
    #: For an ``Enum`` class or a ``Literal`` alias (``Size = Literal[...]``): the values its
    #: schema's ``enum`` lists, in order; ``None`` for a model.
    values: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class ToolModels:
    """The project classes one tool's schemas reach, and the one its output schema is (if any)."""

    models: tuple[ModelSource, ...] = ()
    output: ModelSource | None = None  # the return annotation's class, when recorded


@dataclass(frozen=True)
class InspectedTool:
    """Raw schemas for one tool, straight from pydantic plus parameter facts, before transforms."""

    name: str
    input_schema: JSON  # None when an override or the permissive fallback decides it
    output_schema: JSON  # None when the tool has no output schema
    description: str | None
    parameter_descriptions: dict[str, str]  # from the docstring, for parameters that lack one
    diagnostics: tuple[Diagnostic, ...] = ()
    # Flavors "mcp"/"fastmcp": {"wire": tools/list dict, "box": field or None, PRIVATE_KEY: {...}}
    flavored: JSON = None
    #: a registered tool's function as ``module:qualname`` (``ScannedTool.registered_at``), and the
    #: sha256 of the file defining it when that is not the scanned source
    function: str | None = None
    function_sha256: str | None = None
    #: Where the models its schemas describe are written (``diff`` reports field lines).
    models: ToolModels = ToolModels()


@dataclass(frozen=True)
class InspectedModule:
    module: ScannedModule
    tools: tuple[InspectedTool, ...]
    diagnostics: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True)
class ToolDefinition:
    """One MCP tool, ready to render. ``wire`` holds the tools/list fields in output order."""

    wire: dict[str, JSON]
    function: str  # "module:qualname"
    box_field: str | None
    position: Position
    extra: dict[str, JSON] = field(default_factory=dict)  # more ``x-codegen`` keys, in order

    @property
    def name(self) -> str:
        return self.wire["name"]


@dataclass(frozen=True)
class ModuleDefinition:
    source: ScannedModule
    tools: tuple[ToolDefinition, ...]


@dataclass(frozen=True)
class RenderedFile:
    relative_path: str  # relative to the output directory, "/" separators
    content: str


@dataclass(frozen=True)
class WriteReport:
    written: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    orphaned: tuple[str, ...] = ()
    diffs: tuple[str, ...] = field(default=())

    @property
    def up_to_date(self) -> bool:
        return not (self.stale or self.missing or self.orphaned)

"""A tool's binding: where its function lives and how its results are shaped (read-only).

Standard library only, like the registry that builds these.
"""

from __future__ import annotations

import marshal

from mcp_codegen._shared.protocols import variant_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ToolBinding:
    """Where a tool's function lives and how its results are shaped. Read-only.

    ``flavor`` is the generating module's ``FLAVOR``: whose rules shape the tool's results.
    ``registrar`` / ``registrar_parameter`` are set for a tool defined inside a registration
    function; ``result_meta`` is the ``_meta`` every boxed result carries (flavor "fastmcp").
    ``natural`` is true when the tool's 2026-07-28 variant is unboxed (``box_for``).
    ``factory`` is the factory call (``"pkg.server:create_server(namespace='')"``) whose server
    registers the function, for a tool generated with config ``factories``.
    """

    __slots__ = (
        "box_field",
        "column",
        "factory",
        "flavor",
        "function",
        "line",
        "module_path",
        "name",
        "natural",
        "registrar",
        "registrar_parameter",
        "result_meta",
    )

    name: str
    function: str
    box_field: str | None
    module_path: str
    line: int
    column: int
    flavor: str
    registrar: str | None
    registrar_parameter: str | None
    result_meta: dict[str, Any] | None
    natural: bool
    factory: str | None

    def __init__(
        self,
        name: str,
        function: str,
        box_field: str | None,
        module_path: str,
        line: int,
        column: int,
        *,
        flavor: str = "clean",
        registrar: str | None = None,
        registrar_parameter: str | None = None,
        result_meta: dict[str, Any] | None = None,
        natural: bool = False,
        factory: str | None = None,
    ) -> None:
        for slot, value in (
            ("name", name),
            ("function", function),
            ("box_field", box_field),
            ("module_path", module_path),
            ("line", line),
            ("column", column),
            ("flavor", flavor),
            ("registrar", registrar),
            ("registrar_parameter", registrar_parameter),
            ("natural", natural),
            ("factory", factory),
            # A private copy: the caller's dict stays the caller's.
            (
                "result_meta",
                None if result_meta is None else marshal.loads(marshal.dumps(result_meta)),
            ),
        ):
            object.__setattr__(self, slot, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"ToolBinding is read-only; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"ToolBinding is read-only; cannot delete {name!r}")

    @property
    def module(self) -> str:
        """Dotted import path of the module that defines the function."""
        return self.function.partition(":")[0]

    @property
    def qualname(self) -> str:
        """Qualified name of the function inside its module (``reg.<locals>.fn`` for a tool
        defined inside a registration function)."""
        return self.function.partition(":")[2]

    def box_for(self, protocol_version: str | None) -> str | None:
        """The box field of results for a client of ``protocol_version`` (``None``: newest)."""
        if self.natural and variant_for(protocol_version) == "natural":
            return None
        return self.box_field

    def _key(self) -> tuple[object, ...]:
        return tuple(getattr(self, slot) for slot in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolBinding) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, slot) for slot in self.__slots__ if slot != "result_meta"))

    def __repr__(self) -> str:
        return (
            f"ToolBinding(name={self.name!r}, function={self.function!r}, "
            f"box_field={self.box_field!r}, flavor={self.flavor!r})"
        )

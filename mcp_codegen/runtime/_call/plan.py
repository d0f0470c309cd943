"""What the call machinery knows about one tool once prepared: its parameters, validators, rules.

Plain data shared by argument conversion, injection, result shaping and the caller; it imports
none of them.
"""

from __future__ import annotations

import contextlib
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import jsonschema.validators
import pydantic

from mcp_codegen.runtime._call.failures import ToolCallError
from mcp_codegen.runtime._load.registry import ToolBinding

if typing.TYPE_CHECKING:
    from mcp import types

EMPTY = inspect.Parameter.empty


class ResultRules(typing.Protocol):
    """How one tool's results and failures look to the client: its flavor's rules."""

    #: Whether a generator the tool returns is collected into a list (fastmcp does that).
    materializes_generators: bool

    def convert(self, value: Any) -> types.CallToolResult:
        """The result for the tool's return value; ``ToolCallError`` when there is none."""

    def failure(self, error: BaseException, describe: Callable[[BaseException], str]) -> str:
        """The ``isError`` text when the tool raised ``error``; ``ProtocolFailure`` to answer
        with a JSON-RPC error instead."""

    def scope(self, request: Any) -> contextlib.AbstractAsyncContextManager[Any]:
        """Entered around argument conversion and the tool run."""


@dataclass(frozen=True)
class Parameter:
    """One parameter of a tool function, as the call machinery fills it."""

    name: str  # the Python parameter name
    key: str  # the argument name on the wire (the alias, when one is set)
    kind: inspect._ParameterKind
    annotation: Any
    default: Any  # `EMPTY` when required; a FieldInfo default is resolved per call
    in_schema: bool
    adapter: pydantic.TypeAdapter[Any] | None
    context: str | None = None  # "sdk" or "fastmcp": a framework Context the server supplies


@dataclass
class PreparedTool:
    """A tool ready to call: its function, parameters, validators and (once chosen) rules."""

    binding: ToolBinding
    function: Callable[..., Any]
    is_async: bool
    input_validator: jsonschema.protocols.Validator
    output_schema: dict[str, Any] | None
    parameters: tuple[Parameter, ...]
    accepts_extra: bool
    return_annotation: Any
    #: The box of this variant's results (the binding's, or ``None`` in the natural variant).
    box_field: str | None = None
    rules: ResultRules | None = None
    #: Flavor "clean" tools boxed only before 2026-07-28: the rules for newer clients.
    natural_rules: ResultRules | None = None
    _return_adapter: pydantic.TypeAdapter[Any] | None = None
    _output_validator: jsonschema.protocols.Validator | None = field(default=None, repr=False)

    def return_adapter(self) -> pydantic.TypeAdapter[Any] | None:
        """A pydantic adapter for the return annotation; ``None`` when there is no usable one."""
        if self._return_adapter is None and self.return_annotation not in (EMPTY, Any):
            try:
                self._return_adapter = pydantic.TypeAdapter(self.return_annotation)
            except pydantic.PydanticUserError:
                self.return_annotation = EMPTY  # not a pydantic type: plain JSON conversion
        return self._return_adapter

    def output_validator(self) -> jsonschema.protocols.Validator:
        """The compiled ``outputSchema``, built on first use."""
        if self._output_validator is None:
            assert self.output_schema is not None
            self._output_validator = compile_schema(
                self.output_schema, "outputSchema", self.binding.name
            )
        return self._output_validator


def compile_schema(schema: dict[str, Any], which: str, tool: str) -> jsonschema.protocols.Validator:
    """A validator for a generated schema; ``ToolCallError`` if the schema itself is invalid."""
    validator_class = jsonschema.validators.validator_for(
        schema, default=jsonschema.Draft202012Validator
    )
    try:
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ToolCallError(
            f"Tool {tool!r}: the generated {which} is not a valid JSON Schema: {exc.message}"
        ) from exc
    return validator_class(schema)  # type: ignore[no-any-return]

"""The ``FunctionTool`` fastmcp is handed under ``use_generated``: listed from its generated entry.

Imported only by the fastmcp patch, so it may import fastmcp. ``from_entry`` gives the same
object ``LocalProvider.add_tool`` would build from the function, except that its inferred fields
(``parameters``, ``output_schema``, ``description``) come from the entry, and the call-time
fields fastmcp infers (the transformed ``fn``, ``return_type``) are taken from
``ParsedFunction`` on the tool's first call.

Most tools carry no options besides a name and a description. For those, pydantic's validation
of the fifteen fields would only re-check values that are already of their declared type, so
the tool is a copy of one validated prototype with the per-tool fields filled in, each value as
validation would have produced it (a fresh top-level copy of each schema dict, a fresh tag set,
a fresh ``TaskConfig``), and the tool-name check fastmcp's validator runs is run. Any other option
takes fastmcp's validated construction. ``tests/runtime/hook/test_hook_fastmcp_fastpaths.py`` proves both
give equal objects.
"""

from __future__ import annotations

from typing import Any

from fastmcp.tools.function_parsing import ParsedFunction
from fastmcp.tools.function_tool import FunctionTool, ToolMeta
from fastmcp.utilities.tasks import TaskConfig
from fastmcp.utilities.types import NotSetT
from pydantic import BaseModel, PrivateAttr


def _prototype_function() -> None:
    """Stands for the function of the prototype tool (replaced in every copy)."""


class GeneratedFunctionTool(FunctionTool):
    """A ``FunctionTool`` listed from its generated entry; inferred on its first call."""

    _source_fn: Any = PrivateAttr(default=None)
    _ready: bool = PrivateAttr(default=False)
    _copied: bool = PrivateAttr(default=False)  # built by _copy_prototype

    @classmethod
    def from_entry(cls, fn: Any, meta: Any, entry: dict[str, Any]) -> GeneratedFunctionTool:
        """The tool ``LocalProvider.add_tool`` would build for ``fn`` with ``meta`` (its
        ``ToolMeta``), listed from ``entry`` (its generated wire dict)."""
        if takes_defaults_only(meta) and copies_are_exact(cls):
            return cls._copy_prototype(fn, meta, entry)
        return cls.validated(fn, meta, entry)

    @classmethod
    def validated(cls, fn: Any, meta: Any, entry: dict[str, Any]) -> GeneratedFunctionTool:
        """``from_entry`` through pydantic's validation, whatever ``meta`` holds."""
        tool_meta = meta.meta
        if meta.app is not None:  # as LocalProvider.add_tool merges it
            # fastmcp is optional
            from fastmcp.apps.config import app_config_to_meta_dict

            tool_meta = dict(tool_meta) if tool_meta else {}
            tool_meta["ui"] = True if meta.app is True else app_config_to_meta_dict(meta.app)
        task = meta.task if meta.task is not None else False
        task_config = task if isinstance(task, TaskConfig) else TaskConfig.from_bool(task)
        task_config.validate_function(fn, entry["name"])
        output_schema = (
            entry.get("outputSchema")
            if isinstance(meta.output_schema, NotSetT)
            else meta.output_schema
        )
        tool = cls(
            fn=fn,
            name=entry["name"],
            version=str(meta.version) if meta.version is not None else None,
            title=meta.title,
            description=meta.description if meta.description is not None else entry.get("description"),
            icons=meta.icons,
            parameters=entry["inputSchema"],
            output_schema=output_schema,
            annotations=meta.annotations,
            tags=meta.tags or set(),
            meta=tool_meta,
            task_config=task_config,
            timeout=meta.timeout,
            auth=meta.auth,
            run_in_thread=meta.run_in_thread,
        )  # fmt: skip
        tool._source_fn = fn
        return tool

    @classmethod
    def _copy_prototype(cls, fn: Any, meta: Any, entry: dict[str, Any]) -> GeneratedFunctionTool:
        name = entry["name"]
        task_config = TaskConfig.from_bool(False)  # what validated() builds for task None/False
        task_config.validate_function(fn, name)
        tool = _prototype(cls).model_copy()
        output_schema = entry.get("outputSchema")
        fields = tool.__dict__
        fields["fn"] = fn
        fields["name"] = name
        fields["description"] = (
            meta.description if meta.description is not None else entry.get("description")
        )
        fields["parameters"] = dict(entry["inputSchema"])
        fields["output_schema"] = dict(output_schema) if output_schema is not None else None
        fields["tags"] = set()
        fields["task_config"] = task_config
        fields["run_in_thread"] = meta.run_in_thread
        tool._validate_tool_name()  # the one model validator (copies_are_exact checks that)
        tool._source_fn = fn
        tool._copied = True
        return tool

    def _materialize(self) -> None:
        if self._ready:
            return
        # What FunctionTool.from_function derives fn and return_type from.
        real = ParsedFunction.from_function(self._source_fn)
        self.__dict__["fn"] = real.fn
        self.__dict__["return_type"] = real.return_type
        self._ready = True

    async def run(self, arguments: dict[str, Any]) -> Any:
        self._materialize()
        return await super().run(arguments)

    def convert_result(self, raw_value: Any) -> Any:
        self._materialize()
        return super().convert_result(raw_value)


def takes_defaults_only(meta: Any) -> bool:
    """Whether ``meta`` (a ``ToolMeta``) sets nothing but a name, a description and
    ``run_in_thread``, each already of its declared type, so validation would change nothing."""
    return (
        meta.version is None
        and meta.title is None
        and meta.icons is None
        and not meta.tags
        and isinstance(meta.output_schema, NotSetT)
        and meta.annotations is None
        and meta.meta is None
        and meta.app is None
        and (meta.task is None or meta.task is False)
        and meta.timeout is None
        and meta.auth is None
        and type(meta.run_in_thread) is bool
        and (meta.description is None or type(meta.description) is str)
    )


_EXPECTED_VALIDATORS = {"_validate_tool_name"}
_PROTOTYPES: dict[type, GeneratedFunctionTool] = {}
_EXACT: dict[type, bool] = {}


def copies_are_exact(cls: type[GeneratedFunctionTool]) -> bool:
    """Whether validation of ``cls`` runs nothing a prototype copy does not: its only decorated
    validator is the tool-name check, and nothing happens after construction. A fastmcp that
    adds one keeps the validated construction."""
    known = _EXACT.get(cls)
    if known is not None:
        return known
    decorators = cls.__pydantic_decorators__
    post_init = cls.model_post_init
    exact = (
        set(decorators.model_validators) == _EXPECTED_VALIDATORS
        and not decorators.field_validators
        and not decorators.validators
        and not decorators.root_validators
        and (
            post_init is BaseModel.model_post_init  # or pydantic's own, for the private attributes:
            or (
                post_init.__module__.startswith("pydantic.")
                and post_init.__name__ == "init_private_attributes"
            )
        )
    )
    _EXACT[cls] = exact
    return exact


def _prototype(cls: type[GeneratedFunctionTool]) -> GeneratedFunctionTool:
    """One tool of ``cls`` built by ``validated`` from a defaults-only ``ToolMeta``: every field
    but the per-tool ones, and the fields set, as each copy needs them."""
    prototype = _PROTOTYPES.get(cls)
    if prototype is None:
        entry = {"name": "prototype", "inputSchema": {}}
        prototype = _PROTOTYPES[cls] = cls.validated(_prototype_function, ToolMeta(), entry)
    return prototype

"""fastmcp registration without rescans: a per-provider index of tools by name.

fastmcp 4.x walks every registered component on each ``add_tool`` twice
(``LocalProvider._check_version_mixing`` and the server's ``_SchemaCacheLocalProvider.add_tool``
collecting the tools of the same name), which makes registering N tools cost O(N^2): about
0.5 s of CPU at N = 1,000, more than the hooked registration itself (docs/decisions/
0430-fastmcp-registration-index.md). Under ``use_generated`` both walks read a
``{name: {key: tool}}`` index instead, kept in step by wrapping ``_add_component`` and
``_remove_component`` (the only writers of ``_components`` in fastmcp) and rebuilt by one scan
whenever ``_components`` was replaced or changed size behind those two methods. Each
answer, and each exception, is the one the walk would give: a conflict is left to fastmcp's
own check to raise, and the same-name tools come in ``_components`` order. ``CopySeeding``
seeds the wire-schema cache of a prototype-copied tool without ``to_mcp_tool``.
"""

from __future__ import annotations

import sys
from typing import Any

_ATTRIBUTE = "_codegen_tool_index"
_MARK = "__codegen_tool_index__"


class ToolIndex:
    """The Tool components of one provider's ``_components``, by name, in its order."""

    def __init__(self, components: dict[str, Any], tool_class: type) -> None:
        self.components = components
        self.by_name: dict[str, dict[str, Any]] = {}
        for key, component in components.items():
            if isinstance(component, tool_class):
                self.by_name.setdefault(component.name, {})[key] = component
        self.size = len(components)

    def current(self, components: dict[str, Any]) -> bool:
        """Whether nothing changed ``components`` behind the wrapped writers."""
        return components is self.components and len(components) == self.size


def _index(provider: Any, tool_class: type) -> ToolIndex:
    index: ToolIndex | None = provider.__dict__.get(_ATTRIBUTE)
    if index is None or not index.current(provider._components):
        index = ToolIndex(provider._components, tool_class)
        provider.__dict__[_ATTRIBUTE] = index
    return index


def _tracked(provider: Any) -> ToolIndex | None:
    """The provider's index if it is exact before a wrapped write; a stale one is dropped."""
    index: ToolIndex | None = provider.__dict__.get(_ATTRIBUTE)
    if index is not None and not index.current(provider._components):
        del provider.__dict__[_ATTRIBUTE]
        return None
    return index


def install(local_provider: type, tool_class: type, schema_cache_provider: type | None) -> None:
    """Wrap ``local_provider``'s component bookkeeping (once per process)."""
    if getattr(local_provider._check_version_mixing, _MARK, False):
        return
    add_component = local_provider._add_component
    remove_component = local_provider._remove_component
    check_version_mixing = local_provider._check_version_mixing

    def _add_component(self: Any, component: Any) -> Any:
        _tracked(self)
        added = add_component(self, component)
        index = self.__dict__.get(_ATTRIBUTE)  # kept, or built by the check before insertion
        if index is not None:
            if added is component and isinstance(component, tool_class):
                index.by_name.setdefault(component.name, {})[component.key] = component
            index.size = len(self._components)
        return added

    def _remove_component(self: Any, key: str) -> None:
        index = _tracked(self)
        component = self._components.get(key)
        remove_component(self, key)
        if index is not None:
            if isinstance(component, tool_class):
                index.by_name.get(component.name, {}).pop(key, None)
            index.size = len(self._components)

    def _check_version_mixing(self: Any, component: Any) -> None:
        if isinstance(component, tool_class):
            versioned = component.version is not None
            same_name = _index(self, tool_class).by_name.get(component.name, {})
            if all((tool.version is not None) == versioned for tool in same_name.values()):
                return  # the walk would find no conflict either
        check_version_mixing(self, component)  # fastmcp raises its own error

    for wrapper, original in (
        (_add_component, add_component),
        (_remove_component, remove_component),
        (_check_version_mixing, check_version_mixing),
    ):
        setattr(wrapper, _MARK, original)
        wrapper.__doc__ = original.__doc__
        setattr(local_provider, original.__name__, wrapper)
    if schema_cache_provider is not None:
        _install_schema_seeding(schema_cache_provider, tool_class)


def _install_schema_seeding(provider_class: type, tool_class: type) -> None:
    original = provider_class.__dict__.get("add_tool")
    seed = getattr(provider_class, "_seed_schema", None)
    if original is None or seed is None or "_seed_schema" not in original.__code__.co_names:
        return  # not the fastmcp this was written against: keep its own walk

    seeding = CopySeeding(getattr(sys.modules[provider_class.__module__], "Visibility", None))

    def add_tool(self: Any, tool: Any) -> Any:
        added = super(provider_class, self).add_tool(tool)
        # fastmcp collects the same-name tools of _components, in its order
        same_name = list(_index(self, tool_class).by_name.get(added.name, {}).values())
        if not seeding.seed(self, added, same_name):
            self._seed_schema(added.name, same_name or [added])
        return added

    setattr(add_tool, _MARK, original)
    add_tool.__doc__ = original.__doc__
    provider_class.add_tool = add_tool


class CopySeeding:
    """Seeds fastmcp's wire-schema cache for a tool built as a prototype copy
    (``_hook_fastmcp_tool``) without fastmcp's ``to_mcp_tool``.

    For such a tool alone under its name, with no transform but visibility, fastmcp's
    ``_seed_schema`` stores ``to_mcp_tool(name=...).input_schema``: pydantic's top-level copy of
    ``parameters``, ~6 us per tool. This stores ``dict(parameters)``. The first such tool in the
    process is seeded by fastmcp itself and compared: any difference turns the short cut off.
    """

    def __init__(self, visibility: type | None) -> None:
        self._visibility = visibility
        self.state = "unverified" if visibility is not None else "off"

    def seed(self, provider: Any, tool: Any, same_name: list[Any]) -> bool:
        """Whether ``tool``'s cache entry is in place (False: seed it fastmcp's way)."""
        if (
            self.state == "off"
            or len(same_name) != 1
            or same_name[0] is not tool
            or not getattr(tool, "_copied", False)
            or any(
                not isinstance(transform, self._visibility)  # type: ignore[arg-type]
                for transform in (*provider._server_transforms, *provider._transforms)
            )
        ):
            return False
        schema = dict(tool.parameters)
        if self.state == "unverified":
            provider._seed_schema(tool.name, [tool])  # fastmcp's own answer, once
            self.state = "on" if provider._schema_cache.get(tool.name) == schema else "off"
            return True
        provider._schema_cache[tool.name] = schema
        return True

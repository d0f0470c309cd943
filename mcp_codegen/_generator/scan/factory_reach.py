"""The classes a configured factory reaches in other modules: the factory's tools defined there.

A server class built by a factory (``factories = ["pkg.server:SearchServer('es').mcp"]``) may
hand tool classes of other modules to its setup, each defining its tools as closures in a
method that takes the server (``def register_tools(self, mcp): @mcp.tool() ...``). Those tools
exist only once the factory runs, so they are the factory's: each class the factory's module
imports by name from another module (``from pkg.tools.search import SearchTools``) is keyed
``SearchTools.*`` for that module, and the scanner gives the tools of its methods that call
(``ScannedTool.factory``); the worker then takes each from the factory's server as its
framework lists it, or reports that the server does not list it. Read with ``ast`` only.

Runs in: worker, parent. (The build's cache keys a module on what its scan read here.)
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Mapping

from mcp_codegen._generator.model import SourceFile


def factories_of(
    source: SourceFile, factories: Mapping[str, Mapping[str, str]], reach: FactoryReach
) -> dict[str, str]:
    """``factories``' keys for ``source``'s module (factory qualname -> call), with
    ``Class.*`` for each class a factory's module imports from it (its own keys win)."""
    found: dict[str, str] = {}
    for module, keys in sorted(factories.items()):
        if module == source.module or not keys:
            continue
        call = min(keys.values())
        for name in reach.imported_from(module, source.module, source.import_root):
            found.setdefault(f"{name}.*", call)
    found.update(factories.get(source.module, {}))
    return found


class FactoryReach:
    """Which classes each factory's module imports from the project's other modules, each
    factory's module read once per build: one per worker (a worker serves one build) and one
    per build's cache, so a watch session's next build reads the files again."""

    def __init__(self) -> None:
        self._imports: dict[tuple[str, str], dict[str, tuple[str, ...]]] = {}

    def imported_from(self, factory_module: str, module: str, import_root: str) -> tuple[str, ...]:
        """The capitalised names (classes, by convention) ``factory_module`` imports from
        ``module`` by ``from ... import``, its file found under ``import_root``."""
        key = (factory_module, import_root)
        if key not in self._imports:
            self._imports[key] = _imports_by_module(factory_module, import_root)
        return self._imports[key].get(module, ())

    def read_for(self, source: SourceFile, calls: Iterable[str]) -> tuple[tuple[str, ...], ...]:
        """What the scan of ``source`` reads from other files for ``calls`` (the configured
        factories): each factory's module with the classes it imports from ``source``'s module.
        Part of the module's cache key: an edit of a factory's module that starts or stops
        importing a class re-scans the class's module."""
        modules = sorted({call.partition(":")[0].strip() for call in calls} - {source.module})
        return tuple(
            (module, *self.imported_from(module, source.module, source.import_root))
            for module in modules
        )


def _imports_by_module(factory_module: str, import_root: str) -> dict[str, tuple[str, ...]]:
    """module -> the capitalised names ``factory_module`` imports from it by ``from ...
    import`` (relative imports resolved), its file found under ``import_root``."""
    path = _module_file(factory_module, import_root)
    if path is None:
        return {}
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return {}
    package = factory_module.rpartition(".")[0]
    if path.endswith("__init__.py"):
        package = factory_module
    names: dict[str, set[str]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            source = ".".join([*base, *([node.module] if node.module else [])])
        else:
            source = node.module or ""
        names.setdefault(source, set()).update(
            a.asname or a.name for a in node.names if a.name[:1].isupper()
        )
    return {module: tuple(sorted(found)) for module, found in names.items() if found}


def _module_file(module: str, import_root: str) -> str | None:
    base = os.path.join(import_root, *module.split("."))
    for candidate in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(candidate):
            return candidate
    return None

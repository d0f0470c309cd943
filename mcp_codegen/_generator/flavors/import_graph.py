"""Which module's import runs which: the import statements of a probe, recorded as they execute.

The server probe (``mcp_codegen._generator.flavors.servers``) imports every tool module and the
run targets in one process, so ``sys.modules`` cannot tell which tool modules a run target's
own import reaches, and ``mcp-codegen run TARGET`` imports the target alone. This records an
edge ``importer -> imported`` at every import statement, also of a module already loaded (the
``__import__`` hook sees those; an import system hook would not), and at every
``importlib.import_module`` call; the modules a target's import reaches are then the modules
reachable from it, with every package on the way (importing ``a.b`` runs ``a/__init__.py``).
"""

from __future__ import annotations

import builtins
import importlib
import sys
from typing import Any


class ImportGraph:
    """The edges ``importer -> imported module`` of the import statements run since
    ``install``."""

    def __init__(self) -> None:
        self.edges: dict[str, set[str]] = {}

    def install(self) -> None:
        """Record every ``import`` statement and ``importlib.import_module`` call from now on."""
        original_import = builtins.__import__
        original_import_module = importlib.import_module
        graph = self

        def tracked_import(
            name: str,
            globals: dict[str, Any] | None = None,
            locals: dict[str, Any] | None = None,
            fromlist: tuple[str, ...] | list[str] | None = (),
            level: int = 0,
        ) -> Any:
            module = original_import(name, globals, locals, fromlist, level)
            scope = globals if isinstance(globals, dict) else sys._getframe(1).f_globals
            graph._add(scope, name, level, fromlist or ())
            return module

        def tracked_import_module(name: str, package: str | None = None) -> Any:
            module = original_import_module(name, package)
            graph._add(sys._getframe(1).f_globals, module.__name__, 0, ())
            return module

        builtins.__import__ = tracked_import
        importlib.import_module = tracked_import_module

    def _add(self, scope: dict[str, Any], name: str, level: int, fromlist: Any) -> None:
        importer = scope.get("__name__")
        if not isinstance(importer, str):
            return
        absolute = _absolute(scope, name, level)
        if absolute is None:
            return
        targets = self.edges.setdefault(importer, set())
        targets.add(absolute)
        for item in fromlist:
            if isinstance(item, str) and f"{absolute}.{item}" in sys.modules:
                targets.add(f"{absolute}.{item}")

    def reached(self, module: str) -> set[str]:
        """The modules importing ``module`` runs (itself included), as far as recorded."""
        seen: set[str] = set()
        pending = [module]
        while pending:
            current = pending.pop()
            for name in _with_packages(current):
                if name not in seen:
                    seen.add(name)
                    pending.extend(self.edges.get(name, ()))
        return seen


def _with_packages(module: str) -> list[str]:
    """``a.b.c`` -> ``a``, ``a.b``, ``a.b.c``: the modules ``import a.b.c`` runs."""
    parts = module.split(".")
    return [".".join(parts[: index + 1]) for index in range(len(parts))]


def _absolute(scope: dict[str, Any], name: str, level: int) -> str | None:
    """The absolute module name of ``from <level dots><name> import ...`` run in ``scope``."""
    if level == 0:
        return name or None
    package = scope.get("__package__")
    if not isinstance(package, str) or not package:
        importer = scope.get("__name__", "")
        package = importer if "__path__" in scope else importer.rpartition(".")[0]
    parts = package.split(".")
    if level - 1 >= len(parts) or not package:
        return None
    base = ".".join(parts[: len(parts) - (level - 1)])
    return f"{base}.{name}" if name else base

"""Which modules each tool module depends on, as this worker process sees it (standard library
only).

A worker imports many tool modules one after another, so what a module imports is not what
``sys.modules`` gains while it loads: a models module the first tool module imported is already
there for the second. Instead every ``import`` statement (``builtins.__import__``) and
``importlib.import_module`` call made by a module loaded after the libraries is recorded as an
edge from that module to what it names, for the life of the process. A module's dependencies are
then everything reachable from it along those edges (through project modules; an installed
package ends a path), with every parent package of each, plus whatever was first loaded while it
was being inspected (an over-approximation is only a needless rebuild; a missing edge would be a
wrong one).
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import os
import sys
from collections import defaultdict
from collections.abc import Iterable
from typing import Any


class ImportGraph:
    def __init__(self, project: Iterable[str]) -> None:
        """``project``: directories whose modules are followed (the installed ones end a path)."""
        self.baseline = set(sys.modules)  # the libraries: never followed
        self.project = tuple(os.path.realpath(p).rstrip(os.sep) + os.sep for p in project)
        self.edges: defaultdict[str, set[str]] = defaultdict(set)
        self._real_import = builtins.__import__
        self._real_import_module = importlib.import_module
        builtins.__import__ = self._import
        importlib.import_module = self._import_module  # type: ignore[assignment]

    def _import(
        self,
        name: str,
        globals: dict[str, Any] | None = None,
        locals: Any = None,
        fromlist: Any = (),
        level: int = 0,
    ) -> Any:
        module = self._real_import(name, globals, locals, fromlist, level)
        importer = globals.get("__name__") if globals else None
        if importer is not None and importer not in self.baseline:
            try:
                target = (
                    importlib.util.resolve_name(
                        "." * level + name, globals.get("__package__") or importer
                    )
                    if level
                    else name
                )
            except (ImportError, ValueError, AttributeError, TypeError):
                return module
            edges = self.edges[importer]
            edges.add(target)
            for item in fromlist or ():
                if isinstance(item, str) and f"{target}.{item}" in sys.modules:
                    edges.add(f"{target}.{item}")
        return module

    def _import_module(self, name: str, package: str | None = None) -> Any:
        module = self._real_import_module(name, package)
        importer = sys._getframe(1).f_globals.get("__name__")
        if importer is not None and importer not in self.baseline:
            self.edges[importer].add(module.__name__)
        return module

    def _followed(self, name: str) -> bool:
        file = getattr(sys.modules.get(name), "__file__", None)
        return (
            name not in self.baseline
            and isinstance(file, str)
            and os.path.realpath(file).startswith(self.project)
            and "site-packages" not in file
        )

    def reached(self, roots: Iterable[str]) -> list[tuple[str, str | None]]:
        """``(module name, file)`` of every module the ``roots`` depend on, themselves included."""
        seen: set[str] = set()
        pending = list(roots)
        while pending:
            name = pending.pop()
            parts = name.split(".")
            for index in range(1, len(parts) + 1):
                prefix = ".".join(parts[:index])
                if prefix in seen or prefix not in sys.modules:
                    continue
                seen.add(prefix)
                if self._followed(prefix):
                    pending.extend(self.edges.get(prefix, ()))
        return sorted(
            (
                name,
                file
                if isinstance(file := getattr(sys.modules[name], "__file__", None), str)
                else None,
            )
            for name in seen
        )

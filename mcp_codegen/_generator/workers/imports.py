"""Which modules each tool module depends on, as this worker process sees it (standard library
only).

A worker imports many tool modules one after another, so what a module imports is not what
``sys.modules`` gains while it loads: a models module the first tool module imported is already
there for the second. Instead every ``import`` statement (``builtins.__import__``) and
``importlib.import_module`` call made by a module loaded after the libraries is recorded as an
edge from that module to what it names (with the names a ``from`` import took), for the life of
the process.

A module depends on what its tools' schemas can read (``ImportGraph.dependencies``): its own
file; the modules that define the objects reachable from its namespace and from its resolved
tools (annotations, defaults, decorators and wrapped functions, and, through project classes,
their bases, fields, validators and members: ``__module__`` and a function's code file say
where each was defined); everything those modules import, along the edges; and the files of
every parent package. A package's ``__init__`` is not followed through all it imported (a tool
package's ``__init__`` commonly imports every tool module to register them): an edge into a
package is followed only to where the names taken from it were defined (``from pkg import
Model`` leads to the module defining ``Model``; a constant leads to each module the package
imported that binds the same object), and in full only for ``import pkg`` or ``from pkg import
*``. A module first loaded while the source was inspected that no recorded import explains
(a framework's loader, ``exec``) is followed in full: an over-approximation is only a needless
rebuild, a missing edge would be a wrong one.
"""

from __future__ import annotations

import builtins
import dataclasses
import enum
import functools
import importlib
import importlib.util
import os
import sys
import types
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

#: every name the importer took (``import pkg``, ``from pkg import *``): follow the target in full
ALL = None
#: a module some object of the schemas was defined in: a package is followed only through what
#: its own code imported by name
DEFINED = "defined"
#: instances of these libraries' types carry a schema's pieces (``FieldInfo``, ``Annotated``
#: metadata, dataclass fields, typing constructs): walked into; other installed objects are not
#: (a server object would lead to every tool the package registered)
_CARRIERS = frozenset(
    {"pydantic", "pydantic_core", "annotated_types", "typing", "typing_extensions", "dataclasses"}
)
_SCALARS = (str, bytes, int, float, complex, bool, type(None), type(Ellipsis))
#: a project class's own attributes not walked: pydantic's compiled schema and validators
#: (derived from the fields, which are walked)
_DERIVED = frozenset(
    {
        "__pydantic_core_schema__",
        "__pydantic_validator__",
        "__pydantic_serializer__",
        "__signature__",
        "__dict__",
        "__weakref__",
        "__doc__",
        "__module__",
        "__abstractmethods__",
        "_abc_impl",
    }
)


class ImportGraph:
    def __init__(self, project: Iterable[str]) -> None:
        """``project``: directories whose modules are followed (the installed ones end a path)."""
        self.baseline = set(sys.modules)  # the libraries: never followed
        self.project = tuple(os.path.realpath(p).rstrip(os.sep) + os.sep for p in project)
        #: importer -> {target: the names a ``from`` import took, or ALL}
        self.edges: defaultdict[str, dict[str, set[str] | None]] = defaultdict(dict)
        #: every module some recorded import of the project's named, and their parent packages
        self.targets: set[str] = set()
        self._followed_names: dict[str, bool] = {}
        self._files: dict[str, str] = {}  # real path -> module name (``_module_of_file``)
        self._indexed = 0
        self._indexed_names: set[str] = set()
        self._real_import = builtins.__import__
        self._real_import_module = importlib.import_module
        builtins.__import__ = self._import
        importlib.import_module = self._import_module  # type: ignore[assignment]

    def _edge(self, importer: str, target: str, names: Iterable[str] | None) -> None:
        if target not in self.targets and self._followed(importer):
            # explained by the project's own import (an installed loader's is not followed)
            self.targets.add(target)
            self.targets.update(_parents(target))
        edges = self.edges[importer]
        if names is None:
            edges[target] = ALL
        elif (taken := edges.setdefault(target, set())) is not ALL:
            taken.update(names)

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
            taken = [item for item in fromlist or () if isinstance(item, str)]
            self._edge(importer, target, taken if fromlist else ALL)
            for item in taken:
                if f"{target}.{item}" in sys.modules:
                    self._edge(importer, f"{target}.{item}", ALL)
        return module

    def _import_module(self, name: str, package: str | None = None) -> Any:
        module = self._real_import_module(name, package)
        importer = sys._getframe(1).f_globals.get("__name__")
        if importer is not None and importer not in self.baseline:
            self._edge(importer, module.__name__, ALL)
        return module

    def _followed(self, name: str) -> bool:
        """Is ``name`` the project's code (its imports are followed)? Kept per name: a loaded
        module's file does not move."""
        if (known := self._followed_names.get(name)) is not None:
            return known
        file = getattr(sys.modules.get(name), "__file__", None)
        followed = (
            name not in self.baseline
            and isinstance(file, str)
            and os.path.realpath(file).startswith(self.project)
            and "site-packages" not in file
        )
        if name in sys.modules:
            self._followed_names[name] = followed
        return followed

    def _module_of_file(self, file: str) -> str | None:
        """The loaded module whose ``__file__`` is ``file`` (a function's ``co_filename``)."""
        if len(sys.modules) != self._indexed:
            self._indexed = len(sys.modules)
            for name, module in list(sys.modules.items()):
                if name in self._indexed_names:
                    continue
                self._indexed_names.add(name)
                path = getattr(module, "__file__", None)
                if isinstance(path, str):
                    self._files.setdefault(os.path.abspath(path), name)
        return self._files.get(os.path.abspath(file))

    def dependencies(
        self,
        module: str,
        loaded: Iterable[str] = (),
        objects: Iterable[Any] = (),
        files: Iterable[str] = (),
    ) -> list[tuple[str, str | None]]:
        """``(module name, file)`` of everything ``module``'s schemas can read: see the module
        docstring. ``loaded``: the modules first loaded while it was inspected; ``objects``: its
        resolved tools (or anything else its schemas were built from); ``files``: further files
        it depends on (those of the code that registered its tools)."""
        pending: list[tuple[str, Any]] = [(module, ALL)]
        itself = {module, *_parents(module)}
        pending += [(n, ALL) for n in loaded if n not in self.targets and n not in itself]
        namespace = sys.modules.get(module)
        walked = _Walk(self)
        values = vars(namespace).items() if namespace is not None else ()
        walked.walk([*(v for k, v in values if k != "__builtins__"), *objects])
        pending += [(name, DEFINED) for name in sorted(walked.modules)]
        pending += [(name, ALL) for file in files if (name := self._module_of_file(file))]
        return self._closure(pending)

    def _closure(self, pending: list[tuple[str, Any]]) -> list[tuple[str, str | None]]:
        seen: set[str] = set()
        done: set[str] = set()  # modules whose every edge is followed
        taken: dict[str, set[str]] = {}  # package -> the names followed from it so far
        defined: set[str] = set()  # packages whose own definitions' imports are followed
        while pending:
            name, mode = pending.pop()
            module = sys.modules.get(name)
            if module is None:
                continue
            for parent in (*_parents(name), name):
                if parent in sys.modules:
                    seen.add(parent)  # a parent package: its file, not what it imported
            if name in done or not self._followed(name):
                continue
            edges = self.edges.get(name, {})
            if not hasattr(module, "__path__") or mode is ALL:
                done.add(name)
                pending.extend(edges.items())
            elif mode is DEFINED:
                if name not in defined:
                    defined.add(name)
                    # what its own code imported by name (``from .consts import LIMIT``), not
                    # the modules it imported as such (``from . import tool_a``)
                    pending.extend(
                        (target, names)
                        for target, names in edges.items()
                        if names is not ALL and any(not _submodule(target, n) for n in names)
                    )
            else:
                new = set(mode) - taken.setdefault(name, set())
                taken[name] |= new
                pending.extend(self._taken_from(name, module, new))
        return sorted(
            (
                name,
                file
                if isinstance(file := getattr(sys.modules[name], "__file__", None), str)
                else None,
            )
            for name in seen
        )

    def _taken_from(
        self, name: str, package: types.ModuleType, names: set[str]
    ) -> list[tuple[str, Any]]:
        """Where the ``names`` imported from a package came from: the module that defines each
        (``__module__``, and so on through what it reaches), or each module the package
        imported that binds the same object (a constant)."""
        found: list[tuple[str, Any]] = []
        edges = self.edges.get(name, {})
        for item in sorted(names):
            if item == "*":
                return [(name, ALL)]
            value = getattr(package, item, None)
            if isinstance(value, types.ModuleType):
                found.append((value.__name__, ALL))
                continue
            walk = _Walk(self)
            walk.walk([value])
            found.extend((defining, DEFINED) for defining in sorted(walk.modules))
            for target in edges:
                if (
                    target != name
                    and getattr(sys.modules.get(target), item, _MISSING) is value
                    and not self._takes(target, name, item)  # it has it from this package
                ):
                    found.append((target, {item}))
        return found

    def _takes(self, importer: str, package: str, item: str) -> bool:
        """Did ``importer`` take ``item`` from ``package`` (so it is not where it came from)?"""
        taken = self.edges.get(importer, {}).get(package, _MISSING)
        return taken is ALL or (taken is not _MISSING and item in taken)


_MISSING = object()


def _submodule(package: str, name: str) -> bool:
    return f"{package}.{name}" in sys.modules


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:index]) for index in range(1, len(parts))]


class _Walk:
    """The modules that define the objects reachable from some roots (see the module docstring):
    into project classes and functions, schema carriers and containers; a module-level object
    of an installed library ends a path (its module is recorded, its distribution's version is
    what counts)."""

    def __init__(self, graph: ImportGraph) -> None:
        self.graph = graph
        self.modules: set[str] = set()
        self.seen: set[int] = set()

    def _defined_in(self, name: Any) -> bool:
        """Record the module ``name`` defines an object; is it the project's (walked into)?"""
        if not isinstance(name, str) or name not in sys.modules:
            return False
        self.modules.add(name)
        return self.graph._followed(name)

    def walk(self, roots: Iterable[Any]) -> None:
        pending = list(roots)
        while pending:
            value = pending.pop()
            if isinstance(value, _SCALARS) or id(value) in self.seen:
                continue
            self.seen.add(id(value))
            pending.extend(self._children(value))

    def _children(self, value: Any) -> Iterable[Any]:
        if isinstance(value, types.ModuleType):
            if not hasattr(value, "__path__"):  # a package: its file only (``_closure``)
                self._defined_in(value.__name__)
            return ()
        if isinstance(value, (list, tuple, set, frozenset)):
            return value
        if isinstance(value, dict):
            return [*value.keys(), *value.values()]
        if isinstance(value, type):
            if not self._defined_in(value.__module__):
                return ()
            return [
                *value.__mro__[1:],
                *(v for k, v in vars(value).items() if k not in _DERIVED),
                *getattr(value, "__orig_bases__", ()),
            ]
        if isinstance(value, (types.FunctionType, types.MethodType)):
            code = getattr(value, "__code__", None)
            owner = self.graph._module_of_file(code.co_filename) if code is not None else None
            project = self._defined_in(owner) | self._defined_in(getattr(value, "__module__", None))
            if not project:  # an installed library's function: its version counts
                return ()
            return [
                getattr(value, "__wrapped__", None),
                getattr(value, "__func__", None),
                getattr(value, "__defaults__", None),
                getattr(value, "__kwdefaults__", None),
                getattr(value, "__annotations__", None),
                *(_cell(cell) for cell in getattr(value, "__closure__", None) or ()),
            ]
        if isinstance(value, (classmethod, staticmethod)):
            return [value.__func__]
        if isinstance(value, property):
            return [value.fget, value.fset, value.fdel]
        if isinstance(value, functools.partial):
            return [value.func, value.args, value.keywords]
        return self._instance(value)

    def _instance(self, value: Any) -> Iterable[Any]:
        kind = type(value)
        project = self._defined_in(kind.__module__)
        if isinstance(value, enum.Enum):
            return [kind, value.value]
        try:
            defined = getattr(value, "__module__", None)
            if isinstance(defined, str) and not isinstance(value, types.BuiltinFunctionType):
                self._defined_in(defined)  # an alias, a TypeVar, a NewType: where it was written
            carrier = (
                kind.__module__.partition(".")[0] in _CARRIERS
                or dataclasses.is_dataclass(value)
                or hasattr(kind, "__pydantic_fields__")  # a model instance (a default)
                or hasattr(value, "__origin__")
                or hasattr(value, "__value__")
            )
        except Exception:  # a proxy that raises on attribute access: its type is what is known
            return [kind] if project else ()
        if not carrier:  # a server, a registry: walking it would reach every tool
            return [kind] if project else ()
        children: list[Any] = [kind]
        for attribute in _TYPING_PARTS:
            try:
                children.append(getattr(value, attribute, None))
            except Exception:  # a lazily evaluated value may raise: the rest is still walked
                continue
        children.extend(_attributes(value))
        return children


_TYPING_PARTS = (
    "__origin__",
    "__args__",
    "__metadata__",
    "__value__",
    "__supertype__",
    "__bound__",
    "__constraints__",
    "__default__",
)


def _cell(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _attributes(value: Any) -> list[Any]:
    try:
        found = list(vars(value).values())
    except TypeError:  # no ``__dict__``
        found = []
    for klass in type(value).__mro__:
        for slot in getattr(klass, "__slots__", ()):
            if isinstance(slot, str) and slot not in ("__dict__", "__weakref__"):
                try:
                    found.append(getattr(value, slot))
                except Exception:  # unset, or a descriptor that raises
                    continue
    return found

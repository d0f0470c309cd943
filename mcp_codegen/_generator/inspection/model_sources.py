"""Where the models a tool's schemas describe are written: each class's file and line, and the
line of each of its fields (``diff`` points a change inside a model at its field, not at the tool).

The worker has the real types: this walks a tool's parameter and return annotations to every
pydantic model, dataclass and TypedDict they reach, and finds each class and each annotated
field in its source file with ``ast`` (a field inherited from a base class is found in the base's
file). Only classes whose file is inside the project are recorded, with the path relative to the
project root; a class from an installed package keeps the parameter's or tool's line.

Which object of the final schema a class became (a ``$defs`` entry, or a copy inlined by the
transforms) is decided later, by its property names (``mcp_codegen._generator.assemble.field_lines``).

Runs in: worker.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import importlib.util
import inspect
import linecache
import os
import re
import sys
import typing
from collections.abc import Iterable
from typing import Any

from typing_extensions import is_typeddict  # both TypedDicts (typing's misses this one < 3.12)

from mcp_codegen._generator.model import ModelSource, ToolModels

#: A path part that marks an installed package, even inside the project (a ``.venv`` there).
_INSTALLED_PARTS = frozenset({"site-packages", "dist-packages"})
#: How many classes one tool may reach before the walk stops (a guard, not a limit in practice).
_MAX_CLASSES = 500
#: How many ``from ... import`` statements a ``Literal`` alias is followed through.
_MAX_IMPORT_HOPS = 8


def _normalize(name: str) -> str:
    """pydantic's ``GenerateJsonSchema.normalize_name``: how a reference becomes a ``$defs`` key."""
    return re.sub(r"[^a-zA-Z0-9.\-_]", "_", name).replace(".", "__")


def _unwrap(annotation: Any) -> list[Any]:
    """The types an annotation is made of, and its ``Literal[...]`` objects (``Annotated``
    metadata dropped)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if origin is typing.Literal:
        return [annotation]  # its alias (``Size = Literal[...]``) is looked up by identity
    if origin is not None:
        found = [] if not isinstance(origin, type) else [origin]
        for argument in typing.get_args(annotation):
            found += _unwrap(argument)
        return found
    return [annotation]


def _field_annotations(cls: type) -> dict[str, Any] | None:
    """A model's fields and their annotations, or None when ``cls`` is no model."""
    fields = getattr(cls, "__pydantic_fields__", None)  # BaseModel and pydantic dataclasses
    if isinstance(fields, dict):
        return {name: getattr(info, "annotation", None) for name, info in fields.items()}
    if dataclasses.is_dataclass(cls) or is_typeddict(cls):
        try:
            return dict(typing.get_type_hints(cls, include_extras=True))
        except Exception:  # an unresolvable forward reference: names only
            return dict.fromkeys(getattr(cls, "__annotations__", {}))
    return None


def _property_names(cls: type, name: str) -> list[str]:
    """Every property name pydantic may give field ``name`` (aliases for input and output)."""
    names = [name]
    info = (getattr(cls, "__pydantic_fields__", None) or {}).get(name)
    if info is None:
        computed = getattr(getattr(cls, "__pydantic_decorators__", None), "computed_fields", {})
        info = getattr(computed.get(name), "info", None) if isinstance(computed, dict) else None
    for attribute in ("alias", "validation_alias", "serialization_alias"):
        alias = getattr(info, attribute, None)
        if isinstance(alias, str) and alias not in names:
            names.append(alias)
    return names


def _class_index(tree: ast.Module) -> dict[str, ast.ClassDef]:
    """Every ``class`` statement of a module by qualified name (a function's own classes under
    ``f.<locals>.C``, as ``__qualname__`` names them); the first of duplicates, as ``inspect``."""
    found: dict[str, ast.ClassDef] = {}
    pending: list[tuple[str, ast.AST]] = [("", tree)]
    while pending:
        prefix, node = pending.pop()
        for statement in ast.iter_child_nodes(node):
            if isinstance(statement, ast.ClassDef):
                name = prefix + statement.name
                if name not in found or statement.lineno < found[name].lineno:
                    found[name] = statement
                pending.append((name + ".", statement))
            elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                pending.append((f"{prefix}{statement.name}.<locals>.", statement))
            elif not isinstance(statement, ast.expr | ast.Lambda):
                pending.append((prefix, statement))  # if/try/with bodies
    return found


class SourceIndex:
    """Parses each project file once and finds classes and fields in it; one per worker (a file
    edited since it was parsed, in a long-lived worker, is parsed again)."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root).rstrip(os.sep) + os.sep
        self.files: dict[str, tuple[tuple[int, int], dict[str, ast.ClassDef]]] = {}
        self.models: dict[Any, ModelSource | None] = {}
        #: file -> (module-level name -> line, imported name -> (level, module, name))
        self.assigned: dict[str, tuple[dict[str, int], dict[str, tuple[int, str, str]]]] = {}
        self._relative: dict[str, tuple[str, str] | None] = {}
        self._offered: tuple[str, bytes, ast.Module] | None = None

    def offer(self, file: str, data: bytes, tree: ast.Module) -> None:
        """The tree of ``data``, just parsed from ``file`` by the scan: used instead of parsing
        the file again if it still holds exactly ``data``. One at a time (the last scanned)."""
        self._offered = (os.path.realpath(file), data, tree)

    def _parse(self, file: str) -> ast.Module:
        offered, self._offered = self._offered, None
        if offered is not None and offered[0] == os.path.realpath(file):
            try:
                with open(file, "rb") as handle:
                    if handle.read() == offered[1]:
                        return offered[2]
            except OSError:
                pass
        return ast.parse("".join(linecache.getlines(file)))

    def relative(self, cls: type) -> tuple[str, str] | None:
        """``(absolute, relative)`` path of the file defining ``cls``, if it is a project file."""
        try:
            file = inspect.getsourcefile(cls)
        except (TypeError, OSError):
            return None
        return self.relative_file(file) if file else None

    def relative_file(self, file: str) -> tuple[str, str] | None:
        """``(file, relative)`` when ``file`` is a project file (not an installed package)."""
        if file not in self._relative:
            self._relative[file] = self._relative_file(file)
        return self._relative[file]

    def _relative_file(self, file: str) -> tuple[str, str] | None:
        real = os.path.realpath(file)
        if not real.startswith(self.root):
            return None
        relative = real[len(self.root) :].replace(os.sep, "/")
        if _INSTALLED_PARTS.intersection(relative.split("/")):
            return None
        return file, relative

    def _classes(self, file: str) -> dict[str, ast.ClassDef]:
        try:
            status = os.stat(file)
        except OSError:
            return {}
        stamp = (status.st_mtime_ns, status.st_size)
        known = self.files.get(file)
        if known is None or known[0] != stamp:
            linecache.checkcache(file)
            try:
                tree = self._parse(file)
            except (SyntaxError, ValueError):
                tree = ast.Module(body=[], type_ignores=[])
            known = self.files[file] = (stamp, _class_index(tree))
            self.assigned[file] = _module_names(tree)
        return known[1]

    def names(self, file: str) -> tuple[dict[str, int], dict[str, tuple[int, str, str]]]:
        """``file``'s module-level assignments and ``from`` imports (``_module_names``)."""
        self._classes(file)  # parses it (again when it changed)
        return self.assigned.get(file, ({}, {}))

    def class_node(self, cls: type, file: str) -> ast.ClassDef | None:
        """The ``class`` statement of ``cls``, found by its qualified name."""
        qualname = getattr(cls, "__qualname__", None)
        return self._classes(file).get(qualname) if isinstance(qualname, str) else None


def _module_names(tree: ast.Module) -> tuple[dict[str, int], dict[str, tuple[int, str, str]]]:
    """The first line each module-level name is assigned at (``if``/``try`` bodies included),
    and each name a ``from M import N [as name]`` binds: ``(level, M, N)``."""
    lines: dict[str, int] = {}
    imported: dict[str, tuple[int, str, str]] = {}
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        statement = pending.pop(0)
        targets: list[ast.expr] = []
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets = [statement.target]
        elif isinstance(statement, ast.ImportFrom):
            for alias in statement.names:
                imported.setdefault(
                    alias.asname or alias.name,
                    (statement.level, statement.module or "", alias.name),
                )
        elif isinstance(statement, ast.If | ast.Try):
            pending += [*statement.body, *statement.orelse, *getattr(statement, "finalbody", [])]
        elif getattr(ast, "TypeAlias", None) and isinstance(statement, ast.TypeAlias):  # 3.12
            targets = [statement.name]
        for target in targets:
            if isinstance(target, ast.Name):
                lines.setdefault(target.id, statement.lineno)
    return lines, imported


def _enum_source(cls: type, sources: SourceIndex) -> ModelSource | None:
    """An ``Enum`` class of the project: its ``class`` line and the values its schema lists."""
    where = sources.relative(cls)
    node = sources.class_node(cls, where[0]) if where is not None else None
    if where is None or node is None:
        return None
    module = getattr(cls, "__module__", "")
    names = (_normalize(cls.__name__), _normalize(f"{module}.{cls.__qualname__}"))
    values = tuple(member.value for member in cls)  # type: ignore[var-annotated]
    return ModelSource(tuple(dict.fromkeys(names)), where[1], node.lineno, {}, 0, 0, values=values)


def _alias_source(literal: Any, home: str | None, sources: SourceIndex) -> ModelSource | None:
    """The project's module-level alias of a ``Literal[...]`` object (``Size = Literal[...]``),
    found from the module whose annotation reached it (``home``), through its
    ``from ... import`` statements: decided by source text alone, whatever else is imported."""
    module = sys.modules.get(home) if home else None
    for _ in range(_MAX_IMPORT_HOPS):
        file = getattr(module, "__file__", None)
        where = sources.relative_file(file) if isinstance(file, str) else None
        if where is None or not where[0].endswith(".py"):
            return None
        named = sorted(name for name, value in list(vars(module).items()) if value is literal)
        assigned, imported = sources.names(where[0])
        for name in named:
            if name in assigned:
                values = tuple(typing.get_args(literal))
                return ModelSource((name,), where[1], assigned[name], {}, 0, 0, values=values)
        step = next((imported[name] for name in named if name in imported), None)
        if step is None:
            return None
        level, source, _ = step
        try:
            target = importlib.util.resolve_name("." * level + source, module.__package__ or "")  # type: ignore[union-attr]
        except (ImportError, ValueError):
            return None
        module = sys.modules.get(target)
    return None


def _body_lines(node: ast.ClassDef) -> dict[str, int]:
    """The line of each ``name: annotation`` and each method in a class body."""
    lines: dict[str, int] = {}
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            lines[statement.target.id] = statement.lineno
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            lines.setdefault(statement.name, statement.lineno)  # a computed field
    return lines


def _computed_fields(cls: type) -> list[str]:
    """The names of a pydantic model's computed fields (in its serialization schema)."""
    decorators = getattr(cls, "__pydantic_decorators__", None)
    computed = getattr(decorators, "computed_fields", None)
    return list(computed) if isinstance(computed, dict) else []


def _source(cls: type, fields: dict[str, Any], sources: SourceIndex) -> ModelSource | None:
    where = sources.relative(cls)
    if where is None:
        return None
    # A parametrized pydantic generic (``Page[Book]``) is written where its origin is.
    metadata = getattr(cls, "__pydantic_generic_metadata__", None)
    origin = metadata.get("origin") if isinstance(metadata, dict) else None
    node = sources.class_node(origin if isinstance(origin, type) else cls, where[0])
    if node is None:
        return None
    module = getattr(cls, "__module__", "")
    qualname = getattr(cls, "__qualname__", cls.__name__)
    names = [_normalize(cls.__name__), _normalize(f"{module}.{qualname}")]
    info = getattr(cls, "__pydantic_fields__", None) or {}
    computed = _computed_fields(cls)
    properties: dict[str, int] = {}
    lines: dict[str, tuple[str, int]] = {}
    optional = len(computed)  # only in the serialization schema
    for index, name in enumerate([*fields, *computed]):
        if getattr(info.get(name), "exclude", None) is True:
            optional += 1  # only in the validation schema
        line = _field_line(cls, name, sources)
        for property_name in _property_names(cls, name):
            properties.setdefault(property_name, index)
            if line is not None:
                lines.setdefault(property_name, line)
    return ModelSource(
        names=tuple(dict.fromkeys(names)),
        path=where[1],
        line=node.lineno,
        properties=properties,
        size=len(fields) + len(computed),
        optional=optional,
        fields=lines,
    )


def _field_line(cls: type, name: str, sources: SourceIndex) -> tuple[str, int] | None:
    """Where field ``name`` of ``cls`` is annotated: in ``cls`` or the first base that does."""
    for klass in cls.__mro__:
        if name not in getattr(klass, "__annotations__", {}) and name not in vars(klass):
            continue
        where = sources.relative(klass)
        node = sources.class_node(klass, where[0]) if where is not None else None
        if where is None or node is None:
            return None  # declared in an installed or unreadable class
        line = _body_lines(node).get(name)
        if line is not None:
            return where[1], line
    return None


def tool_models(
    annotations: Iterable[Any], output: Any, sources: SourceIndex, home: str | None = None
) -> ToolModels:
    """The project classes (models and ``Enum`` classes) and ``Literal`` aliases reachable from
    ``annotations`` (a tool's parameter and return annotations, written in module ``home``) and
    the record of ``output`` (the return annotation) when it is a model among them."""
    found: dict[Any, ModelSource | None] = {}
    pending = [(t, home) for annotation in annotations for t in _unwrap(annotation)]
    while pending and len(found) < _MAX_CLASSES:
        candidate, written_in = pending.pop()
        if typing.get_origin(candidate) is typing.Literal:
            key = (candidate, written_in)  # the alias is looked up from where it is written
            if key not in sources.models:
                sources.models[key] = _alias_source(candidate, written_in, sources)
            found[key] = sources.models[key]
            continue
        if not isinstance(candidate, type) or candidate in found:
            continue
        if issubclass(candidate, enum.Enum):
            if candidate not in sources.models:
                sources.models[candidate] = _enum_source(candidate, sources)
            found[candidate] = sources.models[candidate]
            continue
        fields = _field_annotations(candidate)
        if fields is None:
            found[candidate] = None
        else:
            if candidate not in sources.models:
                sources.models[candidate] = _source(candidate, fields, sources)
            found[candidate] = sources.models[candidate]
        for name, annotation in (fields or {}).items():
            declared = _declaring_module(candidate, name)
            pending += [(t, declared) for t in _unwrap(annotation)]
    models = sorted(
        {source.names: source for source in found.values() if source is not None}.values(),
        key=lambda s: (s.path, s.line, s.names),
    )
    root_types = _unwrap(output)
    root_model = found.get(root_types[0]) if len(root_types) == 1 else None
    if root_model is not None and root_model.values is not None:
        root_model = None  # an enum root has no fields
    return ToolModels(tuple(models), root_model)


def _declaring_module(cls: type, name: str) -> str | None:
    """The module of the class in ``cls``'s MRO that annotates field ``name``."""
    for klass in cls.__mro__:
        if name in vars(klass).get("__annotations__", {}):
            return getattr(klass, "__module__", None)
    return getattr(cls, "__module__", None)

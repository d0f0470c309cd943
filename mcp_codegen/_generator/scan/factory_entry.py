"""The ``factories`` entry to suggest for a factory function: one that works as printed when the
function's parameters have defaults or the project calls it with literal arguments.

Shared by the scanner's messages (a tool on a server a function creates) and ``mcp-codegen
init``. Read with ``ast`` only; nothing runs.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mcp_codegen._generator.discover import SKIPPED_DIRS, python_files
from mcp_codegen._registration.factory_calls import FactoryCallError, parse_factory_call

#: Directories never searched for call sites: those ``discover`` never enters, and installed
#: packages.
_SKIPPED = SKIPPED_DIRS | {"site-packages", "dist-packages"}
#: Files larger than this are not searched for call sites (generated data, vendored bundles).
_MAX_BYTES = 1_000_000


@dataclass(frozen=True)
class FactoryEntry:
    """A suggested ``factories`` entry: ``entry`` is ``module:function(arguments)``."""

    entry: str
    #: parameters still to fill in (each written ``...`` in ``entry``); empty: works as printed
    missing: tuple[str, ...] = ()
    #: where the literal arguments come from (``path:line``), when from a call site
    call_site: str = ""

    @property
    def complete(self) -> bool:
        """The entry works as printed (no ``...`` left to fill in)."""
        return not self.missing

    def hint(self, comma: str) -> str:
        """``factories = ["entry"]`` for a message: as printed when the entry is complete (with
        the call it was read from), else as an example with what to fill in."""
        if self.complete:
            where = f"{comma} as {self.call_site} calls it" if self.call_site else ""
            return f'factories = ["{self.entry}"]{where}'
        return (
            f'e.g. factories = ["{self.entry}"]{comma} with literal arguments; replace each ... '
            f"with a literal value for {', '.join(self.missing)}"
        )


def required_parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The parameters a call must pass: those without a default (``*args``/``**kwargs`` aside)."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    first_default = len(positional) - len(arguments.defaults)
    names = [a.arg for a in positional[:first_default]]
    names += [
        a.arg
        for a, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        if default is None
    ]
    return [name for name in names if name not in ("self", "cls")]


def _placeholder_call(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """``name(..., key=...)``: a ``...`` for each required argument."""
    arguments = function.args
    positional_only = {a.arg for a in arguments.posonlyargs}
    parts = [
        "..." if name in positional_only else f"{name}=..."
        for name in required_parameters(function)
    ]
    return f"{function.name}({', '.join(parts)})"


def suggest_factory_entry(
    module: str,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    root: Path | None,
    *,
    tree: ast.Module | None = None,
    path: Path | None = None,
) -> FactoryEntry:
    """The ``factories`` entry for ``module``'s top-level ``function``.

    The first call of the function with literal arguments only that binds every required
    parameter (the server the project really builds), searched in ``tree`` (the defining
    module, at ``path``) then in the ``.py`` files under ``root`` in path order; else, with all
    parameters defaulted, ``module:function()``; else the call with ``...`` for each required
    parameter, and ``missing`` names them.
    """
    required = required_parameters(function)
    for site_path, call in call_sites(module, function.name, root, tree, path):
        text = f"{module}:{function.name}({_arguments(call)})"
        if _binds(call, function, required) and _parses(text):
            where = _shown(site_path, root) + f":{call.lineno}"
            return FactoryEntry(text, call_site=where)
    if not required:
        return FactoryEntry(f"{module}:{function.name}()")
    return FactoryEntry(f"{module}:{_placeholder_call(function)}", tuple(required))


def returns_a_value(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``function`` has a ``return <value>`` (it may build and return a server)."""
    return any(
        isinstance(node, ast.Return) and node.value is not None for node in ast.walk(function)
    )


def factory_hint(
    module: str, path: str, qualname: str, root: Path | None, *, server: str = "self"
) -> str:
    """`` (factories = [...])`` naming the call that builds the server of a tool defined inside
    a function (``qualname``): the module-level function that encloses it when that function
    returns a value (it may build the server), or the class whose ``__init__`` calls the method
    that encloses it (``server``, the registration's server expression in that method: ``self``
    for the class itself, ``self.mcp`` for a server it holds); else ``""``."""
    outer, nested, _ = qualname.partition(".<locals>.")
    if not nested:
        return ""
    if "." not in outer:
        return _hint_for(module, path, root, lambda node: node.name == outer)
    owner, _, method = outer.partition(".")
    held = server.partition(".")
    if "." in method or held[0] != "self":
        return ""
    return _constructor_hint(module, path, root, owner, method, held[1] + held[2])


def factory_hint_at(module: str, path: str, line: int, root: Path | None) -> str:
    """`` (factories = [...])`` naming the call of the module-level function whose body holds
    ``line`` when that function returns a value (it may build the server); else ``""``."""
    return _hint_for(
        module, path, root, lambda node: node.lineno < line <= (node.end_lineno or node.lineno)
    )


def _hint_for(
    module: str,
    path: str,
    root: Path | None,
    chosen: Callable[[ast.FunctionDef | ast.AsyncFunctionDef], bool],
) -> str:
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return ""
    function = next(
        (
            node
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and chosen(node)
        ),
        None,
    )
    if function is None or not returns_a_value(function):
        return ""
    entry = suggest_factory_entry(module, function, root, tree=tree, path=Path(path))
    return f" ({entry.hint(',')})"


def _constructor_hint(
    module: str, path: str, root: Path | None, owner: str, method: str, attribute: str
) -> str:
    """`` (factories = ["module:Owner(...)<attribute>"])`` when the module-level class ``owner``
    calls ``self.<method>(...)`` in its ``__init__`` (building one registers the tools)."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return ""
    found = next(
        (node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == owner),
        None,
    )
    init = next(
        (
            node
            for node in (found.body if found is not None else ())
            if isinstance(node, ast.FunctionDef) and node.name == "__init__"
        ),
        None,
    )
    if init is None or not any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == method
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "self"
        for node in ast.walk(init)
    ):
        return ""
    constructor = copy.copy(init)
    constructor.name = owner  # called by the class's name, with ``__init__``'s parameters
    entry = suggest_factory_entry(module, constructor, root, tree=tree, path=Path(path))
    built = FactoryEntry(entry.entry + attribute, entry.missing, entry.call_site)
    return f" ({built.hint(',')})"


def _arguments(call: ast.Call) -> str:
    return ", ".join(ast.unparse(node) for node in [*call.args, *call.keywords])


def _parses(text: str) -> bool:
    try:
        parse_factory_call(text)
    except FactoryCallError:
        return False
    return True


def _binds(
    call: ast.Call, function: ast.FunctionDef | ast.AsyncFunctionDef, required: list[str]
) -> bool:
    """The call passes literals only, no ``*``/``**``, and binds every required parameter."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return False
    for node in [*call.args, *(k.value for k in call.keywords)]:
        try:
            ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return False
    arguments = function.args
    positional = [a.arg for a in [*arguments.posonlyargs, *arguments.args]]
    if positional[:1] in (["self"], ["cls"]):
        positional = positional[1:]
    if len(call.args) > len(positional) and arguments.vararg is None:
        return False
    bound = set(positional[: len(call.args)]) | {k.arg for k in call.keywords if k.arg}
    return set(required) <= bound


def call_sites(
    module: str, name: str, root: Path | None, tree: ast.Module | None, path: Path | None
) -> list[tuple[Path | None, ast.Call]]:
    """Calls of ``module.name`` by the name it has where it is called: the defining module
    first, then every other project file that imports it."""
    found: list[tuple[Path | None, ast.Call]] = []
    if tree is not None:
        found += [(path, call) for call in _calls(tree, {name}, set(), name)]
    if root is None:
        return found
    own = path.resolve() if path is not None else None
    if root.name in _SKIPPED:  # an installed package: its own directory is the project
        root = root / module.partition(".")[0]
    for file in project_files(root) if root.is_dir() else ():
        if file.resolve() == own:
            continue
        try:
            data = file.read_bytes()
        except OSError:
            continue
        if len(data) > _MAX_BYTES or name.encode() not in data:
            continue
        try:
            other = ast.parse(data)
        except (SyntaxError, ValueError):
            continue
        names, modules = _import_names(other, module, name)
        if names or modules:
            found += [(file, call) for call in _calls(other, names, modules, name)]
    return found


def project_files(root: Path, skipped: frozenset[str] = frozenset()) -> list[Path]:
    """The ``.py`` files under ``root`` in path order, outside environments, caches, hidden
    directories and the directories named in ``skipped``."""
    files = python_files(root, _SKIPPED | skipped)
    return sorted(files, key=lambda file: file.relative_to(root).as_posix())


def _import_names(tree: ast.Module, module: str, name: str) -> tuple[set[str], set[str]]:
    """The names ``module.name`` is bound to in ``tree`` by imports, and the names ``module``
    itself is bound to (for ``server.create_server(...)``)."""
    names: set[str] = set()
    modules: set[str] = set()
    parent, _, last = module.rpartition(".")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            for alias in node.names:
                if node.module == module and alias.name == name:
                    names.add(alias.asname or alias.name)
                elif node.module == parent and alias.name == last:
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            modules.update(
                alias.asname or alias.name for alias in node.names if alias.name == module
            )
    return names, modules


def _calls(tree: ast.Module, names: set[str], modules: set[str], attr: str) -> list[ast.Call]:
    """Calls of one of ``names``, or of ``<module>.<attr>`` for one of ``modules``."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (isinstance(func, ast.Name) and func.id in names) or (
            isinstance(func, ast.Attribute)
            and func.attr == attr
            and ast.unparse(func.value) in modules
        ):
            found.append(node)
    return sorted(found, key=lambda call: (call.lineno, call.col_offset))


def _shown(path: Path | None, root: Path | None) -> str:
    if path is None:
        return "?"
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return path.as_posix()

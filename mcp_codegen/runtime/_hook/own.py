"""Which registrations the hook leaves alone: tools of another installed package's own server.

The build's rule (``mcp_codegen._registration.own_servers``), applied where the hook has no
entry for a tool: a registration that the project's code does not make, on a server that another
package's module body created, is the framework's as if ``use_generated`` were not there
(inferred, no ``StaleSchemaWarning``, no strict refusal). Each server's creation is recorded
when it is created (``watch``); the project's code is read from the generated tree only when a
tool without an entry is registered: the files of the modules the tree was generated from
(found on ``sys.path`` without importing them), their top-level package directories, the
directory of the configuration above the tree, and the modules of the run targets it records.
Standard library only.
"""

from __future__ import annotations

import os
import re
import sys
import weakref

from mcp_codegen._registration.own_servers import ProjectCode, creation, registering_file
from mcp_codegen._shared.format import SERVERS_FILE, GeneratedModuleError, check_servers
from mcp_codegen._shared.project_config import module_spec, nearest_config_file
from mcp_codegen._shared.reader import exec_generated

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from mcp_codegen._registration.own_servers import Creation

_MARK = "__codegen_creation_watched__"
#: id(server or tool store) -> (a weak reference to it, its creation)
_created: dict[int, tuple[Any, Creation]] = {}
_SOURCE_MODULE = re.compile(rb'^SOURCE_MODULE = "([\w.]+)"$', re.MULTILINE)


def watch(owner: type) -> None:
    """Record which code creates each instance of ``owner`` (a server class, or fastmcp's tool
    store), as the build's worker records each store's creation."""
    original = owner.__init__  # type: ignore[misc]
    if getattr(original, _MARK, False):
        return

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        if id(self) not in _created:  # the innermost watched __init__ says it (a subclass's)
            _remember(self, creation(sys._getframe(1)))

    setattr(__init__, _MARK, True)
    __init__.__wrapped__ = original  # type: ignore[attr-defined]
    __init__.__doc__ = original.__doc__
    owner.__init__ = __init__  # type: ignore[misc]


def _remember(store: Any, made: Creation) -> None:
    key = id(store)
    try:
        reference: Any = weakref.ref(store, lambda _: _created.pop(key, None))
    except TypeError:  # not weakly referable: kept alive with its record, its id never reused
        reference = lambda: store  # noqa: E731
    _created[key] = (reference, made)


def created_by(store: Any) -> Creation | None:
    """The recorded creation of ``store``; None when it was created before the hook watched."""
    found = _created.get(id(store))
    return found[1] if found is not None and found[0]() is store else None


def projects_code(directory: str, modules: Iterable[str]) -> ProjectCode:
    """The project's code as the generated tree in ``directory`` knows it: the files of
    ``modules`` (what the tree was generated from), each one's top-level package directory,
    and the directory of the configuration above the tree."""
    files: list[str] = []
    dirs: list[str] = []
    config = nearest_config_file(os.path.dirname(directory), require_table=True)
    if config is not None:
        dirs.append(os.path.dirname(config))
    for module in modules:
        file = _module_file(module)
        if file is None:
            continue
        files.append(os.path.realpath(file))
        top = _top_package_dir(module, file)
        if top is not None:
            dirs.append(top)
    return ProjectCode(files, dirs, _run_target_modules(directory))


def _run_target_modules(directory: str) -> frozenset[str]:
    """The modules of the run targets the tree records (``__servers__.py``, written for
    ``run_targets``): the build counts their servers as the project's."""
    path = os.path.join(directory, SERVERS_FILE)
    if not os.path.isfile(path):
        return frozenset()
    try:
        servers = check_servers(exec_generated(path), path)
    except (GeneratedModuleError, OSError):
        return frozenset()  # `mcp-codegen run` says what is wrong with it; the hook need not
    return frozenset(str(s["object"]).partition(":")[0].strip() for s in servers)


def source_modules(directory: str, module_paths: Iterable[str]) -> set[str]:
    """The ``SOURCE_MODULE`` of each generated module (its first kilobyte)."""
    found = set()
    for module_path in module_paths:
        try:
            with open(os.path.join(directory, *module_path.split("/")), "rb") as handle:
                head = handle.read(1024)
        except OSError:
            continue
        match = _SOURCE_MODULE.search(head)
        if match:
            found.add(match.group(1).decode())
    return found


def is_foreign(project: ProjectCode, store: Any) -> bool:
    """Whether a registration happening now on ``store`` is another package's, not the
    project's: its server was created by another package's module body, and the project's
    own code does not make this registration."""
    return not project.owns(registering_file(sys._getframe(1)), created_by(store))


def _module_file(module: str) -> str | None:
    """``module``'s file, from ``sys.modules`` or found on ``sys.path`` without importing it."""
    # the finder (stdlib, already imported by the import system): only on a missing entry
    from importlib.machinery import PathFinder

    loaded = getattr(sys.modules.get(module), "__file__", None)
    if isinstance(loaded, str):
        return loaded
    spec = module_spec(module)
    parts = module.split(".")
    for index in range(1, len(parts)):
        if spec is None or not spec.submodule_search_locations:
            return None
        spec = PathFinder.find_spec(
            ".".join(parts[: index + 1]), list(spec.submodule_search_locations)
        )
    origin = getattr(spec, "origin", None)
    return origin if isinstance(origin, str) and os.path.isabs(origin) else None


def _top_package_dir(module: str, file: str) -> str | None:
    """The directory of ``module``'s top-level package that holds ``file`` (one portion of a
    namespace package); None for a top-level module."""
    steps = module.count(".") + (os.path.basename(file) == "__init__.py")
    if steps == 0:
        return None
    directory = file
    for _ in range(steps):
        directory = os.path.dirname(directory)
    return directory

"""Patch a framework module now if it is imported, else right after it is imported.

Both the worker (which records what servers register) and the hook (which lists generated
schemas) patch a framework class without importing a framework the application does not use:
a ``sys.meta_path`` finder wraps the loader of the module that defines the class. Standard
library only.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds before the fast path's first answer (hook.py)
    from collections.abc import Callable, Mapping
    from types import ModuleType
    from typing import Any, TypeAlias

    #: module name -> what to do to that module once it has executed
    Patches: TypeAlias = Mapping[str, Callable[[str, ModuleType], None]]


def patch_now_or_on_import(patches: Patches) -> None:
    """Apply each patch to its module now if it is imported; install a finder for the others.

    One finder per ``patches`` mapping is installed, however often this is called.
    """
    for name, patch in patches.items():
        module = sys.modules.get(name)
        if module is not None:
            patch(name, module)
    if not any(isinstance(f, _PatchOnImport) and f.patches is patches for f in sys.meta_path):
        sys.meta_path.insert(0, _PatchOnImport(patches))


class _PatchOnImport:
    """A ``sys.meta_path`` finder that patches a listed module right after it executes."""

    def __init__(self, patches: Patches) -> None:
        self.patches = patches

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname not in self.patches:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchingLoader(spec.loader, fullname, self.patches[fullname])
                return spec
        return None


class _PatchingLoader:
    """Delegates to the real loader; patches the module once it has executed."""

    def __init__(self, loader: Any, name: str, then: Callable[[str, ModuleType], None]) -> None:
        self._loader = loader
        self._name = name
        self._then = then

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        self._then(self._name, module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)

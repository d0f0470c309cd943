"""fastmcp's ``tool`` decorator without ``inspect.signature`` for plain functions.

fastmcp 4.x's decorator (``LocalProvider.tool``) calls ``inspect.signature(fn)`` on every function
only to refuse one whose first parameter is ``self`` or ``cls``: about 8-14 us per tool, the
largest cost left in registering a tool from its generated entry. Under ``use_generated`` the
decorator module's ``inspect`` is a stand-in whose ``signature`` reads the parameter names of a
plain function (no attributes of its own, so nothing ``inspect`` would unwrap or take a stored
signature from) straight from its code object, in ``inspect``'s order, and hands everything else
to the real module. It is installed only where the module's every use of ``signature`` reads
``.parameters.keys()``, the one thing the stand-in answers.
"""

from __future__ import annotations

import inspect
import sys
from types import CodeType, FunctionType, ModuleType
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


class ParameterNames:
    """What the decorator reads of a signature: ``parameters``, keyed by name in order."""

    __slots__ = ("parameters",)

    def __init__(self, names: list[str]) -> None:
        self.parameters = dict.fromkeys(names)


class NamesOnlyInspect:
    """Stands for ``inspect`` in fastmcp's decorator module while ``use_generated`` is active."""

    def __init__(self, real: ModuleType, index_of: Callable[[], Any]) -> None:
        self._real = real
        self._index_of = index_of

    def signature(self, obj: Any, *args: Any, **kwargs: Any) -> Any:
        if (
            args
            or kwargs
            or type(obj) is not FunctionType
            or obj.__dict__
            or self._index_of() is None
        ):
            return self._real.signature(obj, *args, **kwargs)
        return ParameterNames(parameter_names(obj.__code__))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def parameter_names(code: CodeType) -> list[str]:
    """A plain function's parameter names in ``inspect.signature`` order: positional,
    ``*args``, keyword-only, ``**kwargs``."""
    positional, keyword_only = code.co_argcount, code.co_kwonlyargcount
    names = list(code.co_varnames[:positional])
    star = positional + keyword_only
    if code.co_flags & inspect.CO_VARARGS:
        names.append(code.co_varnames[star])
        star += 1
    names.extend(code.co_varnames[positional : positional + keyword_only])
    if code.co_flags & inspect.CO_VARKEYWORDS:
        names.append(code.co_varnames[star])
    return names


def install(module_name: str, index_of: Callable[[], Any]) -> bool:
    """Give the decorator module ``module_name`` the stand-in; False (and nothing changed)
    when some use of ``signature`` there reads more than the parameter names."""
    module = sys.modules[module_name]
    current = getattr(module, "inspect", None)
    if isinstance(current, NamesOnlyInspect):
        return True
    if current is not inspect or not names_only_uses(module):
        return False
    module.inspect = NamesOnlyInspect(inspect, index_of)  # type: ignore[attr-defined]
    return True


def names_only_uses(module: ModuleType) -> bool:
    """Whether every code object of ``module`` that looks up ``signature`` also reads
    ``parameters`` and ``keys`` (and at least one does)."""
    readers = [code for code in _code_objects(module) if "signature" in code.co_names]
    return bool(readers) and all({"parameters", "keys"} <= set(code.co_names) for code in readers)


def _code_objects(module: ModuleType) -> list[CodeType]:
    found: list[CodeType] = []
    pending: list[Any] = list(vars(module).values())
    seen: set[int] = set()
    while pending:
        item = pending.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, type) and item.__module__ == module.__name__:
            pending.extend(vars(item).values())
        elif isinstance(item, (classmethod, staticmethod, property)):
            pending.extend(
                f for f in (getattr(item, "__func__", None), getattr(item, "fget", None)) if f
            )
        elif isinstance(item, FunctionType) and item.__module__ == module.__name__:
            pending.append(item.__code__)
        elif isinstance(item, CodeType):
            found.append(item)
            pending.extend(const for const in item.co_consts if isinstance(const, CodeType))
    return found

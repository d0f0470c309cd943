"""Check requests and shape results like the SDK's per-revision wire models, stdlib only.

The tables in ``_wire_shapes`` are extracted from the SDK's models. ``conforms`` is stricter than
pydantic (no coercion at all), so whatever it accepts, the SDK accepts and reads the same way;
``dump`` gives what ``model_dump(by_alias=True, mode="json", exclude_none=True)`` gives after
validation, or raises ``Doubt`` where it cannot be sure. The fast path hands a message it doubts
to the SDK, so the client always gets the SDK's answer.
"""

from __future__ import annotations

from codegen.runtime._wire_shapes import MODELS

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds to import, and this runs before the first answer
    from collections.abc import Callable
    from typing import Any

_SCALARS: dict[str, tuple[type, ...]] = {"str": (str,), "int": (int,), "float": (float,)}


class Doubt(Exception):
    """The fast path cannot prove what the SDK would answer: the SDK must answer."""


def conforms(value: Any, shape: Any) -> bool:
    """Whether ``value`` validates against ``shape`` without any coercion."""
    return _checker(shape)(value)


_CHECKERS: dict[int, Callable[[Any], bool]] = {}  # by id(shape): the tables are constants
_MODEL_CHECKERS: dict[str, Callable[[Any], bool]] = {}


def _checker(shape: Any) -> Callable[[Any], bool]:
    checker = _CHECKERS.get(id(shape))
    if checker is None:
        checker = _CHECKERS[id(shape)] = _build_checker(shape)
        _KEEP.append(shape)  # keeps id(shape) from being reused by a temporary shape
    return checker


_KEEP: list[Any] = []


def _build_checker(shape: Any) -> Callable[[Any], bool]:
    if shape == "any":
        return lambda value: True
    if shape == "bool":
        return lambda value: value is True or value is False
    if isinstance(shape, str):
        types = _SCALARS[shape]
        return lambda value: isinstance(value, types) and not isinstance(value, bool)
    kind, inner = next(iter(shape.items()))
    if kind == "optional":
        check_inner = _checker(inner)
        return lambda value: value is None or check_inner(value)
    if kind == "union":
        members = [_checker(member) for member in inner]
        return lambda value: any(check(value) for check in members)
    if kind == "literal":
        return lambda value: any(type(value) is type(o) and value == o for o in inner)
    if kind == "list":
        check_item = _checker(inner)
        return lambda value: isinstance(value, list) and all(map(check_item, value))
    if kind == "dict":
        if inner == "any":
            return lambda value: (
                isinstance(value, dict) and all(isinstance(key, str) for key in value)
            )
        check_item = _checker(inner)
        return lambda value: (
            isinstance(value, dict)
            and all(isinstance(key, str) and check_item(item) for key, item in value.items())
        )
    if kind == "model":
        checker = _MODEL_CHECKERS.get(inner)
        if checker is None:
            _MODEL_CHECKERS[inner] = lambda value: _MODEL_CHECKERS[inner](value)  # recursion
            checker = _MODEL_CHECKERS[inner] = _model_checker(MODELS[inner])
        return checker
    return lambda value: False  # "absent" only wraps request params; anything else: doubt


def _model_checker(model: dict[str, Any]) -> Callable[[Any], bool]:
    fields = [(alias, _checker(shape), required) for alias, shape, required in model["fields"]]
    declared = frozenset(alias for alias, _, _ in fields)
    forbid = model["extra"] == "forbid"

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        for alias, check_field, required in fields:
            if alias not in value:
                if required:
                    return False
            elif not check_field(value[alias]):
                return False
        return not forbid or declared.issuperset(value)

    return check


def params_conform(params: Any, shape: Any, *, present: bool) -> bool:
    """Whether a request's ``params`` (``present``: the key was in the message) validate."""
    if isinstance(shape, dict) and "absent" in shape:
        return not present or conforms(params, shape["absent"])
    return present and conforms(params, shape)


def dump(value: Any, shape: Any) -> Any:
    """``value`` validated and dumped as the SDK's model for ``shape`` dumps it; ``Doubt``."""
    dumper = _DUMPERS.get(id(shape))
    if dumper is None:
        dumper = _DUMPERS[id(shape)] = _dumper(shape)
        _KEEP.append(shape)
    return dumper(value)


_DUMPERS: dict[int, Callable[[Any], Any]] = {}
_MODEL_DUMPERS: dict[str, Callable[[Any], Any]] = {}


def _dumper(shape: Any) -> Callable[[Any], Any]:
    """A function dumping values of ``shape``: built once per shape, so a 1,000-tool listing
    walks closures instead of re-reading the shape tables at every node."""
    if shape == "any":
        return _identity
    if isinstance(shape, str) or "literal" in shape:
        check = _checker(shape)

        def scalar(value: Any) -> Any:
            if not check(value):
                raise Doubt(f"expected {shape}")
            return value

        return scalar
    kind, inner = next(iter(shape.items()))
    if kind == "optional":
        dump_inner = _dumper(inner)
        return lambda value: None if value is None else dump_inner(value)
    if kind == "union":
        members = [(_checker(member), _dumper(member)) for member in inner]

        def union(value: Any) -> Any:
            for check_member, dump_member in members:
                if check_member(value):
                    return dump_member(value)
            raise Doubt("no union member fits")

        return union
    if kind == "list":
        dump_item = _dumper(inner)

        def listed(value: Any) -> Any:
            if not isinstance(value, list):
                raise Doubt("expected a list")
            return [dump_item(item) for item in value]

        return listed
    if kind == "dict":
        if inner == "any":
            check = _checker(shape)

            def opaque(value: Any) -> Any:  # dict[str, Any]: dumped as it is
                if not check(value):
                    raise Doubt("expected an object")
                return value

            return opaque
        dump_item = _dumper(inner)

        def mapping(value: Any) -> Any:
            if not isinstance(value, dict):
                raise Doubt("expected an object")
            out = {}
            for key, item in value.items():
                if not isinstance(key, str):
                    raise Doubt("expected string keys")
                out[key] = dump_item(item)
            return out

        return mapping
    if kind == "model":
        dumper = _MODEL_DUMPERS.get(inner)
        if dumper is None:
            _MODEL_DUMPERS[inner] = lambda value: _MODEL_DUMPERS[inner](value)  # recursion
            dumper = _MODEL_DUMPERS[inner] = _model_dumper(MODELS[inner])
        return dumper
    raise Doubt(f"unknown shape {kind}")


def _identity(value: Any) -> Any:
    return value


def _model_dumper(model: dict[str, Any]) -> Callable[[Any], Any]:
    fields = [(alias, _dumper(shape), required) for alias, shape, required in model["fields"]]
    declared = frozenset(alias for alias, _, _ in fields)
    extra = model["extra"]

    def dump_model(value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise Doubt("expected an object")
        out: dict[str, Any] = {}
        for alias, dump_field, required in fields:
            if alias in value:
                dumped = dump_field(value[alias])
                if dumped is not None:  # exclude_none
                    out[alias] = dumped
            elif required:
                raise Doubt(f"{alias} is required")
        if extra == "allow":
            # Extra keys follow the declared fields, in input order, None values excluded.
            for key, item in value.items():
                if key not in declared and item is not None:
                    out[key] = item
        elif extra == "forbid" and not declared.issuperset(value):
            raise Doubt("unexpected keys")
        return out

    return dump_model

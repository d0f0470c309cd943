"""Check requests and shape results like the SDK's per-revision wire models, stdlib only.

The tables in ``wire_shapes`` are extracted from the SDK's models. ``conforms`` is stricter than
pydantic (no coercion at all), so whatever it accepts, the SDK accepts and reads the same way;
``dump`` gives what ``model_dump(by_alias=True, mode="json", exclude_none=True)`` gives after
validation, or raises ``Doubt`` where it cannot be sure. The fast path hands a message it doubts
to the SDK, so the client always gets the SDK's answer.
"""

from __future__ import annotations

from mcp_codegen.runtime._stdio.wire_shapes import MODELS

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds to import, and this runs before the first answer
    from collections.abc import Callable
    from typing import Any

_SCALARS: dict[str, tuple[type, ...]] = {"str": (str,), "int": (int,), "float": (float,)}
_IS_STR = str.__instancecheck__  # isinstance(key, str), callable from map() without a frame


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
    if shape == "str":
        return _IS_STR  # a builtin: no Python frame per name, description or required entry
    if isinstance(shape, str):
        types = _SCALARS[shape]
        return lambda value: isinstance(value, types) and not isinstance(value, bool)
    kind, inner = next(iter(shape.items()))
    if kind == "optional":
        check_inner = _checker(inner)
        return lambda value: value is None or check_inner(value)
    if kind == "union":
        if len(inner) == 2 and "bool" in inner:  # a schema's properties: dict | bool
            other = _checker(inner[1] if inner[0] == "bool" else inner[0])
            if other is _is_object:
                return _is_object_or_bool  # one frame per property, not two
            return lambda value: value is True or value is False or other(value)
        members = [_checker(member) for member in inner]
        if len(members) == 2:  # the common case, without a generator per value
            first, second = members
            return lambda value: first(value) or second(value)
        return lambda value: any(check(value) for check in members)
    if kind == "literal":
        # (type, value) pairs: 1 is not True, 1.0 is not 1. A value of a member's type is a
        # str, int, float, bool or None, so hashable: the set lookup replaces a generator.
        members = frozenset((type(option), option) for option in inner)
        member_types = frozenset(type(option) for option in inner)
        return lambda value: type(value) in member_types and (type(value), value) in members
    if kind == "list":
        check_item = _checker(inner)
        return lambda value: isinstance(value, list) and all(map(check_item, value))
    if kind == "dict":
        if inner == "any":
            return _is_object
        check_item = _checker(inner)
        return lambda value: (
            isinstance(value, dict)
            and all(map(_IS_STR, value))
            and all(map(check_item, value.values()))
        )
    if kind == "model":
        checker = _MODEL_CHECKERS.get(inner)
        if checker is None:
            _MODEL_CHECKERS[inner] = lambda value: _MODEL_CHECKERS[inner](value)  # recursion
            checker = _MODEL_CHECKERS[inner] = _model_checker(MODELS[inner])
        return checker
    return lambda value: False  # "absent" only wraps request params; anything else: doubt


def _is_object(value: Any) -> bool:
    """``dict[str, Any]``: an object with string keys, its values as they are."""
    return isinstance(value, dict) and all(map(_IS_STR, value))


def _is_object_or_bool(value: Any) -> bool:
    """``dict[str, Any] | bool``: a JSON Schema (a property's subschema)."""
    return value is True or value is False or (isinstance(value, dict) and all(map(_IS_STR, value)))


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
    """``value`` validated and dumped as the SDK's model for ``shape`` dumps it; ``Doubt``.

    The result shares the parts of ``value`` that dump as they are (read it, serialise it, but
    do not change it): copying the JSON-Schema dicts of a 1,000-tool listing cost the first
    answer milliseconds for nothing."""
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
        return _scalar_dumper(shape)
    kind, inner = next(iter(shape.items()))
    if kind == "dict" and inner == "any":
        return _scalar_dumper(shape)  # dict[str, Any]: dumped as it is
    build = _COMPOSITE_DUMPERS.get(kind)
    if build is None:
        raise Doubt(f"unknown shape {kind}")
    return build(inner)


def _scalar_dumper(shape: Any) -> Callable[[Any], Any]:
    """A value of ``shape`` is dumped as it is once it passes the shape's check."""
    check = _checker(shape)

    def scalar(value: Any) -> Any:
        if not check(value):
            raise Doubt(f"expected {shape}")
        return value

    _CHECKED.add(scalar)
    return scalar


def _optional_dumper(inner: Any) -> Callable[[Any], Any]:
    dump_inner = _dumper(inner)
    if dump_inner in _CHECKED:  # None, or the inner value as it is once it conforms
        check_inner = _checker(inner)

        def optional(value: Any) -> Any:
            if value is None or check_inner(value):
                return value
            raise Doubt(f"expected {inner}")

        _CHECKED.add(optional)
        return optional
    return lambda value: None if value is None else dump_inner(value)


def _union_dumper(inner: Any) -> Callable[[Any], Any]:
    # A member whose dumper returns the value as it is once its check passed needs no second
    # call: the check just made is the dumper's whole work.
    members = [
        (_checker(member), None if dumper in _CHECKED else dumper)
        for member in inner
        for dumper in (_dumper(member),)
    ]

    def union(value: Any) -> Any:
        for check_member, dump_member in members:
            if check_member(value):
                return value if dump_member is None else dump_member(value)
        raise Doubt("no union member fits")

    if all(dumper is None for _, dumper in members):
        _CHECKED.add(union)
    return union


def _list_dumper(inner: Any) -> Callable[[Any], Any]:
    dump_item = _dumper(inner)
    if dump_item in _CHECKED:  # every item dumps as it is: check them all in one pass
        check_item = _checker(inner)

        def checked_list(value: Any) -> Any:
            if not isinstance(value, list) or not all(map(check_item, value)):
                raise Doubt(f"expected a list of {inner}")
            return value

        _CHECKED.add(checked_list)
        return checked_list

    def listed(value: Any) -> Any:
        if not isinstance(value, list):
            raise Doubt("expected a list")
        return [dump_item(item) for item in value]

    return listed


def _mapping_dumper(inner: Any) -> Callable[[Any], Any]:
    dump_item = _dumper(inner)
    if dump_item in _CHECKED:  # every item dumps as it is: check them all in one pass
        check_item = _checker(inner)

        def checked_mapping(value: Any) -> Any:
            if not isinstance(value, dict) or not all(map(_IS_STR, value)):
                raise Doubt("expected an object with string keys")
            if not all(map(check_item, value.values())):
                raise Doubt(f"expected values of {inner}")
            return value

        _CHECKED.add(checked_mapping)
        return checked_mapping

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


def _named_model_dumper(inner: str) -> Callable[[Any], Any]:
    dumper = _MODEL_DUMPERS.get(inner)
    if dumper is None:
        _MODEL_DUMPERS[inner] = lambda value: _MODEL_DUMPERS[inner](value)  # recursion
        dumper = _MODEL_DUMPERS[inner] = _model_dumper(MODELS[inner])
    return dumper


#: The dumper builder of each composite shape kind (``{kind: inner}``).
_COMPOSITE_DUMPERS: dict[str, Callable[[Any], Callable[[Any], Any]]] = {
    "optional": _optional_dumper,
    "union": _union_dumper,
    "list": _list_dumper,
    "dict": _mapping_dumper,
    "model": _named_model_dumper,
}


#: Dumpers that return their input itself once it passed their shape's check.
_CHECKED: set[Callable[[Any], Any]] = set()


def _identity(value: Any) -> Any:
    return value


def _model_dumper(model: dict[str, Any]) -> Callable[[Any], Any]:
    fields = [(alias, _field_step(shape), required) for alias, shape, required in model["fields"]]
    declared = frozenset(alias for alias, _, _ in fields)
    extra = model["extra"]
    # What to do with an object depends only on which keys it has, in which order, and the
    # tools of one registry share a handful of layouts: the plan is made once per layout
    # (``None``: the layout cannot conform), not re-derived for every one of 1,000 tools.
    plans: dict[tuple[str, ...], tuple[list[tuple[str, Any, Any, bool]], list[str]] | None] = {}

    def plan(keys: tuple[str, ...]) -> tuple[list[tuple[str, Any, Any, bool]], list[str]] | None:
        present = set(keys)
        if any(required and alias not in present for alias, _, required in fields):
            return None
        extras = [key for key in keys if key not in declared]
        if extra == "forbid" and extras:
            return None
        chosen = [(alias, *step) for alias, step, _ in fields if alias in present]
        made = chosen, extras if extra == "allow" else []
        if len(plans) < _MAX_PLANS:
            plans[keys] = made
        return made

    def dump_model(value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise Doubt("expected an object")
        keys = tuple(value)
        made = plans[keys] if keys in plans else plan(keys)
        if made is None:
            raise Doubt("missing or unexpected keys")
        chosen, extras = made
        out: dict[str, Any] = {}
        for alias, check_field, dump_field, optional in chosen:
            item = value[alias]
            if item is None and optional:
                continue  # exclude_none
            if check_field is not None:
                if not check_field(item):
                    raise Doubt(f"unexpected {alias}")
                dumped = item
            else:
                dumped = item if dump_field is None else dump_field(item)
            if dumped is not None:  # exclude_none
                out[alias] = dumped
        # Extra keys (extra="allow") follow the declared fields, in input order, None excluded.
        for key in extras:
            item = value[key]
            if item is not None:
                out[key] = item
        return out

    return dump_model


def _field_step(shape: Any) -> tuple[Any, Any, bool]:
    """``(check, dump, optional)`` for one model field: at most one of the two functions.

    An optional field's None is excluded whatever its inner shape, so the step works on the
    inner shape and the model skips None itself. A field that dumps as it is once it conforms
    (a name, a description, a schema's ``properties``) is only checked, with the checker
    itself: no dumper frame around it for each of 1,000 tools.
    """
    optional = isinstance(shape, dict) and "optional" in shape
    if optional:
        shape = shape["optional"]
    dumper = _dumper(shape)
    if dumper is _identity:
        return None, None, optional
    if dumper in _CHECKED:
        return _checker(shape), None, optional
    return None, dumper, optional


#: Layouts remembered per model: a hostile client cannot grow the tables without bound.
_MAX_PLANS = 256

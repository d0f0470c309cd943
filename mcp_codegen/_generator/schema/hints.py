"""Annotations seen through ``Annotated``: the type itself and the members of a union.

Runs in: worker, parent.
"""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any, Union


def strip_annotated(tp: Any) -> Any:
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def union_members(tp: Any) -> tuple[Any, ...]:
    tp = strip_annotated(tp)
    if typing.get_origin(tp) in (Union, types.UnionType):
        return tuple(strip_annotated(a) for a in typing.get_args(tp))
    return (tp,)

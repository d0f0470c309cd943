"""Extract, from the installed SDK's per-revision wire models, the shapes the fast path needs.

``mcp_codegen/runtime/_stdio/wire_shapes.py`` is this module's output, committed: the fast path reads it
with the standard library only. ``test_fastpath_session.py`` fails when the installed SDK's models
no longer match it. Regenerate with ``python tests/runtime/stdio/wire_shapes.py`` (then ruff format).
"""

from __future__ import annotations

import types
import typing
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from mcp_types.methods import CLIENT_NOTIFICATIONS, CLIENT_REQUESTS, SERVER_RESULTS
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from pydantic import BaseModel

TARGET = (
    Path(__file__).resolve().parents[3] / "mcp_codegen" / "runtime" / "_stdio" / "wire_shapes.py"
)
#: What the fast path answers (requests) or accepts (notifications).
REQUESTS = ("initialize", "ping", "tools/list")
NOTIFICATIONS = ("notifications/initialized",)


def _shape(annotation: Any, models: dict[str, Any]) -> Any:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is Any:
        return "any"
    if origin is Annotated:
        return _shape(args[0], models)
    if origin in (Union, types.UnionType):
        members = [arg for arg in args if arg is not type(None)]
        inner = (
            _shape(members[0], models)
            if len(members) == 1
            else {"union": [_shape(member, models) for member in members]}
        )
        return {"optional": inner} if len(members) != len(args) else inner
    if origin is Literal:
        return {"literal": list(args)}
    if origin is list:
        return {"list": _shape(args[0], models)}
    if origin is dict:
        assert args[0] is str, annotation
        return {"dict": _shape(args[1], models)}
    if annotation in (str, int, bool, float):
        return annotation.__name__
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        name = f"{annotation.__module__.rsplit('.', 1)[-1]}.{annotation.__name__}"
        if name not in models:
            models[name] = None  # recursion guard
            extra = annotation.model_config.get("extra") or "ignore"
            fields = [
                [field.alias or field_name, _shape(field.annotation, models), field.is_required()]
                for field_name, field in annotation.model_fields.items()
            ]
            models[name] = {"extra": extra, "fields": fields}
        return {"model": name}
    raise TypeError(f"no shape for {annotation!r}")


def _params(model: type[BaseModel], models: dict[str, Any]) -> Any:
    field = model.model_fields["params"]
    shape = _shape(field.annotation, models)
    return shape if field.is_required() else {"absent": shape}


def extract() -> dict[str, Any]:
    """The table: per handshake revision its surface (request params, notification params and
    result shapes), and the models they name."""
    models: dict[str, Any] = {}
    revisions: dict[str, str] = {}
    surfaces: dict[str, Any] = {}
    for version in HANDSHAKE_PROTOCOL_VERSIONS:
        surface = {
            "requests": {m: _params(CLIENT_REQUESTS[(m, version)], models) for m in REQUESTS},
            "notifications": {
                m: _params(CLIENT_NOTIFICATIONS[(m, version)], models) for m in NOTIFICATIONS
            },
            "results": {m: _shape(SERVER_RESULTS[(m, version)], models) for m in REQUESTS},
        }
        # Revisions that share their wire models share one surface (the name of one revision).
        same = [name for name, known in surfaces.items() if known == surface]
        revisions[version] = same[0] if same else version
        surfaces.setdefault(revisions[version], surface)
    return {
        "MCP_TYPES_VERSION": metadata.version("mcp_types"),
        "HANDSHAKE_VERSIONS": list(HANDSHAKE_PROTOCOL_VERSIONS),
        "LATEST_HANDSHAKE_VERSION": LATEST_HANDSHAKE_VERSION,
        "REVISIONS": revisions,
        "SURFACES": surfaces,
        "MODELS": dict(sorted(models.items())),
    }


def render(table: dict[str, Any]) -> str:
    """The module text (format it with ruff afterwards)."""
    lines = [
        '"""Wire shapes of the handshake-era messages the stdio fast path answers (generated).',
        "",
        "Extracted from the installed SDK's per-revision models by tests/runtime/stdio/wire_shapes.py;",
        "tests/runtime/stdio/test_fastpath_session.py fails when they drift. Literal data only.",
        '"""',
        "",
    ]
    for key, value in table.items():
        lines.append(f"{key} = {value!r}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    TARGET.write_text(render(extract()), encoding="utf-8")
    print(f"wrote {TARGET}")

"""``mcp_codegen.runtime._hook.install.fast_path_serves``: whether ``mcp-codegen run`` would answer a stdio
session's opening from the records, for the checked-in examples/everything tree."""

from __future__ import annotations

from mcp_codegen.runtime._hook.install import fast_path_serves
from tests.helpers.project import REPO

GENERATED = str(REPO / "examples" / "everything" / "generated")


def test_recorded_target() -> None:
    assert fast_path_serves(GENERATED, "examples.everything.server:mcp")


def test_unrecorded_targets() -> None:
    assert not fast_path_serves(GENERATED, "examples.everything.server:other")
    assert not fast_path_serves(GENERATED, "examples.everything.server:create()")
    assert not fast_path_serves(str(REPO / "generated"), "examples.everything.server:mcp")

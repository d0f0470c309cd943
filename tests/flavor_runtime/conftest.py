"""Generated outputs and call answers shared by the flavored-runtime tests, each made once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flavor_support import (
    CALLS,
    PACKAGES,
    build,
    framework_calls,
    planned_calls,
    runtime_calls,
    server_object,
)


@pytest.fixture(scope="session")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``package -> generated output directory``, each package in its framework's flavor."""
    # Both frameworks are test dependencies: a missing one must fail, never skip.
    import fastmcp  # noqa: F401
    import mcp.server.mcpserver  # noqa: F401

    return {
        package: build(tmp_path_factory.mktemp(package), flavor, sources)
        for package, (flavor, sources, _) in PACKAGES.items()
    }


class Answers:
    """Per package: the planned calls, the framework's answers and the in-process runtime's."""

    def __init__(self, outputs: dict[str, Path]) -> None:
        self._outputs = outputs
        self._made: dict[str, dict[str, Any]] = {}

    def __getitem__(self, package: str) -> dict[str, Any]:
        if package not in self._made:
            flavor, _, target = PACKAGES[package]
            output = self._outputs[package]
            calls = planned_calls(output, CALLS)
            self._made[package] = {
                "calls": calls,
                "theirs": framework_calls(flavor, server_object(target), calls),
                "ours": runtime_calls(output, calls),
            }
        return self._made[package]


@pytest.fixture(scope="session")
def answers(outputs: dict[str, Path]) -> Answers:
    return Answers(outputs)

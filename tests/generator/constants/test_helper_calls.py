"""Project helpers whose body is one ``return`` of a constant expression are evaluated like
constants (mcp_codegen._generator.constants.helpers); the oracle is the SDK's own listing of the same
server (``mcp-codegen verify --against``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.project import Project

ANNOTATIONS = """
from mcp.types import ToolAnnotations


def read_only():
    \"\"\"Read-only tools.\"\"\"
    return ToolAnnotations(readOnlyHint=True)


def writes(idempotent=False, *, title=None):
    return ToolAnnotations(readOnlyHint=False, idempotentHint=idempotent, title=title)


def not_constant(x):
    y = x
    return y
"""

SERVER = """
from mcp.server.mcpserver import MCPServer

from hpkg.annotations import not_constant, read_only, writes

mcp = MCPServer("h")
PREFIX = "h"


def named(part):
    return f"{PREFIX}_{part}"


@mcp.tool(annotations=read_only())
def look(x: int) -> int:
    return x


@mcp.tool(name=named("put"), annotations=writes(True, title="Put"))
def put(x: int) -> int:
    return x
"""


@pytest.mark.slow
@pytest.mark.process
def test_helper_calls_generate_what_the_server_serves(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write("hpkg/__init__.py", "")
    project.write("hpkg/annotations.py", ANNOTATIONS)
    project.write("hpkg/server.py", SERVER)
    project.configure('sources = ["hpkg"]\nflavor = "mcp"\n')
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    verify = project.run("verify", "--against", "hpkg.server:mcp")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "the 2 generated tools equal" in verify.stdout


@pytest.mark.process
def test_a_helper_beyond_one_return_keeps_the_clear_error(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write("hpkg/__init__.py", "")
    project.write("hpkg/annotations.py", ANNOTATIONS)
    project.write(
        "hpkg/server.py",
        SERVER + "\n\n@mcp.tool(annotations=not_constant(1))\ndef bad(x: int) -> int:\n"
        "    return x\n",
    )
    project.configure('sources = ["hpkg"]\nflavor = "mcp"\n')
    done = project.run("generate")
    assert done.returncode == 2
    assert done.stderr.startswith(
        "hpkg/server.py:23:23: decorator argument annotations= cannot be known at build time: "
        "`not_constant(...)` calls a function"
    ), done.stderr

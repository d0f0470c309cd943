"""Bad input: a clear ``path:line:col`` error, exit code 2, and no generated file touched."""

from __future__ import annotations

import re

import pytest

from tests.helpers.project import Project

pytestmark = pytest.mark.process  # starts real processes (builds, servers or clients)

GOOD = '''
from mcp_codegen.decorators import tool


@tool
def ping(message: str) -> str:
    """Reply with the message."""
    return message
'''

CASES = {
    "syntax_error": (
        "pkg/broken.py",
        "from mcp_codegen.decorators import tool\n\n@tool\ndef f(x: int) -> int\n    return x\n",
        r"pkg/broken\.py:4:\d+: syntax error: expected ':'",
    ),
    "unresolvable_annotation": (
        "pkg/broken.py",
        "from mcp_codegen.decorators import tool\n\n@tool\ndef f(x: 'Missing') -> int:\n    return 1\n",
        r"pkg/broken\.py:4:7: cannot resolve the annotation of parameter 'x' \('Missing'\)"
        r".*NameError",
    ),
    "import_failure": (
        "pkg/broken.py",
        "from mcp_codegen.decorators import tool\n\nraise RuntimeError('boom at import')\n\n"
        "@tool\ndef f(x: int) -> int:\n    return x\n",
        r"pkg/broken\.py:3:1: importing pkg\.broken failed: RuntimeError: boom at import",
    ),
    "var_positional": (
        "pkg/broken.py",
        "from mcp_codegen.decorators import tool\n\n@tool\ndef f(*values: int) -> int:\n"
        "    return sum(values)\n",
        r"pkg/broken\.py:4:8: variadic parameter \*values cannot be described by a schema; "
        r"pass input_schema=",
    ),
    "var_keyword": (
        "pkg/broken.py",
        "from mcp_codegen.decorators import tool\n\n@tool\ndef f(x: int, **extra: str) -> int:\n"
        "    return x\n",
        r"pkg/broken\.py:4:17: variadic parameter \*\*extra cannot be described",
    ),
    "undescribable_type": (
        "pkg/broken.py",
        "import socket\nfrom mcp_codegen.decorators import tool\n\n@tool\n"
        "def f(sock: socket.socket) -> int:\n    return 1\n",
        r"pkg/broken\.py:5:7: parameter 'sock' of tool 'f' is annotated socket\.socket, which "
        r"pydantic cannot make a JSON Schema of \(Unable to generate pydantic-core schema for "
        r"<class 'socket\.socket'>",
    ),
    "undescribable_return_type": (
        "pkg/broken.py",
        "import socket\nfrom mcp_codegen.decorators import tool\n\n@tool\n"
        "def f(x: int) -> socket.socket:\n    return 1\n",
        r"pkg/broken\.py:5:1: pydantic cannot describe the return type of 'f' \(socket\.socket\)",
    ),
    "duplicate_names": (
        "pkg/broken.py",
        "from mcp_codegen.decorators import tool\n\n@tool(name='ping')\ndef other(x: int) -> int:\n"
        "    return x\n",
        r"pkg/good\.py:5:1: duplicate tool name 'ping': also defined at pkg/broken\.py:4:1",
    ),
    "non_literal_decorator_argument": (
        "pkg/broken.py",
        "from mcp_codegen.decorators import tool\nimport os\n\n@tool(name=os.environ['X'])\n"
        "def f(x: int) -> int:\n    return x\n",
        r"pkg/broken\.py:4:12: decorator argument name= cannot be known at build time: "
        r"`os\.environ` reads the environment, which is known only at run time; write the value "
        r'literally \(e\.g\. name="search"\) or as a module-level constant built from literals',
    ),
    "invalid_override_schema": (
        "pkg/broken.py",
        "from mcp_codegen.decorators import tool\n\n@tool(input_schema={'type': 'object', "
        "'properties': 5})\ndef f(**kw: int) -> int:\n    return 1\n",
        r"pkg/broken\.py:3:20: inputSchema is not a valid JSON Schema 2020-12 at properties",
    ),
    "override_root_not_object": (
        "pkg/broken.py",
        "from mcp_codegen.decorators import tool\n\n@tool(output_schema={'type': 'string'})\n"
        "def f(x: int) -> str:\n    return 'x'\n",
        r"pkg/broken\.py:3:21: outputSchema must have \"type\": \"object\" at its root",
    ),
    "control_character_in_tool_name": (
        "pkg/broken.py",
        "from mcp_codegen.decorators import tool\n\n@tool(name='has\\ttab')\n"
        "def f(x: int) -> int:\n    return x\n",
        r"pkg/broken\.py:3:12: invalid tool name 'has\\ttab': it contains the control character "
        r"U\+0009, which does not survive JSON, terminals and logs reliably; remove it",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_reports_position_and_writes_nothing(project: Project, case: str) -> None:
    project.write("pkg/good.py", GOOD)
    assert project.run("generate").returncode == 0
    before = project.snapshot()
    assert before
    path, source, pattern = CASES[case]
    project.write(path, source)
    result = project.run("generate")
    assert result.returncode == 2, result.stdout + result.stderr
    assert re.search(pattern, result.stderr), result.stderr
    assert "nothing was written" in result.stderr
    assert project.snapshot() == before
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_permissive_fallback_applies_only_when_configured(project: Project) -> None:
    project.configure('sources = ["pkg"]\npermissive_fallback = true\n')
    project.write(
        "pkg/tools.py",
        "from mcp_codegen.decorators import tool\n\n@tool\ndef f(**kw: int) -> int:\n    return 1\n",
    )
    result = project.run("generate")
    assert result.returncode == 0, result.stderr
    assert re.search(r"pkg/tools\.py:4:1: warning: .*permissive fallback", result.stderr)
    export = project.run("export")
    assert '"additionalProperties": true' in export.stdout


def test_no_tools_in_sources_is_an_error(project: Project) -> None:
    project.write("pkg/plain.py", "def helper() -> int:\n    return 1\n")
    result = project.run("generate")
    assert result.returncode == 2
    assert "define no tools" in result.stderr


def test_unknown_config_key_suggests_the_closest(project: Project) -> None:
    project.configure('sources = ["pkg"]\nouptut = "gen"\n')
    result = project.run("generate")
    assert result.returncode == 2
    assert re.search(
        r"pyproject\.toml:3:1: unknown key 'ouptut'; did you mean 'output'\?", result.stderr
    ), result.stderr


def test_wrong_config_type(project: Project) -> None:
    project.configure('sources = "pkg"\n')
    result = project.run("generate")
    assert result.returncode == 2
    assert "sources must be a list of paths, got str 'pkg'" in result.stderr


def test_usage_error_exit_code(project: Project) -> None:
    assert project.run("frobnicate").returncode == 2

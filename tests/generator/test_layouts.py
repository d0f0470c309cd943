"""Project layouts and decorator spellings the scanner must find."""

from __future__ import annotations

import json

import pytest

from tests.helpers.project import Project

pytestmark = pytest.mark.process  # starts real processes (builds, servers or clients)


def _tools(project: Project, *args: str) -> dict[str, dict]:
    # The boxing rules are what clients before 2026-07-28 get (tests/runtime/test_protocols.py: both).
    result = project.run(*args, "export", "--protocol", "2025-11-25")
    assert result.returncode == 0, result.stderr
    return {t["name"]: t for t in json.loads(result.stdout)["tools"]}


def test_src_layout(project: Project) -> None:
    project.configure('sources = ["src/shop"]\n')
    project.write("src/shop/__init__.py", "")
    project.write(
        "src/shop/tools.py",
        """
        from mcp_codegen.decorators import tool

        @tool
        def price(isbn: str) -> float:
            return 1.0
        """,
    )
    result = project.run("generate")
    assert result.returncode == 0, result.stderr
    module = project.root / "generated" / "shop" / "tools.py"
    assert module.is_file()
    assert '"function": "shop.tools:price"' in module.read_text()


def test_decorator_spellings(project: Project) -> None:
    project.write(
        "pkg/tools.py",
        """
        import functools

        import mcp_codegen.decorators
        from mcp_codegen.decorators import tool
        from mcp_codegen.decorators import tool as mcp_tool


        def logged(fn):
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                return fn(*args, **kwargs)
            return wrapper


        @tool
        def bare(x: int) -> int:
            return x


        @tool()
        def called(x: int) -> int:
            return x


        @mcp_codegen.decorators.tool(name="dotted")
        def dotted_impl(x: int) -> int:
            return x


        @mcp_tool
        def aliased(x: int) -> int:
            return x


        @logged
        @tool(name="stacked")
        async def stacked_impl(x: int) -> int:
            return x


        class Toolbox:
            @staticmethod
            @tool
            def static(x: int) -> int:
                return x


        def helper(x: int) -> int:
            return x
        """,
    )
    assert project.run("generate").returncode == 0
    tools = _tools(project)
    assert list(tools) == ["bare", "called", "dotted", "aliased", "stacked", "static"]
    module = (project.root / "generated/pkg/tools.py").read_text()
    assert '"function": "pkg.tools:stacked_impl"' in module
    assert '"function": "pkg.tools:Toolbox.static"' in module


def test_custom_decorator_names_and_an_alternative_config_file(project: Project) -> None:
    project.write(
        "alt.toml",
        """
        [tool.mcp-codegen]
        sources = ["pkg"]
        output = "out"
        decorators = ["expose"]
        """,
    )
    project.write(
        "pkg/tools.py",
        """
        def expose(fn):
            return fn


        @expose
        def visible(x: int) -> int:
            return x
        """,
    )
    result = project.run("--config", "alt.toml", "generate")
    assert result.returncode == 0, result.stderr
    assert (project.root / "out" / "pkg" / "tools.py").is_file()
    assert list(_tools(project, "--config", "alt.toml")) == ["visible"]


def test_injected_types_from_config_and_context_are_left_out(project: Project) -> None:
    project.configure('sources = ["pkg"]\ninjected_types = ["pkg.deps.Settings"]\n')
    project.write("pkg/deps.py", "class Settings:\n    pass\n")
    project.write(
        "pkg/tools.py",
        """
        from typing import Optional

        from mcp.server.mcpserver import Context

        from mcp_codegen.decorators import tool
        from pkg.deps import Settings


        @tool
        def report(day: str, settings: Settings, ctx: Context, maybe: Optional[Context] = None) -> str:
            return day
        """,
    )
    assert project.run("generate").returncode == 0
    schema = _tools(project)["report"]["inputSchema"]
    assert list(schema["properties"]) == ["day"]
    assert schema["required"] == ["day"]


def test_decorator_metadata_reaches_the_tool(project: Project) -> None:
    project.write(
        "pkg/tools.py",
        """
        from mcp_codegen.decorators import tool

        LIMIT_TITLE = "Wipe everything"


        @tool(
            title=LIMIT_TITLE,
            description="Deletes all rows.",
            annotations={"destructiveHint": True},
            idempotent=True,
            icons=[{"src": "https://example.com/i.png", "mimeType": "image/png"}],
            meta={"team": "storage"},
            box_field="deleted",
        )
        def wipe(table: str) -> int:
            \"\"\"Not used: description= wins.\"\"\"
            return 0
        """,
    )
    assert project.run("generate").returncode == 0
    wipe = _tools(project)["wipe"]
    assert wipe["title"] == "Wipe everything"
    assert wipe["description"] == "Deletes all rows."
    assert wipe["annotations"] == {"destructiveHint": True, "idempotentHint": True}
    assert wipe["icons"] == [{"src": "https://example.com/i.png", "mimeType": "image/png"}]
    assert wipe["_meta"] == {"team": "storage"}
    assert wipe["outputSchema"]["required"] == ["deleted"]
    assert wipe["outputSchema"]["x-dedalus-box"] == {"field": "deleted"}


def test_box_marker_can_be_switched_off_and_field_set_globally(project: Project) -> None:
    project.configure('sources = ["pkg"]\nbox_marker = false\nbox_field = "value"\n')
    project.write(
        "pkg/tools.py",
        "from mcp_codegen.decorators import tool\n\n@tool\ndef n() -> int:\n    return 1\n",
    )
    assert project.run("generate").returncode == 0
    schema = _tools(project)["n"]["outputSchema"]
    assert schema == {
        "type": "object",
        "properties": {"value": {"type": "integer"}},
        "required": ["value"],
    }
    module = (project.root / "generated/pkg/tools.py").read_text()
    assert '"box": {\n                "field": "value",' in module

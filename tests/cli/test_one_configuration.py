"""One configuration for every command: ``run``, ``serve``, ``verify`` and ``use_generated`` read
``output``, ``server_name`` and the import roots from ``[tool.mcp-codegen]``, found from the target
module (or the calling module) when the working directory is elsewhere; ``--config`` after the
command; old key spellings warned about."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.helpers.project import REPO, Project, codegen_env, run_codegen

SERVER = '''
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("notes")


@mcp.tool()
def add_note(text: str, pinned: bool = False) -> str:
    """Add a note."""
    return f"noted: {text}"


@mcp.tool()
def count_notes() -> int:
    """Count the notes."""
    return 0
'''

CONFIG = """
[tool.mcp-codegen]
sources = ["src/notesapp/server.py"]
output = "schemas"
server_name = "notes"
flavor = "mcp"
run_targets = ["notesapp.server:mcp"]
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """A ``src/`` layout whose configuration names its own output and server name, generated."""
    project = Project(tmp_path_factory.mktemp("notes"))
    project.write("src/notesapp/__init__.py", "")
    project.write("src/notesapp/server.py", SERVER)
    project.write("pyproject.toml", CONFIG)
    done = project.run("generate", "-q")
    assert done.returncode == 0, done.stderr
    assert (project.root / "schemas" / "__init__.py").is_file()
    assert not (project.root / "generated").exists()
    return project


def _exported(project: Project) -> list[dict[str, Any]]:
    done = run_codegen(Path("/"), "export", "--config", str(project.root / "pyproject.toml"))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["tools"]


def _session(args: list[str], env: dict[str, str]) -> tuple[str, list[dict[str, Any]], str, str]:
    """Start ``python -m mcp_codegen ARGS`` from ``/`` over stdio with the official client:
    serverInfo.name, the tools listed, a call's text and the server's stderr."""
    errors = Path(env["NOTES_STDERR"])

    async def session() -> tuple[str, list[dict[str, Any]], str]:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "mcp_codegen", *args], cwd="/", env=env
        )
        with anyio.fail_after(60), errors.open("w") as stderr:
            async with (
                stdio_client(params, errlog=stderr) as (read, write),
                ClientSession(read, write) as client,
            ):
                opened = await client.initialize()
                listed = await client.list_tools()
                called = await client.call_tool("add_note", {"text": "milk"})
                assert not called.is_error, called
                tools = [t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools]
                return opened.server_info.name, tools, called.content[0].text  # type: ignore[union-attr]

    name, tools, text = anyio.run(session)
    return name, tools, text, errors.read_text()


def _same_tools(listed: list[dict[str, Any]], exported: list[dict[str, Any]]) -> None:
    assert (
        [t["name"] for t in listed]
        == [t["name"] for t in exported]
        == [
            "add_note",
            "count_notes",
        ]
    )
    for ours, theirs in zip(listed, exported, strict=True):
        assert ours["inputSchema"] == theirs["inputSchema"]


@pytest.mark.slow
@pytest.mark.process
@pytest.mark.parametrize(
    "how", ["config after serve", "config before serve", "generated directory only"]
)
def test_serve_from_root_reads_the_configuration(notes: Project, tmp_path: Path, how: str) -> None:
    config, schemas = str(notes.root / "pyproject.toml"), str(notes.root / "schemas")
    args = {
        "config after serve": ["serve", "--config", config],
        "config before serve": ["--config", config, "serve"],
        # The configuration is found above the generated tree: its server_name and src/ root.
        "generated directory only": ["serve", "--generated", schemas],
    }[how]
    name, tools, text, _ = _session(args, codegen_env(NOTES_STDERR=str(tmp_path / "err")))
    assert name == "notes"  # server_name, not the runtime's default "mcp-codegen"
    _same_tools(tools, _exported(notes))
    assert text == "noted: milk"  # the tool module imported from src/ (an import root)


@pytest.mark.process
def test_serve_takes_the_name_the_tree_was_generated_with_without_reading_toml(
    notes: Project,
) -> None:
    """The manifest records ``server_name``; ``serve --generated DIR --path ...`` answers
    ``initialize`` with it and parses no TOML (tomllib's import costs more than the fast path's
    whole answer)."""
    manifest = (notes.root / "schemas" / "__init__.py").read_text()
    assert 'SERVER_NAME = "notes"' in manifest.splitlines()
    opening = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    schemas, src = str(notes.root / "schemas"), str(notes.root / "src")
    done = subprocess.run(
        [
            *(sys.executable, "-X", "importtime", "-m", "mcp_codegen.runtime"),
            *("--generated", schemas, "--path", src),
        ],
        input=json.dumps(opening) + "\n",
        capture_output=True,
        text=True,
        cwd="/",
        env=codegen_env(),
        timeout=120,
    )
    answer = json.loads(done.stdout.splitlines()[0])
    assert answer["result"]["serverInfo"]["name"] == "notes", done.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "tomllib" not in imported


@pytest.mark.process
@pytest.mark.parametrize("how", ["config after run", "config before run", "found from TARGET"])
def test_run_from_root_reads_the_configuration(notes: Project, tmp_path: Path, how: str) -> None:
    config = str(notes.root / "pyproject.toml")
    env = codegen_env(NOTES_STDERR=str(tmp_path / "err"))
    args = {
        "config after run": ["run", "--config", config, "notesapp.server:mcp"],
        "config before run": ["--config", config, "run", "notesapp.server:mcp"],
        "found from TARGET": ["run", "notesapp.server:mcp"],
    }[how]
    if how == "found from TARGET":  # as an installed package is: importable, config unnamed
        env["PYTHONPATH"] += os.pathsep + str(notes.root / "src")
    name, tools, text, stderr = _session(args, env)
    assert name == "notes"
    _same_tools(tools, _exported(notes))
    assert text == "noted: milk"
    # schemas/ was found: a missing tree is refused, a stale entry warned about.
    assert "Warning" not in stderr and "cannot" not in stderr, stderr


PROBE = """
import os, sys, warnings
warnings.simplefilter("error")  # a tool without a current generated entry would warn
from mcp_codegen.runtime import use_generated

print(use_generated().directory)
print(use_generated("schemas").directory)
from notesapp.server import mcp
import asyncio
print(sorted(t.name for t in asyncio.run(mcp.list_tools())))
"""


@pytest.mark.process
def test_use_generated_resolves_against_the_configuration_not_the_cwd(notes: Project) -> None:
    probe = notes.write("src/notesapp/probe.py", PROBE)
    env = codegen_env()
    env["PYTHONPATH"] += os.pathsep + str(notes.root / "src")
    import subprocess

    done = subprocess.run(
        [sys.executable, str(probe)], cwd="/", env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    schemas = str(notes.root / "schemas")
    assert done.stdout.splitlines() == [schemas, schemas, "['add_note', 'count_notes']"]


@pytest.mark.process
def test_verify_finds_the_configuration_from_the_target(notes: Project) -> None:
    env = codegen_env()
    env["PYTHONPATH"] += os.pathsep + str(notes.root / "src")
    done = run_codegen(Path("/"), "verify", "--against", "notesapp.server:mcp", env=env)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture
def elsewhere(tmp_path: Path) -> tuple[Project, Path]:
    """A clean-flavor project whose output is ``schemas``, and an empty working directory."""
    project = Project(tmp_path / "proj")
    project.write("pkg/__init__.py", "")
    project.write(
        "pkg/tools.py",
        """
        from mcp_codegen.decorators import tool


        @tool
        def shout(text: str) -> str:
            '''Shout the text.'''
            return text.upper()
        """,
    )
    project.configure('sources = ["pkg"]\noutput = "schemas"\n')
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    return project, cwd


@pytest.mark.process
@pytest.mark.parametrize("position", ["before", "after"])
def test_config_after_the_command_for_every_command(
    elsewhere: tuple[Project, Path], position: str
) -> None:
    project, cwd = elsewhere
    config = ["--config", str(project.root / "pyproject.toml")]
    schemas = str(project.root / "schemas")

    def cli(command: str, *rest: str) -> Any:
        args = [*config, command, *rest] if position == "before" else [command, *config, *rest]
        return run_codegen(cwd, *args)

    assert run_codegen(cwd, "check").returncode == 2  # no configuration here or above
    done = cli("generate", "-q", "--no-daemon")
    assert done.returncode == 0, done.stderr
    assert (project.root / "schemas" / "pkg" / "tools.py").is_file()
    done = cli("check", "--no-daemon")
    assert done.returncode == 0 and "schemas/ is up to date" in done.stdout, done.stderr
    done = cli("export")
    assert [t["name"] for t in json.loads(done.stdout)["tools"]] == ["shout"], done.stderr
    done = cli("lint", "--format", "json")
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout)
    done = cli("diff", schemas, schemas, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["changes"] == []


def test_the_config_after_the_command_wins(elsewhere: tuple[Project, Path]) -> None:
    from mcp_codegen._cli.commands import build_parser
    from mcp_codegen._generator.workers.prestart import config_file

    project, _ = elsewhere
    other = str(project.root / "other.toml")
    argv = ["--config", other, "export", "--config", str(project.root / "pyproject.toml")]
    assert build_parser().parse_args(argv).config == project.root / "pyproject.toml"
    assert build_parser().parse_args(argv[:3]).config == Path(other)
    # The daemon client asks the daemon of the configuration the command will read.
    for argv in (["generate", "--config", other], ["--config", other, "generate"]):
        assert config_file(argv) == os.path.realpath(other)
    assert config_file(["--config", "a.toml", "check", "--config=b.toml"]) == os.path.realpath(
        "b.toml"
    )


def test_old_spellings_are_read_with_a_warning(project: Project, capsys: Any) -> None:
    from mcp_codegen._cli.commands import main
    from mcp_codegen._diff.policy import load_policy
    from mcp_codegen._generator.config import load_config

    project.write(
        "pyproject.toml",
        """
        [tool.mcp-codegen]
        sources = ["pkg"]
        server-name = "notes"

        [tool.mcp-codegen.diff]
        fail-on = "warn"
        docs-url = "https://docs.example.org/rules/"
        """,
    )
    path = project.root / "pyproject.toml"
    config = load_config(path)
    assert config.server_name == "notes"
    assert [str(w) for w in config.warnings] == [
        f"{path}:3:1: warning: 'server-name' is the old spelling; write 'server_name'",
        f"{path}:6:1: warning: 'fail-on' is the old spelling; write 'fail_on'",
        f"{path}:7:1: warning: 'docs-url' is the old spelling; write 'docs_url'",
    ]
    policy = load_policy(path, project.root)
    assert (policy.fail_on, policy.docs_url) == ("warn", "https://docs.example.org/rules/")
    assert main(["lint", "--config", str(path), "--output", str(REPO / "generated")]) == 0
    err = capsys.readouterr().err
    assert f"{path}:6:1: warning: 'fail-on' is the old spelling; write 'fail_on'" in err


def test_both_spellings_of_one_key_are_an_error(project: Project, capsys: Any) -> None:
    from mcp_codegen._cli.commands import main

    project.write(
        "pyproject.toml",
        """
        [tool.mcp-codegen]
        sources = ["pkg"]

        [tool.mcp-codegen.diff]
        fail_on = "warn"
        fail-on = "info"
        """,
    )
    assert main(["export", "--config", str(project.root / "pyproject.toml")]) == 2
    assert (
        f"{project.root / 'pyproject.toml'}:6:1: 'fail-on' and 'fail_on' are the same key in "
        "[tool.mcp-codegen.diff]; keep 'fail_on' only"
    ) in capsys.readouterr().err


def test_a_broken_configuration_stops_run_and_serve_at_its_position(
    tmp_path: Path, capsys: Any
) -> None:
    from mcp_codegen._cli.run import main as run
    from mcp_codegen.runtime import main as serve

    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.mcp-codegen]\nsources = ["pkg"]\nserver_name = 3\n')
    assert serve(["--config", str(path)]) == 2
    assert f"error: {path}:3:1: server_name must be a str" in capsys.readouterr().err
    assert run(["--config", str(path), "pkg.server:mcp"]) == 2
    assert f"mcp-codegen run: {path}:3:1: server_name must be a str" in capsys.readouterr().err

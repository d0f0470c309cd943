"""The rows of docs/bad-inputs.md that tests/generator/test_bad_input.py does not cover: a CLI run each.

Every case starts from a project whose ``generated/`` tree is current, adds the bad input and runs
the real command line. An error must name the place (``path:line:col`` where there is one), exit 2
and leave every file of the project as it was; a warning must not stop the build. The message
each case expects is the one the table documents: ``test_the_table_documents_every_case`` keeps the
two equal.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

import tests.generator.test_bad_input as core_cases
from mcp_codegen._generator.write import output as write
from tests.helpers.project import REPO, Project, codegen_env

TABLE = REPO / "docs" / "bad-inputs.md"

GOOD = '''
from mcp_codegen.decorators import tool


@tool
def ping(message: str) -> str:
    """Reply with the message."""
    return message
'''


@dataclass(frozen=True)
class Case:
    """One bad input: files to add, the expected message (exact text) and exit code."""

    id: str
    files: dict[str, str | bytes]
    message: str
    code: int = 2
    config: str = 'sources = ["pkg"]\n'
    command: str = "generate"
    prepare: Callable[[Path], None] | None = None  # more set-up, given the project root


def tool_file(*lines: str) -> dict[str, str | bytes]:
    """``pkg/bad.py`` made of ``lines``; line numbers in messages count from the first."""
    return {"pkg/bad.py": "\n".join(lines) + "\n"}


IMPORT_TOOL = "from mcp_codegen.decorators import tool"
CYCLE = (
    "importing pkg.bad imports generated, the generator's own output: a cycle (its schemas "
    "would come from the previous output, and a fresh checkout could not generate them); "
    "import generated modules inside the functions that use them, or serve them with "
    "mcp_codegen.runtime"
)
SURROGATE = (
    "contains a lone surrogate (U+D800-U+DFFF), which is not text and has no UTF-8 or JSON form"
)
OWN_DIRECTORY = (
    "generate replaces the output directory as a whole, so give it a directory of its own "
    '(e.g. output = "generated")'
)


def make_file(relative: str) -> Callable[[Path], None]:
    def prepare(root: Path) -> None:
        (root / relative).write_text("not a directory\n")

    return prepare


def insert_line(path: Path, number: int, line: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(number - 1, line + "\n")
    path.write_text("".join(lines))


def leftovers(root: Path) -> list[Path]:
    """What a replacement of ``generated/`` left next to it (nothing, unless it was killed)."""
    output = root / "generated"
    return [p for p in (write.staging_path(output), write.old_path(output)) if p.exists()]


CASES = [
    # -- sources ----------------------------------------------------------------------------------
    Case(
        "non_utf8_source",
        {"pkg/bad.py": b"# caf\xe9\n" + f"{IMPORT_TOOL}\n@tool\ndef f(x: int) -> int:\n".encode()},
        "pkg/bad.py:1:6: source is not valid UTF-8 (invalid continuation byte); save the file "
        "as UTF-8",
    ),
    Case(
        "annotation_imported_only_under_type_checking",
        tool_file(
            "from __future__ import annotations",
            "",
            "from typing import TYPE_CHECKING",
            "",
            IMPORT_TOOL,
            "",
            "if TYPE_CHECKING:",
            "    from decimal import Decimal",
            "",
            "",
            "@tool",
            "def f(x: Decimal) -> int:",
            "    return 1",
        ),
        "pkg/bad.py:12:7: cannot resolve the annotation of parameter 'x' (Decimal): NameError: "
        "name 'Decimal' is not defined; import the name at module level (not only under "
        "TYPE_CHECKING) or fix the spelling",
    ),
    Case(
        "annotation_names_a_missing_attribute",
        tool_file(
            "from __future__ import annotations",
            "import os",
            IMPORT_TOOL,
            "@tool",
            "def f(x: int, y: os.Missing = None) -> int:",
            "    return 1",
        ),
        "pkg/bad.py:5:15: cannot resolve the annotation of parameter 'y' (os.Missing): "
        "AttributeError: module 'os' has no attribute 'Missing'",
    ),
    Case(
        "callable_parameter",
        tool_file(
            "from collections.abc import Callable",
            IMPORT_TOOL,
            "@tool",
            "def f(x: int, fn: Callable[[int], int]) -> int:",
            "    return fn(x)",
        ),
        "pkg/bad.py:4:15: parameter 'fn' of tool 'f' is annotated Callable[[int], int], which "
        "pydantic cannot make a JSON Schema of (Cannot generate a JsonSchema for "
        "core_schema.CallableSchema: a function cannot be passed as JSON); give it a type "
        "pydantic can describe (a JSON value: str, int, a list, a BaseModel, ...) or pass "
        "input_schema= in the decorator",
    ),
    Case(
        # MCPServer infers when the decorator runs: pydantic's error comes out of the import
        "callable_parameter_inferred_at_registration",
        tool_file(
            "from collections.abc import Callable",
            "from mcp.server.mcpserver import MCPServer",
            'mcp = MCPServer("bad")',
            "@mcp.tool()",
            "def f(",
            "    x: int,",
            "    fn: Callable[[int], int],",
            ") -> int:",
            "    return fn(x)",
        ),
        "pkg/bad.py:7:5: parameter 'fn' of tool 'f' is annotated Callable[[int], int], which "
        "pydantic cannot make a JSON Schema of (Cannot generate a JsonSchema for "
        "core_schema.CallableSchema: a function cannot be passed as JSON); the server infers its "
        "schema when the tool is registered, so give the parameter a type pydantic can describe "
        "(a JSON value: str, int, a list, a BaseModel, ...)",
        config='sources = ["pkg"]\nflavor = "mcp"\n',
    ),
    Case(
        "sys_exit_at_import",
        tool_file(IMPORT_TOOL, "import sys", "sys.exit(3)", "@tool", "def f(x: int) -> int: ..."),
        "pkg/bad.py:3:1: module pkg.bad called sys.exit(3) while being imported; guard side "
        'effects with `if __name__ == "__main__":`',
    ),
    Case(
        "os_exit_at_import",
        tool_file(IMPORT_TOOL, "import os", "os._exit(3)", "@tool", "def f(x: int) -> int: ..."),
        "pkg/bad.py:1:1: importing pkg.bad ended the generator's worker process (exit code 3); "
        "a tool module must not call os._exit() or crash the interpreter when imported",
    ),
    Case(
        "interpreter_crash_at_import",
        tool_file(
            IMPORT_TOOL,
            "import ctypes",
            "ctypes.string_at(0)",
            "@tool",
            "def f(x: int) -> int: ...",
        ),
        "pkg/bad.py:1:1: importing pkg.bad ended the generator's worker process (exit code -11)",
    ),
    Case(
        "import_hangs",
        tool_file(
            IMPORT_TOOL, "import time", "time.sleep(600)", "@tool", "def f(x: int) -> int: ..."
        ),
        "pkg/bad.py:1:1: inspecting pkg.bad did not finish within 1 s; remove the blocking call "
        "from import time or raise `import_timeout` in [tool.mcp-codegen]",
        config='sources = ["pkg"]\nimport_timeout = 1\n',
    ),
    Case(
        "source_nests_too_deeply",
        tool_file(IMPORT_TOOL, "X = 1" + " + 1" * 3000, "@tool", "def f(x: int) -> int: ..."),
        "pkg/bad.py:1:1: the source nests too deeply to parse; split the deepest expression",
    ),
    Case(
        "imports_the_output_package",
        tool_file(IMPORT_TOOL, "import generated", "@tool", "def f(x: int) -> int: ..."),
        f"pkg/bad.py:2:1: {CYCLE}",
    ),
    Case(
        "imports_the_output_package_through_a_helper",
        {
            "pkg/helper.py": "from generated import MODULES\n",
            **tool_file(
                IMPORT_TOOL, "", "from pkg import helper", "@tool", "def f(x: int) -> int: ..."
            ),
        },
        f"pkg/bad.py:3:1: {CYCLE}",
    ),
    Case(
        "default_not_json_serialisable",
        tool_file(
            IMPORT_TOOL,
            "class Opaque:",
            "    def __repr__(self) -> str:",
            "        return 'Opaque()'",
            "@tool",
            "def f(x: object = Opaque()) -> int: ...",
        ),
        "pkg/bad.py:6:7: default of 'x' (Opaque()) cannot be serialised as JSON (Unable to "
        "serialize unknown type: <class 'pkg.bad.Opaque'>); use a JSON-compatible default",
    ),
    Case(
        "default_nan",
        tool_file(IMPORT_TOOL, "@tool", "def f(x: int, y: float = float('nan')) -> int: ..."),
        "pkg/bad.py:3:15: default of 'y' (nan) cannot be serialised as JSON (Out of range float "
        "values are not JSON compliant); use a JSON-compatible default",
    ),
    Case(
        "default_violates_its_type",
        tool_file(IMPORT_TOOL, "@tool", "def f(x: int = 'abc') -> int: ..."),
        "pkg/bad.py:3:7: default of 'x' violates its own type: Input should be a valid integer, "
        "unable to parse string as an integer; fix the default or the annotation",
    ),
    Case(
        "default_violates_its_constraints",
        tool_file(
            "from typing import Annotated",
            "from pydantic import Field",
            IMPORT_TOOL,
            "@tool",
            "def f(x: Annotated[int, Field(ge=0)] = -1) -> int: ...",
        ),
        "pkg/bad.py:5:7: default of 'x' violates its own type: Input should be greater than or "
        "equal to 0; fix the default or the annotation",
    ),
    Case(
        "positional_only_parameter",
        tool_file(IMPORT_TOOL, "@tool", "def f(x: int, /) -> int: ..."),
        "pkg/bad.py:3:7: positional-only parameter 'x' cannot be passed by name in a tools/call; "
        "remove the `/` marker",
    ),
    Case(
        "tool_defined_inside_a_function",
        tool_file(
            IMPORT_TOOL,
            "def make():",
            "    @tool",
            "    def inner(x: int) -> int: ...",
            "    return inner",
        ),
        "pkg/bad.py:4:5: tool 'inner' is defined inside a function (make.<locals>.inner) that no "
        "server registered it from while the module was imported, so it cannot be reached",
    ),
    Case(
        "decorated_function_deleted_after_definition",
        tool_file(IMPORT_TOOL, "@tool", "def f(x: int) -> int: ...", "del f"),
        "pkg/bad.py:3:1: f is not an attribute of pkg.bad after import (was it deleted or "
        "rebound?); keep the decorated function bound to its name",
    ),
    Case(
        "two_files_with_one_module_name",
        {
            "extra/ping.py": GOOD.replace("ping", "pong"),
            "other/ping.py": GOOD.replace("ping", "pang"),
        },
        "other/ping.py:1:1: module name 'ping' is also the import name of extra/ping.py; one "
        "name cannot import (or generate) two files — add __init__.py files to make them "
        "packages, or rename one",
        config='sources = ["pkg", "extra", "other"]\n',
    ),
    # -- decorator arguments ----------------------------------------------------------------------
    Case(
        "tool_name_over_128_characters_warns",
        tool_file(IMPORT_TOOL, f"@tool(name='{'n' * 129}')", "def f(x: int) -> int: ..."),
        f"pkg/bad.py:2:12: warning: tool name '{'n' * 129}': the MCP spec says tool names SHOULD "
        "be 1-128 characters of A-Z a-z 0-9 _ - . (129 characters here); it is served as "
        "written, but clients may refuse or rewrite it; rename the tool to match",
        code=0,
    ),
    Case(
        "tool_name_with_a_space_warns",
        tool_file(IMPORT_TOOL, "@tool(name='search books')", "def f(x: int) -> int: ..."),
        "pkg/bad.py:2:12: warning: tool name 'search books': the MCP spec says tool names SHOULD "
        "be 1-128 characters of A-Z a-z 0-9 _ - . (not allowed here: ' '); it is served as "
        "written, but clients may refuse or rewrite it; rename the tool to match",
        code=0,
    ),
    Case(
        "tool_name_empty",
        tool_file(IMPORT_TOOL, "@tool(name='')", "def f(x: int) -> int: ..."),
        "pkg/bad.py:2:12: invalid tool name '': a tool needs a non-empty name to be listed and "
        "called; pass name= with 1-128 characters of A-Z a-z 0-9 _ - .",
    ),
    Case(
        "tool_name_with_a_control_character",
        tool_file(IMPORT_TOOL, "@tool(name='line\\nbreak')", "def f(x: int) -> int: ..."),
        "pkg/bad.py:2:12: invalid tool name 'line\\nbreak': it contains the control character "
        "U+000A, which does not survive JSON, terminals and logs reliably; remove it",
    ),
    Case(
        "tool_name_over_64_characters_warns",
        tool_file(IMPORT_TOOL, f"@tool(name='{'n' * 65}')", "def f(x: int) -> int: ..."),
        f"pkg/bad.py:2:12: warning: tool name '{'n' * 65}' is 65 characters; model APIs "
        "(OpenAI, Gemini) reject function names over 64",
        code=0,
    ),
    Case(
        "tool_name_not_a_string",
        tool_file(IMPORT_TOOL, "@tool(name=3)", "def f(x: int) -> int: ..."),
        "pkg/bad.py:2:12: tool name= must be a string",
    ),
    Case(
        "description_over_100_kb",
        tool_file(
            IMPORT_TOOL, f"@tool(description='{'word ' * 20_001}')", "def f(x: int) -> int: ..."
        ),
        "pkg/bad.py:3:1: the description of 'f' is over 100 KB; shorten the docstring or pass a "
        "shorter description=",
    ),
    Case(
        "lone_surrogate_in_description",
        tool_file(
            IMPORT_TOOL, "@tool(description='bad \\ud800 text')", "def f(x: int) -> int: ..."
        ),
        f"pkg/bad.py:2:19: description= {SURROGATE}; remove it",
    ),
    Case(
        "unknown_tool_annotation",
        tool_file(
            IMPORT_TOOL, "@tool(annotations={'readonly': True})", "def f(x: int) -> int: ..."
        ),
        "pkg/bad.py:2:19: unknown tool annotation 'readonly'; MCP defines title, readOnlyHint, "
        "destructiveHint, idempotentHint, openWorldHint",
    ),
    Case(
        "annotation_hint_not_a_bool",
        tool_file(IMPORT_TOOL, "@tool(read_only='yes')", "def f(x: int) -> int: ..."),
        "pkg/bad.py:2:17: annotation readOnlyHint must be true or false, got 'yes'",
    ),
    Case(
        "default_none_for_a_type_without_none_warns",
        tool_file(IMPORT_TOOL, "@tool", "def f(x: int = None) -> int: ..."),
        "pkg/bad.py:3:7: warning: parameter 'x' defaults to None but its type does not allow None; "
        "treating it as Optional — write `x: ... | None = None`",
        code=0,
    ),
    # -- configuration and output -----------------------------------------------------------------
    Case(
        "config_not_valid_toml",
        {},
        "pyproject.toml:2:8: cannot parse TOML (Expected '=' after a key in a key/value pair (at "
        "line 2, column 8)); fix the syntax",
        config="sources\n",
    ),
    Case(
        "config_without_sources",
        {},
        "pyproject.toml:1:1: [tool.mcp-codegen] needs `sources = [...]`: the tool files or package "
        "directories",
        config='output = "generated"\n',
    ),
    Case(
        "source_does_not_exist",
        {},
        "pyproject.toml: source 'nope' does not exist; fix `sources` in [tool.mcp-codegen]",
        config='sources = ["pkg", "nope"]\n',
    ),
    Case(
        "source_not_a_python_file",
        {"pkg/notes.txt": "notes\n"},
        "pkg/notes.txt: source is not a .py file; list .py files or dirs",
        config='sources = ["pkg", "pkg/notes.txt"]\n',
    ),
    Case(
        "unknown_flavor",
        {},
        "pyproject.toml:3:1: flavor must be one of clean, mcp, fastmcp",
        config='sources = ["pkg"]\nflavor = "fancy"\n',
    ),
    Case(
        "output_is_the_project_root",
        {},
        f"pyproject.toml:3:1: output '.' contains the config file; {OWN_DIRECTORY}",
        config='sources = ["pkg"]\noutput = "."\n',
    ),
    Case(
        "output_contains_a_source",
        {},
        f"pyproject.toml:3:1: output 'pkg' contains source 'pkg'; {OWN_DIRECTORY}",
        config='sources = ["pkg"]\noutput = "pkg"\n',
    ),
    Case(
        "output_is_a_file",
        {},
        "out.txt: output path exists and is not a directory; remove it or set `output` in "
        "[tool.mcp-codegen] to a directory",
        config='sources = ["pkg"]\noutput = "out.txt"\n',
        prepare=make_file("out.txt"),
    ),
    Case(
        "output_below_a_file",
        {},
        "out.txt is a file; move it away or set `output` in [tool.mcp-codegen] to another "
        "directory",
        config='sources = ["pkg"]\noutput = "out.txt/generated"\n',
        prepare=make_file("out.txt"),
    ),
    Case(
        "non_generated_file_at_a_target_path",
        {
            "generated/pkg/bad.py": "# my own notes\n",
            **tool_file(IMPORT_TOOL, "@tool", "def f(x: int) -> int: ..."),
        },
        "generated/pkg/bad.py:1:1: exists and was not generated by mcp-codegen, so it is never "
        "overwritten; move it away or change `output`",
    ),
    Case(
        "generated_file_with_its_header_removed",
        {},
        "generated/pkg/good.py:1:1: exists and was not generated by mcp-codegen, so it is never "
        "overwritten; move it away or change `output`",
        prepare=lambda root: (root / "generated/pkg/good.py").write_text(
            "\n".join((root / "generated/pkg/good.py").read_text().splitlines()[1:]) + "\n"
        ),
    ),
    Case(
        "generated_file_edited_into_code",
        {},
        "generated/pkg/good.py:4:1: generated modules hold only literal assignments; was the file "
        "edited by hand? Regenerate it",
        command="export",
        prepare=lambda root: insert_line(root / "generated/pkg/good.py", 4, "import os"),
    ),
]


@pytest.fixture(scope="module")
def current_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ``generated/`` tree that is current for GOOD, built once by the real CLI."""
    root = tmp_path_factory.mktemp("template") / "proj"
    template = Project(root)
    template.write("pkg/__init__.py", "")
    template.configure()
    template.write("pkg/good.py", GOOD)
    result = template.run("generate")
    assert result.returncode == 0, result.stderr
    return root / "generated"


def start(project: Project, current_tree: Path) -> None:
    project.write("pkg/good.py", GOOD)
    shutil.copytree(current_tree, project.root / "generated")


def everything(root: Path) -> dict[str, bytes]:
    """Every file of the project (the build cache aside), to prove nothing else was touched."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not {"__pycache__", ".mcp-codegen-cache"} & set(p.parts)
    }


@pytest.mark.process
@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input(project: Project, current_tree: Path, case: Case) -> None:
    start(project, current_tree)
    project.configure(case.config)
    for relative, content in case.files.items():
        path = project.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    if case.prepare is not None:
        case.prepare(project.root)
    before = everything(project.root)

    result = project.run(case.command, timeout=60)

    assert "Traceback" not in result.stderr, result.stderr
    assert case.message in result.stderr, result.stderr
    assert result.returncode == case.code, result.stdout + result.stderr
    if case.code == 0:
        assert project.run("check").returncode == 0
    else:
        assert everything(project.root) == before, "a failed run changed files"
        assert leftovers(project.root) == []


@pytest.mark.process
def test_stdout_noise_at_import_never_reaches_export_output(
    project: Project, current_tree: Path
) -> None:
    start(project, current_tree)
    project.write(
        "pkg/noisy.py",
        '''
        import os
        import sys

        from mcp_codegen.decorators import tool

        print("noise from print")
        sys.stdout.write("noise from sys.stdout\\n")
        os.write(1, b"noise from file descriptor 1\\n")


        @tool
        def quiet(x: int) -> int:
            """Return x."""
            return x
        ''',
    )
    generated = project.run("generate")
    assert generated.returncode == 0, generated.stderr
    assert "noise" not in generated.stdout
    exported = project.run("export")
    assert exported.returncode == 0
    payload = json.loads(exported.stdout)  # the whole of stdout is one JSON document
    assert [tool["name"] for tool in payload["tools"]] == ["ping", "quiet"]


@pytest.mark.process
def test_reading_stdin_at_import_gets_end_of_file_not_a_hang(
    project: Project, current_tree: Path
) -> None:
    start(project, current_tree)
    project.write(
        "pkg/reader.py",
        """
        import sys

        from mcp_codegen.decorators import tool

        FIRST_LINE = sys.stdin.readline()


        @tool
        def read(x: int) -> int:
            return x
        """,
    )
    # The generator's stdin stays open, like a terminal nobody types into: the module must read
    # end-of-file from its own stdin rather than wait on this one (or eat the worker protocol).
    with subprocess.Popen(
        [sys.executable, "-m", "mcp_codegen", "generate"],
        cwd=project.root,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=codegen_env(),
    ) as process:
        try:
            code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
        finally:
            assert process.stdin is not None
            process.stdin.close()
        stderr = process.stderr.read().decode() if process.stderr else ""
    assert code == 0, stderr
    assert project.run("check").returncode == 0


@pytest.mark.process
def test_a_hand_edited_generated_file_is_restored_by_generate(
    project: Project, current_tree: Path
) -> None:
    start(project, current_tree)
    path = project.root / "generated/pkg/good.py"
    original = path.read_bytes()
    path.write_text(path.read_text().replace("Reply with the message.", "Edited."))
    assert project.run("check").returncode == 1  # the diff itself: test_check_catches_...
    result = project.run("generate")
    assert result.returncode == 0, result.stderr
    assert "wrote generated/pkg/good.py" in result.stdout
    assert path.read_bytes() == original


def _immutable(path: Path) -> bool:
    """Make ``path`` unwritable even for root (chattr +i); False where that is impossible."""
    if os.geteuid() != 0:
        path.chmod(0o555)
        return True
    if shutil.which("chattr") is None:
        return False
    return subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0


def _writable(path: Path) -> None:
    if os.geteuid() != 0:
        path.chmod(0o755)
    else:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@pytest.mark.process
@pytest.mark.parametrize("locked", ["output", "parent"])
def test_an_unwritable_output_is_an_error_and_changes_nothing(
    project: Project, current_tree: Path, locked: str
) -> None:
    start(project, current_tree)
    project.write("pkg/good.py", GOOD.replace("message: str", "message: str, times: int = 1"))
    target = project.root / "generated" if locked == "output" else project.root
    before = project.snapshot()
    # Never a skip: a machine where this cannot be arranged must say so by failing.
    assert _immutable(target), "cannot make a directory unwritable here (root without chattr +i)"
    try:
        result = project.run("generate")
    finally:
        _writable(target)
    assert result.returncode == 2, result.stdout + result.stderr
    assert re.search(
        r"generated: cannot write the output: \[Errno (1|13)\] .*; nothing was changed — check "
        r"the permissions of the output directory and of its parent",
        result.stderr,
    ), result.stderr
    assert "Traceback" not in result.stderr
    assert project.snapshot() == before
    assert leftovers(project.root) == []


# -- the table ------------------------------------------------------------------------------------


def table_rows() -> list[dict[str, str]]:
    """Rows of the table in docs/bad-inputs.md as {column: cell}."""
    lines = [
        line for line in TABLE.read_text(encoding="utf-8").splitlines() if line.startswith("|")
    ]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = []
    for line in lines[2:]:
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        rows.append(dict(zip(header, cells, strict=True)))
    return rows


def code_span(cell: str) -> str:
    """The text of the Markdown code span in ``cell`` (`` `x` `` or ``` ``x`` ```)."""
    match = re.search(r"(`+)\s?(.*?)\s?\1", cell)
    assert match, cell
    return match.group(2).replace("\\|", "|")


def matches(documented: str, message: str) -> bool:
    """The documented message is the message, where each ``…`` may stand for any text."""
    pattern = ".*?".join(re.escape(part) for part in documented.split("…"))
    return re.fullmatch(pattern, message, re.DOTALL) is not None


def test_the_table_documents_every_case() -> None:
    rows = table_rows()
    assert len(rows) >= 25
    documented: dict[str, str] = {}
    for row in rows:
        test = code_span(row["Test"])
        documented[test] = code_span(row["Message"])
        assert row["Exit"] in {"0", "1", "2"}, row
    hardening = "tests/e2e/hardening/test_bad_inputs_table.py::test_bad_input"
    for case in CASES:
        key = f"{hardening}[{case.id}]"
        assert key in documented, f"{case.id} is missing from {TABLE.name}"
        assert matches(documented[key], case.message), (case.id, documented[key])
    for key, message in documented.items():
        path, _, name = key.partition("::")
        function, _, parameter = name.partition("[")
        assert (REPO / path).is_file(), key
        if path == "tests/generator/test_bad_input.py" and parameter:
            pattern = core_cases.CASES[parameter.rstrip("]")][2]
            assert re.search(pattern, message), (key, message)
        elif path == "tests/e2e/hardening/test_bad_inputs_table.py" and parameter:
            continue
        else:
            assert f"def {function}(" in (REPO / path).read_text(), key

"""Injection-proof rendering: hostile text in every rendered value still yields a literal module.

Unit level (1,000 examples a property, fixed seed): ``mcp_codegen._generator.render.literal`` and the real templates via
``render_module`` / ``render_manifest`` on definitions built in memory. End to end (fewer
examples): tool sources with hostile docstrings, titles, descriptions, defaults, Literal and Enum
values and ``Field(pattern=...)`` go through the real CLI.

Each check is the same three facts: the module compiles; ``ast`` shows nothing but
``NAME = <literal>`` statements (and exactly the header comments); every string reads back equal.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_codegen._generator.config import Config
from mcp_codegen._generator.model import (
    ModuleDefinition,
    Position,
    RenderedFile,
    ScannedModule,
    ToolDefinition,
)
from mcp_codegen._generator.render.literal import comment_text, python_literal, string_literal
from mcp_codegen._generator.render.modules import render_manifest, render_module
from mcp_codegen._generator.write.literal_text import encoding_problem, recognised
from mcp_codegen._generator.write.output import builds_literals_only
from mcp_codegen._shared.reader import parse_literal_module
from tests.helpers.json_text import same
from tests.helpers.project import Project

#: Pieces that have broken code generators: quotes, escapes, line breaks of every kind (Python's,
#: JavaScript's U+2028/9, NEL), NUL, template and comment syntax, and code that would run if a
#: string literal ended early.
FRAGMENTS = (
    '"',
    "'",
    '"""',
    "'''",
    "\\",
    "\\\\",
    '\\"',
    "\n",
    "\r",
    "\r\n",
    "\x00",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x85",
    "\u2028",
    "\u2029",
    "\t",
    "{{",
    "}}",
    "{{ x }}",
    "{%",
    "%}",
    "{% if x %}",
    "{#",
    "#",
    "# comment",
    "\\N{BULLET}",
    "\\x00",
    "\\u2028",
    "\\U0001F600",
    "\ufeff",
    "\u202e",
    "\U0001f600",
    "e\u0301",
    "\ud800",
    "\udfff",
    '")\nimport os\nos.system("echo pwned")\n#',
    "'; __import__('os'); '",
)
UNIT = settings(
    max_examples=1000,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

hostile_text = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=5), max_size=4).map("".join)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | hostile_text
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(hostile_text, children, max_size=3)
    ),
    max_leaves=6,
)


def assert_literal_module(content: str, names: list[str], comment_lines: int) -> dict[str, Any]:
    """The module compiles, holds only ``NAME = <literal>`` and only its header comments."""
    content.encode("utf-8")  # strict: no lone surrogate reached the text
    assert "\x00" not in content and "\r" not in content
    compile(content, "<generated>", "exec")
    tree = ast.parse(content)
    assigned = []
    for node in tree.body:
        assert isinstance(node, ast.Assign), ast.dump(node)[:200]
        assert len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        ast.literal_eval(node.value)
        assigned.append(node.targets[0].id)
    assert assigned == names
    comments = [
        token
        for token in tokenize.generate_tokens(io.StringIO(content).readline)
        if token.type == tokenize.COMMENT
    ]
    assert [c.start for c in comments] == [(line, 0) for line in range(1, comment_lines + 1)]
    # The writer's fast check vouches for it too (it would fall back to parsing otherwise).
    assert builds_literals_only(content, "<generated>")
    assert recognised(content) and encoding_problem(content) is None  # without compile()
    return parse_literal_module(content)


# -- unit level ------------------------------------------------------------------------------------


@pytest.mark.slow
@UNIT
@given(hostile_text)
def test_string_literal_round_trips_and_comment_text_stays_on_its_line(text: str) -> None:
    literal = string_literal(text)
    assert same(ast.literal_eval(literal), text)
    literal.encode("utf-8")
    comment = comment_text(text)
    comment.encode("utf-8")
    assert not set(comment) & {"\n", "\r", "\x00"}
    tokens = list(tokenize.generate_tokens(io.StringIO(f"# {comment}\nX = 1\n").readline))
    assert [t.type for t in tokens[:2]] == [tokenize.COMMENT, tokenize.NL]


@pytest.mark.process
@UNIT
@given(st.one_of(json_values, st.tuples(json_values, json_values)))
def test_python_literal_round_trips_any_json_value(value: Any) -> None:
    values = assert_literal_module(f"X = {python_literal(value)}\n", ["X"], 0)
    assert same(values["X"], value)


@st.composite
def tool_definitions(draw: st.DrawFn) -> ToolDefinition:
    parameter = draw(hostile_text)
    wire: dict[str, Any] = {"name": draw(hostile_text)}
    if draw(st.booleans()):
        wire["title"] = draw(hostile_text)
    wire["description"] = draw(hostile_text)
    wire["inputSchema"] = {
        "type": "object",
        "properties": {
            parameter: {
                "type": "string",
                "description": draw(hostile_text),
                "enum": draw(st.lists(hostile_text, max_size=3)),
                "pattern": draw(hostile_text),
                "default": draw(json_values),
            }
        },
        "required": [parameter],
        "additionalProperties": False,
    }
    wire["annotations"] = {"title": draw(hostile_text), "readOnlyHint": draw(st.booleans())}
    wire["_meta"] = draw(st.dictionaries(hostile_text, json_values, max_size=2))
    return ToolDefinition(
        wire=wire,
        function=draw(hostile_text),
        box_field=draw(st.none() | hostile_text),
        position=Position(draw(st.integers(1, 10**6)), draw(st.integers(1, 10**4))),
    )


def config_with(version: str, regenerate_command: str, server_name: str = "") -> Config:
    root = Path("/project")
    return Config(
        server_name=server_name,
        root=root,
        config_file=root / "pyproject.toml",
        sources=(root / "pkg",),
        output=root / "generated",
        version=version,
        regenerate_command=regenerate_command,
    )


MODULE_NAMES = [
    "FORMAT",
    "GENERATOR_VERSION",
    "SOURCE_PATH",
    "SOURCE_SHA256",
    "SOURCE_MODULE",
    "FLAVOR",
    "PROTOCOLS",
    "TOOLS",
]


@pytest.mark.slow
@pytest.mark.process
@UNIT
@given(
    tools=st.lists(tool_definitions(), min_size=1, max_size=2),
    source_path=hostile_text,
    module=hostile_text,
    sha=hostile_text,
    command=hostile_text,
)
def test_rendered_module_is_literal_and_round_trips(
    tools: list[ToolDefinition], source_path: str, module: str, sha: str, command: str
) -> None:
    source = ScannedModule(
        path="/project/pkg/tools.py",
        relative_path=source_path,
        module=module,
        import_root="/project",
        sha256=sha,
        tools=(),
    )
    rendered = render_module(ModuleDefinition(source, tuple(tools)), config_with("1.0", command))
    values = assert_literal_module(rendered.content, MODULE_NAMES, 3)
    assert same(values["SOURCE_PATH"], source_path)
    assert same(values["SOURCE_MODULE"], module)
    assert same(values["SOURCE_SHA256"], sha)
    expected = tuple(
        {
            **tool.wire,
            "x-codegen": {
                "function": tool.function,
                "box": {"field": tool.box_field} if tool.box_field is not None else None,
                "line": tool.position.line,
                "column": tool.position.column,
            },
        }
        for tool in tools
    )
    # An empty box field means "not boxed" in the renderer, which is also what a reader sees.
    for entry in expected:
        if entry["x-codegen"]["box"] == {"field": ""}:
            entry["x-codegen"]["box"] = None
    assert same(values["TOOLS"], expected)


@pytest.mark.slow
@pytest.mark.process
@UNIT
@given(
    version=hostile_text,
    command=hostile_text,
    name=hostile_text,
    paths=st.lists(hostile_text, max_size=5, unique=True),
)
def test_rendered_manifest_is_literal_and_round_trips(
    version: str, command: str, name: str, paths: list[str]
) -> None:
    modules = [RenderedFile(path, "") for path in paths]
    rendered = render_manifest(modules, config_with(version, command, name))
    values = assert_literal_module(
        rendered.content,
        [
            "FORMAT",
            "GENERATOR_VERSION",
            "SCHEMA_SET_VERSION",
            "SERVER_NAME",
            "FLAVOR",
            "PROTOCOLS",
            "DEPENDENCIES",
            "MODULES",
        ],
        2,
    )
    assert same(values["SCHEMA_SET_VERSION"], version)
    assert same(values["SERVER_NAME"], name)
    assert same(values["MODULES"], tuple(sorted(paths)))


# -- end to end ------------------------------------------------------------------------------------

#: One string with every fragment that pydantic accepts (it rejects lone surrogates outright).
EVERYTHING = "".join(f for f in FRAGMENTS if not re.search("[\ud800-\udfff]", f))


def tool_source(index: int, text: str) -> str:
    """A tool whose title, description, default, Literal, Enum, dict and pattern all hold ``text``."""
    return f"""

class Choice{index}(enum.Enum):
    FIRST = {text!a}
    SECOND = {text + "-2"!a}


@tool(title={text!a}, description={text!a})
def hostile_{index}(
    matched: Annotated[str, Field(pattern={re.escape(text)!a})],
    plain: str = {text!a},
    picked: Literal[{text!a}, {text + "-other"!a}] = {text + "-other"!a},
    choice: Choice{index} = Choice{index}.SECOND,
    mapping: dict[str, str] = {{{text!a}: {text!a}}},
) -> str:
    return plain
"""


HEADER = """import enum
from typing import Annotated, Literal

from pydantic import Field

from mcp_codegen.decorators import tool
"""


def check_hostile_tool(tool: dict[str, Any], text: str) -> None:
    assert same(tool["title"], text)
    assert same(tool["description"], text)
    properties = tool["inputSchema"]["properties"]
    assert same(properties["matched"]["pattern"], re.escape(text))
    assert re.fullmatch(properties["matched"]["pattern"], text)
    assert same(properties["plain"]["default"], text)
    assert same(properties["picked"]["enum"], [text, text + "-other"])
    assert same(properties["picked"]["default"], text + "-other")
    assert same(properties["choice"]["enum"], [text, text + "-2"])
    assert same(properties["choice"]["default"], text + "-2")
    assert same(properties["mapping"]["default"], {text: text})


def generate_and_read(project: Project, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    result = project.run("generate")
    assert result.returncode == 0, result.stderr
    content = (project.root / "generated" / "pkg" / f"{name}.py").read_text(encoding="utf-8")
    values = assert_literal_module(content, MODULE_NAMES, 3)
    # The top-level tool dicts are the variant clients before 2026-07-28 get.
    exported = project.run("export", "--protocol", "2025-11-25")
    assert exported.returncode == 0, exported.stderr
    return values, json.loads(exported.stdout)


@pytest.mark.process
def test_hostile_text_end_to_end(project: Project) -> None:
    texts = [EVERYTHING, *(f for f in FRAGMENTS if not re.search("[\ud800-\udfff]", f))]
    body = "".join(tool_source(i, text) for i, text in enumerate(texts))
    # Docstrings are cleaned like inspect.cleandoc; a one-line docstring reads back as written.
    one_line = EVERYTHING.replace("\n", " ").replace("\r", " ").replace("\t", " ").strip()
    body += f"""

@tool
def documented(unicode_é: str, 名前: int = 1) -> None:
    {one_line!a}


@tool
def paragraphs(x: int) -> None:
    {"First " + one_line + chr(10) + chr(10) + "Second " + one_line!a}
"""
    project.write("pkg/hostile.py", HEADER + body)
    values, exported = generate_and_read(project, "hostile")
    tools = {tool["name"]: tool for tool in values["TOOLS"]}
    assert len(tools) == len(texts) + 2
    for index, text in enumerate(texts):
        check_hostile_tool(tools[f"hostile_{index}"], text)
    assert same(tools["documented"]["description"], one_line)
    assert list(tools["documented"]["inputSchema"]["properties"]) == ["unicode_é", "名前"]
    assert same(tools["paragraphs"]["description"], f"First {one_line}\n\nSecond {one_line}")
    wire = {tool["name"]: tool for tool in exported["tools"]}
    for name, tool in tools.items():
        assert wire[name] == {k: v for k, v in tool.items() if k != "x-codegen"}


@pytest.mark.process
@settings(max_examples=4, derandomize=True, database=None, deadline=None)
@given(
    texts=st.lists(
        st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=12),
        min_size=8,
        max_size=8,
        unique=True,
    )
)
def test_generated_hostile_text_end_to_end(
    tmp_path_factory: pytest.TempPathFactory, texts: list[str]
) -> None:
    root = tmp_path_factory.mktemp("hostile") / "proj"
    project = Project(root)
    project.write("pkg/__init__.py", "")
    project.configure()
    project.write("pkg/drawn.py", HEADER + "".join(tool_source(i, t) for i, t in enumerate(texts)))
    values, _ = generate_and_read(project, "drawn")
    for index, text in enumerate(texts):
        check_hostile_tool(values["TOOLS"][index], text)


@pytest.mark.process
def test_a_hostile_tool_name_is_refused_not_rendered(project: Project) -> None:
    project.write(
        "pkg/named.py",
        f"from mcp_codegen.decorators import tool\n\n\n@tool(name={EVERYTHING!a})\n"
        "def named(x: int) -> int:\n    return x\n",
    )
    result = project.run("generate")
    assert result.returncode == 2
    # EVERYTHING holds control characters (NUL, newlines): those names cannot be served.
    assert "pkg/named.py:4:12: invalid tool name" in result.stderr
    assert "control character" in result.stderr
    assert not (project.root / "generated").exists()


@pytest.mark.process
def test_a_hostile_printable_tool_name_is_rendered_as_a_literal(project: Project) -> None:
    """Quotes, backslashes, template and comment syntax in a name only warn (the spec says
    SHOULD); the module stays pure literals and the name round-trips exactly."""
    name = "".join(c for c in EVERYTHING if unicodedata.category(c) != "Cc")
    project.write("pkg/__init__.py", "")
    project.configure()
    project.write(
        "pkg/named.py",
        f"from mcp_codegen.decorators import tool\n\n\n@tool(name={name!a})\n"
        "def named(x: int) -> int:\n    return x\n",
    )
    values, exported = generate_and_read(project, "named")
    assert same(values["TOOLS"][0]["name"], name)
    assert same(exported["tools"][0]["name"], name)

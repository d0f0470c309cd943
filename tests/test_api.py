"""The public surface, pinned: a change to it is a visible change to this file.

Public are the modules and names below (docs/development.md, "Code rules"): ``mcp_codegen.runtime``,
``mcp_codegen.decorators``, ``mcp_codegen.diff``, ``python -m mcp_codegen`` and the commands and
options of ``mcp-codegen``. Everything else lives in private packages (``mcp_codegen._generator``
and its siblings) and may change in any release. The CLI is read through its own ``--help``, as a
user reads it.
"""

from __future__ import annotations

import contextlib
import enum
import importlib
import inspect
import io
import pkgutil
import re

import mcp_codegen
from mcp_codegen._cli import main as cli_main

PUBLIC_MODULES = [
    "mcp_codegen",
    "mcp_codegen.__main__",
    "mcp_codegen.decorators",
    "mcp_codegen.diff",
    "mcp_codegen.diff.__main__",
    "mcp_codegen.runtime",
    "mcp_codegen.runtime.__main__",
]

PUBLIC_NAMES = {
    "mcp_codegen": ["__version__"],
    "mcp_codegen.decorators": ["tool"],
    "mcp_codegen.diff": [
        "Change",
        "ChangeKind",
        "DiffReport",
        "Severity",
        "Side",
        "ToolEntry",
        "build_report",
        "compare_tools",
        "diff_sides",
        "read_directory",
        "read_revision",
    ],
    "mcp_codegen.runtime": [
        "GeneratedModuleError",
        "GeneratedSchemaError",
        "StaleSchemaWarning",
        "SUPPORTED_FORMAT",
        "ToolBinding",
        "ToolRegistry",
        "load_tools",
        "main",
        "tool",
        "use_generated",
    ],
}

SIGNATURES = {
    "mcp_codegen.decorators.tool": "(fn: 'Callable[..., Any] | None' = None, /, **options: 'Any') -> 'Any'",
    "mcp_codegen.diff.build_report": "(base: 'Side', head: 'Side', tokenizer: 'str' = 'bytes/4', clients: 'ClientSettings | None' = None) -> 'DiffReport'",
    "mcp_codegen.diff.compare_tools": "(old: 'Mapping[str, JSON]', new: 'Mapping[str, JSON]', name: 'str') -> 'list[Change]'",
    "mcp_codegen.diff.diff_sides": "(base: 'Side', head: 'Side') -> 'list[Change]'",
    "mcp_codegen.diff.read_directory": "(output: 'Path', label: 'str | None' = None) -> 'Side'",
    "mcp_codegen.diff.read_revision": "(repo: 'Path', revision: 'str', output_rel: 'str', label: 'str | None' = None) -> 'Side'",
    "mcp_codegen.runtime.load_tools": "(source: 'str | os.PathLike[str] | ModuleType', *, profile: 'str | None' = None) -> 'ToolRegistry'",
    "mcp_codegen.runtime.main": "(argv: 'Sequence[str] | None' = None, *, prog: 'str' = 'python -m mcp_codegen.runtime') -> 'int'",
    "mcp_codegen.runtime.tool": "(fn: 'Callable[..., Any] | None' = None, /, **options: 'Any') -> 'Any'",
    "mcp_codegen.runtime.use_generated": "(path: 'str | os.PathLike[str] | None' = None, *, strict: 'bool' = False) -> 'GeneratedIndex'",
}

CLASS_MEMBERS = {
    "mcp_codegen.diff.Change": [
        "acknowledged",
        "effective_level",
        "fields",
        "kind",
        "level",
        "line",
        "message",
        "new",
        "old",
        "path",
        "pointer",
        "severity",
        "sort_key",
        "to_json",
        "tool",
    ],
    "mcp_codegen.diff.ChangeKind": [
        "ANNOTATION_CHANGED",
        "BOX_FIELD_CHANGED",
        "CLIENT_PROFILE_FAILS",
        "CLIENT_PROFILE_LOSES",
        "DEFAULT_CHANGED",
        "DESCRIPTION_CHANGED",
        "DESTRUCTIVE_HINT_ENABLED",
        "FORMAT_CHANGED",
        "IDEMPOTENT_HINT_DISABLED",
        "INPUT_CONSTRAINT_LOOSENED",
        "INPUT_CONSTRAINT_TIGHTENED",
        "INPUT_ENUM_VALUE_ADDED",
        "INPUT_ENUM_VALUE_REMOVED",
        "INPUT_MADE_OPTIONAL",
        "INPUT_MADE_REQUIRED",
        "INPUT_OPTIONAL_ADDED",
        "INPUT_REMOVED",
        "INPUT_REQUIRED_ADDED",
        "INPUT_TYPE_CHANGED",
        "INPUT_TYPE_NARROWED",
        "INPUT_TYPE_WIDENED",
        "KEYWORD_UNDECIDED",
        "NAME_OVER_BUDGET",
        "NATURAL_BOX_CHANGED",
        "OPEN_WORLD_HINT_ENABLED",
        "OUTPUT_CONSTRAINT_LOOSENED",
        "OUTPUT_CONSTRAINT_TIGHTENED",
        "OUTPUT_ENUM_VALUE_ADDED",
        "OUTPUT_ENUM_VALUE_REMOVED",
        "OUTPUT_FIELD_ADDED",
        "OUTPUT_FIELD_ADDED_TO_CLOSED",
        "OUTPUT_FIELD_MADE_OPTIONAL",
        "OUTPUT_FIELD_MADE_REQUIRED",
        "OUTPUT_FIELD_REMOVED",
        "OUTPUT_REVISIONS_ADDED",
        "OUTPUT_REVISIONS_DROPPED",
        "OUTPUT_SCHEMA_ADDED",
        "OUTPUT_SCHEMA_REMOVED",
        "OUTPUT_TYPE_CHANGED",
        "OUTPUT_TYPE_NARROWED",
        "PATTERN_CHANGED",
        "READ_ONLY_HINT_DISABLED",
        "REF_RETARGETED",
        "REF_UNRESOLVED",
        "SCHEMA_ANNOTATION_CHANGED",
        "SIZE_LIMIT_EXCEEDED",
        "TITLE_CHANGED",
        "TOOL_ADDED",
        "TOOL_METADATA_CHANGED",
        "TOOL_REMOVED",
        "TOOL_RENAMED",
        "UNION_CHANGED",
        "from_rule",
        "from_slug",
        "rule",
    ],
    "mcp_codegen.diff.DiffReport": [
        "acknowledged",
        "base_dependencies",
        "base_label",
        "base_tools",
        "base_version",
        "bump",
        "changed_tools",
        "changes",
        "count",
        "counts",
        "dependency_changes",
        "excluded",
        "fails",
        "head_dependencies",
        "head_label",
        "head_tools",
        "head_version",
        "head_version_ok",
        "proposed_version",
        "size",
        "stale",
        "tools",
        "warnings",
    ],
    "mcp_codegen.diff.Severity": ["BREAKING", "COMPATIBLE", "NOTABLE", "UNKNOWN", "rank"],
    "mcp_codegen.diff.Side": ["dependencies", "exists", "label", "tools", "version", "warnings"],
    "mcp_codegen.diff.ToolEntry": [
        "field_locations",
        "line",
        "line_for",
        "locate",
        "location_for",
        "malformed_fields",
        "module",
        "name",
        "protocols",
        "source_path",
        "tool",
    ],
    "mcp_codegen.runtime.GeneratedModuleError": [],
    "mcp_codegen.runtime.GeneratedSchemaError": [],
    "mcp_codegen.runtime.StaleSchemaWarning": [],
    "mcp_codegen.runtime.ToolBinding": [
        "box_field",
        "box_for",
        "column",
        "factory",
        "flavor",
        "function",
        "line",
        "module",
        "module_path",
        "name",
        "natural",
        "qualname",
        "registrar",
        "registrar_parameter",
        "result_meta",
    ],
    "mcp_codegen.runtime.ToolRegistry": [
        "binding",
        "flavor",
        "generator_version",
        "get_tool",
        "hand_over",
        "list_tools",
        "locations",
        "modules",
        "names",
        "origin",
        "profile",
        "protocols",
        "restore_arguments",
        "schema_set_version",
        "server_name",
        "servers",
        "unlisted_locations",
        "wire_tools",
    ],
}

COMMANDS: dict[str, list[str]] = {
    "": ["--config", "--help", "--version", "-h", "COMMAND"],
    "generate": [
        "--config",
        "--help",
        "--no-cache",
        "--no-daemon",
        "--quiet",
        "--vary-hash-seed",
        "--verbose",
        "-h",
        "-q",
        "-v",
    ],
    "check": [
        "--config",
        "--help",
        "--no-cache",
        "--no-daemon",
        "--quiet",
        "--vary-hash-seed",
        "--verbose",
        "-h",
        "-q",
        "-v",
    ],
    "export": [
        "--composed",
        "--config",
        "--help",
        "--indent",
        "--output",
        "--profile",
        "--protocol",
        "--server",
        "-h",
    ],
    "lint": [
        "--config",
        "--format",
        "--help",
        "--output",
        "--profile",
        "--sizes",
        "--strict",
        "-h",
    ],
    "verify": ["--against", "--config", "--help", "--output", "-h"],
    "watch": ["--config", "--help", "-h"],
    "cache": ["--config", "--help", "-h", "{info,prune,clean}"],
    "serve": [
        "--call-timeout",
        "--config",
        "--generated",
        "--help",
        "--host",
        "--http-path",
        "--log-level",
        "--max-message-bytes",
        "--name",
        "--no-fast-path",
        "--path",
        "--port",
        "--profile",
        "--strict-output",
        "--transport",
        "-h",
    ],
    "run": [
        "--config",
        "--generated",
        "--help",
        "--no-fast-path",
        "--no-gc-pause",
        "--strict",
        "-h",
        "TARGET",
    ],
    "init": ["--config", "--force", "--help", "--no-generate", "-h", "directory"],
    "daemon": ["--config", "--help", "--idle-timeout", "-h", "{start,stop,status,run}"],
    "merge-driver": ["--config", "--help", "-h", "ANCESTOR", "CURRENT", "OTHER"],
    "diff": [
        "--acknowledge",
        "--color",
        "--config",
        "--date",
        "--fail-on",
        "--format",
        "--help",
        "--json-schema",
        "--output",
        "--write-changelog",
        "-h",
        "BASE",
        "HEAD",
    ],
}


def _public(name: str) -> bool:
    return not any(part.startswith("_") and not part.startswith("__") for part in name.split("."))


def _members(cls: type) -> list[str]:
    """The public attributes a user of ``cls`` can reach: its own and its project bases', with
    an enum's members and a dataclass's fields; not those of ``object``, ``Exception``, ``Enum``."""
    found = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("mcp_codegen"):
            continue
        found.update(n for n in vars(klass) if not n.startswith("_"))
        found.update(n for n in getattr(klass, "__annotations__", {}) if not n.startswith("_"))
    if issubclass(cls, enum.Enum):
        found.update(cls.__members__)
    return sorted(found)


def _help(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        cli_main([*argv, "--help"])
    return out.getvalue()


def _options(text: str) -> list[str]:
    """The option strings and positional arguments a ``--help`` text lists."""
    found: set[str] = set()
    section = ""
    for line in text.splitlines():
        if line and not line.startswith(" "):
            section = line
            continue
        entry = re.match(r"^  (\S.*?)(?:\s{2,}|$)", line)
        if entry is None:
            continue
        head = entry.group(1)
        if head.startswith("-"):
            found.update(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", head))
        elif section.startswith("positional"):
            found.add(head.split()[0])
    return sorted(found)


def _commands(text: str) -> list[str]:
    return re.findall(r"^    ([a-z][\w-]*)", text, flags=re.MULTILINE)


def test_the_public_modules() -> None:
    found = [
        module.name
        for module in pkgutil.walk_packages(mcp_codegen.__path__, "mcp_codegen.")
        if _public(module.name)
    ]
    assert sorted(["mcp_codegen", *found]) == PUBLIC_MODULES


def test_the_public_names() -> None:
    for module_name, names in PUBLIC_NAMES.items():
        module = importlib.import_module(module_name)
        exported = getattr(module, "__all__", None)
        assert exported is not None or module_name == "mcp_codegen", module_name
        assert sorted(exported or ["__version__"]) == sorted(names), module_name
        for name in names:
            assert getattr(module, name) is not None


def test_the_signatures_of_public_functions() -> None:
    found = {}
    for module_name, names in PUBLIC_NAMES.items():
        module = importlib.import_module(module_name)
        for name in names:
            value = getattr(module, name)
            if inspect.isfunction(value):
                found[f"{module_name}.{name}"] = str(inspect.signature(value))
    assert found == SIGNATURES


def test_the_members_of_public_classes() -> None:
    found = {}
    for module_name, names in PUBLIC_NAMES.items():
        module = importlib.import_module(module_name)
        for name in names:
            if isinstance(value := getattr(module, name), type):
                found[f"{module_name}.{name}"] = _members(value)
    assert found == CLASS_MEMBERS


def test_the_commands_and_their_options() -> None:
    top = _help()
    found = {"": _options(top)}
    for command in _commands(top):
        found[command] = _options(_help(command))
    assert found == COMMANDS


def test_the_help_readers() -> None:
    text = (
        "usage: x [-h] COMMAND ...\n\npositional arguments:\n  COMMAND\n    generate    write\n"
        "    merge-driver  merge\n\noptions:\n  -h, --help  show\n  --config PATH, -c PATH  a file\n"
        "                          wrapped help --not-an-option\n"
    )
    assert _commands(text) == ["generate", "merge-driver"]
    assert _options(text) == ["--config", "--help", "-c", "-h", "COMMAND"]

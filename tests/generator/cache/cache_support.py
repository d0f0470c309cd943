"""Shared by the cache tests: the small project the incremental property test edits (its state,
the edit steps and how each is applied), and the two-module project of the manifest and build
entry tests."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

from tests.helpers.project import Project

TYPES = (
    "int",
    "str",
    "list[int]",
    "Shared",
    "dict[str, float]",
    "Optional[str]",
    "list[Shared]",
    "Extra",
)
#: ``pkg/extra.py``'s model, imported only by the modules with a tool that uses it: its fields
#: read a class and a constant from ``pkg/consts.py`` (the default is inlined in the schema)
EXTRA_FIELDS = (
    ("colour: Colour",),
    ("colour: Colour", "count: int = Field(default=LIMIT)"),
    ("count: list[int] = Field(default_factory=list, max_length=LIMIT)",),
)
#: ``pkg/consts.py``: the constant and the enumeration ``Extra`` reads
CONSTS = (
    (3, ("red", "green")),
    (5, ("red", "green")),
    (5, ("red", "blue", "green")),
)
SHARED_FIELDS = (
    ("a: int",),
    ("a: int", "b: str = 'x'"),
    ("a: float",),
    ("a: int", "tags: list[str] = []"),
)
CONFIGS = (
    "",
    'box_field = "value"\n',
    'version = "2.0.0"\n',
    "permissive_fallback = true\n",
)


@dataclass
class State:
    modules: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # name -> tools
    shared: int = 0
    config: int = 0
    counter: int = 0
    extra: int = 0
    consts: int = 0
    #: the package's ``__init__`` imports every tool module (to register them), re-exports
    #: ``Extra`` and ``LIMIT`` (which the tools import from it) and shifts ``LIMIT`` by this
    aggregated: bool = False
    shift: int = 0

    def name(self) -> str:
        self.counter += 1
        return f"tool_{self.counter}"

    @classmethod
    def start(cls, aggregated: bool = False) -> State:
        """Three tool modules, two of them using the shared model."""
        state = cls(aggregated=aggregated)
        state.modules = {
            "t0": [(state.name(), "int"), (state.name(), "Shared")],
            "t1": [(state.name(), "list[Shared]")],
            "t2": [(state.name(), "str")],
        }
        return state


def render_module(tools: list[tuple[str, str]], aggregated: bool = False) -> str:
    lines = [
        "from typing import Optional",
        "",
        "from mcp_codegen.decorators import tool",
        "from pkg.models import Shared",
    ]
    if not any(kind == "Extra" for _, kind in tools):
        pass
    elif aggregated:  # from the package, which re-exports them
        lines.append("from pkg import LIMIT, Extra")
    else:
        lines += ["from pkg.consts import LIMIT", "from pkg.extra import Extra"]
    lines.append("")
    for name, kind in tools:
        limit = ", limit: int = LIMIT" if kind == "Extra" else ""
        lines += [
            "",
            "@tool",
            f"def {name}(value: {kind}{limit}) -> {kind}:",
            f'    """{name}."""',
            "    return value",
            "",
        ]
    return "\n".join(lines)


def render_init(state: State) -> str:
    if not state.aggregated:
        return ""
    lines = ["from pkg.consts import LIMIT", "from pkg.extra import Extra", ""]
    if state.shift:
        lines += [f"LIMIT = LIMIT + {state.shift}", ""]
    lines += [f"from pkg import {module}  # noqa: E402" for module in sorted(state.modules)]
    return "\n".join(lines) + "\n"


def write_state(root: Path, state: State) -> None:
    package = root / "pkg"
    fields = "\n".join(f"    {f}" for f in SHARED_FIELDS[state.shared])
    replace_text(
        package / "models.py",
        f"from pydantic import BaseModel\n\n\nclass Shared(BaseModel):\n{fields}\n",
    )
    fields = "\n".join(f"    {f}" for f in EXTRA_FIELDS[state.extra])
    replace_text(
        package / "extra.py",
        "from pydantic import BaseModel, Field\n\nfrom pkg.consts import LIMIT, Colour\n\n\n"
        f"class Extra(BaseModel):\n{fields}\n",
    )
    limit, colours = CONSTS[state.consts]
    members = "".join(f"    {c} = {c!r}\n" for c in colours)
    replace_text(
        package / "consts.py",
        f"from enum import Enum\n\nLIMIT = {limit}\n\n\nclass Colour(Enum):\n{members}",
    )
    replace_text(package / "__init__.py", render_init(state))
    for module, tools in state.modules.items():
        replace_text(package / f"{module}.py", render_module(tools, state.aggregated))
    for path in package.glob("t*.py"):
        if path.stem not in state.modules:
            path.unlink()
    replace_text(
        root / "pyproject.toml", '[tool.mcp-codegen]\nsources = ["pkg"]\n' + CONFIGS[state.config]
    )


def replace_text(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def apply_step(root: Path, state: State, step: tuple[str, int, int]) -> None:
    kind, a, b = step
    names = sorted(state.modules)
    module = names[a % len(names)]
    tools = state.modules[module]
    total = sum(len(t) for t in state.modules.values())
    if kind == "add":
        tools.append((state.name(), TYPES[b % len(TYPES)]))
    elif kind == "rename" and tools:
        index = b % len(tools)
        tools[index] = (state.name(), tools[index][1])
    elif kind == "remove" and tools and total > 1:
        tools.pop(b % len(tools))
    elif kind == "retype" and tools:
        index = b % len(tools)
        tools[index] = (tools[index][0], TYPES[(TYPES.index(tools[index][1]) + 1 + b) % len(TYPES)])
    elif kind == "shared":
        state.shared = (state.shared + 1 + b) % len(SHARED_FIELDS)
    elif kind == "delete" and len(state.modules) > 1 and total > len(tools):
        del state.modules[module]
    elif kind == "new":
        state.modules[f"t{state.counter + 100}"] = [(state.name(), TYPES[b % len(TYPES)])]
    elif kind == "extra":
        state.extra = (state.extra + 1 + b) % len(EXTRA_FIELDS)
    elif kind == "consts":
        state.consts = (state.consts + 1 + b) % len(CONSTS)
    elif kind == "init":
        state.shift = (state.shift + 1 + b) % 3
    elif kind == "config":
        state.config = (state.config + 1 + b) % len(CONFIGS)
    elif kind == "touch":
        path = root / "pkg" / f"{module}.py"
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        return
    write_state(root, state)


STEPS = st.tuples(
    st.sampled_from(
        [
            "add",
            "rename",
            "remove",
            "retype",
            "shared",
            "extra",
            "consts",
            "init",
            "delete",
            "new",
            "config",
            "touch",
        ]
    ),
    st.integers(0, 7),
    st.integers(0, 7),
)


TOOL = '''
from mcp_codegen.decorators import tool


@tool
def {name}(count: int = 1) -> int:
    """Counts."""
    return count
'''


def two_module_project(project: Project) -> Project:
    """``project`` with two one-tool modules, ``pkg.alpha`` and ``pkg.beta``."""
    project.configure()
    project.write("pkg/__init__.py", "")
    for name in ("alpha", "beta"):
        project.write(f"pkg/{name}.py", TOOL.format(name=name))
    return project

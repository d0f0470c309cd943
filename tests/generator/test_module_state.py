"""No module-global handover: what a build keeps between builds is the state of an object its
session owns (``BuildSession``: the configuration, ``WarmWorkers``, ``CacheTiers``), never a
module's. Two sessions in one process share nothing but what never changes in the process."""

from __future__ import annotations

import ast
import importlib
import types
from pathlib import Path, PurePath

import pytest

import mcp_codegen
from mcp_codegen._generator.workers import prestart

PACKAGE = Path(mcp_codegen.__file__).parent
#: The modules that hold what a build session keeps (the cache tiers, the stage order).
SESSION_MODULES = sorted(
    [
        *(PACKAGE / "_generator" / "cache").glob("*.py"),
        PACKAGE / "_generator" / "pipeline.py",
    ]
)
#: Functions memoised for the process, each a fact that does not change while it runs: the
#: generator's own files, the interpreter and the installed distributions (the daemon stops when
#: those change: ``mcp_codegen._cli.daemon.wire.identity``). Not a handover: every session of the
#: process would compute the same. A new one is a change to this list.
PROCESS_FACTS = {
    "mcp_codegen._generator.cache.keys": {
        "_generator_digest",
        "_listing",
        "installed_version",
        "environment_key",
        "_distributions",
    },
}
_IMMUTABLE = (
    type(None),
    bool,
    int,
    float,
    str,
    bytes,
    frozenset,
    range,
    PurePath,
    types.MappingProxyType,
)
_MUTABLE_LITERALS = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)
_MUTABLE_CALLS = {"dict", "list", "set", "defaultdict", "OrderedDict", "deque", "Counter"}


def _name(path: Path, root: Path = PACKAGE.parent) -> str:
    """The import name of the module at ``path`` under the import root ``root``."""
    return ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")


def _immutable(value: object) -> bool:
    if isinstance(value, tuple):
        return all(_immutable(item) for item in value)
    return isinstance(value, _IMMUTABLE)


def _assigned(body: list[ast.stmt]) -> list[tuple[str, ast.expr | None, int]]:
    """``(name, value, line)`` of each name a block's own statements bind by assignment."""
    found = []
    for node in body:
        if isinstance(node, ast.Assign):
            targets = [t for t in node.targets if isinstance(t, ast.Name)]
            found += [(t.id, node.value, node.lineno) for t in targets]
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and isinstance(node.target, ast.Name):
            found.append((node.target.id, node.value, node.lineno))
    return found


def _mutable_literal(value: ast.expr | None) -> bool:
    if isinstance(value, _MUTABLE_LITERALS):
        return True
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in _MUTABLE_CALLS
    )


def _memoised(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in {"cache", "lru_cache", "cached_property"}:
            return True
    return False


def module_state(path: Path, root: Path = PACKAGE.parent) -> list[str]:
    """What in the module at ``path`` (imported from ``root``) is state shared by whoever
    imports it."""
    name = _name(path, root)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = importlib.import_module(name)
    found = [
        f"{name}:{node.lineno}: a `{type(node).__name__.lower()}` statement"
        for node in ast.walk(tree)
        if isinstance(node, ast.Global | ast.Nonlocal)
    ]
    for target, _, line in _assigned(tree.body):
        value = getattr(module, target, None)
        if not _immutable(value):
            found.append(f"{name}:{line}: {target} is a {type(value).__name__}")
    classes = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    for node in classes:
        found += [
            f"{name}:{line}: {node.name}.{target} is one object for every instance"
            for target, value, line in _assigned(node.body)
            if _mutable_literal(value)
        ]
    # A memo on a module's or a class's function is the process's; one on a function made per
    # call (a closure) is not.
    allowed = PROCESS_FACTS.get(name, set())
    for node in [*tree.body, *(statement for c in classes for statement in c.body)]:
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and _memoised(node)
            and node.name not in allowed
        ):
            found.append(f"{name}:{node.lineno}: {node.name} is memoised for the process")
    return found


@pytest.mark.parametrize("path", SESSION_MODULES, ids=_name)
def test_the_session_modules_keep_no_state(path: Path) -> None:
    assert module_state(path) == []


def test_the_scan_finds_what_it_looks_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan itself: each kind of module state it must report is reported."""
    package = tmp_path / "stateful_probe"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "held.py").write_text(
        "from functools import cache\n"
        "LIMIT = 3\n"
        "NAMES = ('a', 'b')\n"
        "_memory = {}\n"
        "_deferred: list[int] | None = None\n"
        "class _Tier:\n"
        "    pass\n"
        "_tier = _Tier()\n"
        "class Store:\n"
        "    held = []\n"
        "def defer() -> None:\n"
        "    global _deferred\n"
        "    _deferred = []\n"
        "@cache\n"
        "def remembered() -> int:\n"
        "    return 1\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    found = module_state(package / "held.py", tmp_path)
    assert [entry.split(": ", 1)[1] for entry in found] == [
        "a `global` statement",
        "_memory is a dict",
        "_tier is a _Tier",
        "Store.held is one object for every instance",
        "remembered is memoised for the process",
    ]


def test_prestart_hands_nothing_over_through_the_module() -> None:
    """Only the ``WarmWorkers`` handle carries workers."""
    names = {name for name in vars(prestart) if not name.startswith("__")}
    assert not {"_started", "_scanners", "_decided", "take", "discard", "keep_started"} & names

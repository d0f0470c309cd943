"""Find a project's ``[tool.mcp-codegen]`` configuration and read it: the one reader behind the
generator's ``load_config``, the diff policy, ``mcp-codegen run`` / ``serve`` and ``use_generated``
(standard library only; ``tomllib`` is imported only once a configuration is found).

A configuration is ``[tool.mcp-codegen]`` in ``mcp-codegen.toml`` or ``pyproject.toml``; in one
directory ``mcp-codegen.toml`` wins. Keys are snake_case; a kebab-case spelling (``fail-on`` in
``[tool.mcp-codegen.diff]``, the spelling before snake_case was chosen) is read as its snake_case
key, with a warning that names the new spelling.
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import PathFinder

from mcp_codegen._shared.toml_positions import key_position, parse_error_position

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The files a configuration lives in, in the order one directory is searched.
CONFIG_NAMES = ("mcp-codegen.toml", "pyproject.toml")
TABLE = "tool.mcp-codegen"
#: Sub-tables whose keys are spelled snake_case too (``diff.rules`` holds rule IDs, not keys).
_KEYED_TABLES = ("diff",)
#: ``output``'s default, relative to the configuration's directory.
DEFAULT_OUTPUT = "generated"


class ConfigError(ValueError):
    """A configuration that cannot be read: ``path:line:col: message``."""

    def __init__(self, path: str, line: int, column: int, message: str) -> None:
        self.path, self.line, self.column, self.message = path, line, column, message
        where = f"{path}:{line}:{column or 1}" if line else path
        super().__init__(f"{where}: {message}")


class ProjectConfig:
    """A configuration file's text and its ``[tool.mcp-codegen]`` table, keys in snake_case;
    ``warnings`` holds ``(line, column, message)`` for each old spelling read."""

    __slots__ = ("path", "table", "text", "warnings")

    def __init__(
        self, path: str, text: str, table: dict[str, Any], warnings: list[tuple[int, int, str]]
    ) -> None:
        self.path, self.text, self.table, self.warnings = path, text, table, warnings

    @property
    def root(self) -> str:
        """The directory every relative path of the configuration is relative to."""
        return os.path.dirname(self.path)


def config_in(directory: str, *, require_table: bool = False) -> str | None:
    """The configuration file in ``directory`` (``mcp-codegen.toml``, else ``pyproject.toml``);
    with ``require_table``, a ``pyproject.toml`` counts only when it mentions the table."""
    for name in CONFIG_NAMES:
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate):
            if require_table and name == "pyproject.toml" and not _mentions_table(candidate):
                continue
            return candidate
    return None


def nearest_config_file(start: str, *, require_table: bool = False) -> str | None:
    """The configuration in ``start`` or the nearest directory above it (``os.path`` only:
    ``pathlib`` costs ~8 ms to import, and the build's prestart runs before it is needed)."""
    directory = start
    while True:
        found = config_in(directory, require_table=require_table)
        if found is not None:
            return found
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _mentions_table(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return "mcp-codegen" in handle.read()
    except OSError:
        return False


def module_spec(module: str) -> Any:
    """The import spec of ``module``'s top-level package on ``sys.path``, found as ``import``
    would find it but without importing anything; ``None`` when it is not found."""
    top = module.partition(".")[0]
    for finder in sys.meta_path:  # editable installs add their own finders here
        if getattr(finder, "__module__", "").startswith("_frozen_importlib"):
            continue  # the built-in, frozen and path finders (PathFinder is asked below)
        find = getattr(finder, "find_spec", None)
        try:
            spec = find(top, None) if find is not None else None
        except (ImportError, ValueError):
            spec = None
        if spec is not None:
            return spec
    return PathFinder.find_spec(top)


def module_config_file(module: str) -> str | None:
    """The configuration nearest above the file of ``module``'s top-level package (found on
    ``sys.path``, not imported); ``None`` when there is none, or the module is not found."""
    spec = module_spec(module)
    if spec is None:
        return None
    places = list(spec.submodule_search_locations or ())
    if spec.origin and os.path.isabs(spec.origin):
        places.insert(0, os.path.dirname(spec.origin))
    for place in places:
        found = nearest_config_file(os.path.realpath(place), require_table=True)
        if found is not None:
            return found
    return None


def read_config(path: str) -> ProjectConfig:
    """Parse ``path`` and return its ``[tool.mcp-codegen]`` table with old spellings renamed;
    raises ``ConfigError`` for a file that cannot be read or parsed."""
    import tomllib  # ~5 ms: serving imports this module, and reads TOML only with a config

    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        data = tomllib.loads(text)
    except FileNotFoundError:
        raise ConfigError(path, 0, 0, "config file not found") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        line, column = parse_error_position(str(exc))
        raise ConfigError(
            path, line, column, f"cannot parse TOML ({exc}); fix the syntax"
        ) from None
    table = data.get("tool", {}).get("mcp-codegen", {})
    warnings: list[tuple[int, int, str]] = []
    if isinstance(table, dict):
        table = _snake_case(table, TABLE, text, path, warnings)
        for name in _KEYED_TABLES:
            if isinstance(table.get(name), dict):
                table[name] = _snake_case(table[name], f"{TABLE}.{name}", text, path, warnings)
    return ProjectConfig(path, text, table, warnings)


def _snake_case(
    table: dict[str, Any], name: str, text: str, path: str, warnings: list[tuple[int, int, str]]
) -> dict[str, Any]:
    """``table`` with each kebab-case key renamed to its snake_case spelling (a warning each);
    both spellings at once is an error."""
    renamed: dict[str, Any] = {}
    for key, value in table.items():
        new = key.replace("-", "_")
        if new != key:
            line, column = key_position(text, name, key)
            if new in table:
                raise ConfigError(
                    path,
                    line,
                    column,
                    f"{key!r} and {new!r} are the same key in [{name}]; keep {new!r} only",
                )
            warnings.append((line, column, f"{key!r} is the old spelling; write {new!r}"))
        renamed[new] = value
    return renamed


class RuntimeSettings:
    """What serving needs from a configuration: where the generated tree is, the server's name,
    and the directories its tool modules import from (absolute paths)."""

    __slots__ = ("config_file", "import_paths", "output", "server_name")

    def __init__(
        self, config_file: str, output: str, server_name: str, import_paths: list[str]
    ) -> None:
        self.config_file, self.output = config_file, output
        self.server_name, self.import_paths = server_name, import_paths


def runtime_settings(path: str) -> RuntimeSettings:
    """``output``, ``server_name`` and the import roots (``python_path``, then each source's
    import root: a ``src/`` layout's ``src``, then the configuration's directory) of ``path``."""
    config = read_config(path)
    table, root = config.table, config.root
    for key, kind in (("output", str), ("server_name", str), ("python_path", list)):
        if key in table and not isinstance(table[key], kind):
            line, column = key_position(config.text, TABLE, key)
            raise ConfigError(
                path, line, column, f"{key} must be a {kind.__name__}; run `mcp-codegen check`"
            )
    sources = table.get("sources", [])
    paths = [os.path.join(root, p) for p in table.get("python_path", []) if isinstance(p, str)]
    paths += [import_root(os.path.join(root, s)) for s in sources if isinstance(s, str)]
    paths.append(root)
    return RuntimeSettings(
        path,
        os.path.normpath(os.path.join(root, table.get("output", DEFAULT_OUTPUT))),
        table.get("server_name", ""),
        list(dict.fromkeys(os.path.normpath(p) for p in paths)),
    )


def import_root(source: str) -> str:
    """The directory on ``sys.path`` from which ``source`` (a file or package directory)
    imports: above every enclosing package (``src`` for ``src/pkg/tools``). The generator's
    ``module_name_for`` also walks namespace portions; ``python_path`` covers those here."""
    directory = source if os.path.isdir(source) else os.path.dirname(source)
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return directory


def caller_config_file(filename: str | None) -> str | None:
    """The configuration nearest above a calling module's file (``__file__``), if any."""
    if not filename or not os.path.isabs(filename):
        return None
    return nearest_config_file(os.path.dirname(os.path.realpath(filename)), require_table=True)

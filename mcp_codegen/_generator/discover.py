"""Which files are tool sources, and what they are called when imported (standard library only).

Kept apart from ``scan`` so that a build-cache hit never has to import libcst.

Runs in: parent, worker. (The scanner reuses ``load_source`` and ``may_define_tools``.)
"""

from __future__ import annotations

import os
import re
import site
import sysconfig
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from mcp_codegen._generator.config import Config
from mcp_codegen._generator.model import SourceFile
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.format import source_digest

#: Directories a search for sources never enters (environments, caches, VCS); nor hidden ones.
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", ".git", ".nox", ".venv", "venv", ".tox"})


def python_files(root: Path, skipped: frozenset[str] = SKIPPED_DIRS) -> list[Path]:
    """The ``.py`` files under ``root``, in no set order, without entering a directory named in
    ``skipped`` or hidden (``.name``) below ``root``, or a symbolic link to a directory.

    Pruned as it walks: a filter after ``Path.rglob`` walked every file of a virtual environment
    in the project (``.venv``, ``.nox``) on every build that searched it."""
    found: list[Path] = []
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = [
            name for name in subdirectories if name not in skipped and not name.startswith(".")
        ]
        found += [Path(directory, name) for name in names if name.endswith(".py")]
    return found


def discover_sources(config: Config) -> tuple[list[Path], list[Diagnostic]]:
    """Expand ``sources`` into a sorted list of ``.py`` files (the output directory is excluded)."""
    files: set[Path] = set()
    problems: list[Diagnostic] = []
    for source in config.sources:
        if source.is_file():
            if source.suffix == ".py":
                files.add(source)
            else:
                problems.append(
                    Diagnostic(
                        str(source), 0, 0, "source is not a .py file; list .py files or dirs"
                    )
                )
        elif source.is_dir():
            for path in python_files(source):
                if config.output == path or config.output in path.parents:
                    continue
                files.add(path)
        else:
            problems.append(
                Diagnostic(
                    str(config.config_file),
                    0,
                    0,
                    f"source {config.relative(source)!r} does not exist; fix `sources` in "
                    "[tool.mcp-codegen]",
                )
            )
    return sorted(files, key=lambda p: config.relative(p)), problems


def module_name_for(path: Path, roots: tuple[Path, ...] = ()) -> tuple[str, Path]:
    """Dotted import name of ``path`` and the directory that must be on ``sys.path``: the name
    Python imports the module under.

    Walks up while the parent directory is a package (has ``__init__.py``), as pytest's
    ``prepend`` import mode does; a ``src/`` layout therefore resolves to its packages. Two
    PEP 420 namespace cases continue further, as Python's own import would:

    - a directory without ``__init__.py`` inside a regular package (``pkg/server/tools/cache.py``
      with no ``tools/__init__.py``) is a namespace portion of that package: the walk goes on
      through it to the package's top (``pkg.server.tools.cache``);
    - a namespace top-level package in site-packages (``awslabs/`` without ``__init__.py``)
      is named from the site-packages directory (``awslabs.aws_documentation_mcp_server``).

    A directory of ``roots`` (the configured ``python_path``) is an import root: no walk passes it.
    """
    explicit = {root.resolve() for root in roots}
    parts = [] if path.name == "__init__.py" else [path.stem]
    directory = path.parent
    while True:
        while (directory / "__init__.py").is_file() and not _is_root(directory, explicit):
            parts.insert(0, directory.name)
            directory = directory.parent
        if _is_root(directory, explicit):
            break
        hole = _namespace_portion_in_package(directory, explicit)
        if not hole:
            break
        for portion in hole:
            parts.insert(0, portion.name)
        directory = hole[-1].parent
    site = _site_directory_above(directory) if not _is_root(directory, explicit) else None
    if site is not None:
        extra = directory.relative_to(site).parts if directory != site else ()
        if all(part.isidentifier() for part in extra):
            parts[:0] = extra
            directory = site
    return ".".join(parts), directory


def _is_root(directory: Path, explicit: set[Path]) -> bool:
    """``directory`` is one of the configured import roots (resolved only when there are any:
    resolving every directory of every source was most of naming them)."""
    return bool(explicit) and directory.resolve() in explicit


def _namespace_portion_in_package(directory: Path, explicit: set[Path]) -> list[Path]:
    """The directories from ``directory`` up to (not including) the nearest regular package
    above it, when each is a plain identifier-named directory without ``__init__.py``; empty
    when no package is above (``directory`` is then an import root, as before)."""
    portion: list[Path] = []
    current = directory
    for _ in range(8):  # a namespace hole deeper than this is no package layout
        if (
            not current.name.isidentifier()
            or current.parent == current
            or _is_root(current, explicit)
        ):
            return []
        portion.append(current)
        current = current.parent
        if (current / "__init__.py").is_file() or _is_root(current, explicit):
            return portion
    return []


def _site_directory_above(directory: Path) -> Path | None:
    """The site-packages directory that contains ``directory`` (itself included), if any."""
    resolved = directory.resolve()
    for root in _site_directories():
        if resolved == root or root in resolved.parents:
            return root
    return None


@cache
def _site_directories() -> tuple[Path, ...]:
    """The interpreter's site-packages directories, longest first (looked up once: resolving
    them for every source was a tenth of a one-module rebuild in ``mcp-codegen watch``)."""
    candidates = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    candidates.update(getattr(site, "getsitepackages", list)())
    return tuple(Path(c).resolve() for c in sorted(candidates, key=len, reverse=True))


def read_sources(files: list[Path], config: Config) -> tuple[dict[Path, bytes], list[Diagnostic]]:
    """Every source's bytes, read once (the build cache's key and the scan share them)."""
    contents: dict[Path, bytes] = {}
    problems = []
    for path in files:
        try:
            contents[path] = path.read_bytes()
        except OSError as exc:
            problems.append(
                Diagnostic(config.relative(path), 0, 0, f"cannot read the source: {exc.strerror}")
            )
    return contents, problems


def load_source(path: Path, config: Config, data: bytes | None = None) -> SourceFile:
    """A source file with its bytes (read now unless given), hash and import name."""
    if data is None:
        data = path.read_bytes()
    module, import_root = module_name_for(path, config.python_path)
    return SourceFile(
        path=str(path),
        relative_path=config.relative(path),
        module=module,
        import_root=str(import_root),
        sha256=source_digest(data),
        data=data,
    )


def decorator_words(patterns: Sequence[str]) -> tuple[str, ...]:
    """Plain words that a file must contain to possibly match (a cheap pre-filter)."""
    words = []
    for pattern in patterns:
        last = pattern.rsplit(".", 1)[-1]
        if any(ch in last for ch in "*?["):
            return ()
        words.append(last)
    return tuple(words)


#: words of the calls that attach tools no registration makes (``_registration.providers``)
_ATTACHES_PROVIDER = re.compile(
    rb"\bproviders\s*=|\b(?:add_provider|from_openapi|from_fastapi|as_proxy|create_proxy"
    rb"|FastMCPOpenAPI|FastMCPProxy)\b"
)


def may_attach_providers(data: bytes) -> bool:
    """Whether the file may attach a provider whose tools no registration makes
    (``FastMCP.from_openapi(...)``, ``add_provider``): the build imports it to check them."""
    return _ATTACHES_PROVIDER.search(data) is not None


def may_define_tools(source: SourceFile, patterns: Sequence[str]) -> bool:
    """False only when the file cannot contain a matching decorator or ``add_tool`` call (no
    ``@``, ``.add_tool`` or ``.tool(``, or no name) nor attach a provider."""
    words = decorator_words(patterns)
    if not words or may_attach_providers(source.data):
        return True
    try:
        text = source.data.decode("utf-8")
    except UnicodeDecodeError:
        return True  # the scanner reports it with a position
    return ("@" in text or ".add_tool" in text or ".tool(" in text) and any(
        word in text for word in words
    )

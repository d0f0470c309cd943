"""A build cache, so ``check`` on an unchanged tree needs neither libcst nor pydantic.

The key covers everything a build reads: the generator version and configuration, the content of
every source file, and a fingerprint of every module the worker processes imported while
inspecting (content hashes for files inside the project, size and mtime for installed packages,
so upgrading pydantic invalidates it too). A hit returns the stored rendered files; any doubt
is a miss. Builds with errors are never stored.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from codegen import __version__
from codegen.generator.config import Config
from codegen.generator.project import CACHE_DIR, CACHE_FILE

_STDLIB = str(Path(os.__file__).resolve().parent)


def _config_key(config: Config) -> str:
    settings = {k: str(v) for k, v in asdict(config).items()}
    return hashlib.sha256(repr(sorted(settings.items())).encode()).hexdigest()


def _generator_key() -> tuple[tuple[str, int, int], ...]:
    """The generator's own files (code and templates): editing mcp-codegen invalidates too."""
    package = Path(__file__).resolve().parents[2]  # codegen/
    roots = [package, package.parent / "templates"]
    found = []
    for root in roots:
        for path in sorted(root.rglob("*")) if root.is_dir() else ():
            if path.suffix in (".py", ".jinja") and "__pycache__" not in path.parts:
                stat = path.stat()
                found.append((str(path), stat.st_size, stat.st_mtime_ns))
    return tuple(found)


def _sources_key(contents: Mapping[Path, bytes]) -> str:
    digest = hashlib.sha256()
    for path, data in contents.items():
        digest.update(str(path).encode() + b"\0" + data + b"\0")
    return digest.hexdigest()


def fingerprint(paths: list[str], root: Path) -> dict[str, Any]:
    """Content hashes inside the project, (size, mtime) outside it; stdlib is left out."""
    prints: dict[str, Any] = {}
    for name in sorted(set(paths)):
        if name.startswith(_STDLIB):
            continue
        path = Path(name)
        try:
            if path.resolve().is_relative_to(root):
                prints[name] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                stat = path.stat()
                prints[name] = (stat.st_size, stat.st_mtime_ns)
        except OSError:
            prints[name] = None
    return prints


class BuildCache:
    """One stored build per project (the last successful one)."""

    def __init__(self, config: Config, contents: Mapping[Path, bytes]) -> None:
        """``contents``: every source file's bytes, in discovery order."""
        self.config = config
        self.directory = config.root / CACHE_DIR
        self.key = (
            __version__,
            sys.version,
            _generator_key(),
            _config_key(config),
            _sources_key(contents),
        )

    def load(self) -> Any | None:
        try:
            with (self.directory / CACHE_FILE).open("rb") as handle:
                stored = pickle.load(handle)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            return None
        if not isinstance(stored, dict) or stored.get("key") != self.key:
            return None
        if fingerprint(list(stored["dependencies"]), self.config.root) != stored["dependencies"]:
            return None
        return stored["result"]

    def store(self, result: Any, dependencies: list[str]) -> None:
        """Write atomically; a cache that cannot be written is simply not used."""
        try:
            self.directory.mkdir(exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Created by mcp-codegen; safe to delete.\n*\n")
            payload = {
                "key": self.key,
                "dependencies": fingerprint(dependencies, self.config.root),
                "result": result,
            }
            fd, temporary = tempfile.mkstemp(dir=self.directory, prefix=".build.")
            with os.fdopen(fd, "wb") as handle:
                pickle.dump(payload, handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, self.directory / CACHE_FILE)
        except OSError:
            return

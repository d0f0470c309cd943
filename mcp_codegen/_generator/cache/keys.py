"""What a cache key is made of: only content and versions, never a machine's paths or clocks.

A key that holds an absolute path or an mtime misses on every other checkout; one that leaves
an input out returns a wrong build. So every key here is a SHA-256 over:

- the environment (``environment_key``): the content of the generator's own code and templates,
  the Python implementation and version, and the versions of the libraries that decide a schema
  (pydantic, pydantic-core, libcst, typing-extensions, and the frameworks of flavors: mcp,
  fastmcp);
- what the worker is told (``worker_settings``), with the project's directories written relative
  to its root;
- file content, named by its path relative to the project root (``FileHashes``).

A file a tool module imported is named by how its content is checked (``classify``), decided by
where the file is: the generator's own code (checked out or installed in ``site-packages``) and
the standard library not at all (the environment covers them), a module of an installed
distribution by the distribution's name and version, and any other file (the project's, an
editable or unclaimed install's) by its path relative to the project root and its SHA-256.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import site
import sys
import sysconfig
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from mcp_codegen import __version__
from mcp_codegen._generator.config import Config
from mcp_codegen._generator.render.templates import PACKAGE, template_dir
from mcp_codegen._generator.sealed_file import unsealed, write_sealed
from mcp_codegen._generator.workers.prestart import worker_settings
from mcp_codegen._shared.distributions import installed_version
from mcp_codegen._shared.user_cache import user_cache_directory

#: Bumped whenever what an entry holds changes shape or meaning (2: dependencies classified by
#: where their file is; no more "module:" entries).
CACHE_FORMAT = 2
#: Libraries whose version decides a schema, looked up by distribution name.
_LIBRARIES = ("pydantic", "pydantic-core", "libcst", "typing-extensions", "mcp", "fastmcp")
_LIBRARY_MODULES = frozenset(
    ("pydantic", "pydantic_core", "libcst", "typing_extensions", "mcp", "fastmcp")
)
_PACKAGE = Path(PACKAGE)  # mcp_codegen/
_TEMPLATES = Path(template_dir() or _PACKAGE / "templates")
_STDLIB = tuple({str(Path(sysconfig.get_paths()[k]).resolve()) for k in ("stdlib", "platstdlib")})


def _install_directories() -> tuple[str, ...]:
    """Where distributions are installed: this interpreter's ``site-packages`` (a venv's, the
    system's ``dist-packages`` too) and the user's."""
    found = [sysconfig.get_paths()[k] for k in ("purelib", "platlib")]
    found += site.getsitepackages() if hasattr(site, "getsitepackages") else []
    if site.ENABLE_USER_SITE:
        found.append(site.getusersitepackages())
    return tuple(sorted({str(Path(p).resolve()) for p in found}))


_INSTALLED = _install_directories()


def digest(value: object) -> str:
    """SHA-256 of a value made of str/int/bool/None/tuples/lists/dicts (order kept)."""
    return hashlib.sha256(repr(value).encode()).hexdigest()


def _generator_files() -> list[tuple[str, str]]:
    """``(path, path relative to the package's parent)`` of the generator's code and templates,
    sorted. (``os.walk`` that skips ``__pycache__``: ``Path.rglob`` listed every bytecode file
    too, and took a third of the cache check of an edit's build.)"""
    found = []
    # The templates are named "templates/..." where they are (in the package in a wheel, beside
    # it in a checkout), so a wheel and its checkout agree on the digest.
    for root, named in ((_PACKAGE, _PACKAGE.parent), (_TEMPLATES, _TEMPLATES.parent)):
        for directory, subdirectories, names in os.walk(root):
            subdirectories[:] = [
                d
                for d in subdirectories
                if d != "__pycache__" and os.path.join(directory, d) != str(_TEMPLATES)
            ]
            found += [
                (path, os.path.relpath(path, named).replace(os.sep, "/"))
                for name in names
                if name.endswith((".py", ".jinja"))
                for path in [os.path.join(directory, name)]
            ]
    return sorted(found, key=lambda item: item[1])


_MEMO_MAGIC = b"mcp-codegen generator digest 1\n"


def generator_digest_memo() -> Path | None:
    """Where this installed copy of mcp-codegen remembers its generator's digest: the user's
    cache directory, one file per copy (by its path), so every project's first build finds it;
    ``None`` without a user's cache directory."""
    user = user_cache_directory()
    if user is None:
        return None
    return Path(user, "generator-digest", f"{digest(str(_PACKAGE))[:32]}.json")


@cache
def _generator_digest(memo: Path | None = None) -> str:
    """The content of the generator's code and templates, by path relative to the package.

    ``memo`` (``generator_digest_memo``) remembers the digest beside the files' paths, sizes and
    mtimes, so an unchanged generator is not read again; the digest itself is content only.
    """
    files = _generator_files()
    stats = []
    for path, _ in files:
        stat = os.stat(path)
        stats.append([path, stat.st_size, stat.st_mtime_ns])
    if memo is not None:
        try:
            remembered = json.loads(bytes(unsealed(memo.read_bytes(), _MEMO_MAGIC) or b"null"))
            if remembered["stats"] == stats:
                return str(remembered["digest"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
    found = hashlib.sha256()
    for path, relative in files:
        found.update(relative.encode() + b"\0")
        with open(path, "rb") as handle:
            found.update(hashlib.sha256(handle.read()).digest())
    digest = found.hexdigest()
    if memo is not None:
        with contextlib.suppress(OSError):  # sealed: builds of other projects read it meanwhile
            memo.parent.mkdir(parents=True, exist_ok=True)
            write_sealed(memo, _MEMO_MAGIC, json.dumps({"stats": stats, "digest": digest}).encode())
    return digest


@cache
def environment_key(memo: Path | None = None) -> str:
    """``memo``: where the generator's digest may be remembered (see ``_generator_digest``)."""
    return digest(
        (
            CACHE_FORMAT,
            __version__,
            _generator_digest(memo),
            sys.implementation.name,
            sys.version,
            pickle.HIGHEST_PROTOCOL,
            tuple((name, installed_version(name)) for name in _LIBRARIES),
        )
    )


def relative(path: Path | str, root: Path) -> str:
    """``path`` relative to ``root`` with "/" separators (``..`` when outside it)."""
    return Path(os.path.relpath(Path(path).resolve(), root)).as_posix()


def settings_key(config: Config) -> str:
    """The worker settings without the checkout's path: the config keys a module's inspection
    depends on (the others, like ``box_field``, are applied in this process on every build)."""
    settings = worker_settings(config)
    settings["sys_path"] = [relative(p, config.root) for p in settings["sys_path"]]
    settings["output"] = relative(settings["output"], config.root)
    return digest(sorted(settings.items()))


def config_key(config: Config) -> str:
    """Every configuration value, paths relative to the root (the whole-build key)."""
    values = []
    for name in sorted(vars(config)):
        value = getattr(config, name)
        if isinstance(value, Path):
            value = relative(value, config.root)
        elif isinstance(value, tuple) and value and all(isinstance(v, Path) for v in value):
            value = tuple(relative(v, config.root) for v in value)
        values.append((name, repr(value)))
    return digest(values)


@cache
def _distributions() -> dict[str, list[Any]]:
    """Top-level module name -> the installed distributions that install it, as
    ``importlib.metadata.packages_distributions`` maps them (Python 3.12's inference: a file
    list's top directories and its top-level modules, extension modules included). Only for a
    module whose distribution is not named like it.

    Not that function itself: it made a ``PackagePath`` of each of the ~28,000 files listed and
    parsed every distribution's metadata for its name, 0.4-0.7 s of each framework build's
    generator (bench/results/2026-12-07-cold-small-builds.md). Here each ``RECORD`` is read as
    CSV text, and a distribution's name is parsed only when one of its modules is asked for
    (``_distributions_of``)."""
    # Imported here: importlib.metadata is slow to load; few modules need it.
    from importlib import metadata
    from importlib.machinery import all_suffixes

    suffixes = sorted(all_suffixes(), key=len, reverse=True)  # as inspect.getmodulename
    found: dict[str, list[Any]] = {}
    for distribution in metadata.distributions():
        for top in _top_level(distribution, suffixes):
            found.setdefault(top, []).append(distribution)
    return found


def _top_level(distribution: Any, suffixes: list[str]) -> set[str]:
    """The top-level module names ``distribution`` installs: its ``top_level.txt``, or else
    those of its listed files (an importable name: no dot); ``suffixes``: module file suffixes,
    longest first."""
    declared = (distribution.read_text("top_level.txt") or "").split()
    if declared:
        return set(declared)
    # Imported here: only a build that classifies such a module reads the file lists.
    import csv

    record = distribution.read_text("RECORD")
    if record is not None:
        paths = [row[0] for row in csv.reader(record.splitlines()) if row]
    else:  # an egg-info's installed-files.txt or SOURCES.txt
        paths = [str(path) for path in distribution.files or ()]
    names = set()
    for path in paths:
        first, nested, _ = path.partition("/")
        if not nested:  # a top-level file: its module name (``inspect.getmodulename``)
            first = next((path[: -len(s)] for s in suffixes if path.endswith(s)), path)
        if "." not in first:
            names.add(first)
    return names


class FileHashes:
    """File content hashes, each file read once per build."""

    def __init__(self, config: Config) -> None:
        self.root = config.root
        self._seen: dict[str, str | None] = {}

    def of(self, relative_path: str) -> str | None:
        if relative_path not in self._seen:
            try:
                data = (self.root / relative_path).read_bytes()
            except OSError:
                self._seen[relative_path] = None
            else:
                self._seen[relative_path] = hashlib.sha256(data).hexdigest()
        return self._seen[relative_path]

    def remember(self, relative_path: str, data: bytes) -> None:
        self._seen[relative_path] = hashlib.sha256(data).hexdigest()

    def classify(self, modules: Iterable[tuple[str, str | None]]) -> dict[str, str | None]:
        """``{dependency: how it is now}`` for the (module name, file) pairs a worker reported:
        ``"dist:<name>"`` -> version for an installed distribution's module, ``"file:<path
        relative to the root>"`` -> content hash for any other file but the generator's own
        and the standard library's (the environment key holds those)."""
        found: dict[str, str | None] = {}
        for name, file in modules:
            if not file:
                continue
            resolved = str(Path(file).resolve())
            # The generator itself wherever it is, installed in site-packages included: as
            # ``__main__`` of a probe started with ``python -m``, and its own modules.
            if _under(resolved, (str(_PACKAGE), str(_TEMPLATES))):
                continue
            installed = _under(resolved, _INSTALLED)
            if not installed and _under(resolved, _STDLIB):
                continue
            top = name.partition(".")[0]
            if top in _LIBRARY_MODULES:
                continue  # in the environment key
            if installed and (distributions := _distributions_of(top)):
                for distribution in distributions:
                    found["dist:" + distribution] = installed_version(distribution)
                continue
            # The project's files, and what no installed version describes: an editable
            # install's code, a module no distribution claims (a venv's ``_virtualenv``).
            path = relative(resolved, self.root)
            found["file:" + path] = self.of(path)
        return found

    def current(self, dependencies: dict[str, str | None]) -> bool:
        """Are all recorded dependencies as they were?"""
        for dependency, recorded in dependencies.items():
            kind, _, name = dependency.partition(":")
            if kind == "file":
                now = self.of(name)
            elif kind == "dist":
                now = installed_version(name)
            else:
                return False  # a kind this version does not write: not trusted
            if now != recorded:
                return False
        return True


def _distributions_of(top: str) -> list[str]:
    """The distributions that install the top-level module ``top`` (none: no distribution
    claims it)."""
    if installed_version(top) is not None:
        return [top]
    return [distribution.metadata["Name"] for distribution in _distributions().get(top, ())]


def _under(path: str, roots: Iterable[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots)

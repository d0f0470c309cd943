"""Which servers are the project's: the one rule behind the build's omission check and the hook.

A registration counts only when the project's own line makes it, or when it lands on a server
that the project's code creates (a module of the project, a call the project makes) or that a
module the configuration names (``run_targets`` / ``factories``) creates. A server another
installed package creates in its own module body, imported by a project module, is that
package's: the build ignores its tools (``_generator/inspection/omissions.py``) and the hook
leaves them to the framework (``runtime/_hook/own.py``). Standard library only (the hook imports
this on a registration it has no entry for).
"""

from __future__ import annotations

import os
import sys
from itertools import islice

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from types import FrameType
    from typing import TypeAlias

    #: the code that created a server (or its tool store): ``(absolute file, is a module body,
    #: module name)`` of each frame outside the frameworks, innermost first
    Creation: TypeAlias = tuple[tuple[str, bool, str], ...]

#: directories whose files are installed packages, never the project's own code
INSTALLED = frozenset({"site-packages", "dist-packages"})
#: how many frames outside the frameworks a creation or a registration keeps
FRAMES_KEPT = 12


class ProjectCode:
    """Which code is the project's: its files (real paths), and any file under the project root
    or a source's top-level package directory outside hidden and installed-package directories
    (an installed namespace package narrowed to the portions holding the project's files); and
    the modules the configuration names."""

    def __init__(self, files: Iterable[str], dirs: Iterable[str], named: frozenset[str]) -> None:
        self.files = frozenset(files)
        self.dirs = tuple(d + os.sep for d in owned_dirs(dirs, self.files))
        self.named = named

    def holds(self, file: str) -> bool:
        """Whether ``file`` is the project's code."""
        real = os.path.realpath(file)
        if real in self.files:
            return True
        for directory in self.dirs:
            if real.startswith(directory):
                parts = real[len(directory) :].split(os.sep)[:-1]
                if not any(p.startswith(".") or p in INSTALLED for p in parts):
                    return True
        return False

    def owns(self, registering: str | None, server: Creation | None) -> bool:
        """Whether a registration counts: made by the project's own line (``registering``, the
        innermost file outside the frameworks of the registering call), or on a server created
        by project code, by a module the configuration names, or by a call the build made itself
        (a factory). Not: a server another package's module body creates, filled by that
        package's own code. A server whose creation was not seen counts (never a silent
        omission)."""
        if server is None or (registering is not None and self.holds(registering)):
            return True
        for file, body, module in server:
            if module in self.named or self.holds(file):
                return True
            if body:
                return False  # created by another package's own module body
        return True


def owned_dirs(dirs: Iterable[str], files: Iterable[str]) -> list[str]:
    """``dirs`` (real paths), each installed namespace package narrowed to its portions that
    hold the project's ``files``: ``awslabs`` (``pkgutil.extend_path``, or no ``__init__.py``)
    is shared by many distributions, and a sibling distribution's server is not the project's."""
    found: list[str] = []
    for directory in dirs:
        real = os.path.realpath(directory)
        if not any(part in INSTALLED for part in real.split(os.sep)) or not _namespace(real):
            found.append(real)
            continue
        prefix = real + os.sep
        found += sorted(
            {
                prefix + file[len(prefix) :].split(os.sep)[0]
                for file in files
                if file.startswith(prefix)
            }
        )
    return found


def _namespace(directory: str) -> bool:
    """A namespace package: no ``__init__.py`` (PEP 420), or one that extends its ``__path__``
    (``pkgutil.extend_path``, ``pkg_resources.declare_namespace``)."""
    try:
        with open(os.path.join(directory, "__init__.py"), "rb") as handle:
            text = handle.read(4096)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return b"extend_path" in text or b"declare_namespace" in text


def library_dirs() -> tuple[str, ...]:
    """The frameworks', this package's and the standard library's directories: frames there
    are not the user's (each ends with a separator, so a user package named ``mcp_clickhouse``
    or ``fastmcp_tools`` beside ``mcp`` / ``fastmcp`` in site-packages is not the framework)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dirs = [here + os.sep, os.path.dirname(os.path.abspath(os.__file__)) + os.sep]
    for package in ("mcp", "fastmcp", "pydantic", "functools", "contextlib"):
        module = sys.modules.get(package)
        location = getattr(module, "__file__", None)
        if location:
            dirs.append(
                os.path.dirname(os.path.abspath(location)) + os.sep
                if location.endswith("__init__.py")
                else os.path.abspath(location)
            )
    return tuple(dirs)


def user_frames(frame: FrameType | None) -> Iterator[tuple[FrameType, str]]:
    """Each frame from ``frame`` outward whose code is outside the frameworks, this package,
    the standard library and the import machinery, with its file's absolute path."""
    skip = library_dirs()
    while frame is not None:
        file = frame.f_code.co_filename
        if not file.startswith("<") and not os.path.abspath(file).startswith(skip):
            yield frame, os.path.abspath(file)
        frame = frame.f_back


def creation(frame: FrameType | None) -> Creation:
    """The ``Creation`` of a server (or tool store) created by the call running in ``frame``."""
    found: list[tuple[str, bool, str]] = []
    for user, file in islice(user_frames(frame), FRAMES_KEPT):
        name = user.f_globals.get("__name__")
        found.append(
            (file, user.f_code.co_name == "<module>", name if isinstance(name, str) else "")
        )
    return tuple(found)


def registering_file(frame: FrameType | None) -> str | None:
    """The innermost file outside the frameworks on the stack from ``frame``: the code that
    registers a tool."""
    return next((file for _, file in user_frames(frame)), None)

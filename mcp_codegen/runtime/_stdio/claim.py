"""Take the protocol's stdin and stdout away from fds 0 and 1 (standard library only).

Used by both stdio doors: the fast path claims the descriptors before the SDK is imported, and
hands them to the SDK's transport when it takes over.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds to import, and this runs before the first answer
    from collections.abc import Callable
    from typing import BinaryIO


def claim_stdio() -> tuple[BinaryIO, BinaryIO, Callable[[], None]]:
    """The protocol's stdin and stdout; fds 0 and 1 point at devnull and stderr until restored.

    Falls back to serving ``sys.stdin``/``sys.stdout`` in place when the descriptors cannot be
    duplicated (no real file descriptors, or an unusual platform).
    """
    try:
        sys.stdout.flush()
        wire_in_fd = duplicate(0)
        wire_out_fd = duplicate(1)
    except (OSError, ValueError, AttributeError):
        return sys.stdin.buffer, sys.stdout.buffer, lambda: None
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
        os.dup2(2, 1)
    except OSError:
        os.dup2(wire_in_fd, 0)
        os.close(wire_in_fd)
        os.close(wire_out_fd)
        return sys.stdin.buffer, sys.stdout.buffer, lambda: None
    # closefd=False on stdin: the reader thread may still block on it after we return.
    wire_in = os.fdopen(wire_in_fd, "rb", closefd=False)
    wire_out = os.fdopen(wire_out_fd, "wb")

    def restore() -> None:
        try:
            sys.stdout.flush()
            wire_out.flush()
        except (OSError, ValueError):
            pass
        for private, standard in ((wire_in_fd, 0), (wire_out_fd, 1)):
            try:
                os.dup2(private, standard)
            except OSError:
                # logging (~12 ms): only to report a descriptor that cannot be restored
                import logging

                logging.getLogger("mcp_codegen.runtime").warning(
                    "stdio: cannot restore file descriptor %d", standard
                )

    return wire_in, wire_out, restore


def duplicate(fd: int) -> int:
    """A non-inheritable duplicate of ``fd`` above the standard range."""
    try:
        # not on Windows
        import fcntl
    except ImportError:  # Windows
        return os.dup(fd)
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)

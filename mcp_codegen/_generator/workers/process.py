"""A worker process started with ``os.posix_spawn``: the part of ``subprocess.Popen`` the pool uses.

Why not ``subprocess``: a cached build's scan worker is started first thing in ``mcp-codegen
generate`` (``mcp_codegen._generator.workers.prestart``), and everything before that start is on the
build's critical path. Importing ``subprocess``, ``tempfile``, ``pathlib`` and ``typing`` there
took ~50 ms of the ~55 ms before the start; this module imports only what the interpreter has
already loaded (``os``, ``sys``). POSIX only, as the pool is (it selects on the workers' pipes).

``posix_spawn`` cannot set the working directory: the worker is given it (``--cwd``) and
enters it first (``mcp_codegen._generator.workers.child``), before anything else is imported, as
``python -m`` with that working directory would; ``-P`` keeps the generator's own working
directory off ``sys.path`` until then.

Runs in: parent.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO


class WorkerProcess:
    """A child with pipes on its stdin and stdout and its stderr in ``stderr`` (a file)."""

    def __init__(self, argv: list[str], env: dict[str, str], stderr: BinaryIO) -> None:
        self.args = argv
        child_in, parent_in = map(_high, os.pipe())
        parent_out, child_out = map(_high, os.pipe())
        try:
            self.pid = os.posix_spawn(
                argv[0],
                argv,
                env,
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, child_in, 0),
                    (os.POSIX_SPAWN_DUP2, child_out, 1),
                    (os.POSIX_SPAWN_DUP2, stderr.fileno(), 2),
                    *((os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited_descriptors()),
                ],
            )
        except BaseException:
            os.close(parent_in)
            os.close(parent_out)
            raise
        finally:
            os.close(child_in)
            os.close(child_out)
        self.stdin = os.fdopen(parent_in, "wb")
        self.stdout = os.fdopen(parent_out, "rb")
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """The exit code if the process has ended (negative: the signal that ended it)."""
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            _, status = os.waitpid(self.pid, 0)
            self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        """SIGKILL, unless it has been waited for (its pid may belong to another process now)."""
        if self.poll() is None:  # not reaped: the pid is still this child's, even if it ended
            # Imported here: this module is standard library only and loaded at start-up; kill is rare.
            import signal

            os.kill(self.pid, signal.SIGKILL)


def _high(fd: int) -> int:
    """``fd`` moved above 0-2: a generator started with its stdin or stdout closed gets those
    numbers back from ``os.pipe``, and ``dup2`` onto the same number would not clear
    close-on-exec."""
    low = []
    while fd < 3:
        low.append(fd)
        fd = os.dup(fd)  # not inheritable, as os.pipe's are
    for number in low:
        os.close(number)
    return fd


def _inherited_descriptors() -> list[int]:
    """Descriptors above 2 that a child would inherit: the ones this process inherited itself
    (Python makes its own non-inheritable). Closed in the worker, as ``subprocess`` does
    (``close_fds``), so a worker never holds a pipe end its generator's caller waits on."""
    for listing in ("/proc/self/fd", "/dev/fd"):
        try:
            numbers = [int(name) for name in os.listdir(listing)]
        except (OSError, ValueError):
            continue
        found = []
        for fd in numbers:
            try:
                if fd > 2 and os.get_inheritable(fd):
                    found.append(fd)
            except OSError:  # the listing's own descriptor, closed by now
                continue
        return found
    return []


def scratch_file() -> BinaryIO:
    """An anonymous file for a worker's stderr (read back when it fails)."""
    if hasattr(os, "memfd_create"):
        try:
            return os.fdopen(_high(os.memfd_create("mcp-codegen-worker-stderr")), "w+b")
        except OSError:
            pass
    # Imported here: only where memfd_create is missing (not Linux).
    import tempfile

    return tempfile.TemporaryFile()

"""Start the worker processes first thing, when ``generate``/``check`` will surely need them.

A worker spends ~0.4 s importing libcst and pydantic before it can scan anything; started at
interpreter start-up (``python -m mcp_codegen``) that overlaps the generator's own imports and
configuration instead of following them. Only the standard library is imported here. All
workers are started when no build cache can answer (``--no-cache``, or no cache next to the
configuration); when a cache may answer for most modules, a ``scan`` worker alone on two or
more cores (``start_split``), one worker on one core. What was started is a ``WarmWorkers``
handle, passed down to the build session that adopts it (``mcp_codegen._generator.pipeline``),
whose builds take the workers (``mcp_codegen._generator.workers.pool``); its owner stops any
that no build took.
"""

from __future__ import annotations

import os
import site
import sys

from mcp_codegen._generator.project import CACHE_DIR, NO_CACHE
from mcp_codegen._generator.project import config_file as config_named
from mcp_codegen._generator.workers.process import WorkerProcess, scratch_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import IO, Any

PACKAGE_PARENT = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
)
MAX_WORKERS = 4
#: The commands that build (and so start workers, or ask the build daemon).
BUILD_COMMANDS = ("generate", "check")
#: Every worker hashes strings with this seed, whatever the caller's ``PYTHONHASHSEED``: a default
#: built by iterating a set (``",".join(SOME_SET)``) must not change the generated file per run.
WORKER_HASH_SEED = "0"
#: The rest of the process state user code can read into a schema while it is imported: the time
#: zone, the locale (``locale.setlocale(LC_ALL, "")``, ``gettext``) and the text encoding.
_PINNED_ENVIRONMENT = {"TZ": "UTC", "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "1"}
_UNSET_ENVIRONMENT = ("LANGUAGE",)  # gettext reads it before LC_ALL

#: What a worker's interpreter runs. ``-c``, not ``-m``: ``-m`` imports ``runpy`` and
#: ``importlib.util`` first, ~5 ms on every worker's start, and an edit's build waits for two.
WORKER_COMMAND = "from mcp_codegen._generator.workers.child import run; run()"


def worker_count() -> int:
    return min(os.cpu_count() or 1, MAX_WORKERS)


def worker_settings(config: Any) -> dict[str, Any]:
    """The settings message (``config``: a ``mcp_codegen._generator.config.Config``, not imported:
    this module is standard library only) each worker gets first (``mcp_codegen._generator.workers.child``); the
    build cache keys a module's inspection on it (``mcp_codegen._generator.cache.keys``)."""
    return {
        "sys_path": [str(config.root), *(str(p) for p in config.python_path)],
        "injected": sorted(config.injected_types),
        "permissive_fallback": config.permissive_fallback,
        "output": str(config.output),
        "flavor": config.flavor,
        "decorators": list(config.decorators),
        "factories": list(config.factories),
    }


def worker_environment(hash_seed: str = WORKER_HASH_SEED) -> dict[str, str]:
    """The caller's environment with the hash seed, time zone and locale pinned."""
    env = dict(os.environ)
    for name in _UNSET_ENVIRONMENT:
        env.pop(name, None)
    env.update(_PINNED_ENVIRONMENT, PYTHONHASHSEED=hash_seed)
    return env


def with_package_path(env: dict[str, str], *first: str) -> dict[str, str]:
    """``env`` with ``first`` and the directory that holds ``mcp_codegen`` put first on
    ``PYTHONPATH`` (a child started in the project's directory must import this copy of the
    generator), the latter unless it is a ``site-packages`` the child's interpreter adds by
    itself: an installed wheel's. There, on ``PYTHONPATH``, it would come before the standard
    library, and an obsolete backport installed there (``pathlib``, ``typing``) would replace
    the standard module in the workers and in no other process."""
    installed = site.getsitepackages()
    if site.ENABLE_USER_SITE:
        installed.append(site.getusersitepackages())
    package = [] if PACKAGE_PARENT in map(os.path.realpath, installed) else [PACKAGE_PARENT]
    entries = [*package, *first, *filter(None, [env.get("PYTHONPATH")])]
    if entries:
        env["PYTHONPATH"] = os.pathsep.join(entries)
    return env


def spawn_worker(
    cwd: str | Path, hash_seed: str = WORKER_HASH_SEED, role: str = "both", *, cached: bool = True
) -> tuple[WorkerProcess, IO[bytes]]:
    """A worker (``WORKER_COMMAND`` ``--role ROLE``) with pipes on stdin/stdout and
    stderr kept in a file (roles: ``mcp_codegen._generator.workers.child.main``). ``cached``:
    the build uses the cache directory, so the worker may use its compiled dataclass methods
    (``mcp_codegen._generator.compiled_methods``)."""
    stderr = scratch_file()
    env = with_package_path(worker_environment(hash_seed))
    command = [sys.executable, "-P", "-c", WORKER_COMMAND, "--role", role, "--cwd", str(cwd)]
    try:
        process = WorkerProcess([*command, *([] if cached else [NO_CACHE])], env, stderr)
    except BaseException:
        stderr.close()
        raise
    return process, stderr


def _key(root: str | Path) -> str:
    """How a project root is looked up here: its real path."""
    return os.path.realpath(root)


def _option(argv: list[str], name: str) -> str | None:
    """The value of the last ``name`` option (before or after the command: argparse keeps the
    one after)."""
    value = None
    for index, token in enumerate(argv):
        if token == name and index + 1 < len(argv):
            value = argv[index + 1]
        elif token.startswith(name + "="):
            value = token.split("=", 1)[1]
    return value


def config_file(argv: list[str]) -> str | None:
    """The configuration file the command line reads (``--config`` before or after the command,
    else the nearest)."""
    return config_named(_option(argv, "--config"))


def project_root(argv: list[str]) -> str | None:
    found = config_file(argv)
    return os.path.dirname(found) if found is not None else None


def command_index(argv: list[str]) -> int | None:
    """Position of the command word: the first argument that is not a global option."""
    index = 0
    while index < len(argv):
        token = argv[index]
        if token == "--config":
            index += 2
            continue
        if not token.startswith("-"):
            return index
        index += 1
    return None


class WarmWorkers:
    """Workers started for the next build of one project root, before it asked for them: at
    interpreter start-up, or after a build of ``watch`` or the daemon. Each is handed out once;
    ``stop`` stops those that were not (its owner calls it when done)."""

    def __init__(self, root: str | Path, *, cached: bool = True) -> None:
        self.root = _key(root)
        self.cached = cached  # their build uses the cache directory (``spawn_worker``)
        self.workers: list[tuple[WorkerProcess, IO[bytes]]] = []
        #: a ``scan`` worker started beside ``inspect`` ones (``start_split``)
        self.scanner: tuple[WorkerProcess, IO[bytes]] | None = None

    def take(self, root: str | Path) -> list[tuple[WorkerProcess, IO[bytes]]]:
        """The workers started for ``root`` (none for another root)."""
        if _key(root) != self.root:
            return []
        taken, self.workers = self.workers, []
        return taken

    def take_scanner(self, root: str | Path) -> tuple[WorkerProcess, IO[bytes]] | None:
        """The ``scan`` worker started for ``root``, if any: then the build's workers are
        ``inspect`` workers, which must be sent each source with its scan."""
        if _key(root) != self.root:
            return None
        taken, self.scanner = self.scanner, None
        return taken

    def keep(self, count: int) -> None:
        """Have ``count`` fresh workers waiting (``mcp-codegen watch``, the daemon): started now,
        they import libcst and pydantic while nothing is being built."""
        self.workers[:] = [(p, e) for p, e in self.workers if p.poll() is None]
        while len(self.workers) < count:
            self.workers.append(spawn_worker(self.root, cached=self.cached))

    def stop(self) -> None:
        """Stop the workers that no build took."""
        stop_workers([*self.workers, *([self.scanner] if self.scanner else [])])
        self.workers, self.scanner = [], None


def stop_workers(started: list[tuple[WorkerProcess, IO[bytes]]]) -> None:
    """Stop workers that were started and never given a source."""
    for process, stderr in started:
        if process.poll() is None:
            process.kill()
        process.wait()
        stderr.close()


def start_early(argv: list[str]) -> WarmWorkers | None:
    """The workers, started now, if the command line is a ``generate`` or ``check`` that must
    build; passed down to the session that adopts them.

    A guess: whatever it gets wrong costs only time (unused workers are stopped, missing ones
    are started later).
    """
    command = command_index(argv)
    if command is None or argv[command] not in BUILD_COMMANDS or "--help" in argv or "-h" in argv:
        return None
    root = project_root(argv)
    if root is None:
        return None
    # With a build cache, most builds redo a module or two (one worker) or nothing (the worker
    # is stopped unused); without one, every module is inspected.
    uses_cache = NO_CACHE not in argv
    cached = uses_cache and os.path.isdir(os.path.join(root, CACHE_DIR, "entries"))
    if cached and worker_count() > 1:
        return start_split(root)
    warm = WarmWorkers(root, cached=uses_cache)
    try:
        warm.keep(1 if cached else worker_count())
    except OSError:
        warm.stop()
        return None
    return warm


def start_split(root: str | Path) -> WarmWorkers | None:
    """A ``scan`` worker for the next build of ``root``; its ``inspect`` workers start when the
    build knows which modules it redoes (``mcp_codegen._generator.workers.pool``).

    The few modules a cached build redoes are scanned (libcst: ~0.3 s to import) in one process
    while another imports pydantic and then inspects them: in parallel on two cores, where one
    worker would import both before its first module. The scanner starts first and alone:
    started beside it at start-up, the inspect worker and this process's own start-up shared
    two cores three ways and the build was slower (docs/incremental.md)."""
    warm = WarmWorkers(root)
    try:
        warm.scanner = spawn_worker(root, role="scan")
    except OSError:
        return None
    return warm

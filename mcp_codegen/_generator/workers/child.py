"""The child process that scans sources and imports user code: ``mcp_codegen._generator.workers.child.run``.

Each source is scanned (libcst; no user code) and then, when it defines tools, imported and
inspected; the generator assembles and renders what it sends. Scanning here rather than in the
generator spreads the parse over the workers, and every source is scanned before its own module
is imported. A split session (a build with a cache, ``mcp_codegen._generator.workers.pool``)
gives the scan to a ``scan`` worker (``mcp_codegen._generator.workers.scanning``) and the rest
to ``inspect`` workers (``main``).

Protocol (``mcp_codegen._generator.workers.messages``), keyed by the source's relative path:
- in, on stdin: a settings dict, then one ``SourceFile`` per message (an ``inspect`` worker:
  ``(SourceFile, ScannedModule | None)``, scanned by a ``scan`` worker, and before it maybe an
  ``ImportAhead``, ``mcp_codegen._generator.workers.ahead``), then ``None``;
- out, on the original stdout: ``("ready",)``, then per source ``("start", path)``,
  ``("scanned", path, ScannedModule | None)``, ``("progress", path)`` while it works,
  ``("expanded", path, ScannedModule)`` when a factory's call site became several tools, and
  ``("done", path, tools, diagnostics, imported)`` (``imported``: the ``(module, file)``
  pairs the source depends on, see ``mcp_codegen._generator.workers.imports``); at the end
  ``("registered", registrations)`` (``mcp_codegen._generator.inspection.registrations``) and
  ``("finished",)``.

The original stdout and stdin are moved out of reach first (``messages.take_channels``).

Runs in: worker.
"""

from __future__ import annotations

import os
import sys

from mcp_codegen._generator.collector import collect_rarely
from mcp_codegen._generator.compiled_methods import install
from mcp_codegen._generator.project import NO_CACHE


def main(role: str = "both", no_cache: bool = False) -> None:
    """``role``: ``both`` scans and inspects each source; ``scan`` only scans (libcst, no user
    code: ``scan_main``); ``inspect`` is sent each source with its scan made by a ``scan``
    worker, and never imports libcst (``mcp_codegen._generator.workers.pool``, split sessions)."""
    collect_rarely()  # before the libraries' imports: a scan worker's libcst too
    # Before any import that makes a dataclass: the generator's, the libraries', the user's.
    methods = None if no_cache else install()
    # Imported once the compiled methods are installed: their modules make dataclasses.
    from mcp_codegen._generator.constants.bytecode_semantics import compile_as_bytecode
    from mcp_codegen._generator.workers.messages import take_channels
    from mcp_codegen._generator.workers.scanning import scan_main

    if role == "scan":
        scan_main(methods)
        return
    requests, events = take_channels()
    compile_as_bytecode()  # user modules run their bytecode's code, .pyc or not
    # The libraries first, before the settings arrive: a worker started early
    # (mcp_codegen._generator.workers.prestart) imports them while the generator is still reading
    # its configuration. Installed libraries load before the project's directories go on
    # sys.path.
    if role == "both":
        import mcp_codegen._generator.scan.files  # libcst (~150 ms): this worker scans
    # pydantic and the inspection: never in a scan worker (above). The schema modules import
    # pydantic where they use it (the parent imports them too), so it is named here: a worker
    # kept ready by watch or the daemon must not import it (~60 ms) after a save arrives.
    import pydantic.fields  # noqa: F401  # with pydantic.types and annotated_types

    import mcp_codegen._generator.schema.batch  # pydantic and its TypeAdapter
    import mcp_codegen._generator.schema.defaults  # noqa: F401  # pydantic_core
    from mcp_codegen._generator.workers.inspecting import serve

    if methods is not None:
        methods.save()  # the libraries' methods, before the first source
    serve(requests, events, role)
    if methods is not None:
        methods.save()  # the user's, and those of modules imported while inspecting
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip interpreter teardown: user modules' atexit hooks and threads must not delay or alter us.
    os._exit(0)


def _argument(name: str) -> str | None:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None


def enter(directory: str) -> None:
    """Work in ``directory`` as ``python -m`` started there would: the working directory, and it
    first on ``sys.path``. (``mcp_codegen._generator.workers.process`` cannot set the directory, and
    starts the interpreter with ``-P``, so the generator's own directory is never searched.)"""
    os.chdir(directory)
    sys.path.insert(0, os.getcwd())


def run() -> None:
    """The worker process: ``python -P -c "<import this module and call run()>" --role ROLE
    --cwd DIR`` (``mcp_codegen._generator.workers.prestart.spawn_worker``)."""
    if (directory := _argument("--cwd")) is not None:
        enter(directory)
    role, no_cache = _argument("--role") or "both", NO_CACHE in sys.argv
    # User code sees no arguments, as a server started without any: one that parses the
    # command line at import or in a factory (argparse) must not read the worker's options.
    del sys.argv[1:]
    main(role, no_cache)


if __name__ == "__main__":  # ``python -m mcp_codegen._generator.workers.child``, by hand
    run()

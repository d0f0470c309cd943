"""One bench/run_fastpath.py session with phase marks; see bench/run_fastpath_phases.py.

``python _run_fastpath_phases_child.py plain|fastpath|hooked ARGS``: ``plain`` runs ``serve.py``,
the others ``mcp-codegen run ARGS``. Each mark is (name, thread, wall ms since this script
started, the process's CPU ms since it started, the marking thread's CPU ms), appended as one
JSON line to ``$BENCH_PHASES_OUT`` when it happens (the process may end without ``atexit``).
Marks: this script's start (the interpreter's own start-up is its process CPU); the front's
modules imported; ``serve_in_front`` reading the record and the stored listing; the opening's
answers (main thread, up to the line it hands over); on the loader thread ``install_handover``,
``use_generated``, the target's import (split at the first tool module: the framework and the
app before it, the tool modules and their registration after), the stale check; the
framework's run starting; the first tools/call answer written. Plus the garbage collector's
time per thread.
"""

from __future__ import annotations

import time

START_WALL, START_CPU = time.perf_counter(), time.process_time()

import _thread  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

_out = open(os.environ["BENCH_PHASES_OUT"], "a", encoding="utf-8")  # noqa: SIM115
_gc: dict[str, float] = {}
_gc_start: dict[int, float] = {}


def mark(name: str) -> None:
    thread = "main" if _thread.get_ident() == _MAIN else "other"
    _out.write(
        json.dumps(
            [
                name,
                thread,
                (time.perf_counter() - START_WALL) * 1000,
                time.process_time() * 1000,
                time.thread_time() * 1000,
            ]
        )
        + "\n"
    )
    _out.flush()


_MAIN = _thread.get_ident()
mark("start")


def _on_gc(phase: str, info: dict[str, object]) -> None:
    ident = _thread.get_ident()
    if phase == "start":
        _gc_start[ident] = time.thread_time()
    elif ident in _gc_start:
        key = "gc main" if ident == _MAIN else "gc other"
        _gc[key] = _gc.get(key, 0.0) + (time.thread_time() - _gc_start.pop(ident)) * 1000


import gc  # noqa: E402

gc.callbacks.append(_on_gc)
_seen_tools = False


def _audit(event: str, args: tuple[object, ...]) -> None:
    global _seen_tools
    if not _seen_tools and event == "import" and str(args[0]).startswith("synth."):
        _seen_tools = True
        mark("first tool module")


def wrap(owner: object, name: str, label: str) -> None:
    original = getattr(owner, name)

    def wrapper(*args: object, **kwargs: object) -> object:
        mark(f"{label} <")
        try:
            return original(*args, **kwargs)
        finally:
            mark(f"{label} >")

    setattr(owner, name, wrapper)


def gc_marks() -> None:
    for key, value in sorted(_gc.items()):
        _out.write(json.dumps([key, "", value, 0, 0]) + "\n")
    _out.flush()


def _answered(text: str) -> None:
    if '"id":3' in text.replace(" ", ""):
        mark("call answered")
        gc_marks()


def patch_writes() -> None:
    """Mark when the answer to request 3 (the call) is written: by the SDK's stdio transport
    (plain, hooked: ``anyio.AsyncFile.write``) or through the fast path's handover sink."""
    from anyio._core._fileio import AsyncFile

    original = AsyncFile.write

    async def write(self: object, data: str) -> object:
        written = await original(self, data)  # type: ignore[arg-type]
        _answered(str(data))
        return written

    AsyncFile.write = write  # type: ignore[method-assign]


def patch_sink() -> None:
    from mcp_codegen.runtime._stdio import front

    original = front._Sink.write

    async def write(self: object, text: str) -> None:
        await original(self, text)  # type: ignore[arg-type]
        _answered(text)

    front._Sink.write = write  # type: ignore[method-assign]


def main() -> None:
    setup, arguments = sys.argv[1], sys.argv[2:]
    sys.addaudithook(_audit)
    if setup == "plain":
        import runpy

        patch_writes()
        mark("bench patches imported")
        sys.argv = ["serve.py"]
        runpy.run_path("serve.py", run_name="__main__")
        return
    mark("front import <")
    import mcp_codegen._cli.run as run
    import mcp_codegen.runtime._hook.install as hook
    from mcp_codegen.runtime._stdio import front

    mark("front import >")
    wrap(front, "server_record", "server_record")
    wrap(front, "Listings", "listings")
    wrap(front, "answer_opening", "opening")
    wrap(front, "install_handover", "install_handover")
    wrap(hook, "use_generated", "use_generated")
    wrap(run, "_resolve", "import target")
    wrap(hook, "_unregistered", "stale check")
    wrap(run, "_start", "framework run")
    original_start = run._start

    def start(*args: object) -> object:  # the framework's imports are done by now
        patch_writes()
        patch_sink()
        return original_start(*args)

    run._start = start
    sys.argv = ["mcp-codegen", "run", *arguments]
    raise SystemExit(run.main(arguments))


main()

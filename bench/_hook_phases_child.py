"""Runs one bench/hook.py server (``serve.py``, argv[1]) with phase marks; see bench/hook_phases.py.

Prints ``BENCH_PHASES {json}`` on stderr at exit: wall ms of the app import, of the tool modules
and registration (up to the initialize answer), of the listing (up to the tools/list answer),
the garbage collector's ms within each, and the number of full collections by then.
"""

from __future__ import annotations

import time

START = time.perf_counter()

import atexit  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import runpy  # noqa: E402
import sys  # noqa: E402
from typing import Any  # noqa: E402

_collections: list[list[Any]] = []  # [start, generation, end]
_answers: dict[int, float] = {}  # request id -> when its answer was written
_marks: dict[str, float] = {}
_ID = re.compile(rb'"id"\s*:\s*(\d+)')


def _on_gc(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _collections.append([time.perf_counter(), info["generation"], None])
    else:
        _collections[-1][2] = time.perf_counter()


def _gc_ms(start: float, end: float) -> float:
    return 1000 * sum(
        stop - begin for begin, _, stop in _collections if stop and begin >= start and stop <= end
    )


def _no_tool(fn: Any = None, *args: Any, **kwargs: Any) -> Any:
    """A ``tool`` decorator that registers nothing, in both the ``@tool`` and ``@tool()`` forms."""
    return fn if callable(fn) else (lambda function: function)


def _watch_writes() -> None:
    import anyio._core._fileio as fileio

    write = fileio.AsyncFile.write

    async def timed(self: Any, data: Any) -> Any:
        written = await write(self, data)
        found = _ID.search(data[:200] if isinstance(data, bytes) else data[:200].encode())
        if found:
            _answers.setdefault(int(found.group(1)), time.perf_counter())
        return written

    fileio.AsyncFile.write = timed  # type: ignore[method-assign]


def _report() -> None:
    app, initialized, listed = _marks["app"], _answers.get(1), _answers.get(2)
    if initialized is None or listed is None:
        return
    result = {
        "app": 1000 * (app - START),
        "app_gc": _gc_ms(START, app),
        "tools": 1000 * (initialized - app),
        "tools_gc": _gc_ms(app, initialized),
        "list": 1000 * (listed - initialized),
        "list_gc": _gc_ms(initialized, listed),
        "total": 1000 * (listed - START),
        "full": sum(
            1 for begin, generation, _ in _collections if generation == 2 and begin <= listed
        ),
    }
    print("BENCH_PHASES " + json.dumps(result), file=sys.stderr)


def main() -> None:
    gc.callbacks.append(_on_gc)
    atexit.register(_report)
    serve = sys.argv[1]
    sys.argv = [serve]
    sys.path.insert(0, os.path.dirname(serve))
    import app  # the app module: framework, and under "with" the hook

    if os.environ.get("BENCH_PHASES_SETUP") == "noop":
        app.app.tool = _no_tool
    _marks["app"] = time.perf_counter()
    _watch_writes()
    runpy.run_path(serve, run_name="__main__")


if __name__ == "__main__":
    main()

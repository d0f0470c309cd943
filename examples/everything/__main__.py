"""``python -m examples.everything [--transport stdio|http] [--port PORT] [--infer]``.

Installs ``use_generated`` on this example's generated/ before the tool module is imported
(``--infer`` leaves it off, for comparison), then serves over stdio or streamable HTTP at
``http://127.0.0.1:PORT/mcp``.
"""

from __future__ import annotations

import argparse
import importlib
import warnings
from pathlib import Path

GENERATED = Path(__file__).resolve().parent / "generated"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m examples.everything", description=__doc__)
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--infer", action="store_true", help="do not use the generated schemas")
    parser.add_argument("--strict", action="store_true", help="refuse to start on a stale schema")
    options = parser.parse_args(argv)
    # The suite exercises logging on purpose; the SDK marks it deprecated for 2026-07-28.
    warnings.filterwarnings("ignore", message="The logging capability is deprecated")
    if not options.infer:
        from mcp_codegen.runtime import use_generated

        use_generated(GENERATED, strict=options.strict)
    server = importlib.import_module("examples.everything.server").mcp
    if options.transport == "stdio":
        server.run()
        return
    from examples.everything.events import MemoryEventStore

    server.run(
        transport="streamable-http",
        host="127.0.0.1",
        port=options.port,
        event_store=MemoryEventStore(),
        retry_interval=100,  # ms: how soon a client reconnects after test_reconnection closes
    )


if __name__ == "__main__":
    main()

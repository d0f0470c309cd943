"""``python -m mcp_codegen.runtime``: serve generated tools over stdio or streamable HTTP."""

from mcp_codegen.runtime._serve.server import main

raise SystemExit(main())

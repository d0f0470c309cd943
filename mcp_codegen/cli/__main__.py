"""``python -m mcp_codegen.cli`` runs ``mcp-codegen``."""

from mcp_codegen.cli.commands import main

raise SystemExit(main())

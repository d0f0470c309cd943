"""``python -m mcp_codegen._cli`` runs ``mcp-codegen``."""

from mcp_codegen._cli.commands import main

raise SystemExit(main())

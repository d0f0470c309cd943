"""``python -m mcp_codegen._cli`` runs ``mcp-codegen``, started as the console script is."""

from mcp_codegen._cli import main

raise SystemExit(main())

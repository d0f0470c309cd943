"""``python -m codegen.cli`` runs ``mcp-codegen``."""

from codegen.cli.commands import main

raise SystemExit(main())

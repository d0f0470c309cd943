"""``python -m mcp_codegen.diff`` runs ``mcp-codegen diff``."""

import sys

from mcp_codegen._cli.diff_options import main

sys.exit(main())

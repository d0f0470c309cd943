"""``python -m codegen.diff`` runs ``mcp-codegen diff``."""

import sys

from codegen.diff.cli import main

sys.exit(main())

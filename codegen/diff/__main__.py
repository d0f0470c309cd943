"""``python -m codegen.diff`` runs ``mcp-codegen diff``."""

import sys

from codegen.diff.options import main

sys.exit(main())

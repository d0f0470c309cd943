"""``python -m codegen.diff`` runs ``mcp-codegen diff``."""

import sys

from codegen.cli.diff_options import main

sys.exit(main())

"""``python -m mcp_codegen``: the ``mcp-codegen`` command line, started as the console script is.

Runs in: parent.
"""

import sys

from mcp_codegen._cli import main  # os and sys only: the start-up decides before any other import

sys.exit(main())

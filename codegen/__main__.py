"""``python -m codegen``: the ``mcp-codegen`` command line, with its workers started first.

Runs in: parent.
"""

import sys

from codegen.generator.workers.prestart import start_early

start_early(sys.argv[1:])  # before the CLI's imports: the workers' start-up overlaps them

from codegen.cli import main  # noqa: E402

sys.exit(main())

"""``python -m mcp_codegen``: the ``mcp-codegen`` command line, with its workers started first.

Runs in: parent.
"""

import sys

if sys.argv[1:2] == ["run"]:  # the stdio fast path: none of the other commands' imports
    from mcp_codegen._cli.run import main as run

    sys.exit(run(sys.argv[2:]))

from mcp_codegen._cli.daemon.client import delegate

delegated = delegate(sys.argv[1:])  # the project's build daemon, when one runs, builds instead
if delegated is not None:
    sys.exit(delegated)

from mcp_codegen._generator.workers.prestart import start_early  # noqa: E402

# Started before the CLI's imports (their start-up overlaps them), then passed down: the build
# session adopts them.
warm = start_early(sys.argv[1:])

from mcp_codegen._cli import after_warm_up  # noqa: E402

sys.exit(after_warm_up(sys.argv[1:], warm, own_process=True))

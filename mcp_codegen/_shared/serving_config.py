"""Which configuration a serving command reads: ``--config``, else the nearest above the working
directory that has the ``[tool.mcp-codegen]`` table, else the nearest above a place the command
names (``serve``: its ``--generated`` directory; ``run``: its target's package).

``mcp_codegen.runtime._serve.server`` and ``mcp_codegen._cli.run`` both start here; standard library
only (``tomllib`` is imported only once a configuration is found).
"""

from __future__ import annotations

import os

from mcp_codegen._shared import project_config as project

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def serving_settings(
    config: str | None, fallback: Callable[[], str | None]
) -> project.RuntimeSettings | None:
    """The settings of the configuration to serve with (``None``: there is none); ``config`` is
    the ``--config`` option, ``fallback()`` the command's own last place to look."""
    path = os.path.realpath(config) if config is not None else None
    if path is None:
        path = project.nearest_config_file(os.path.realpath(os.getcwd()), require_table=True)
    if path is None:
        path = fallback()
    return None if path is None else project.runtime_settings(path)

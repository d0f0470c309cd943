"""The serving start-up, in one place: which configuration is read, then the stdio opening answered
by the fast path while the server loads on a thread, or the plain start.

``mcp-codegen serve`` (``_serve.server``), ``mcp-codegen run`` (``mcp_codegen._cli.run``) and the
front of your own server (``_hook.install.serve_in_front``) run this sequence; what differs between
them is a parameter: the last place to look for a configuration (``serve``: above its
``--generated`` tree; ``run``: above its target's package), the opening the fast path serves and
what it reads for it (``serve``: the registry ``load_tools`` read from the manifest; the front: the
target's records and stored listings, checked), what loads on the thread (the SDK door; your server
under ``use_generated``), and the plain start. Standard library only, and nothing imported before
it is needed: both commands call it before their first answer.
"""

from __future__ import annotations

import os

from mcp_codegen.runtime._stdio import fastpath

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    from mcp_codegen._shared.project_config import RuntimeSettings

    T = TypeVar("T")


def serving_settings(
    config: str | None, fallback: Callable[[], str | None]
) -> RuntimeSettings | None:
    """The settings of the configuration to serve with (``None``: there is none): ``config`` (the
    ``--config`` option), else the nearest above the working directory that has the
    ``[tool.mcp-codegen]`` table, else ``fallback()``, the command's own last place to look."""
    # the configuration reader (~7 ms cold, with collections): only when a command reads one
    from mcp_codegen._shared import project_config as project

    path = os.path.realpath(config) if config is not None else None
    if path is None:
        path = project.nearest_config_file(os.path.realpath(os.getcwd()), require_table=True)
    if path is None:
        path = fallback()
    return None if path is None else project.runtime_settings(path)


def serve_stdio(
    *,
    no_fast_path: bool,
    opening: Callable[[], fastpath.Opening | None],
    plain: Callable[[], T],
) -> int | T:
    """Serve stdio: the fast path answers the opening (``fastpath.serve_opening``) while the
    opening's ``load`` imports the server on a thread, then hands the session over; returns its
    exit code. ``plain()`` starts the server without it, when the fast path is off
    (``--no-fast-path``, ``MCP_CODEGEN_NO_FAST_PATH``: ``fastpath.off``) or ``opening()`` finds
    it cannot serve this server (``None``; it said why, if anything is to be said)."""
    if fastpath.off(no_fast_path):
        return plain()
    built = opening()
    if built is None:
        return plain()
    return fastpath.serve_opening(built)

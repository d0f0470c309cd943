"""Every registration form known to mcp-codegen, on one SDK server: each tool is either
generated or reported at its registration (``# -> name`` marks where each one registers)."""

import functools

from forms_sdk.registrar import register
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("forms")


@mcp.tool()  # -> decorated
def decorated(x: int) -> int:
    """Decorated with a call."""
    return x


@mcp.tool(name="renamed")  # -> renamed
def renamed_function(x: int) -> int:
    """Renamed by the decorator."""
    return x


def added(x: int) -> int:
    """Added by call."""
    return x


mcp.add_tool(added, name="added_by_call")  # -> added_by_call


def logged(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, **kwargs)

    return wrapper


@mcp.tool()  # -> wrapped
@logged
def wrapped(x: int) -> int:
    """Under a functools.wraps decorator."""
    return x


def other(y: str) -> str:
    """Registered by the call form."""
    return y


mcp.tool(name="called")(other)  # -> called

register(mcp)

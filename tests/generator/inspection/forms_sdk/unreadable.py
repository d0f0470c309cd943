"""Registrations no scanner can read: each must be reported at its line, never dropped."""

from forms_sdk import helpers
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("unreadable")
register = mcp.tool()  # a decorator kept in a name: only running the code shows what it gets

for function in helpers.LOOPED:
    register(function)  # -> looped_one looped_two


def make(prefix: str):
    def search(q: str) -> str:
        return q

    search.__name__ = f"{prefix}_search"
    return search


adder = mcp.add_tool
adder(make("docs"))  # -> docs_search


def my_tool(function):
    register(function)  # -> custom
    return function


@my_tool
def custom(x: int) -> int:
    """Registered by a decorator of the project's own."""
    return x

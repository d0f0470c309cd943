"""The assembled server: the tools and everything else, on one ``MCPServer``."""

from examples.everything import features, tools  # noqa: F401 - they register on import
from examples.everything.app import mcp

__all__ = ["mcp"]

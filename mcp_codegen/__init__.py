"""mcp-codegen: build-time JSON Schemas for MCP tools.

This package's ``__init__`` stays import-free: ``mcp_codegen.runtime`` and generated modules must load
without pulling in the generator's dependencies.

Runs in: any. (The default for every module of this package.)
"""

__version__ = "0.1.0"

"""Stage 3: final MCP tool definitions from raw schemas, and the checks on them.

Runs in: parent. (Every inspection, a worker's or one taken from the build cache; see
``mcp_codegen._generator.render.module_output``.)
"""

"""Stage 3 (parent): final MCP tool definitions from raw schemas, and the checks on them.

Runs in: parent. (The default for every module of this package.)
"""

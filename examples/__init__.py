"""Example MCP tool packages served through mcp-codegen's generated schemas."""

"""The tools the official MCP conformance suite calls (``@modelcontextprotocol/conformance``)."""

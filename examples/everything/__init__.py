"""An SDK 2.x ``MCPServer`` with every feature the MCP conformance suite checks.

Its tools (tools.py) are listed from generated modules (``generated/``, flavor ``"mcp"``) through
``mcp_codegen.runtime.use_generated``; resources, templates, subscriptions, prompts, completion,
logging, progress, sampling and elicitation are the framework's own (features.py). Serve it with
``python -m examples.everything --transport http --port PORT``.
"""

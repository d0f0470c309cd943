"""Profile ``claude``: Anthropic's tool input schemas reject a root ``anyOf`` / ``oneOf`` /
``allOf`` (claude-code#95504, python-sdk#494); everything below the root is accepted."""

from __future__ import annotations

from mcp_codegen._profiles._base import Profile
from mcp_codegen._profiles._rewrites import root_combinators

NAME = "claude"

PROFILE = Profile(NAME, "Anthropic Claude tool use", (root_combinators,))

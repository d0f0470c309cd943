"""The client profile names and the modules defining them, importable without the profiles.

The runtime's command line offers these names as choices before its first answer; importing
``mcp_codegen._profiles`` for them would load the profile machinery (milliseconds) that a server
without ``--profile`` never uses.
"""

#: Profile name -> module that defines its ``PROFILE``.
PROFILES = {
    "openai-strict": "mcp_codegen._profiles.openai_strict",
    "gemini": "mcp_codegen._profiles.gemini",
    "claude": "mcp_codegen._profiles.claude",
}

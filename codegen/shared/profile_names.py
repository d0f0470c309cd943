"""The client profile names and the modules defining them, importable without the profiles.

The runtime's command line offers these names as choices before its first answer; importing
``codegen.profiles`` for them would load the profile machinery (milliseconds) that a server
without ``--profile`` never uses.
"""

#: Profile name -> module that defines its ``PROFILE``.
PROFILES = {
    "openai-strict": "codegen.profiles.openai_strict",
    "gemini": "codegen.profiles.gemini",
    "claude": "codegen.profiles.claude",
}

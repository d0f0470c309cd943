"""``use_generated``: framework patches that list tools from their generated entries.

Runs in: server. (The default for every module of this package.)
"""

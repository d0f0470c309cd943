"""The stdio transport and the fast path that answers a session's opening before the SDK loads.

Runs in: server. (The default for every module of this package.)
"""

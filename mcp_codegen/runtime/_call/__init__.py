"""``tools/call``: preparing a tool, converting arguments, running it, shaping its result (server).

Runs in: server. (The default for every module of this package.)
"""

"""``tools/call``: preparing a tool, converting arguments, running it, shaping its result (server)."""

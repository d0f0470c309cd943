"""``use_generated``: framework patches that list tools from their generated entries."""

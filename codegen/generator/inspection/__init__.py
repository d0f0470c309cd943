"""Stage 2a (worker): import a tool module and resolve each tool's type hints."""

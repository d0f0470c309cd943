"""Stage 2a (worker): import a tool module and resolve each tool's type hints.

Runs in: worker. (The default for every module of this package.)
"""

"""The generator: sources -> scan -> inspection (worker) -> assemble -> render -> write, with the cache.

Modules here run in the parent (``mcp-codegen generate``) unless their package says "worker".

Runs in: parent. (The default for every module of this package.)
"""

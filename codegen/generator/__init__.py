"""The generator: sources -> scan -> inspection (worker) -> assemble -> render -> write, with the cache.

Modules here run in the parent (``mcp-codegen generate``) unless their package says "worker"."""

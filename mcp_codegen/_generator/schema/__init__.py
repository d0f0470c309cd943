"""Stage 2b (worker): JSON Schemas from resolved types with pydantic ``TypeAdapter``.

Runs in: worker. (The default for every module of this package.)
"""

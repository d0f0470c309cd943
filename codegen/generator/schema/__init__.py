"""Stage 2b (worker): JSON Schemas from resolved types with pydantic ``TypeAdapter``."""

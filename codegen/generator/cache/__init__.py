"""The build cache (parent)."""

"""Constant expressions evaluated from source alone: decorator arguments (worker; no user code runs)."""

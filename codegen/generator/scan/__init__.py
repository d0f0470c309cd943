"""Stage 1: find tool functions in source with libcst (worker; no user code runs)."""

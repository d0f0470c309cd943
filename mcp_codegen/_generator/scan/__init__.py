"""Stage 1: find tool functions in source with libcst (worker; no user code runs).

Runs in: worker. (The default for every module of this package.)
"""

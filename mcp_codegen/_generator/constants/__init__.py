"""Constant expressions evaluated from source alone: decorator arguments (worker; no user code runs).

Runs in: worker. (The default for every module of this package.)
"""

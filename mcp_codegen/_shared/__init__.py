"""Neutral ground: what the build, the runtime, the diff and the profiles all need (standard library only).

The generated-module format, protocol revisions, diagnostics, JSON-pointer and JSON-value helpers.

Runs in: any. (The default for every module of this package.)
"""

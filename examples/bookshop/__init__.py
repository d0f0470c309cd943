"""Marginalia Books: the back office of a small online bookshop, as MCP tools.

The tools live in ``catalog``, ``members``, ``orders`` and ``reports``; their shared types are in
``models``, the in-memory shop data in ``store`` and the injected dependencies in ``deps``.
"""

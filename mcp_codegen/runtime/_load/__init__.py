"""Loading generated modules into a read-only registry (server; standard library only).

Runs in: server. (The default for every module of this package.)
"""

"""Serving: the SDK door's server (``serve``) and the start-up every serving command shares.

Runs in: server. (The default for every module of this package.)
"""

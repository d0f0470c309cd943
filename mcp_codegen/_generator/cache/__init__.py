"""The build cache (parent).

Runs in: parent. (The default for every module of this package.)
"""

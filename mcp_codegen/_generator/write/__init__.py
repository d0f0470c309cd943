"""Stage 5 (parent): compare rendered files with the output directory and replace it at once.

Runs in: parent. (The default for every module of this package.)
"""

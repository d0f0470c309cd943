"""Stage 4 (parent): generated modules rendered in memory.

Runs in: parent. (The default for every module of this package.)
"""

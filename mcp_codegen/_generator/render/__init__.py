"""Stage 4: generated modules rendered in memory.

Runs in: parent. (Every module from its inspection, a worker's or a stored one, the manifest
and the server records; see ``module_output``.)
"""

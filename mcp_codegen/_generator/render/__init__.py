"""Stage 4: generated modules rendered in memory.

Runs in: worker, parent. (Workers render the modules they inspected, the generator the manifest,
the server records and inspections taken from the build cache; see ``module_output``.)
"""

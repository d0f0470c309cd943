"""Child of bench/startup_trees.py: load the generated tree under argv[1] with ``mcp_codegen.runtime``
and list it, timing each phase. Prints "WALL_MS IMPORT_CPU_MS LOAD_CPU_MS LIST_CPU_MS COUNT".

CPU time (``time.process_time``) is the steadier number on a shared machine.
"""

import time

W0, C0 = time.perf_counter(), time.process_time()

import sys  # noqa: E402 - after the first timestamp on purpose

from mcp_codegen.runtime import load_tools  # noqa: E402

C1 = time.process_time()
registry = load_tools(sys.argv[1] + "/generated")
C2 = time.process_time()
tools = registry.list_tools()
C3, W1 = time.process_time(), time.perf_counter()
ms = [(W1 - W0) * 1e3, (C1 - C0) * 1e3, (C2 - C1) * 1e3, (C3 - C2) * 1e3]
sys.stdout.write(" ".join(f"{value:.3f}" for value in ms) + f" {len(tools)}\n")

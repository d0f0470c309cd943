"""When the cyclic garbage collector runs in a build's processes: the generator and its workers.

Runs in: parent, worker.

Each of a build's processes imports large libraries (libcst, pydantic, jinja2) or unpickles
thousands of objects that live until it exits. With CPython's default thresholds (700, 10, 10)
the automatic collections walk that growing heap again and again while nothing in it is garbage:
~5% of the CPU of an edit's build (three processes on two cores), measured with
``bench/edit_ab.py`` (docs/incremental.md, "Session 9"). Young collections are therefore rare,
not off: code that makes cyclic garbage in a loop is still collected. Collection never changes
what a process computes, only when memory comes back.
"""

from __future__ import annotations

import gc

#: Allocations between two automatic young collections (CPython's default is 700).
YOUNG_THRESHOLD = 50_000


def collect_rarely() -> None:
    """Raise the young generation's threshold for the rest of this process."""
    gc.set_threshold(YOUNG_THRESHOLD, 10, 10)

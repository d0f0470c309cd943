"""When the cyclic garbage collector runs in a build's processes: the generator and its workers.

Runs in: parent, worker.

Each of a build's processes imports large libraries (libcst, pydantic, jinja2) or unpickles
thousands of objects that live until it exits. With CPython's default thresholds (700, 10, 10)
the automatic collections walk that growing heap again and again while nothing in it is
garbage (docs/incremental.md, "Session 9", has the measurements):

- a worker runs user code, which may make cyclic garbage in a loop: its young collections are
  rare (``collect_rarely``), not off;
- the generator of ``generate`` and ``check`` runs no user code, makes no cyclic garbage worth
  collecting (its peak RSS on a 10,000-tool build is the same without collection) and ends with
  ``os._exit``: it never collects (``collect_never``). Only raising its threshold was worse: an
  edit's build then paid one ~20 ms collection while it rendered the module.

Collection never changes what a process computes, only when memory comes back.
"""

from __future__ import annotations

import gc

#: Allocations between two automatic young collections (CPython's default is 700).
YOUNG_THRESHOLD = 50_000


def collect_rarely() -> None:
    """Raise the young generation's threshold for the rest of this process (a worker)."""
    gc.set_threshold(YOUNG_THRESHOLD, 10, 10)


def collect_never() -> None:
    """No automatic collection for the rest of this process (a build's generator)."""
    gc.disable()

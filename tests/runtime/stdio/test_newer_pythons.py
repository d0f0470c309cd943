"""The stdio fast path's modules on every newer CPython on the machine (the project supports
3.11+): they import only the standard library, some of it private (``_sha2`` is 3.12's name for
3.11's ``_sha256``; ``run`` failed on 3.12 with "No module named '_sha256'")."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers.project import REPO

pytestmark = pytest.mark.process

#: imports every fast-path module and hashes with both implementations, against hashlib
CHECK = """
import hashlib, sys
from mcp_codegen.runtime._stdio import fastpath, front, listing_cache, shapes, wire_json
for size in (10, listing_cache._SMALL + 1):
    digest = listing_cache.sha256(size)
    digest.update(b"x" * size)
    assert digest.hexdigest() == hashlib.sha256(b"x" * size).hexdigest()
print("%d.%d" % sys.version_info[:2])
"""


def newer_pythons() -> list[Path]:
    """CPython 3.12 and later as pyenv installs them (these machines keep several versions)."""
    versions = Path.home() / ".pyenv" / "versions"
    found = []
    for candidate in sorted(versions.glob("3.*/bin/python3")):
        release = tuple(int(part) for part in candidate.parts[-3].split(".")[:2])
        if release >= (3, 12):
            found.append(candidate)
    return found


def test_the_fast_path_modules_run_on_each_newer_python() -> None:
    pythons = newer_pythons()
    if not pythons:
        pytest.skip("no CPython 3.12 or later on this machine (looked in ~/.pyenv/versions)")
    ran = []
    for python in pythons:
        done = subprocess.run(
            [str(python), "-I", "-c", f"import sys; sys.path.insert(0, {str(REPO)!r})\n{CHECK}"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, (python, done.stderr)
        ran.append(done.stdout.strip())
    assert ran == [".".join(python.parts[-3].split(".")[:2]) for python in pythons]

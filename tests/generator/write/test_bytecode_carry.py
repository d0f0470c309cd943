"""The bytecode of modules a write carries over unchanged survives it (mcp_codegen/_generator/write/bytecode.py).

The oracle is CPython's own loader: the tree is loaded through ``mcp_codegen._shared.reader`` in a
fresh process that writes bytecode, as a server does. A ``.pyc`` the loader finds invalid is
compiled again and replaced (a new inode); one it accepts is left alone.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_codegen._generator.model import RenderedFile
from mcp_codegen._generator.write import output as write
from mcp_codegen._shared.format import HEADER_PREFIX
from tests.helpers.project import codegen_env

LOAD = """
import json, sys
from mcp_codegen._shared.reader import exec_generated
print(json.dumps({path: exec_generated(path).get("TAG") for path in sys.argv[1:]}))
"""


def module(tag: str, index: int) -> RenderedFile:
    return RenderedFile(
        f"pkg/m{index:03d}.py",
        f"{HEADER_PREFIX} test. Do not edit by hand.\nFORMAT = 1\nTAG = {tag!r}\n",
    )


def manifest(tag: str) -> RenderedFile:
    return RenderedFile("__init__.py", f"{HEADER_PREFIX} test.\nTAG = {tag!r}\n")


def load(output: Path, *relative: str) -> dict[str, str]:
    """Each file's ``TAG`` as a fresh process that writes bytecode loads it."""
    env = codegen_env()
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    paths = [str(output / r) for r in relative]
    done = subprocess.run(
        [sys.executable, "-c", LOAD, *paths], env=env, capture_output=True, text=True, check=True
    )
    found = json.loads(done.stdout)
    return {r: found[str(output / r)] for r in relative}


def bytecode(path: Path) -> Path:
    return Path(importlib.util.cache_from_source(str(path)))


@pytest.fixture(params=["exchange", "fallback"])
def swap(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "fallback":
        monkeypatch.setattr(write, "_exchange", lambda first, second: False)
    return request.param


@pytest.mark.process
def test_unchanged_modules_keep_valid_bytecode_and_changed_ones_are_compiled_again(
    tmp_path: Path, swap: str
) -> None:
    output = tmp_path / "generated"
    write.apply([manifest("A"), module("A", 0), module("A", 1), module("A", 2)], output)
    assert load(output, "pkg/m000.py", "pkg/m001.py", "pkg/m002.py") == dict.fromkeys(
        ["pkg/m000.py", "pkg/m001.py", "pkg/m002.py"], "A"
    )
    kept, changed, removed = (bytecode(output / f"pkg/m00{i}.py") for i in range(3))
    inode = kept.stat().st_ino
    stray = kept.parent / "mcp-codegen-listing-0123.bin"  # keyed on the old tree
    stray.write_bytes(b"stale")
    old_mtime = (output / "pkg/m001.py").stat().st_mtime_ns

    report = write.apply([manifest("B"), module("A", 0), module("B", 1)], output)

    assert report.written == ("__init__.py", "pkg/m001.py")
    assert report.removed == ("pkg/m002.py",)
    assert kept.exists() and kept.stat().st_ino == inode  # carried by hard link
    assert not changed.exists() and not removed.exists() and not stray.exists()
    # The rewrite happened within the same second, at the same size: a kept .pyc would pass
    # the loader's mtime check and serve the old code.
    os.utime(output / "pkg/m001.py", ns=(old_mtime, old_mtime))
    assert load(output, "pkg/m000.py", "pkg/m001.py") == {"pkg/m000.py": "A", "pkg/m001.py": "B"}
    assert kept.stat().st_ino == inode  # the loader accepted it: not compiled and written again
    assert changed.exists()  # compiled from the new source and written


@pytest.mark.process
def test_a_tree_whose_modules_all_go_keeps_no_bytecode_directory(tmp_path: Path) -> None:
    output = tmp_path / "generated"
    write.apply([manifest("A"), module("A", 0)], output)
    load(output, "pkg/m000.py")
    assert bytecode(output / "pkg/m000.py").exists()

    write.apply([manifest("B")], output)

    assert not (output / "pkg").exists()  # its __pycache__ did not keep it alive


@pytest.mark.process
def test_links_in_a_bytecode_directory_are_never_carried(tmp_path: Path) -> None:
    output = tmp_path / "generated"
    write.apply([manifest("A"), module("A", 0), module("A", 1)], output)
    load(output, "pkg/m000.py")
    elsewhere = tmp_path / "elsewhere.pyc"
    elsewhere.write_bytes(b"not ours")
    linked = bytecode(output / "pkg/m001.py")
    linked.symlink_to(elsewhere)

    write.apply([manifest("B"), module("A", 0), module("A", 1)], output)

    assert bytecode(output / "pkg/m000.py").exists()
    assert not linked.exists() and not linked.is_symlink()
    assert elsewhere.read_bytes() == b"not ours"

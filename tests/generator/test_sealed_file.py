"""Sealed files: what is written is read back, anything damaged reads as nothing, and a failed
write leaves nothing behind (mcp_codegen/_generator/sealed_file.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_codegen._generator.sealed_file import TEMPORARY_PREFIX, unsealed, write_sealed

MAGIC = b"test seal 1\n"


#: each example writes a file and reads it back: a shared box may be slow at that
_FILES = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@_FILES
@given(payload=st.binary(max_size=512))
def test_what_is_written_is_read_back(
    tmp_path_factory: pytest.TempPathFactory, payload: bytes
) -> None:
    path = tmp_path_factory.mktemp("sealed") / "file"
    written = write_sealed(path, MAGIC, payload)
    data = path.read_bytes()
    assert written == len(data)
    assert unsealed(data, MAGIC) == payload
    assert [p.name for p in path.parent.iterdir()] == ["file"]


@_FILES
@given(payload=st.binary(max_size=256), where=st.integers(min_value=0), bit=st.integers(0, 7))
def test_any_flipped_bit_reads_as_nothing(
    tmp_path_factory: pytest.TempPathFactory, payload: bytes, where: int, bit: int
) -> None:
    path = tmp_path_factory.mktemp("sealed") / "file"
    write_sealed(path, MAGIC, payload)
    data = bytearray(path.read_bytes())
    data[where % len(data)] ^= 1 << bit
    assert unsealed(bytes(data), MAGIC) is None


@_FILES
@given(payload=st.binary(min_size=1, max_size=256), keep=st.integers(min_value=0))
def test_a_truncated_file_reads_as_nothing(
    tmp_path_factory: pytest.TempPathFactory, payload: bytes, keep: int
) -> None:
    path = tmp_path_factory.mktemp("sealed") / "file"
    write_sealed(path, MAGIC, payload)
    data = path.read_bytes()
    assert unsealed(data[: keep % len(data)], MAGIC) is None


def test_another_kind_of_sealed_file_reads_as_nothing(tmp_path: Path) -> None:
    write_sealed(tmp_path / "file", b"other seal 1\n", b"payload")
    assert unsealed((tmp_path / "file").read_bytes(), MAGIC) is None


def test_a_failed_write_raises_and_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()  # os.replace cannot put a file over a directory
    (target / "inside").write_text("kept")
    with pytest.raises(OSError):
        write_sealed(target, MAGIC, b"payload")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["target"]
    assert (target / "inside").read_text() == "kept"
    assert not any(p.name.startswith(TEMPORARY_PREFIX) for p in tmp_path.rglob("*"))

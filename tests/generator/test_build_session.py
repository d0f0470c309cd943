"""``BuildSession``: one session runs several builds (cold, edited, unchanged) with the same
result as a build of its own, reuses the workers it keeps warm, and stops what no build took."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_codegen._generator.cache.stored_entries import CacheTiers
from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.pipeline import BuildResult, BuildSession, build
from mcp_codegen._generator.workers import prestart
from tests.helpers.project import in_process_builds  # noqa: F401 - the fixture, used by name

pytestmark = [
    pytest.mark.process,  # starts real processes (builds, servers or clients)
    pytest.mark.usefixtures("in_process_builds"),
]

TOOL = '''
from mcp_codegen.decorators import tool


@tool
def {name}(count: int = {default}) -> int:
    """Counts."""
    return count
'''


def _project(root: Path) -> Path:
    (root / "pyproject.toml").write_text('[tool.mcp-codegen]\nsources = ["pkg"]\n')
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    for index in range(3):
        _write(root, index, default=index)
    return root


def _write(root: Path, index: int, *, default: int) -> None:
    (root / "pkg" / f"m{index}.py").write_text(TOOL.format(name=f"tool_{index}", default=default))


def _output(result: BuildResult) -> tuple[object, ...]:
    assert not result.errors, result.errors
    return tuple((f.relative_path, f.content) for f in result.files), result.tool_count


def test_one_session_builds_cold_edited_and_unchanged_like_a_fresh_build(tmp_path: Path) -> None:
    root = _project(tmp_path)
    session = BuildSession(load_config(root / "pyproject.toml"))
    try:
        cold = _output(session.build())
        assert cold == _output(build(load_config(root / "pyproject.toml"), use_cache=False))
        _write(root, 1, default=41)
        session.reconfigure(load_config(root / "pyproject.toml"))
        edited = session.build()
        assert [d.source.relative_path for d in edited.rebuilt] == ["pkg/m1.py"]
        fresh = _output(build(load_config(root / "pyproject.toml"), use_cache=False))
        assert _output(edited) == fresh != cold
        unchanged = session.build()  # the whole build from the cache
        assert unchanged.rebuilt == () and _output(unchanged) == fresh
        assert session.builds == 3
    finally:
        session.close()


def test_the_session_reuses_the_workers_it_keeps_warm(tmp_path: Path) -> None:
    root = _project(tmp_path)
    session = BuildSession(load_config(root / "pyproject.toml"))
    try:
        session.build()
        for default in (7, 8):
            session.keep_warm(1)
            assert session.warm is not None
            ((waiting, _),) = session.warm.workers
            _write(root, 0, default=default)
            result = session.build()
            files, _ = _output(result)
            assert f'"default": {default}' in dict(files)["pkg/m0.py"]  # type: ignore[arg-type]
            assert session.warm.workers == []  # taken by the build
            assert waiting.returncode is not None  # it imported user code: ended with its build
        session.keep_warm(1)
        ((kept, _),) = session.warm.workers
    finally:
        session.close()
    assert kept.returncode is not None  # stopped with the session


def test_warm_workers_no_build_took_are_stopped_by_their_owner(tmp_path: Path) -> None:
    root = _project(tmp_path)
    config = load_config(root / "pyproject.toml")
    build(config)  # fill the cache: the next build takes everything from it
    warm = prestart.start_split(root)
    assert warm is not None and warm.scanner is not None
    scanner, _ = warm.scanner
    session = BuildSession(config, warm=warm)
    assert _output(session.build()) == _output(build(config, use_cache=False))
    assert warm.scanner is not None and scanner.poll() is None  # not adopted by any build
    session.close()
    assert warm.scanner is None and scanner.returncode is not None


def test_a_session_with_another_hash_seed_adopts_no_warm_worker(tmp_path: Path) -> None:
    root = _project(tmp_path)
    config = load_config(root / "pyproject.toml")
    warm = prestart.WarmWorkers(root)
    warm.keep(1)
    try:
        session = BuildSession(config, use_cache=False, hash_seed="1", warm=warm)
        assert _output(session.build()) == _output(build(config, use_cache=False))
        assert len(warm.workers) == 1  # started with the default seed: not this session's
    finally:
        warm.stop()


def _entries(root: Path) -> list[Path]:
    return sorted((root / ".mcp-codegen-cache" / "entries").glob("*/*"))


def test_deferred_writes_reach_the_disk_when_the_block_ends_also_by_an_error(
    tmp_path: Path,
) -> None:
    """What a session's builds put in the cache inside ``deferred_writes`` is held back (reads
    see it) and written when the block ends, even by Ctrl-C: the next process builds from it."""
    root = _project(tmp_path)
    session = BuildSession(load_config(root / "pyproject.toml"))
    try:
        with pytest.raises(KeyboardInterrupt), session.deferred_writes():
            cold = _output(session.build())
            assert _entries(root) == []  # held back
            assert session.build().rebuilt == ()  # yet read: the whole build is found
            raise KeyboardInterrupt
    finally:
        session.close()
    assert _entries(root)
    again = BuildSession(load_config(root / "pyproject.toml")).build()  # the disk alone
    assert again.rebuilt == () and _output(again) == cold


def test_sessions_keep_their_own_cache_tiers(tmp_path: Path) -> None:
    """A one-shot session keeps no entry in memory; one that does keeps its own."""
    root = _project(tmp_path)
    config = load_config(root / "pyproject.toml")
    one_shot = BuildSession(config)
    kept = BuildSession(config, tiers=CacheTiers(keep_in_memory=True))
    other = BuildSession(config, tiers=CacheTiers(keep_in_memory=True))
    _output(kept.build())
    assert kept.tiers.memory.values and not other.tiers.memory.values
    assert one_shot.tiers is not kept.tiers and not one_shot.tiers.memory.values
    for path in _entries(root):
        path.unlink()
    assert one_shot.build().rebuilt != ()  # the disk is empty, and it keeps nothing
    for path in _entries(root):
        path.unlink()
    assert other.build().rebuilt != ()
    for path in _entries(root):
        path.unlink()
    assert kept.build().rebuilt == ()  # its memory tier answers

"""``mcp-codegen run`` answers tools/list from the listing it stored after shaping it once.

The stored bytes must be exactly the shaped answer (every revision, corpus servers in both
frameworks and examples/everything), are really what is sent (a doctored entry is answered), are
never used for a generated tree that changed (tampered module: a new key, shaped again),
and a truncated or altered entry is a miss with one note, then written again. The entry's bytes
are the same in two checkouts (no absolute path), and an unwritable cache directory only means
shaping each time. When the client closes stdin while the server still imports, ``run`` exits
at once.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.helpers.project import codegen_env
from tests.runtime.run.run_support import (
    FIXTURES,
    INITIALIZED,
    REPO,
    build_published_project,
    demo_project,
    exchange,
    initialize,
    line,
    request,
    run_command,
)

pytestmark = pytest.mark.process

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MAGIC = b"mcp-codegen-listing 1\n"


def _opening(revision: str) -> list[object]:
    return [initialize(revision), INITIALIZED, request(2, "tools/list"), request(3, "ping")]


def _answers(root: Path, target: str, revision: str, pythonpath: str) -> tuple[dict, str]:
    answers, notes, err = exchange(
        run_command("generated", target),
        _opening(revision),
        {1, 2, 3},
        cwd=root,
        env=codegen_env(PYTHONPATH=pythonpath),
        timeout=60,
    )
    assert set(answers) == {1, 2, 3}, err
    assert notes == []
    return answers, err


def _entries(root: Path) -> list[Path]:
    """The stored listings: in the project's cache directory, nothing inside generated/."""
    assert not list((root / "generated").rglob("*.bin"))
    cache = root / ".mcp-codegen-cache" / "listings"
    return sorted(cache.glob("*.bin")) if cache.is_dir() else []


def _parse(data: bytes) -> tuple[list[bytes], list[bytes]]:
    """The entry's index line and payloads (the format, read independently of the runtime)."""
    assert data.startswith(MAGIC)
    index, lengths, _digests, body = data[len(MAGIC) :].split(b"\n", 3)
    payloads, start = [], 0
    for size in (int(size) for size in lengths.split()):
        payloads.append(body[start : start + size])
        start += size
    assert start == len(body)
    return index.split(), payloads


def _entry(index: list[bytes], payloads: list[bytes]) -> bytes:
    sums = b" ".join(hashlib.sha256(payload).hexdigest().encode() for payload in payloads)
    lengths = b" ".join(str(len(payload)).encode() for payload in payloads)
    return MAGIC + b" ".join(index) + b"\n" + lengths + b"\n" + sums + b"\n" + b"".join(payloads)


def _stored_equals_shaped(root: Path, target: str, pythonpath: str) -> None:
    """Shaped answers per revision (the cache directory blocked by a file: nothing stored),
    then one run that stores, then every revision from the stored bytes: identical."""
    cache = root / ".mcp-codegen-cache" / "listings"
    shutil.rmtree(cache, ignore_errors=True)
    cache.parent.mkdir(exist_ok=True)
    cache.write_text("not a directory")
    shaped = {revision: _answers(root, target, revision, pythonpath)[0] for revision in REVISIONS}
    assert _entries(root) == []
    cache.unlink()
    _answers(root, target, REVISIONS[-1], pythonpath)
    (entry,) = _entries(root)
    stored = entry.read_bytes()
    for revision in REVISIONS:
        answers, err = _answers(root, target, revision, pythonpath)
        assert answers == shaped[revision], revision
        assert "stored listing" not in err
    assert entry.read_bytes() == stored  # read, not rewritten
    index, payloads = _parse(stored)
    assert [item.split(b"=")[0].decode() for item in index] == list(REVISIONS)
    assert b'"tools":[' in shaped[REVISIONS[-1]][2]
    assert payloads  # every recorded server here lists its tools from the fast path


@pytest.mark.slow
@pytest.mark.parametrize(("package", "flavor"), [("sdk2", "mcp"), ("fastmcp_style", "fastmcp")])
def test_stored_listing_is_the_shaped_one_corpus(tmp_path: Path, package: str, flavor: str) -> None:
    target = build_published_project(tmp_path, package, flavor)
    _stored_equals_shaped(tmp_path, target, f"{REPO}:{FIXTURES}")


def test_stored_listing_is_the_shaped_one_everything(tmp_path: Path) -> None:
    shutil.copytree(
        REPO / "examples" / "everything" / "generated",
        tmp_path / "generated",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    (tmp_path / "pyproject.toml").write_text("")  # the project whose cache directory is used
    _stored_equals_shaped(tmp_path, "examples.everything.server:mcp", str(REPO))


@pytest.fixture(scope="module", params=["mcp", "fastmcp"])
def project(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_project(tmp_path_factory.mktemp(request.param), request.param)


def _fresh(project: Path, tmp: Path, name: str = "p") -> Path:
    ignore = shutil.ignore_patterns("__pycache__", ".mcp-codegen-cache")
    shutil.copytree(project, tmp / name, ignore=ignore)
    return tmp / name


def _list(root: Path, *options: str) -> tuple[bytes, str]:
    answers, _, err = exchange(
        run_command("generated", "pkg.server:mcp", *options),
        _opening(REVISIONS[-1]),
        {1, 2, 3},
        cwd=root,
        env=codegen_env(PYTHONPATH=str(root)),
        timeout=60,
    )
    assert set(answers) == {1, 2, 3}, err
    return answers[2], err


def test_a_doctored_entry_is_what_is_answered(project: Path, tmp_path: Path) -> None:
    """The control for the tests around it: a consistent entry is answered as stored."""
    root = _fresh(project, tmp_path)
    shaped, _ = _list(root)
    (entry,) = _entries(root)
    index, payloads = _parse(entry.read_bytes())
    doctored = [
        payload.replace(b"Add two numbers.", b"Add two numbers (stored).") for payload in payloads
    ]
    assert doctored != payloads
    entry.write_bytes(_entry(index, doctored))
    answered, _ = _list(root)
    assert answered == shaped.replace(b"Add two numbers.", b"Add two numbers (stored).")


def test_a_changed_generated_module_is_never_answered_from_the_stored_bytes(
    project: Path, tmp_path: Path
) -> None:
    root = _fresh(project, tmp_path)
    before, _ = _list(root)
    (entry,) = _entries(root)
    module = next(
        path
        for path in (root / "generated").rglob("*.py")
        if "__pycache__" not in path.parts and b"Add two numbers." in path.read_bytes()
    )
    module.write_bytes(
        module.read_bytes().replace(b"Add two numbers.", b"Add two numbers, edited.")
    )
    after, _ = _list(root)
    assert after == before.replace(b"Add two numbers.", b"Add two numbers, edited.")
    (new,) = _entries(root)  # a new key; the entry of the earlier tree is dropped
    assert new != entry
    # and what the new entry answers is that shaped answer
    again, _ = _list(root)
    assert again == after


def test_a_stale_source_still_refuses_under_strict(project: Path, tmp_path: Path) -> None:
    root = _fresh(project, tmp_path)
    _list(root)
    assert _entries(root)
    server = root / "pkg" / "server.py"
    server.write_text(server.read_text().replace("Say it back.", "Say it back, louder."))
    done = subprocess.run(
        run_command("generated", "pkg.server:mcp", "--strict"),
        input=b"".join(line(message) for message in _opening(REVISIONS[-1])),
        cwd=root,
        env=codegen_env(PYTHONPATH=str(root)),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == b""  # nothing answered, stored listing or not
    assert b"refusing to start (strict)" in done.stderr


@pytest.mark.parametrize("damage", ["truncated", "altered", "garbage"])
def test_a_damaged_entry_is_a_miss_with_a_note(project: Path, tmp_path: Path, damage: str) -> None:
    root = _fresh(project, tmp_path)
    shaped, _ = _list(root)
    (entry,) = _entries(root)
    good = entry.read_bytes()
    if damage == "truncated":
        entry.write_bytes(good[: len(good) - 7])
    elif damage == "altered":  # same length, one byte of a payload changed, digests kept
        at = good.index(b"Add two numbers.")
        entry.write_bytes(good[:at] + b"B" + good[at + 1 :])
    else:
        entry.write_bytes(b"\x00\xff" * 100)
    answered, err = _list(root)
    assert answered == shaped
    assert f"ignoring the stored listing {entry}" in err
    assert entry.read_bytes() == good  # stored again
    _, err = _list(root)
    assert "stored listing" not in err


def test_the_entry_is_the_same_in_two_checkouts(project: Path, tmp_path: Path) -> None:
    one, two = _fresh(project, tmp_path, "one"), _fresh(project, tmp_path, "elsewhere")
    answered_one, _ = _list(one)
    answered_two, _ = _list(two)
    assert answered_one == answered_two
    (entry_one,) = _entries(one)
    (entry_two,) = _entries(two)
    assert entry_one.name == entry_two.name
    assert entry_one.read_bytes() == entry_two.read_bytes()
    assert str(tmp_path).encode() not in entry_one.read_bytes()


def test_an_unwritable_cache_directory_shapes_each_time(project: Path, tmp_path: Path) -> None:
    root = _fresh(project, tmp_path)
    cache = root / ".mcp-codegen-cache" / "listings"
    cache.parent.mkdir(exist_ok=True)
    cache.write_text("a file where the directory would be")
    first, err = _list(root)
    second, _ = _list(root)
    assert first == second and b'"add"' in first
    assert "Traceback" not in err
    assert cache.is_file()


def test_run_exits_when_stdin_closes_while_the_server_imports(
    project: Path, tmp_path: Path
) -> None:
    """The server takes 60 s to import; the client lists and closes stdin: ``run`` exits now
    (it used to wait for the import). The bound is far above a start-up and far below it."""
    root = _fresh(project, tmp_path)
    started = time.monotonic()
    done = subprocess.run(
        run_command("generated", "pkg.server:mcp"),
        input=b"".join(line(message) for message in _opening(REVISIONS[-1])),
        cwd=root,
        env=codegen_env(PYTHONPATH=str(root), DEMO_SLOW="60"),
        capture_output=True,
        timeout=120,
    )
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 3  # initialize, tools/list, ping answered
    assert elapsed < 40, elapsed

"""What the command and its build daemon compare and exchange (``mcp_codegen._cli.daemon.wire``)."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

import pytest

from mcp_codegen._cli.daemon import wire


def _frames(*frames: tuple[bytes, bytes]) -> bytes:
    class Sink:
        data = b""

        def sendall(self, chunk: bytes) -> None:
            self.data += chunk

    sink = Sink()
    for kind, payload in frames:
        wire.send(sink, kind, payload)  # type: ignore[arg-type]
    return sink.data


def test_frames_read_back_in_order_and_a_cut_frame_is_the_end() -> None:
    data = _frames((wire.STDOUT, b"wrote x\n"), (wire.STDERR, "é\n".encode()), (wire.EXIT, b"{}"))
    stream = io.BytesIO(data)
    assert wire.receive(stream) == (wire.STDOUT, b"wrote x\n")
    assert wire.receive(stream) == (wire.STDERR, "é\n".encode())
    assert wire.receive(stream) == (wire.EXIT, b"{}")
    assert wire.receive(stream) is None
    for cut in range(1, len(data)):
        stream = io.BytesIO(data[:cut])
        read = []
        while (frame := wire.receive(stream)) is not None:
            read.append(frame)
        assert len(read) < 3  # never a frame that was not sent whole
    oversized = wire._HEADER.pack(wire.STDOUT, wire.MAX_FRAME + 1)
    assert wire.receive(io.BytesIO(oversized + b"x")) is None


def test_each_difference_is_named() -> None:
    ours = wire.identity()
    assert wire.difference(ours, wire.identity()) is None
    cases = {
        "executable": ("/other/python", "another Python (/other/python"),
        "flags": ({**ours["flags"], "optimize": 2}, "other interpreter flags"),
        "code": ("0" * 64, "mcp-codegen's own files changed"),
        "path": ([*ours["path"], "/extra"], "another sys.path"),
        "installed": ("1" * 64, "packages were installed, upgraded or removed"),
    }
    for key, (value, words) in cases.items():
        found = wire.difference(ours, {**ours, key: value})
        assert found is not None and found.startswith(words), key

    env = {"A": "1", "B": "2"}
    assert wire.environment_difference(env, dict(env)) is None
    assert wire.environment_difference(env, {"A": "1"}) == (
        "environment variable B is set for the daemon, not here"
    )
    assert wire.environment_difference(env, {**env, "C": ""}) == (
        "environment variable C is set here, not for the daemon"
    )
    assert wire.environment_difference(env, {**env, "A": "0"}) == (
        "environment variable A has another value here"
    )


def test_shell_bookkeeping_is_not_compared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLDPWD", "/somewhere")
    monkeypatch.setenv("SHLVL", "3")
    before = wire.environment()
    monkeypatch.setenv("OLDPWD", "/elsewhere")
    monkeypatch.setenv("SHLVL", "4")
    assert wire.environment_difference(before, wire.environment()) is None


def test_an_installed_package_changes_the_identity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    before = wire.identity(drop_first=False)
    (tmp_path / "generated").mkdir()  # a project's own files do not count
    (tmp_path / "notes.txt").write_text("x")
    assert wire.difference(before, wire.identity(drop_first=False)) is None
    (tmp_path / "something-1.0.dist-info").mkdir()
    assert wire.difference(before, wire.identity(drop_first=False)) == (
        "packages were installed, upgraded or removed"
    )


def test_the_daemons_directory_is_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    assert wire.private_directory(create=False) is None
    made = wire.private_directory(create=True)
    assert made == str(tmp_path / "mcp-codegen")
    assert stat.S_IMODE(os.stat(made).st_mode) == 0o700
    os.chmod(made, 0o750)
    with pytest.raises(wire.DaemonError, match=r"other users can reach it \(mode 750\)"):
        wire.private_directory(create=False)
    os.rmdir(made)
    os.symlink(tmp_path, made)
    with pytest.raises(wire.DaemonError, match="not a directory of this user"):
        wire.private_directory(create=False)


def test_one_socket_per_configuration_file(tmp_path: Path) -> None:
    first, second = tmp_path / "a" / "pyproject.toml", tmp_path / "b" / "pyproject.toml"
    assert wire.socket_name(str(first)) != wire.socket_name(str(second))
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "a")
    assert wire.socket_name(str(link / "pyproject.toml")) == wire.socket_name(str(first))


def test_no_socket_no_hashing(tmp_path: Path) -> None:
    """A command looks for any socket before it hashes its configuration's path."""
    assert not wire.any_listening(str(tmp_path / "missing"))
    assert not wire.any_listening(str(tmp_path))
    (tmp_path / "0392dbb1f31c0b4bc4b8541f.log").write_text("")
    assert not wire.any_listening(str(tmp_path))
    (tmp_path / "0392dbb1f31c0b4bc4b8541f.sock").write_text("")
    assert wire.any_listening(str(tmp_path))

"""The serving start-up (``runtime._serve.startup``): which configuration, and the fast path or
the plain start, decided once for ``serve``, ``run`` and the front of your own server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcp_codegen.runtime._serve import startup


def _never() -> None:
    raise AssertionError("the opening is not built when the fast path is off")


@pytest.mark.parametrize(("flag", "env"), [(True, None), (False, "1"), (False, "yes")])
def test_off_starts_plain_without_building_the_opening(
    flag: bool, env: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if env is None:
        monkeypatch.delenv("MCP_CODEGEN_NO_FAST_PATH", raising=False)
    else:
        monkeypatch.setenv("MCP_CODEGEN_NO_FAST_PATH", env)
    assert startup.serve_stdio(no_fast_path=flag, opening=_never, plain=lambda: 5) == 5


@pytest.mark.parametrize("env", [None, "", "0"])
def test_an_opening_that_cannot_serve_starts_plain(
    env: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if env is None:
        monkeypatch.delenv("MCP_CODEGEN_NO_FAST_PATH", raising=False)
    else:
        monkeypatch.setenv("MCP_CODEGEN_NO_FAST_PATH", env)
    asked = []
    code = startup.serve_stdio(
        no_fast_path=False, opening=lambda: asked.append(1), plain=lambda: None
    )
    assert (code, asked) == (None, [1])


def _config(directory: Path, output: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "mcp-codegen.toml"
    path.write_text(f'[tool.mcp-codegen]\nsources = ["pkg"]\noutput = "{output}"\n')
    return path


def test_the_configuration_is_the_option_then_the_working_directory_then_the_fallback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    named = _config(tmp_path / "named", "a")
    here = _config(tmp_path / "here", "b")
    beside = _config(tmp_path / "beside", "c")
    monkeypatch.chdir(here.parent)
    fallback = lambda: str(beside)  # noqa: E731
    settings = startup.serving_settings(str(named), fallback)
    assert settings is not None and settings.output == os.path.realpath(tmp_path / "named" / "a")
    settings = startup.serving_settings(None, fallback)
    assert settings is not None and settings.output == os.path.realpath(tmp_path / "here" / "b")
    monkeypatch.chdir(tmp_path)
    settings = startup.serving_settings(None, fallback)
    assert settings is not None and settings.output == os.path.realpath(tmp_path / "beside" / "c")
    assert startup.serving_settings(None, lambda: None) is None

"""Installed versions read from metadata directory names, against ``importlib.metadata``."""

from __future__ import annotations

import importlib.metadata

import pytest

from mcp_codegen._shared.distributions import installed_sdk1, installed_version


@pytest.mark.parametrize(
    "distribution", ["pytest", "pydantic", "pydantic-core", "pydantic_core", "libcst", "mcp"]
)
def test_the_version_is_the_one_importlib_metadata_finds(distribution: str) -> None:
    assert installed_version(distribution) == importlib.metadata.version(distribution)


def test_a_distribution_not_installed_has_no_version() -> None:
    with pytest.raises(importlib.metadata.PackageNotFoundError):
        importlib.metadata.version("mcp-codegen-no-such-distribution")
    assert installed_version("mcp-codegen-no-such-distribution") is None


def test_an_sdk_1_is_told_by_its_major_release() -> None:
    """Runs with SDK 2.x here and with 1.x in ``nox -s dropin_sdk1``: either way the answer is
    what ``importlib.metadata`` says of ``mcp``."""
    release = importlib.metadata.version("mcp")
    assert installed_sdk1() == (release if release.split(".")[0] == "1" else None)

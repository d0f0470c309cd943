"""Fixtures for the conformance tests: the npm-installed suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conformance.conformance_support import ensure_installed


@pytest.fixture(scope="session")
def conformance() -> Path:
    """The pinned ``conformance`` executable, installed from the committed lockfile on first use."""
    return ensure_installed()

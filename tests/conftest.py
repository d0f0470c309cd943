"""Fixtures shared by the whole suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.project import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "proj"
    root.mkdir()
    made = Project(root)
    made.write("pkg/__init__.py", "")
    made.configure()
    return made

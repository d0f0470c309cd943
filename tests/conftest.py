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


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """pytest-xdist sends every report to the controller as UTF-8; a lone surrogate in captured
    output or logs (tests/runtime/abuse raises some on purpose) would end the whole run with an
    INTERNALERROR. Such characters are shown escaped instead."""
    report.sections = [
        (title, text.encode("utf-8", "backslashreplace").decode("utf-8"))
        for title, text in report.sections
    ]

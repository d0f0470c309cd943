"""The `process` guard of tests/conftest.py, run on a throw-away suite in a real pytest process."""

from __future__ import annotations

import pytest

from tests.helpers.project import REPO

pytest_plugins = ["pytester"]

SUITE = """
import subprocess
import sys

import pytest


def run_true():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


@pytest.fixture(scope="module")
def server():
    run_true()
    return "started"


def test_unmarked_start():
    run_true()


@pytest.mark.process
def test_marked_start():
    run_true()


def test_in_process():
    assert sum([1, 2]) == 3


@pytest.mark.process
def test_first_fixture_user(server):
    assert server == "started"


def test_later_fixture_user(server):
    assert server == "started"
"""


@pytest.mark.process
def test_an_unmarked_test_that_starts_a_process_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    monkeypatch.delenv("MCP_CODEGEN_TEST_RECORD", raising=False)
    pytester.makeconftest("from tests.conftest import *  # noqa: F403\n")
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=5, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*test_unmarked_start: it started a process (subprocess.Popen) but is not marked*",
            "*test_later_fixture_user: its fixture(s) server start a process but is not marked*",
        ]
    )

"""A worker that dies or hangs costs only the module it was on.

Sources are handed to workers as they finish; the ones queued behind a module that kills its
worker (``os._exit``, a crash, a hang past ``import_timeout``) go to a fresh worker, so every
other module is still scanned, inspected and reported in the same run.
"""

from __future__ import annotations

import pytest

from tests.helpers.project import Project

pytestmark = pytest.mark.process  # starts real processes (builds, servers or clients)

GOOD = '''
from mcp_codegen.decorators import tool


@tool
def {name}(count: int = 1) -> int:
    """A fine tool."""
    return count
'''

# A problem only inspection can find: proof that the module was inspected after the loss.
LATE_PROBLEM = '''
from mcp_codegen.decorators import tool


@tool
def {name}(value: "Missing") -> int:
    """Needs a name that does not exist."""
    return 0
'''

KILLERS = {
    "os_exit": ("import os\nos._exit(3)\n", "ended the generator's worker process (exit code 3)"),
    "hang": ("import time\ntime.sleep(600)\n", "did not finish within 1 s"),
}


@pytest.mark.slow
@pytest.mark.parametrize("killer", sorted(KILLERS))
def test_modules_queued_behind_a_lost_worker_are_still_inspected(
    project: Project, killer: str
) -> None:
    code, message = KILLERS[killer]
    project.configure('sources = ["pkg"]\nimport_timeout = 1\n')
    project.write("pkg/__init__.py", "")
    # Sorted order a, b, c, ...: the killer is the first source of the first worker, with the
    # next sources queued behind it.
    project.write("pkg/a_killer.py", code + GOOD.format(name="doomed"))
    for index in range(6):
        template = LATE_PROBLEM if index % 2 else GOOD
        project.write(f"pkg/m{index}.py", template.format(name=f"tool_{index}"))
    result = project.run("generate", timeout=120)
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if ": " in line and ".py:" in line]
    assert errors[0].startswith("pkg/a_killer.py:1:1: ") and message in errors[0]
    # Every other module was inspected: each late problem is reported at its own position.
    for index in (1, 3, 5):
        assert any(
            line.startswith(f"pkg/m{index}.py:5:")
            and "cannot resolve the annotation of parameter 'value'" in line
            for line in errors
        ), result.stderr
    assert "not inspected" not in result.stderr
    assert not (project.root / "generated").exists()

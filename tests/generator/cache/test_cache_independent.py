"""A build's answer never depends on the cache (issue 35, item 2), on the synthetic corpora:
a cold build, a warm one, a ``--no-cache`` one, a cold one under another hash seed and a warm
one from the cache that one made give the same exit code, diagnostics and tree. The same check
runs on every published server of ``nox -s realworld`` (``check_cache_independence``).

The corpora include modules whose tools the generator reports (a form it cannot read, found
only by importing the module): before the fix, the cold build reported them and the warm
build, which imports nothing, wrote a tree without them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.realworld.check_realworld import Outcome, check_cache_independence, codegen
from tests.helpers.corpus import FIXTURES

pytestmark = [pytest.mark.process, pytest.mark.slow]

INSPECTION = Path(__file__).resolve().parents[1] / "inspection"

#: (corpus directory, its import package, flavor, the cold build's exit code)
CORPORA = [
    (INSPECTION / "forms_sdk", "forms_sdk", "mcp", 2),
    (FIXTURES / "published" / "patterns_errors", "published.patterns_errors", "mcp", 2),
    (FIXTURES / "published" / "fastmcp_style", "published.fastmcp_style", "fastmcp", 0),
    (FIXTURES / "hashseed" / "hashseed_tools", "hashseed.hashseed_tools", "clean", 0),
]


@pytest.mark.parametrize(
    ("corpus", "package", "flavor", "exit_code"), CORPORA, ids=[c[1] for c in CORPORA]
)
def test_the_cache_never_changes_the_answer(
    tmp_path: Path, corpus: Path, package: str, flavor: str, exit_code: int
) -> None:
    target = tmp_path.joinpath(*package.split("."))
    shutil.copytree(corpus, target, ignore=shutil.ignore_patterns("__pycache__"))
    for parent in target.relative_to(tmp_path).parents:
        (tmp_path / parent / "__init__.py").touch()
    (tmp_path / "pyproject.toml").write_text(
        "[tool.mcp-codegen]\n"
        f'sources = ["{target.relative_to(tmp_path).as_posix()}"]\n'
        f'output = "generated"\nflavor = "{flavor}"\n',
        encoding="utf-8",
    )
    cold = codegen(tmp_path, "generate")
    assert cold.returncode == exit_code, cold.stderr
    out = Outcome(package, package, "0", flavor)
    check_cache_independence(tmp_path, cold, out)
    assert not out.problems, "\n".join(out.problems)
    assert out.cache_independent

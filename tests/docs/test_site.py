"""The documentation site builds with ``mkdocs build --strict``: no broken link, no page left out.

mkdocs-material is in the ``test`` extra, so this always runs (it is not skipped without it).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]


def nav_pages(entries) -> list[str]:
    pages = []
    for entry in entries:
        values = entry.values() if isinstance(entry, dict) else [entry]
        for value in values:
            pages.extend(nav_pages(value) if isinstance(value, list) else [value])
    return pages


def test_every_page_is_in_the_nav():
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    pages = sorted(p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md"))
    assert sorted(nav_pages(config["nav"])) == pages


def test_decisions_are_numbered_in_reading_order_and_indexed():
    decisions = REPO / "docs" / "decisions"
    files = sorted(p.name for p in decisions.glob("[0-9]*.md"))
    numbers = [int(name[:4]) for name in files]
    assert len(set(numbers)) == len(numbers), "two decisions share a number"
    index = (decisions / "index.md").read_text(encoding="utf-8")
    assert re.findall(r"\]\((\d{4}-[^)]+\.md)\)", index) == files


@pytest.mark.process
def test_site_builds_strict(tmp_path):
    completed = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert (tmp_path / "site" / "architecture" / "index.html").is_file()
    assert (
        tmp_path / "site" / "decisions" / "0010-user-code-only-in-workers" / "index.html"
    ).is_file()


def test_readme_is_short_and_its_links_resolve():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    assert (
        "python -m pip install nox && nox -s codegen   # installs what is needed, regenerates "
        "generated/ for the bundled example\nnox -s tests" in readme
    )
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", readme)
    assert links
    missing = [link for link in links if not (REPO / link).exists()]
    assert missing == []

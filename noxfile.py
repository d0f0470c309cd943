"""Developer sessions: `nox -s codegen`, `nox -s check`, `nox -s tests`, `nox -s lint`."""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["check", "lint", "tests"]
nox.options.reuse_existing_virtualenvs = True



@nox.session
def codegen(session: nox.Session) -> None:
    """Regenerate generated/ from the bundled example (and any configured sources)."""
    session.install("-e", ".[examples]")
    session.run("mcp-codegen", "generate", *session.posargs)


@nox.session
def check(session: nox.Session) -> None:
    """Fail when generated/ is stale, missing files or has orphans; prints the diff."""
    session.install("-e", ".[examples]")
    session.run("mcp-codegen", "check", *session.posargs)


@nox.session
def tests(session: nox.Session) -> None:
    """The whole test suite, end-to-end tests with real MCP clients included."""
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Ruff lint and format check."""
    session.install("ruff>=0.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")

"""Developer sessions: `nox -s codegen`, `check`, `tests`, `conformance`, `lint` and `diff`."""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["check", "lint", "tests"]
nox.options.reuse_existing_virtualenvs = True

#: Every generated output of this repository, one config each (paths relative to the root).
CONFIGS = ["pyproject.toml", "examples/everything/mcp-codegen.toml"]


@nox.session
def codegen(session: nox.Session) -> None:
    """Regenerate every generated output (generated/ and each example's) from its config."""
    session.install("-e", ".[examples]")
    for config in CONFIGS:
        session.run("mcp-codegen", "--config", config, "generate", *session.posargs)


@nox.session
def check(session: nox.Session) -> None:
    """Fail when any generated output is stale, missing files or has orphans; prints the diff."""
    session.install("-e", ".[examples]")
    for config in CONFIGS:
        session.run("mcp-codegen", "--config", config, "check", *session.posargs)


@nox.session
def tests(session: nox.Session) -> None:
    """The whole test suite, end-to-end tests with real MCP clients included."""
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session
def conformance(session: nox.Session) -> None:
    """The official MCP conformance suite (0.1.9, Node 20) against the runtime (also in `tests`)."""
    session.install("-e", ".[test]")
    session.run("pytest", "tests/conformance", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Ruff lint and format check."""
    session.install("ruff>=0.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def dropin_sdk1(session: nox.Session) -> None:
    """Flavor "mcp" against the real MCP SDK 1.x ``FastMCP`` (1.x and 2.x cannot share a venv)."""
    session.install("-e", ".", "mcp>=1.10,<2", "pytest>=8")
    session.run(
        "pytest",
        "tests/dropin/test_dropin_sdk1.py",
        "tests/hook/sdk1_same_answers.py",
        *session.posargs,
    )


@nox.session
def diff(session: nox.Session) -> None:
    """Classify schema changes against the default branch; exit 1 on breaking or unknown ones.

    Arguments go to `mcp-codegen diff`, e.g. `nox -s diff -- origin/main HEAD --format markdown`.
    """
    session.install("-e", ".")
    session.run("mcp-codegen", "diff", *session.posargs)

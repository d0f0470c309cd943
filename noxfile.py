"""Developer sessions: `nox -s codegen`, `check`, `tests`, `quick`, `conformance`, `lint`, `docs` and `diff`."""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["check", "lint", "tests"]
nox.options.reuse_existing_virtualenvs = True

#: Every generated output of this repository, one config each (paths relative to the root).
#: Every configuration with a checked-in output, each with its own output directory: the bookshop
#: (clean flavor, generated/), the conformance suite's tools for the runtime
#: (examples/conformance/generated/) and the MCPServer example (examples/everything/generated/).
CONFIGS = (
    "pyproject.toml",
    "examples/conformance/pyproject.toml",
    "examples/everything/mcp-codegen.toml",
)


#: The quick tier's marker expression (the markers are defined in pyproject.toml; docs/testing.md).
QUICK = "not process and not e2e and not slow"


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


def precompile(session: nox.Session) -> None:
    """Compile the checkout's modules to bytecode before the processes the tests start import
    them. These machines set PYTHONDONTWRITEBYTECODE=1, so without this every build, worker,
    probe and server compiles ``mcp_codegen`` from source again, as no installed wheel does
    (pip compiles it): a small cold build took 0.68x the time precompiled (docs/testing.md)."""
    session.run(
        "python",
        "-m",
        "compileall",
        "-qq",
        "-j",
        "0",
        "mcp_codegen",
        "examples",
        "tests",
    )


@nox.session
def tests(session: nox.Session) -> None:
    """The whole test suite, end-to-end tests with real MCP clients included, in a random order
    (pytest-randomly prints the seed; `-- -p randomly --randomly-seed=N` repeats it).
    Spread over two cores (pytest-xdist `-n 2`, measured to pay: docs/testing.md) unless the
    arguments choose (`-- -n 0` runs it serially)."""
    session.install("-e", ".[test]")
    precompile(session)
    chosen = any(arg.startswith(("-n", "--numprocesses")) for arg in session.posargs)
    session.run("pytest", *([] if chosen else ["-n", "2"]), *session.posargs)


@nox.session
def quick(session: nox.Session) -> None:
    """The quick tier: every package's in-process tests, nothing that starts a process, needs Node
    or a wheel, or takes over 2 s (`-m "not process and not e2e and not slow"`; docs/testing.md)."""
    session.install("-e", ".[test]")
    session.run("pytest", "-m", QUICK, *session.posargs)


@nox.session
def conformance(session: nox.Session) -> None:
    """The official MCP conformance suite (0.1.9, Node 20) against the runtime (also in `tests`)."""
    session.install("-e", ".[test]")
    precompile(session)
    session.run("pytest", "tests/e2e/conformance", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Ruff lint and format check, and the import-linter contracts of pyproject.toml."""
    session.install("ruff>=0.6", "import-linter>=2.1")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    # lint-imports imports nothing; it needs the package importable from the repository root.
    session.run("lint-imports", env={"PYTHONPATH": "."})


@nox.session
def docs(session: nox.Session) -> None:
    """Build the documentation site (mkdocs-material) into site/, failing on any warning.

    Checks first that docs/architecture.md's generated package map matches the code.
    """
    session.install("-e", ".[docs]")
    session.run("python", "docs/gen_architecture.py", "--check")
    # NO_MKDOCS_2_WARNING: mkdocs-material prints a banner about its successor on every build.
    session.run("mkdocs", "build", "--strict", *session.posargs, env={"NO_MKDOCS_2_WARNING": "1"})


@nox.session
def dropin_sdk1(session: nox.Session) -> None:
    """Flavor "mcp" against the real MCP SDK 1.x ``FastMCP`` (1.x and 2.x cannot share a venv)."""
    session.install("-e", ".", "mcp>=1.10,<2", "pytest>=8")
    # What pip leaves when a user downgrades mcp 2.x to 1.x: SDK 2.x's types package beside 1.x.
    # The recorder must still drive 1.x servers with 1.x types (office-powerpoint-mcp-server).
    session.install("--no-deps", "mcp-types==2.3.0")
    precompile(session)
    session.run(
        "pytest",
        "tests/e2e/dropin/test_dropin_sdk1.py",
        "tests/runtime/hook/sdk1_same_answers.py",
        "tests/shared/test_distributions.py",
        *session.posargs,
    )
    # The call forms, factory chains and forms of the SDK fixtures (their fastmcp halves need
    # fastmcp), and form (e)'s SDK 1.x variant, skipped where 2.x is installed.
    session.run(
        "pytest",
        "tests/e2e/dropin/test_dropin_call_forms.py",
        "tests/e2e/dropin/test_dropin_factory_chains.py",
        "tests/e2e/dropin/test_dropin_forms.py",
        "-k",
        "sdk2 or e_registry_sdk1",
        *session.posargs,
    )


@nox.session
def dropin_fastmcp27(session: nox.Session) -> None:
    """Flavor "fastmcp" against fastmcp 2.7 (mcp-server-qdrant pins it), from before fastmcp's
    servers entered their own lifespan (2.10). It imports with pydantic 2.11, not 2.14, and
    cannot share a venv with fastmcp 4.x."""
    session.install("-e", ".", "fastmcp==2.7.0", "pydantic==2.11.10", "pytest>=8")
    precompile(session)
    session.run("pytest", "tests/e2e/dropin/test_dropin_old_fastmcp.py", *session.posargs)


@nox.session
def diff(session: nox.Session) -> None:
    """Classify schema changes against the default branch; exit 1 on breaking or unknown ones.

    Arguments go to `mcp-codegen diff`, e.g. `nox -s diff -- origin/main HEAD --format markdown`.
    """
    session.install("-e", ".")
    session.run("mcp-codegen", "diff", *session.posargs)


def _interpreter(session: nox.Session, version: str | None) -> str:
    """The Python that creates an environment: the session's, or a working ``pythonX.Y`` on
    ``PATH`` or under ``~/.pyenv/versions`` for a server that requires another (an error when
    there is none; a pyenv shim for a version not selected does not run)."""
    import shutil
    import subprocess
    from pathlib import Path

    if version is None:
        return "python"
    candidates = [shutil.which(f"python{version}")]
    candidates += [
        str(p) for p in sorted(Path.home().glob(f".pyenv/versions/{version}.*/bin/python"))
    ]
    for candidate in filter(None, candidates):
        check = f"import sys; assert sys.version.startswith('{version}.')"
        if subprocess.run([candidate, "-c", check], capture_output=True).returncode == 0:
            return candidate
    session.error(f"Python {version} is needed: none runs on PATH or under ~/.pyenv/versions")
    return ""


@nox.session
def realworld(session: nox.Session) -> None:
    """Drop-in on real MCP servers published on PyPI (not in the default run; needs the network).

    Each environment of tests/e2e/realworld/servers.toml (SDK 1.x, SDK 2.x and fastmcp servers cannot
    share one) gets its own virtualenv with this project and the pinned servers; every server is
    generated in its flavor and verified against its real server object, then the table of all
    results is printed. `nox -s realworld -- sdk1 fastmcp` runs only those environments.
    """
    import tomllib
    from pathlib import Path

    with open("tests/e2e/realworld/servers.toml", "rb") as file:
        servers = tomllib.load(file)["servers"]
    requirements: dict[str, set[str]] = {}
    pythons: dict[str, str] = {}
    for server in servers.values():
        pinned = {f"{server['package']}=={server['version']}", *server["pins"]}
        requirements.setdefault(server["env"], set()).update(pinned)
        if "python" in server:
            pythons[server["env"]] = server["python"]
    unknown = sorted(set(session.posargs) - set(requirements))
    if unknown:
        session.error(f"unknown environment(s) {unknown}; choose from {sorted(requirements)}")
    envs = [env for env in sorted(requirements) if not session.posargs or env in session.posargs]
    results = Path(session.create_tmp()).resolve() / "realworld-results"
    for stale in results.glob("*.json"):
        stale.unlink()
    script = "tests/e2e/realworld/check_realworld.py"
    for env in envs:
        venv = Path(".nox", f"realworld-{env}").resolve()
        python = str(venv / "bin" / "python")
        if not venv.exists():
            session.run(
                _interpreter(session, pythons.get(env)), "-m", "venv", str(venv), external=True
            )
        session.run(
            python,
            "-m",
            "pip",
            "install",
            "-q",
            "-e",
            ".",
            *sorted(requirements[env]),
            external=True,
        )
        # A failing run is reported by the table below, after every environment has run.
        session.run(
            python,
            script,
            "run",
            "--env",
            env,
            "--results",
            str(results),
            external=True,
            success_codes=[0, 1],
        )
        if env in ("sdk2", "fastmcp", "clickhouse"):  # issue 20: servers through the fast path
            session.run(
                python, "tests/e2e/realworld/check_run_fastpath.py", "--env", env, external=True
            )
    session.run("python", script, "table", "--results", str(results), "--envs", *envs)

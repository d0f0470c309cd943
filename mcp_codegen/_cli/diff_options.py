"""The ``diff`` command line: its options, its registration on ``mcp-codegen``, and the
stand-alone entry point.

Kept apart from ``mcp_codegen._cli.diff_command`` so that building the ``mcp-codegen`` parser imports none of
the classifier. Imports go one way only: this module loads ``cli`` when the command runs, and
``cli`` never imports this module.
"""

from __future__ import annotations

import argparse

#: Report formats (``--format``).
FORMATS = ("terminal", "markdown", "json", "github", "sarif", "junit")
#: ``--fail-on`` choices: a level (``mcp_codegen._diff.policy.FAIL_ON``), with ``breaking`` = ``error``
#: and ``any`` = ``info``.
FAIL_ON = ("error", "warn", "info", "never", "breaking", "any")

DESCRIPTION = """\
Compare the generated tool schemas of BASE and HEAD and classify every change as breaking,
unknown (undecidable, never assumed compatible), compatible or notable. Each side is a git
revision or a directory of generated modules. BASE defaults to the merge-base of HEAD with the
default branch; HEAD defaults to the working tree. Old revisions are read from git objects with
ast.literal_eval: no old code is imported.

Exit status: 0 when nothing fails --fail-on, 1 when something does, 2 on usage or read errors."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``diff`` options, shared by ``mcp-codegen diff`` and ``main``."""
    parser.add_argument("base", nargs="?", metavar="BASE", help="git revision or directory")
    parser.add_argument("head", nargs="?", metavar="HEAD", help="git revision or directory")
    # SUPPRESS: a sub-command default would overwrite ``mcp-codegen --config PATH diff``.
    parser.add_argument(
        "--config",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help="pyproject.toml (default: the nearest one)",
    )
    parser.add_argument(
        "--output", metavar="DIR", help="generated output directory (default: from the config)"
    )
    parser.add_argument("--format", choices=FORMATS, default="terminal", help="report format")
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the terminal format (auto: when stdout is a TTY and NO_COLOR is unset)",
    )
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default=None,
        help="exit 1 on an unacknowledged change at this level or above (default: fail_on in "
        "[tool.mcp-codegen.diff], else error: breaking and unknown changes); breaking = error, "
        "any = info",
    )
    parser.add_argument(
        "--acknowledge",
        action="store_true",
        help="append an entry with an empty reason to the acknowledgements file "
        "(mcp-schema-changes.toml) for each change that fails the gate; then fill in the reasons",
    )
    parser.add_argument(
        "--write-changelog",
        nargs="?",
        const="CHANGELOG.md",
        metavar="PATH",
        help="add an entry for the proposed version to PATH (default: CHANGELOG.md at the root)",
    )
    parser.add_argument(
        "--date", metavar="YYYY-MM-DD", help="date for the changelog entry (default: none)"
    )
    parser.add_argument(
        "--json-schema",
        action="store_true",
        help="print the JSON Schema of --format json and exit",
    )


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register ``diff`` on the ``mcp-codegen`` sub-command parser."""
    parser = subparsers.add_parser(
        "diff",
        help="classify schema changes between two revisions",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    # the diff machinery (~60 ms): not for building the parser (--help, the other commands)
    from mcp_codegen._cli.diff_command import run

    return int(run(args))


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point (``python -m mcp_codegen.diff``)."""
    parser = argparse.ArgumentParser(
        prog="mcp-codegen diff",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    return _run(parser.parse_args(argv))

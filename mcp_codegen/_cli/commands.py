"""``mcp-codegen`` command line. Exit codes: 0 ok, 1 stale/check failure, 2 usage or source error.

Over 600 lines: the parser and one short handler per command, read side by side (each handler
imports its command's module when it runs, so ``--help`` imports none of them).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp_codegen import __version__
from mcp_codegen._generator.progress import Progress
from mcp_codegen._generator.project import NO_CACHE
from mcp_codegen._generator.workers.prestart import command_index
from mcp_codegen._profiles import PROFILES
from mcp_codegen._shared import project_config
from mcp_codegen._shared.diagnostics import CodegenError, Diagnostic, ExitCode
from mcp_codegen._shared.protocols import REVISIONS

if TYPE_CHECKING:
    from mcp_codegen._generator.config import Config
    from mcp_codegen._generator.pipeline import BuildResult, BuildSession
    from mcp_codegen._generator.workers.prestart import WarmWorkers


def _print_diagnostics(
    diagnostics: tuple[Diagnostic, ...] | list[Diagnostic], verbose: bool = False
) -> None:
    for diagnostic in diagnostics:
        if verbose or diagnostic.severity != "info":
            print(diagnostic, file=sys.stderr)


def _load(args: argparse.Namespace, target: str | None = None) -> Config:
    """The configuration ``--config`` names, else the nearest above the working directory; for a
    command with a ``target`` module, one above the working directory that has the
    ``[tool.mcp-codegen]`` table, else the one above the target's file (found, not imported).
    Old key spellings are warned about on stderr."""
    # the configuration (~9 ms: difflib, factory calls): not for --help, serve or daemon
    from mcp_codegen._generator.config import load_config

    path = args.config
    if path is None and target is not None:
        found = project_config.nearest_config_file(
            str(Path.cwd().resolve()), require_table=True
        ) or project_config.module_config_file(target.partition(":")[0])
        path = Path(found) if found else None
    config = load_config(path)
    _print_diagnostics(config.warnings)
    return config


def _session(args: argparse.Namespace, config: Config) -> BuildSession:
    if args.session_for is not None:  # the build daemon's one session, run once more
        return args.session_for(config, not args.no_cache)  # type: ignore[no-any-return]
    # Imported here: only the build commands load the generator (``--help`` and the others not).
    from mcp_codegen._generator.pipeline import BuildSession

    return BuildSession(config, use_cache=not args.no_cache, warm=args.warm)


def cmd_generate(args: argparse.Namespace) -> int:
    config = _load(args)
    result, report = _session(args, config).generate(_progress(args))
    _print_diagnostics(result.diagnostics, args.verbose)
    if report is None:
        print(f"mcp-codegen: {len(result.errors)} error(s); nothing was written", file=sys.stderr)
        return ExitCode.USAGE
    _vary_hash_seed(args, config, result)
    tools = result.tool_count
    out = config.relative(config.output)
    for path in report.written if not args.quiet else ():
        print(f"wrote {out}/{path}")
    for path in report.removed if not args.quiet else ():
        print(f"removed orphaned {out}/{path}")
    print(
        f"mcp-codegen: {tools} tools in {len(result.files) - 1} modules; "
        f"{len(report.written)} written, {len(report.removed)} removed, "
        f"{len(report.unchanged)} unchanged"
    )
    _gitattributes_hint(config)
    return ExitCode.OK


def gitattributes_line(config: Config, directory: Path | None = None) -> str:
    """The ``.gitattributes`` line (in ``directory``, default the project root) that collapses
    the generated tree in pull-request diffs (GitHub's linguist marks it generated)."""
    base = (directory or config.root).resolve()
    try:
        relative = config.output.resolve().relative_to(base).as_posix()
    except ValueError:
        relative = config.relative(config.output)
    return f"{relative}/** linguist-generated=true"


def _gitattributes_hint(config: Config) -> None:
    """Print the line to add when no ``.gitattributes`` from the project root up to the
    repository root has it."""
    directory = config.root.resolve()
    while True:
        try:
            text = (directory / ".gitattributes").read_text(encoding="utf-8")
        except OSError:
            text = ""
        pattern = gitattributes_line(config, directory).split()[0]
        for line in text.splitlines():
            fields = line.split()
            if fields[:1] == [pattern] and {"linguist-generated", "linguist-generated=true"} & {
                *fields[1:]
            }:
                return
        if (directory / ".git").exists() or directory.parent == directory:
            break
        directory = directory.parent
    print(
        "mcp-codegen: to collapse the generated files in pull-request diffs, add this line to "
        f".gitattributes at the project root:\n  {gitattributes_line(config)}",
        file=sys.stderr,
    )


def _progress(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """A progress line on stderr when it is a terminal, unless ``--quiet``."""
    return Progress(sys.stderr, enabled=not args.quiet)


def cmd_check(args: argparse.Namespace) -> int:
    config = _load(args)
    result, report = _session(args, config).check(_progress(args))
    _print_diagnostics(result.diagnostics, args.verbose)
    if report is None:
        print(f"mcp-codegen: {len(result.errors)} error(s)", file=sys.stderr)
        return ExitCode.USAGE
    _vary_hash_seed(args, config, result)
    out = config.relative(config.output)
    if report.up_to_date:
        print(f"mcp-codegen: {out}/ is up to date ({len(report.unchanged)} files)")
        return ExitCode.OK
    from mcp_codegen._cli import drift  # jinja2 and the diff (~70 ms): only a stale check

    quiet_drift = not report.missing and not report.orphaned
    if quiet_drift and drift.only_versions_differ(config.output, result.files, report.stale):
        steps = drift.upgrades(
            drift.recorded_versions(config.output), drift.inference_versions(config.flavor)
        )
        print(
            f"mcp-codegen: {out}/ is up to date; note: installed versions differ from the "
            f"recorded ones ({', '.join(steps)}) without changing any schema; "
            "`generate` records them"
        )
        return ExitCode.OK
    for line in drift.explain(config, result.files):
        print(line, file=sys.stderr)
    for diff in report.diffs:
        sys.stdout.write(diff if diff.endswith("\n") else diff + "\n")
    for path in report.missing:
        print(f"missing: {out}/{path}")
    for path in report.orphaned:
        print(f"orphaned: {out}/{path} (no source produces it)")
    print(
        f"mcp-codegen: {out}/ is stale ({len(report.stale)} stale, {len(report.missing)} missing, "
        f"{len(report.orphaned)} orphaned); run `{config.regenerate_command}`",
        file=sys.stderr,
    )
    return ExitCode.STALE


def _vary_hash_seed(args: argparse.Namespace, config: Config, result: BuildResult) -> None:
    """``--vary-hash-seed``: warn about values that change with the hash seed (exit code kept)."""
    if not args.vary_hash_seed:
        return
    from mcp_codegen._generator.hash_seeds import vary_hash_seed  # the pipeline (~57 ms)

    warnings = vary_hash_seed(config, result)
    _print_diagnostics(warnings)
    print(f"mcp-codegen: {len(warnings)} value(s) change with the hash seed", file=sys.stderr)


def cmd_export(args: argparse.Namespace) -> int:
    from mcp_codegen._cli import export_servers  # not for --help: ~30 ms
    from mcp_codegen._shared.reader import GeneratedModuleError, read_tree, wire_tools

    output = Path(args.output).resolve() if args.output else _load(args).output
    try:
        _, modules = read_tree(output)
    except GeneratedModuleError as exc:
        print(f"mcp-codegen: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    if args.composed and not args.server:
        print("mcp-codegen: --composed needs --server module:attribute", file=sys.stderr)
        return ExitCode.USAGE
    if args.server:
        known = export_servers.servers_of(modules)
        if args.server not in known and not args.composed:
            print(
                f"mcp-codegen: no generated tool is on server {args.server}; the servers are: "
                f"{', '.join(sorted(known)) or 'none recorded (flavor clean, or regenerate)'}",
                file=sys.stderr,
            )
            return ExitCode.USAGE
        modules = export_servers.own_modules(modules, args.server)
    elif shared := export_servers.shared_names(modules):
        name, servers = next(iter(shared.items()))
        print(
            f"mcp-codegen: servers of this composed package share tool names ({name!r} is on "
            f"{', '.join(servers)}), so there is no one list: pass --server module:attribute "
            "(with --composed for what that server lists, its mounted servers included)",
            file=sys.stderr,
        )
        return ExitCode.USAGE
    try:
        if args.composed:
            tools = export_servers.composed_tools(output, args.server, _load(args).config_file)
        else:
            tools = wire_tools(modules, args.protocol)
    except (GeneratedModuleError, ValueError) as exc:
        print(f"mcp-codegen: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    status = ExitCode.OK
    if args.profile:
        from mcp_codegen._profiles import apply_profile  # only with --profile

        served = apply_profile(tools, args.profile)
        tools = served.tools
        for finding in served.losses():
            print(f"mcp-codegen export: {finding}", file=sys.stderr)
        if served.errors:
            print(
                f"mcp-codegen export: {len(served.errors)} tool schema(s) cannot be expressed "
                f"for {args.profile}; see `mcp-codegen lint --profile {args.profile}`",
                file=sys.stderr,
            )
            status = ExitCode.STALE
    text = json.dumps({"tools": tools}, indent=args.indent, ensure_ascii=False)
    sys.stdout.write(text + "\n")
    return status


def cmd_lint(args: argparse.Namespace) -> int:
    from mcp_codegen._generator.lint import lint, render_json, render_text  # not for --help: ~45 ms
    from mcp_codegen._shared.reader import GeneratedModuleError

    config = _load(args)
    output = Path(args.output).resolve() if args.output else config.output
    profiles = tuple(dict.fromkeys(args.profile)) if args.profile else config.profiles
    try:
        result = lint(config, output, profiles)
    except GeneratedModuleError as exc:
        print(f"mcp-codegen: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    except ValueError as exc:  # an unknown tokenizer
        print(f"{config.config_file}: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    if args.format == "json":
        sys.stdout.write(render_json(result, config.tokenizer))
    else:
        sys.stdout.write(render_text(result, args.strict, config.tokenizer, args.sizes))
    return ExitCode.STALE if args.strict and result.failures() else ExitCode.OK


def cmd_verify(args: argparse.Namespace) -> int:
    from mcp_codegen._generator.verify import run  # not for --help: ~48 ms
    from mcp_codegen._shared.project_config import import_root

    config = _load(args, target=args.against)
    output = Path(args.output).resolve() if args.output else config.output
    # A `src/` layout's server imports from `src`, as the generator imported its tools.
    roots = (*config.python_path, *(Path(import_root(str(s))) for s in config.sources))
    paths = tuple(dict.fromkeys(roots))
    return run(args.against, output, config.root, paths, config.import_timeout)


def cmd_watch(args: argparse.Namespace) -> int:
    from mcp_codegen._cli.watch import main as watch  # the pipeline (~53 ms): only for `watch`

    return watch(args.config)


def cmd_cache(args: argparse.Namespace) -> int:
    # not for --help: ~45 ms
    from mcp_codegen._generator.cache.stored_entries import EntryStore, limit_bytes
    from mcp_codegen._generator.compiled_methods import DIRECTORY, LIMIT_BYTES, stored_tables
    from mcp_codegen._generator.project import CACHE_DIR
    from mcp_codegen._shared.user_cache import user_cache_directory

    config = _load(args)
    store = EntryStore(config.root / CACHE_DIR)
    where = config.relative(store.directory)
    if args.action == "clean":
        count = store.clean()
        print(f"mcp-codegen: removed {where}/ ({count} entries)")
        return ExitCode.OK
    if args.action == "prune":
        removed = store.prune(full=True)
        print(f"mcp-codegen: pruned {removed} entries from {where}/")
        return ExitCode.OK
    entries = store.entries()
    size = sum(stat.st_size for _, stat in entries)
    mb = 1024 * 1024  # as MCP_CODEGEN_CACHE_MB counts them
    print(
        f"mcp-codegen: {where}/ holds {len(entries)} entries, {size / mb:.1f} MB "
        f"(bound {limit_bytes() / mb:.0f} MB, set by MCP_CODEGEN_CACHE_MB)"
    )
    user = user_cache_directory()
    if user is not None:  # shared by every project: ``cache clean`` leaves it
        tables, table_bytes = stored_tables(user)
        print(
            f"mcp-codegen: {Path(user, DIRECTORY)}/ holds compiled dataclass methods "
            f"for every project: {tables} table{'' if tables == 1 else 's'}, "
            f"{table_bytes / mb:.1f} MB (one per Python, at most {LIMIT_BYTES / mb:.0f} MB each)"
        )
    return ExitCode.OK


def cmd_merge_driver(args: argparse.Namespace) -> int:
    """Merge three versions of a generated module; exit 0 when clean, 1 on conflicts."""
    from mcp_codegen._cli.merge_driver import main as merge_main  # git starts it rarely

    return merge_main([args.ancestor, args.current, args.other])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-codegen",
        description="Generate, check and export build-time JSON Schemas for MCP tools.",
    )
    parser.add_argument("--version", action="version", version=f"mcp-codegen {__version__}")
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help="pyproject.toml or mcp-codegen.toml to read [tool.mcp-codegen] from (default: "
        "the nearest; also accepted after the command)",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_build_commands(commands)
    _add_export_command(commands)
    _add_checking_commands(commands)
    _add_optional_commands(commands)
    for listed in commands._choices_actions:  # `COMMAND --help` opens with its one-line summary
        described = commands.choices[listed.dest]
        if described.description is None and listed.help:
            described.description = listed.help[0].upper() + listed.help[1:] + "."
    _config_after_command(commands)
    return parser


#: The on/off options of ``generate`` and ``check``.
_BUILD_FLAGS = (
    ((NO_CACHE,), "ignore and do not update the build cache (.mcp-codegen-cache/)"),
    (("-q", "--quiet"), "no progress line on a terminal, no line per written file"),
    (
        ("-v", "--verbose"),
        "also print notes on what the build left out on purpose (tools registered on servers "
        "of other installed packages)",
    ),
    (
        ("--vary-hash-seed",),
        "build a second time with another PYTHONHASHSEED and warn at file:line:col about each "
        "default or decorator value that changed (twice the work)",
    ),
    (
        ("--no-daemon",),
        "build in this process even when `mcp-codegen daemon` runs for the project",
    ),
)


def _add_build_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """``generate`` and ``check``: the same options, their own handlers."""
    generate = commands.add_parser("generate", help="write the generated modules")
    check = commands.add_parser(
        "check", help="exit 1 with a diff when generated modules are stale; writes nothing"
    )
    for command, handler in ((generate, cmd_generate), (check, cmd_check)):
        for flags, text in _BUILD_FLAGS:
            command.add_argument(*flags, action="store_true", help=text)
        command.set_defaults(handler=handler)


def _add_export_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    export = commands.add_parser("export", help="print the tools/list payload as JSON")
    export.add_argument("--output", help="generated directory (default: from config)")
    export.add_argument("--indent", type=int, default=2, help="JSON indent (default 2)")
    export.add_argument(
        "--protocol",
        choices=REVISIONS,  # what the `protocol` config key takes: the tree holds no other
        default=None,
        help="the tools/list a client of this protocol revision gets (default: the newest)",
    )
    export.add_argument(
        "--profile",
        choices=list(PROFILES),
        help="rewrite input schemas for one client (losses go to stderr; exit 1 when a schema "
        "cannot be expressed)",
    )
    export.add_argument(
        "--server",
        metavar="MODULE:ATTRIBUTE",
        help="only the tools generated for this server object (framework flavors; a composed "
        "package's servers may share tool names)",
    )
    export.add_argument(
        "--composed",
        action="store_true",
        help="with --server: what that server lists at tools/list, its mounted servers' tools "
        "included under their prefixes (imports the server under the strict hook)",
    )
    export.set_defaults(handler=cmd_export)


def _add_checking_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """``lint``, ``verify``, ``watch`` and ``cache``."""
    lint = commands.add_parser(
        "lint",
        help="report what client profiles change or lose, name limits and the size budget",
    )
    lint.add_argument(
        "--profile",
        action="append",
        choices=list(PROFILES),
        help="a client profile to check (repeatable; default: the config's `profiles`)",
    )
    lint.add_argument(
        "--strict", action="store_true", help="exit 1 on any finding but a faithful change"
    )
    lint.add_argument("--format", choices=("text", "json"), default="text")
    lint.add_argument(
        "--sizes", action="store_true", help="also list every tool's size, largest first"
    )
    lint.add_argument("--output", help="generated directory (default: from config)")
    lint.set_defaults(handler=cmd_lint)
    verify = commands.add_parser(
        "verify",
        help="exit 1 unless the generated tools/list equals what an existing server serves",
    )
    verify.add_argument(
        "--against",
        required=True,
        metavar="MODULE:OBJECT",
        help="the existing server: module:object, or module:factory() to call a factory "
        "(MCPServer, SDK 1.x FastMCP, fastmcp.FastMCP or a low-level Server)",
    )
    verify.add_argument("--output", help="generated directory (default: from config)")
    verify.set_defaults(handler=cmd_verify)
    watch = commands.add_parser(
        "watch",
        help="regenerate on every save of a source, the config or an imported project file",
    )
    watch.set_defaults(handler=cmd_watch)
    cache = commands.add_parser(
        "cache", help="show, prune or remove the build cache (.mcp-codegen-cache/)"
    )
    cache.add_argument(
        "action",
        choices=("info", "prune", "clean"),
        help="info: entries and size (and the user's compiled dataclass methods); prune: drop "
        "the least recently used beyond the size bound; clean: remove the project's cache",
    )
    cache.set_defaults(handler=cmd_cache)


def _config_after_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """``--config`` after the command too (``mcp-codegen generate --config x.toml``); SUPPRESS
    keeps ``mcp-codegen --config x.toml generate``'s value when it is not repeated. ``serve``
    and ``run`` parse their own (their arguments are passed through)."""
    for name, command in commands.choices.items():
        if name in ("serve", "run") or any(a.dest == "config" for a in command._actions):
            continue
        command.add_argument(
            "--config",
            type=Path,
            default=argparse.SUPPRESS,
            help="pyproject.toml or mcp-codegen.toml to read [tool.mcp-codegen] from "
            "(default: the nearest)",
        )


def cmd_serve(args: argparse.Namespace) -> int:
    from mcp_codegen.runtime import main as serve  # ~16 ms: only for `serve`

    return serve(_with_config(args), prog="mcp-codegen serve")


def cmd_daemon(args: argparse.Namespace) -> int:
    from mcp_codegen._cli.daemon.control import command  # subprocess (~6 ms): only for `daemon`

    return command(args, dispatch)


def cmd_run(args: argparse.Namespace) -> int:
    from mcp_codegen._cli.run import main as run  # only for `run`

    return run(_with_config(args))


def _with_config(args: argparse.Namespace) -> list[str]:
    """``serve`` / ``run``'s own arguments, with ``mcp-codegen --config PATH``'s value first (one
    given after the command comes later, and wins)."""
    before = ["--config", str(args.config)] if args.config is not None else []
    return [*before, *args.serve_args]


def cmd_init(args: argparse.Namespace) -> int:
    from mcp_codegen._cli import init  # libcst, ~220 ms: only for `init`
    from mcp_codegen._generator.project import nearest_config

    root = Path(args.directory).resolve()
    found = init.find_servers(root)
    if not found.sources:
        print(
            f"mcp-codegen init: no tool found under {root} (decorated with @<server>.tool or "
            "@tool, or passed to <server>.add_tool); nothing was written",
            file=sys.stderr,
        )
        return ExitCode.USAGE
    path = init.write_table(root, init.render_table(found), force=args.force)
    print(f"mcp-codegen init: wrote {init.TABLE} to {path}")
    sys.stdout.write(init.render_table(found))
    option = [] if nearest_config(root) == path else ["--config", str(path)]
    if args.no_generate:
        return ExitCode.OK
    code = dispatch([*option, "generate"])
    if code == ExitCode.OK:
        config = _load(argparse.Namespace(config=path))
        sys.stdout.write(init.client_config(found, root, config.output))
    return code


#: ``daemon start --idle-timeout``'s default: an hour without a command.
DAEMON_IDLE_TIMEOUT_S = 3600.0


def _add_optional_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    serve = commands.add_parser(
        "serve",
        help="serve generated/ over stdio or streamable HTTP (see `mcp-codegen serve --help`)",
        add_help=False,
    )
    serve.set_defaults(handler=cmd_serve, serve_args=[])
    run = commands.add_parser(
        "run",
        help="run your MCPServer / FastMCP server with tools from generated/ "
        "(see `mcp-codegen run --help`)",
        add_help=False,
    )
    run.set_defaults(handler=cmd_run, serve_args=[])
    init = commands.add_parser(
        "init",
        help="find the servers of a project, write its [tool.mcp-codegen], generate, and print "
        "the client configuration that runs it",
    )
    init.add_argument("directory", nargs="?", default=".", help="project root (default: .)")
    init.add_argument(
        "--force", action="store_true", help="replace an existing [tool.mcp-codegen] table"
    )
    init.add_argument("--no-generate", action="store_true", help="write the table only")
    init.set_defaults(handler=cmd_init)
    daemon = commands.add_parser(
        "daemon",
        help="start, stop or show the build daemon that makes generate and check of this "
        "project pay only for what changed",
    )
    daemon.add_argument(
        "action",
        choices=("start", "stop", "status", "run"),
        help="start: in the background; run: in the foreground until Ctrl-C; stop; status",
    )
    daemon.add_argument(
        "--idle-timeout",
        type=float,
        default=DAEMON_IDLE_TIMEOUT_S,
        metavar="SECONDS",
        help=f"stop after this long without a command (default {DAEMON_IDLE_TIMEOUT_S:g}; 0: never)",
    )
    daemon.set_defaults(handler=cmd_daemon)
    merge_driver = commands.add_parser("merge-driver", help="git's merge driver for generated/")
    for name, meaning in (
        ("ancestor", "%%O"),
        ("current", "%%A, written in place"),
        ("other", "%%B"),
    ):
        merge_driver.add_argument(name, metavar=name.upper(), help=f"git's {meaning}")
    merge_driver.set_defaults(handler=cmd_merge_driver)
    try:
        # optional: the others parse without it
        from mcp_codegen._cli.diff_options import add_parser as add_diff
    except ImportError:
        pass
    else:
        add_diff(commands)


def dispatch(
    argv: list[str] | None = None, *, warm: WarmWorkers | None = None, session_for: Any = None
) -> int:
    """One command line, in this process. ``session_for(config, use_cache)``: the build session
    of a ``generate`` or ``check`` (the build daemon's); else each makes one that adopts ``warm``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    command = command_index(argv)
    if command is not None and argv[command] in ("serve", "run"):
        # Everything after `serve` / `run` belongs to that command's own parser, --help included.
        args = parser.parse_args(argv[: command + 1])
        args.serve_args = argv[command + 1 :]
    else:
        args = parser.parse_args(argv)
    args.warm, args.session_for = warm, session_for
    try:
        return int(args.handler(args))
    except CodegenError as exc:
        _print_diagnostics(exc.diagnostics)
        return ExitCode.USAGE
    except KeyboardInterrupt:
        return 130


main = dispatch  # ``mcp_codegen._cli`` stops ``warm`` (its owner) after the command

if __name__ == "__main__":
    sys.exit(main())

"""``check`` on a stale tree: say which recorded dependency upgrade changed which schemas.

The manifest records ``DEPENDENCIES`` (format 3): the versions of this generator, pydantic,
pydantic-core and the flavor's framework that decided inference. When they differ from the
installed ones, ``check`` names each upgrade and classifies what the fresh build changes (with
``diff``'s classifier); when only the recorded versions differ, the tree is fresh.
"""

from __future__ import annotations

import re
from pathlib import Path

from mcp_codegen._diff.classify import diff_sides
from mcp_codegen._diff.revisions import read_directory, read_texts
from mcp_codegen._generator.config import Config
from mcp_codegen._generator.model import RenderedFile
from mcp_codegen._generator.render.modules import inference_versions
from mcp_codegen._shared.format import MANIFEST, GeneratedModuleError
from mcp_codegen._shared.reader import parse_literal_module

_DEPENDENCIES = re.compile(r"^DEPENDENCIES = \{\n(?:    .*\n)*?\}\n", re.MULTILINE)
#: At most this many classified changes are listed.
LIMIT = 20


def recorded_versions(output: Path) -> dict[str, str] | None:
    """``DEPENDENCIES`` of the tree at ``output``; None when it records none or cannot be read."""
    try:
        text = (output / MANIFEST).read_text(encoding="utf-8")
        value = parse_literal_module(text, str(output / MANIFEST)).get("DEPENDENCIES")
    except (OSError, GeneratedModuleError):
        return None
    return value if isinstance(value, dict) else None


def upgrades(recorded: dict[str, str] | None, installed: dict[str, str]) -> list[str]:
    """``pydantic 2.11.0 -> 2.12.3`` for each distribution whose version differs."""
    if recorded is None:
        return []
    names = sorted(set(recorded) | set(installed))
    return [
        f"{name} {recorded.get(name, 'not recorded')} -> {installed.get(name, 'not recorded')}"
        for name in names
        if recorded.get(name) != installed.get(name)
    ]


def only_versions_differ(output: Path, files: tuple[RenderedFile, ...], stale: tuple) -> bool:
    """Whether the one stale file is the manifest and only its ``DEPENDENCIES`` differ."""
    if tuple(stale) != (MANIFEST,):
        return False
    fresh = next(f.content for f in files if f.relative_path == MANIFEST)
    current = (output / MANIFEST).read_text(encoding="utf-8")
    return _DEPENDENCIES.sub("", fresh) == _DEPENDENCIES.sub("", current)


def explain(config: Config, files: tuple[RenderedFile, ...]) -> list[str]:
    """Lines naming each upgrade and what the fresh build changes; empty without a drift."""
    steps = upgrades(recorded_versions(config.output), inference_versions(config.flavor))
    if not steps:
        return []
    lines = [f"dependency drift since the tree was generated: {', '.join(steps)}"]
    try:
        texts = {f.relative_path: f.content for f in files}
        fresh = read_texts("fresh build", texts.pop(MANIFEST), texts)
        changes = diff_sides(read_directory(config.output, "generated"), fresh)
    except Exception as exc:  # an explanation must never hide the stale report itself
        return [*lines, f"  (the changes could not be classified: {exc})"]
    if not changes:
        return [*lines, "  the upgrade changes no tool schema; only the generated text differs"]
    lines.append(f"  the upgrade changes {len(changes)} thing(s) clients see:")
    for change in changes[:LIMIT]:
        where = f"{change.path}:{change.line}: " if change.path and change.line else ""
        lines.append(
            f"  {where}{change.tool}: {change.message} ({change.pointer or '/'}) "
            f"[{change.kind.rule}]"
        )
    if len(changes) > LIMIT:
        lines.append(f"  ... and {len(changes) - LIMIT} more (mcp-codegen diff shows them all)")
    return lines

"""A git merge driver for generated modules: they conflict only where their content does.

Two branches that add tools to the same source module change its generated module's source
digest (``# Source sha256`` and ``SOURCE_SHA256``) and shift the recorded source lines of the
tools below each addition, even when the sources merge cleanly. This driver merges the three
versions with those derived values masked (``git merge-file``); what is left to conflict is the
tool dicts themselves, which differ exactly where the sources do. A clean result records a
zero digest and zero lines, so ``check`` reports the module stale until ``generate`` runs on the
merged source.

Enable it (docs/review-workflow.md)::

    # .gitattributes
    generated/** linguist-generated=true merge=mcp-codegen
    # once per clone
    git config merge.mcp-codegen.driver "mcp-codegen merge-driver %O %A %B"
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

_ZERO = "0" * 64
#: Lines whose values derive from the source text, not from the schemas: masked for the merge.
_DERIVED = (
    (re.compile(r"^# Source sha256: [0-9a-f]{64}$", re.MULTILINE), f"# Source sha256: {_ZERO}"),
    (re.compile(r'^SOURCE_SHA256 = "[0-9a-f]{64}"$', re.MULTILINE), f'SOURCE_SHA256 = "{_ZERO}"'),
    (re.compile(r'^(\s+"(?:line|column)": )\d+,$', re.MULTILINE), r"\g<1>0,"),
)
#: The recorded lines of parameters and model fields (``x-codegen.parameters`` / ``.fields``).
_LINE_MAPS = re.compile(
    r'^(\s+)"(?:parameters|fields)": [{(]\n(?:\1    .*\n)*?\1[})],\n', re.MULTILINE
)


def mask(text: str) -> str:
    """``text`` with its source-derived values zeroed (parameter and field lines dropped)."""
    for pattern, replacement in _DERIVED:
        text = pattern.sub(replacement, text)
    return _LINE_MAPS.sub("", text)


def merge(ancestor: str, current: str, other: str) -> tuple[str, bool]:
    """The merged text and whether it is clean (``git merge-file`` on the masked texts)."""
    with tempfile.TemporaryDirectory() as scratch:
        paths = []
        for name, text in (("current", current), ("ancestor", ancestor), ("other", other)):
            path = Path(scratch) / name
            path.write_text(mask(text), encoding="utf-8")
            paths.append(str(path))
        done = subprocess.run(
            ["git", "merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs", *paths],
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode < 0 or done.returncode > 127:
        raise RuntimeError(done.stderr.strip() or "git merge-file failed")
    return done.stdout, done.returncode == 0


def main(argv: list[str] | None = None) -> int:
    """``%O %A %B``: write the merge into ``%A``; exit 0 when clean, 1 on conflicts."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3:
        print("usage: mcp-codegen merge-driver ANCESTOR CURRENT OTHER", file=sys.stderr)
        return 2
    ancestor, current, other = (Path(arg).read_text(encoding="utf-8") for arg in args)
    merged, clean = merge(ancestor, current, other)
    Path(args[1]).write_text(merged, encoding="utf-8")
    return 0 if clean else 1


if __name__ == "__main__":
    raise SystemExit(main())

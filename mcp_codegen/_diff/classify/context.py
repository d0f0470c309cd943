"""The state of one schema comparison and how it reports changes.

The keyword families (``values``, ``unions``, ``objects``, ``arrays``, ``bounds``) are functions of
a ``WalkContext``; ``walk.Walk`` adds the recursive ``compare`` that calls them. The families
recurse through ``compare`` on this base class, so none of them imports ``walk`` (no cycle).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from typing import Any

from mcp_codegen._diff.changes import ABSENT, JSON, Change, ChangeKind, make_change
from mcp_codegen._diff.classify.keywords import Direction, Effect, Schema, dict_of
from mcp_codegen._diff.classify.refs import Doc
from mcp_codegen._shared.json_values import json_equal

K = ChangeKind


class WalkContext(ABC):
    """Compares two schema documents of one tool in one direction."""

    def __init__(self, tool: str, direction: Direction, old: Doc, new: Doc) -> None:
        self.tool = tool
        self.direction = direction
        self.old_doc = old
        self.new_doc = new
        self.changes: list[Change] = []
        self.seen: set[tuple[str, str, str, str]] = set()
        roots = (dict_of(old.root), dict_of(new.root))
        self.defs_equal = all(
            json_equal(roots[0].get(k), roots[1].get(k)) for k in ("$defs", "definitions")
        )

    @abstractmethod
    def compare(self, old_raw: JSON, new_raw: JSON, optr: str, nptr: str, label: str) -> None:
        """Compare the schemas found at ``optr`` (BASE) and ``nptr`` (HEAD)."""

    def fork(self) -> WalkContext:
        """A fresh walk over the same documents, for a trial comparison."""
        return type(self)(self.tool, self.direction, self.old_doc, self.new_doc)

    def subject(self, label: str) -> str:
        """How messages name the schema at ``label``: ``input 'limit'``, ``the output``."""
        return f"{self.direction.value} {label!r}" if label else f"the {self.direction.value}"

    def emit(self, kind: ChangeKind, pointer: str, label: str, **fields: Any) -> None:
        """Record a change of ``kind`` at ``pointer``."""
        fields.setdefault("subject", self.subject(label))
        self.changes.append(make_change(kind, self.tool, pointer, **fields))

    def emit_effect(
        self, effect: Effect, pointer: str, label: str, keyword: str, old: JSON, new: JSON
    ) -> None:
        """A constraint keyword changed with a known effect on the set of valid instances."""
        if self.direction is Direction.INPUT:
            tighter = effect is not Effect.WIDENS
            kind = K.INPUT_CONSTRAINT_TIGHTENED if tighter else K.INPUT_CONSTRAINT_LOOSENED
        else:
            looser = effect is not Effect.NARROWS
            kind = K.OUTPUT_CONSTRAINT_LOOSENED if looser else K.OUTPUT_CONSTRAINT_TIGHTENED
        self.emit(kind, pointer, label, keyword=keyword, old=old, new=new)

    def unchanged(self, old: JSON, new: JSON) -> bool:
        """Equal subtrees are unchanged, unless a ``$ref`` inside may lead to changed targets."""
        if old is ABSENT or new is ABSENT or not json_equal(old, new):
            return old is new
        return self.defs_equal or '"$ref"' not in json.dumps(old, default=str)

    def undecided(self, o: Schema, n: Schema, pointer: str, label: str, keyword: str) -> None:
        """Report a changed ``keyword`` whose effect the classifier cannot decide."""
        before, after = o.get(keyword, ABSENT), n.get(keyword, ABSENT)
        if not self.unchanged(before, after):
            kind = K.KEYWORD_UNDECIDED
            self.emit(kind, f"{pointer}/{keyword}", label, keyword=keyword, old=before, new=after)

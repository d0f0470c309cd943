"""A split session's lone module imported ahead of its scan (``mcp_codegen._generator.workers.pool``).

Runs in: worker (an ``inspect`` worker), parent (only the ``ImportAhead`` request is built there).

An edit's build redoes one module. In a split session the scan worker spends most of its time
importing libcst, and the inspect worker would otherwise wait for the scan and only then import
the module. The module's import does not depend on its scan (the scan decides only which
of its functions are tools), so the inspect worker imports it while it waits, exactly as the
inspection would: under ``recording()``, through ``resolve.import_module``, with the same
diagnostics (an import failure is kept and reported when the scan arrives, the module is never
imported twice). What a build without the split would not have done is undone when the scan
says so: the module is imported only when its scan has tools or its text registers some
(``registrations.registers_at_import``); otherwise the registrations recorded by this import are forgotten, so
the omission check sees what it sees in a cold build. Modules first loaded by this import count
as loaded while the module was inspected (its dependencies).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from mcp_codegen._generator.model import ScannedModule, SourceFile


@dataclass(frozen=True)
class ImportAhead:
    """The request: import ``source``'s module now; ``(source, scan)`` follows."""

    source: SourceFile


@dataclass(frozen=True)
class ImportedAhead:
    #: ``sys.modules`` before the import (what the inspection's dependencies are measured from)
    modules_before: frozenset[str]
    #: ``registrations.recorded_count()`` before the import
    registrations: int
    #: the ``ResolveFailure`` the import raised, reported once the scan says it is inspected
    failure: Any = None


def import_ahead(source: SourceFile) -> ImportedAhead:
    """Import ``source``'s module as ``_inspect_module`` would."""
    # Imported here: the parent builds only the request and must not load the inspection.
    from mcp_codegen._generator.inspection.registrations import recorded_count, recording
    from mcp_codegen._generator.inspection.resolve import ResolveFailure, import_module

    before = frozenset(sys.modules)
    count = recorded_count()
    try:
        with recording(source.relative_path):
            import_module(ScannedModule(**source.location(), tools=()))
    except ResolveFailure as failure:
        return ImportedAhead(before, count, failure)
    return ImportedAhead(before, count)

"""The worker refuses to import the generator's own output package (a tool module importing it).

Runs in: worker, parent. (The parent imports it only with ``resolve``.)
"""

from __future__ import annotations

import sys
from pathlib import Path


class OutputImportError(ImportError):
    """A tool module imported the generator's own output package (see ``guard_output_package``)."""


class _OutputPackageGuard:
    """A ``sys.meta_path`` finder that refuses the output package in the worker.

    Generated modules are the product of importing tool modules, so a tool module that imports
    them when it is imported is a cycle: its schemas would depend on the previous output, and a
    fresh checkout without the output (or ``rm -rf generated``) could never generate them.
    """

    def __init__(self, output: Path) -> None:
        self.output = output.resolve()
        self.names: dict[tuple[str, ...], tuple[str, ...]] = {}

    def _package_names(self) -> tuple[str, ...]:
        """The dotted names under which ``sys.path`` can reach the output directory."""
        key = tuple(sys.path)
        if key not in self.names:
            names = []
            for entry in key:
                try:
                    parts = self.output.relative_to(Path(entry or ".").resolve()).parts
                except (ValueError, OSError):
                    continue
                if parts and all(part.isidentifier() for part in parts):
                    names.append(".".join(parts))
            self.names[key] = tuple(names)
        return self.names[key]

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        for name in self._package_names():
            if fullname == name or fullname.startswith(f"{name}."):
                raise OutputImportError(f"{fullname} is the generator's output", name=fullname)
        return None


def guard_output_package(output: Path) -> None:
    """Make importing ``output`` (the generated package) fail in this process."""
    sys.meta_path.insert(0, _OutputPackageGuard(output))  # type: ignore[arg-type]

"""Child process for the kill -9 tests: ``python write_driver.py FILES.json OUTPUT [fallback]``.

Replaces OUTPUT with the rendered files in FILES.json (a list of ``[relative_path, content]``)
through ``mcp_codegen._generator.write.output.apply``, the function ``generate`` calls after a successful build.
``fallback`` disables the atomic directory exchange, to exercise the two-rename path.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcp_codegen._generator.model import RenderedFile
from mcp_codegen._generator.write import output as write


def main(argv: list[str]) -> None:
    files = [RenderedFile(path, content) for path, content in json.loads(Path(argv[0]).read_text())]
    if argv[2:] == ["fallback"]:
        write._exchange = lambda first, second: False  # type: ignore[assignment]
    write.apply(files, Path(argv[1]))


if __name__ == "__main__":
    main(sys.argv[1:])

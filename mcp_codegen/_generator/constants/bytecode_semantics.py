"""User modules run the code their bytecode holds, whether or not a ``.pyc`` exists.

CPython compiles a set display of three or more constants (``{"eu-west", "us-east", ...}``) to a
frozenset constant. Compiled from source, its elements go in in source order; read from a
``.pyc``, in the order ``marshal`` wrote them (sorted since 3.11). Where their hashes collide the
two sets iterate in different orders under the same hash seed, so a schema value that iterates
one (``",".join(REGIONS)``, a ``Literal`` or an enum built from it) depended on whether the
project's ``__pycache__`` held a valid ``.pyc``: a ``generate`` that wrote one and a later
``check --no-cache``, or a fresh clone, disagreed. The processes that import user code for a
build (the inspecting workers, the server probes and ``verify``'s child) pass every source
compile through ``marshal``, as writing and reading a ``.pyc`` does, so a module runs the same
code either way; the constant evaluator rebuilds a set display the same way
(``mcp_codegen._generator.constants.evaluate``).

Runs in: worker.
"""

from __future__ import annotations

import marshal
from importlib.machinery import SourceFileLoader
from types import CodeType
from typing import Any

_MARK = "_mcp_codegen_as_bytecode"


def as_bytecode(code: CodeType) -> CodeType:
    """``code`` as a ``.pyc`` holds it (written and read back by ``marshal``)."""
    return marshal.loads(marshal.dumps(code))  # our own compile's output


def compile_as_bytecode() -> None:
    """From now on, every module this process compiles from source runs the code its ``.pyc``
    would hold (``SourceFileLoader``, the loader of every ``.py`` on ``sys.path``)."""
    original = SourceFileLoader.source_to_code
    if getattr(original, _MARK, False):
        return

    def source_to_code(
        self: SourceFileLoader, data: Any, path: Any, *, _optimize: int = -1
    ) -> CodeType:
        return as_bytecode(original(self, data, path, _optimize=_optimize))

    setattr(source_to_code, _MARK, True)
    SourceFileLoader.source_to_code = source_to_code  # type: ignore[method-assign,assignment]

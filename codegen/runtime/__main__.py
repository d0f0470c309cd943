"""``python -m codegen.runtime``: serve generated tools over stdio or streamable HTTP."""

from codegen.runtime.server import main

raise SystemExit(main())

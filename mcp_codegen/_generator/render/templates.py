"""Where the module templates are: inside the package in a wheel, beside it in a checkout
(standard library only: the build cache names them in its key on every build, cache hits too).

Runs in: parent.
"""

from __future__ import annotations

import os

#: The ``mcp_codegen`` package directory.
PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
_TEMPLATE = "module.py.jinja"


def template_dir() -> str | None:
    """The directory of the templates: ``mcp_codegen/templates`` (the wheel puts them there),
    else ``templates`` beside the package (a checkout); None when neither holds them. Only a
    directory with the module template counts: in a wheel's ``site-packages`` the directory
    beside the package may be another distribution's ``templates``."""
    for candidate in (
        os.path.join(PACKAGE, "templates"),
        os.path.join(os.path.dirname(PACKAGE), "templates"),
    ):
        if os.path.isfile(os.path.join(candidate, _TEMPLATE)):
            return candidate
    return None

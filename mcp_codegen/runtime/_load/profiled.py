"""Serving ``tools/list`` through a client profile (``load_tools(profile=)``, ``serve --profile``).

Standard library only: the profile's transforms (``mcp_codegen._profiles``) run once, at load.
"""

from __future__ import annotations

import marshal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ProfileError(Exception):
    """The profile cannot express at least one tool; the message names them."""


def profiled_payload(
    payload: bytes, profile: str, origin: str
) -> tuple[bytes, dict[str, list[tuple[str, ...]]]]:
    """The marshalled tools list as ``profile`` serves it, and per tool where a ``null`` the
    profile introduced means "absent" (for ``restore_arguments``)."""
    # the profiles' transforms: only with a profile, never before the fast path's first answer
    from mcp_codegen._profiles import apply_profile

    try:
        result = apply_profile(marshal.loads(payload), profile)
    except ValueError as exc:
        raise ProfileError(f"{origin}: {exc}") from None
    if result.errors:
        shown = "; ".join(str(finding) for finding in result.errors[:3])
        more = f" (and {len(result.errors) - 3} more)" if len(result.errors) > 3 else ""
        raise ProfileError(
            f"{origin}: {len(result.errors)} tool schema(s) cannot be expressed for profile "
            f"{profile!r}: {shown}{more}; see `mcp-codegen lint --profile {profile}`"
        )
    return marshal.dumps(result.tools), result.null_means_absent


def restore(arguments: dict[str, Any], paths: list[tuple[str, ...]] | None) -> dict[str, Any]:
    """``arguments`` as the generated schema reads them: ``null`` at ``paths`` means absent."""
    if not paths:
        return arguments
    # the profiles' transforms: only with a profile, never before the fast path's first answer
    from mcp_codegen._profiles import restore_arguments

    return restore_arguments(arguments, paths)  # type: ignore[no-any-return]

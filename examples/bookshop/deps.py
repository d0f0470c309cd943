"""Dependencies the runtime injects into tools; clients never send them (seed 001, section 7).

Both classes build their defaults with no arguments, so an injector can construct them directly.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

DEFAULT_SETTINGS: Mapping[str, Any] = {
    "shop.name": "Marginalia Books",
    "shop.currency": "GBP",
    "shipping.free_threshold": Decimal("40.00"),
    "gift_cards.redeem_url": "https://marginalia.example/redeem",
}


class Settings:
    """Shop-wide configuration, looked up by dotted key."""

    def __init__(self, overrides: Mapping[str, Any] | None = None) -> None:
        self._values: dict[str, Any] = {**DEFAULT_SETTINGS, **(overrides or {})}

    def get(self, key: str, default: Any = None) -> Any:
        """Return the value for ``key``, or ``default`` when it is not configured."""
        return self._values.get(key, default)

    @property
    def currency(self) -> str:
        """ISO 4217 code of the currency every price is in."""
        return str(self.get("shop.currency"))

    @property
    def free_shipping_threshold(self) -> Decimal:
        """Order subtotal from which standard shipping is free."""
        return Decimal(self.get("shipping.free_threshold"))


class ConfigPaths:
    """Where the shop keeps its files. Nothing is created until a caller writes there."""

    def __init__(self, root: Path | str = "var/bookshop") -> None:
        self.root = Path(root)

    def get_log_dir(self) -> Path:
        """Directory for the back office's logs."""
        return self.root / "logs"

    def get_export_dir(self) -> Path:
        """Directory that inventory exports are written to."""
        return self.root / "exports"

"""Reporting tools: sales figures and inventory snapshots for the shop's owners."""

from collections import Counter
from datetime import date
from decimal import Decimal
from typing import Any

from mcp.server.mcpserver import Context

from examples.bookshop import store
from examples.bookshop.deps import ConfigPaths, Settings
from examples.bookshop.models import Genre, SalesReport
from mcp_codegen.decorators import tool


@tool(title="Sales report", read_only=True, idempotent=True)
async def sales_report(
    period: tuple[date, date], ctx: Context, genres: list[Genre] | None = None
) -> SalesReport:
    """Summarise invoiced sales over a date range.

    Progress is reported to the client while the sales ledger is read.

    Args:
        period: First and last day of the range, both included.
        genres: Only count books from these genres.

    Raises:
        ValueError: The range ends before it starts.
    """
    start, end = period
    if end < start:
        raise ValueError(f"the period ends ({end}) before it starts ({start})")
    await ctx.report_progress(0, 2, "reading the sales ledger")
    sales = [
        sale
        for sale in store.SALES
        if start <= sale.day <= end and (genres is None or store.BOOKS[sale.isbn].genre in genres)
    ]
    await ctx.report_progress(1, 2, "adding up")
    revenue_by_genre: dict[Genre, Decimal] = {}
    for genre in Genre:
        amounts = [s.unit_price * s.quantity for s in sales if store.BOOKS[s.isbn].genre is genre]
        if amounts:
            revenue_by_genre[genre] = sum(amounts, Decimal(0))
    units = Counter[str]()
    for sale in sales:
        units[sale.isbn] += sale.quantity
    report = SalesReport(
        period_start=start,
        period_end=end,
        orders=len({sale.order_ref for sale in sales}),
        units=sum(units.values()),
        revenue=sum(revenue_by_genre.values(), Decimal(0)),
        revenue_by_genre=revenue_by_genre,
        top_sellers=sorted(units.items(), key=lambda item: (-item[1], item[0]))[:5],
    )
    await ctx.report_progress(2, 2, "done")
    return report


@tool(
    read_only=True,
    output_schema={
        "type": "object",
        "properties": {
            "shop": {"type": "string"},
            "currency": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "titles": {"type": "integer", "minimum": 0},
            "copies": {"type": "integer", "minimum": 0},
            "value": {"type": "string", "description": "Shelf value at list prices, as a decimal."},
            "out_of_stock": {"type": "array", "items": {"type": "string"}},
            "export_path": {"type": "string"},
        },
        "required": ["shop", "currency", "titles", "copies", "value", "out_of_stock"],
    },
)
def inventory_snapshot(settings: Settings, paths: ConfigPaths) -> dict[str, Any]:
    """Take stock of the whole shop: titles, copies and their value at list prices.

    Returns:
        The snapshot, with the path a CSV export of it would be written to.
    """
    copies = sum(store.STOCK.values())
    value = sum(
        (book.price * store.STOCK.get(isbn, 0) for isbn, book in store.BOOKS.items()), Decimal(0)
    )
    return {
        "shop": settings.get("shop.name"),
        "currency": settings.currency,
        "titles": len(store.BOOKS),
        "copies": copies,
        "value": str(value),
        "out_of_stock": sorted(isbn for isbn, count in store.STOCK.items() if count == 0),
        "export_path": (paths.get_export_dir() / "inventory.csv").as_posix(),
    }

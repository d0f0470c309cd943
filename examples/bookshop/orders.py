"""Order tools: shipping quotes, orders, reservations, gift cards and stock adjustments.

Docstrings here use the NumPy style (``Parameters`` / ``----------`` sections).
"""

import hashlib
from datetime import datetime
from decimal import Decimal
from typing import Annotated, Optional
from uuid import UUID, uuid5

from mcp.types import CallToolResult, TextContent
from pydantic import Field

from examples.bookshop import store
from examples.bookshop.deps import Settings
from examples.bookshop.models import (
    Address,
    Backordered,
    GiftCard,
    GiftCardRequest,
    Isbn,
    Order,
    OrderLine,
    OrderStatus,
    Reserved,
    ShippingQuote,
    ShippingSpeed,
)
from mcp_codegen.decorators import tool

# (first kilogram, each further kilogram started) for deliveries within the UK.
_DOMESTIC_RATES = {
    ShippingSpeed.STANDARD: (Decimal("3.50"), Decimal("1.00")),
    ShippingSpeed.EXPRESS: (Decimal("6.95"), Decimal("1.50")),
    ShippingSpeed.NEXT_DAY: (Decimal("9.95"), Decimal("2.00")),
}
_INTERNATIONAL_FACTOR = 3
_INTERNATIONAL_EXTRA_DAYS = 5
_GRAMS_PER_BOOK = 400


@tool(read_only=True)
async def quote_shipping(
    destination: Address,
    speed: ShippingSpeed = ShippingSpeed.STANDARD,
    weight_grams: Annotated[int, Field(gt=0, le=30_000)] = 500,
) -> ShippingQuote:
    """Quote the price and delivery time of a parcel.

    Parameters
    ----------
    destination
        Where the parcel goes. Countries other than GB are charged at international rates.
    speed
        The delivery service: 5 standard, 2 express, 1 next day (working days).
    weight_grams
        Packed weight of the parcel in grams.

    Returns
    -------
    ShippingQuote
        Price, promised working days and any caveat.
    """
    return _quote(destination, speed, weight_grams)


@tool(destructive=False, open_world=False)
async def place_order(
    member_id: UUID,
    lines: Annotated[list[OrderLine], Field(min_length=1)],
    ship_to: Address,
    placed_at: datetime,
    settings: Settings,
    speed: ShippingSpeed = ShippingSpeed.STANDARD,
    gift_message: Optional[str] = None,  # noqa: UP045 - the typing.Optional spelling on purpose
) -> Order:
    """Place an order for a member at today's catalogue prices.

    Standard shipping is free from the shop's free-shipping threshold. Placing the same
    order twice (same member, lines and time) returns the first order.

    Parameters
    ----------
    member_id
        The member who pays.
    lines
        The books and quantities ordered.
    ship_to
        Delivery address.
    placed_at
        When the customer confirmed the order, with time zone.
    speed
        Delivery service.
    gift_message
        Printed on a card in the parcel.

    Raises
    ------
    ValueError
        The member or one of the ISBNs is unknown.
    """
    store.get_member(member_id)
    prices = [store.get_book(line.isbn).price for line in lines]
    subtotal = sum(
        (price * line.quantity for price, line in zip(prices, lines, strict=True)), Decimal(0)
    )
    weight = _GRAMS_PER_BOOK * sum(line.quantity for line in lines)
    shipping = _quote(ship_to, speed, weight).cost
    if speed is ShippingSpeed.STANDARD and subtotal >= settings.free_shipping_threshold:
        shipping = Decimal("0.00")
    items = (f"{line.isbn}x{line.quantity}" for line in lines)
    key = "|".join([str(member_id), placed_at.isoformat(), *items])
    order_id = uuid5(store.SHOP_NAMESPACE, f"order:{key}")
    return store.ORDERS.setdefault(
        order_id,
        Order(
            order_id=order_id,
            member_id=member_id,
            status=OrderStatus.PLACED,
            placed_at=placed_at,
            lines=lines,
            ship_to=ship_to,
            speed=speed,
            subtotal=subtotal,
            shipping=shipping,
            total=subtotal + shipping,
            currency=settings.currency,
            gift_message=gift_message,
        ),
    )


@tool(idempotent=True, destructive=False)
def reserve_copy(isbn: Isbn, member_id: UUID) -> Reserved | Backordered:
    """Set a copy aside for a member to collect in the shop.

    When no copy is on the shelf, one is ordered from the distributor instead.

    Parameters
    ----------
    isbn
        The book to reserve.
    member_id
        The member collecting it.

    Returns
    -------
    Reserved or Backordered
        ``kind`` tells which of the two happened.
    """
    store.get_book(isbn)
    member = store.get_member(member_id)
    if store.STOCK.get(isbn, 0) == 0:
        return Backordered(
            kind="backordered",
            isbn=isbn,
            expected_weeks=2,
            note="We will email you when it arrives.",
        )
    hold_days = 7 if member.tier in ("collector", "patron") else 3
    store.RESERVATIONS[(isbn, member_id)] = hold_days
    return Reserved(kind="reserved", isbn=isbn, member_id=member_id, hold_days=hold_days)


@tool(annotations={"destructiveHint": True, "idempotentHint": True, "openWorldHint": False})
def cancel_order(order_id: UUID, reason: str = "customer request") -> CallToolResult:
    """Cancel an order that has not shipped yet.

    The result is a message for the operator; it is marked as an error when the order is
    unknown or already shipped.

    Parameters
    ----------
    order_id
        The order to cancel.
    reason
        Why it is cancelled; kept with the order.
    """
    order = store.ORDERS.get(order_id)
    if order is None:
        return _message(f"No order {order_id}.", is_error=True)
    if order.status is OrderStatus.SHIPPED:
        return _message(f"Order {order_id} has shipped and can no longer be cancelled.", True)
    store.ORDERS[order_id] = order.model_copy(update={"status": OrderStatus.CANCELLED})
    return _message(f"Order {order_id} is cancelled ({reason}).")


@tool(destructive=False, meta={"com.example/bookshop": {"audit": True, "category": "payments"}})
def issue_gift_card(request: GiftCardRequest, settings: Settings) -> GiftCard:
    """Issue a gift card and return its redemption code.

    The code is derived from the request, so the same request always yields the same card.

    Parameters
    ----------
    request
        Amount, recipient and card design.
    """
    digest = hashlib.sha256(request.model_dump_json().encode()).hexdigest().upper()
    code = f"GC-{digest[:12]}"
    return GiftCard(
        code=code,
        amount=request.amount,
        currency=settings.currency,
        recipient_email=request.recipient_email,
        redeem_url=f"{settings.get('gift_cards.redeem_url')}/{code}",
    )


@tool(
    destructive=True,
    input_schema={
        "type": "object",
        "description": 'Change in copies per ISBN, for example {"9780306406157": -2}.',
        "patternProperties": {
            "^97[89][0-9]{10}$": {"type": "integer", "minimum": -1000, "maximum": 1000},
        },
        "additionalProperties": False,
        "minProperties": 1,
    },
)
def adjust_stock(**deltas: int) -> dict[str, int]:
    """Add or remove copies after a delivery, a return or a stock take.

    Each argument is named by an ISBN and gives the change in copies. Either every change is
    applied or none is.

    Returns
    -------
    dict
        The new number of copies for each ISBN that changed.

    Raises
    ------
    ValueError
        An ISBN is unknown, or a change would take its stock below zero.
    """
    for isbn, delta in deltas.items():
        store.get_book(isbn)
        if store.STOCK.get(isbn, 0) + delta < 0:
            raise ValueError(f"only {store.STOCK.get(isbn, 0)} copies of {isbn} are in stock")
    for isbn, delta in deltas.items():
        store.STOCK[isbn] = store.STOCK.get(isbn, 0) + delta
    return {isbn: store.STOCK[isbn] for isbn in sorted(deltas)}


def _quote(destination: Address, speed: ShippingSpeed, weight_grams: int) -> ShippingQuote:
    first_kg, per_kg = _DOMESTIC_RATES[speed]
    extra_kgs = max(0, -(-weight_grams // 1000) - 1)
    cost = first_kg + per_kg * extra_kgs
    days = speed.value
    note = None
    if destination.country.upper() != "GB":
        cost *= _INTERNATIONAL_FACTOR
        days += _INTERNATIONAL_EXTRA_DAYS
        note = "International parcel: the recipient may be charged import duties."
    return ShippingQuote(
        speed=speed, cost=cost, working_days=days, destination=destination, note=note
    )


def _message(text: str, is_error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error)

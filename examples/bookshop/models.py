"""Types shared by the bookshop tools: pydantic models, dataclasses, a TypedDict and enums."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Annotated, Literal, NotRequired
from uuid import UUID

from pydantic import AnyUrl, BaseModel, EmailStr, Field, HttpUrl

# Pydantic refuses ``typing.TypedDict`` before Python 3.12.
from typing_extensions import TypedDict

Isbn = Annotated[
    str, Field(pattern=r"^97[89][0-9]{10}$", description="13-digit ISBN, digits only.")
]
"""An ISBN-13 as the shop stores it: no hyphens or spaces."""

MembershipTier = Literal["reader", "collector", "patron"]
BookFormat = Literal["hardback", "paperback", "ebook", "audiobook"]


class Genre(str, Enum):  # noqa: UP042 - a str-valued Enum is the case this example shows
    """Shelf the book is sold under."""

    FICTION = "fiction"
    SCIENCE_FICTION = "science-fiction"
    FANTASY = "fantasy"
    MYSTERY = "mystery"
    HISTORY = "history"
    SCIENCE = "science"
    CHILDREN = "children"


class ShippingSpeed(int, Enum):
    """Delivery service; the value is the promised number of working days."""

    STANDARD = 5
    EXPRESS = 2
    NEXT_DAY = 1


class OrderStatus(str, Enum):  # noqa: UP042 - see Genre
    """Where an order is in its life."""

    PLACED = "placed"
    SHIPPED = "shipped"
    CANCELLED = "cancelled"


class Book(BaseModel):
    """A title in the catalogue."""

    isbn: Isbn
    title: str = Field(min_length=1, max_length=200)
    authors: list[str] = Field(min_length=1, max_length=10)
    genre: Genre
    price: Decimal = Field(ge=0, max_digits=8, decimal_places=2)
    published: date
    rating: float = Field(default=0.0, ge=0, le=5, description="Average review score, 0 to 5.")
    cover_url: HttpUrl | None = None
    tags: list[str] = Field(default_factory=list)


class BookSummary(BaseModel):
    """The short form of a book used in result lists."""

    isbn: str
    title: str
    authors: list[str]
    price: Decimal
    in_stock: bool


class Category(BaseModel):
    """A node of the catalogue's category tree."""

    slug: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=40)
    name: str = Field(min_length=1)
    children: list[Category] = Field(default_factory=list)


class ReadingPreferences(TypedDict):
    """What a member wants to hear about. Only ``newsletter`` is always present."""

    newsletter: bool
    favourite_genres: NotRequired[list[Genre]]
    preferred_format: NotRequired[BookFormat]
    max_price: NotRequired[Decimal]


class Member(BaseModel):
    """A registered customer."""

    member_id: UUID
    name: str
    email: EmailStr
    tier: MembershipTier
    joined_on: date
    website: AnyUrl | None = None


@dataclass
class Address:
    """A postal address in the shop's delivery area."""

    recipient: str
    street: str
    city: str
    postcode: str
    country: str = "GB"
    line2: str | None = None


@dataclass
class ShippingQuote:
    """Price and promise for delivering a parcel."""

    speed: ShippingSpeed
    cost: Decimal
    working_days: int
    destination: Address
    note: str | None = None


@dataclass
class Reserved:
    """A copy is set aside for the member."""

    kind: Literal["reserved"]
    isbn: str
    member_id: UUID
    hold_days: int


@dataclass
class Backordered:
    """No copy is on the shelf; one has been ordered from the distributor."""

    kind: Literal["backordered"]
    isbn: str
    expected_weeks: int
    note: str | None = None


class OrderLine(BaseModel):
    """One title and how many copies of it."""

    isbn: Isbn
    quantity: int = Field(ge=1, le=50)


class Order(BaseModel):
    """A customer order with its prices fixed at the time it was placed."""

    order_id: UUID
    member_id: UUID
    status: OrderStatus
    placed_at: datetime
    lines: list[OrderLine]
    ship_to: Address
    speed: ShippingSpeed
    subtotal: Decimal
    shipping: Decimal
    total: Decimal
    currency: str = Field(min_length=3, max_length=3)
    gift_message: str | None = None


class GiftCardRequest(BaseModel):
    """What the customer asked for when buying a gift card."""

    amount: int = Field(ge=10, le=500, multiple_of=5, description="Value in whole currency units.")
    recipient_email: EmailStr
    message: str = Field(default="", max_length=140)
    design: Literal["classic", "birthday", "holiday"] = "classic"


class GiftCard(BaseModel):
    """An issued gift card."""

    code: str = Field(pattern=r"^GC-[0-9A-F]{12}$")
    amount: int
    currency: str
    recipient_email: EmailStr
    redeem_url: HttpUrl


class SalesReport(BaseModel):
    """Sales over a closed date range."""

    period_start: date
    period_end: date
    orders: int = Field(ge=0)
    units: int = Field(ge=0)
    revenue: Decimal
    revenue_by_genre: dict[Genre, Decimal]
    top_sellers: list[tuple[str, int]] = Field(
        description="Up to five (ISBN, units sold) pairs, best-selling first."
    )

"""The shop's data, held in memory and rebuilt identically by ``reset()``.

Identifiers are UUID5s derived from stable keys, so every run produces the same ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from uuid import UUID, uuid5

from examples.bookshop.models import (
    Book,
    Category,
    Genre,
    Member,
    Order,
    ReadingPreferences,
)

SHOP_NAMESPACE = UUID("6f1d3c52-8a4e-5b7f-9c0d-2e1f4a3b5c6d")


def member_id_for(email: str) -> UUID:
    """The member id the shop assigns to an email address (case-insensitive)."""
    return uuid5(SHOP_NAMESPACE, f"member:{email.lower()}")


@dataclass(frozen=True)
class Sale:
    """One line of a past, already invoiced order."""

    order_ref: str
    day: date
    isbn: str
    quantity: int
    unit_price: Decimal


def _books() -> dict[str, Book]:
    rows = [
        ("9781861972712", "The Lighthouse Keeper's Almanac", ["Elena Marsh"], Genre.FICTION,
         "12.99", date(2019, 4, 2), 4.4, ["coastal", "literary"]),
        ("9780306406157", "Orbital Mechanics for Poets", ["Dev Raman"], Genre.SCIENCE,
         "18.50", date(2021, 9, 14), 4.7, ["space", "popular-science"]),
        ("9780951751503", "The Glass Orchard", ["Ines Okafor"], Genre.FANTASY,
         "9.99", date(2017, 6, 1), 4.1, ["fae"]),
        ("9781847952820", "A Murder in Marginalia Lane", ["P. J. Holloway"], Genre.MYSTERY,
         "8.99", date(2020, 10, 29), 3.9, ["cosy", "bookshop"]),
        ("9780143039433", "Salt Roads: A History of Trade", ["Margit Sørensen"], Genre.HISTORY,
         "24.00", date(2015, 2, 19), 4.5, ["trade", "maritime"]),
        ("9781912517329", "Starwake", ["Yusuf Adeyemi", "Clara Bell"], Genre.SCIENCE_FICTION,
         "14.99", date(2022, 5, 5), 4.2, ["space-opera"]),
        ("9781781084212", "Pip and the Paper Moon", ["Rosa Lindqvist"], Genre.CHILDREN,
         "6.99", date(2018, 11, 8), 4.8, ["picture-book", "bedtime"]),
        ("9780992837464", "The Quiet Equation", ["Dev Raman"], Genre.SCIENCE,
         "21.00", date(2023, 3, 23), 4.0, ["mathematics"]),
        ("9781847959171", "Ember Crown", ["Ines Okafor"], Genre.FANTASY,
         "11.49", date(2022, 8, 18), 4.3, ["fae", "sequel"]),
    ]  # fmt: skip
    return {
        isbn: Book(
            isbn=isbn,
            title=title,
            authors=authors,
            genre=genre,
            price=Decimal(price),
            published=published,
            rating=rating,
            cover_url=f"https://covers.marginalia.example/{isbn}.jpg",
            tags=tags,
        )
        for isbn, title, authors, genre, price, published, rating, tags in rows
    }


def _stock() -> dict[str, int]:
    return {
        "9781861972712": 7,
        "9780306406157": 3,
        "9780951751503": 12,
        "9781847952820": 5,
        "9780143039433": 2,
        "9781912517329": 9,
        "9781781084212": 15,
        "9780992837464": 0,
        "9781847959171": 4,
    }


def _categories() -> Category:
    return Category.model_validate(
        {
            "slug": "books",
            "name": "All books",
            "children": [
                {
                    "slug": "fiction",
                    "name": "Fiction",
                    "children": [
                        {"slug": "fantasy", "name": "Fantasy"},
                        {"slug": "mystery", "name": "Mystery & Crime"},
                        {"slug": "science-fiction", "name": "Science Fiction"},
                    ],
                },
                {
                    "slug": "non-fiction",
                    "name": "Non-fiction",
                    "children": [
                        {"slug": "history", "name": "History"},
                        {"slug": "science", "name": "Popular Science"},
                    ],
                },
                {"slug": "children", "name": "Children's Books"},
            ],
        }
    )


def _members() -> dict[UUID, Member]:
    members = [
        Member(
            member_id=member_id_for("ada.finch@example.org"),
            name="Ada Finch",
            email="ada.finch@example.org",
            tier="collector",
            joined_on=date(2021, 3, 14),
        ),
        Member(
            member_id=member_id_for("tom.reyes@example.com"),
            name="Tom Reyes",
            email="tom.reyes@example.com",
            tier="reader",
            joined_on=date(2023, 9, 1),
            website="https://tomreads.example/",
        ),
    ]
    return {member.member_id: member for member in members}


def _sales() -> list[Sale]:
    rows = [
        ("INV-1001", date(2024, 1, 4), "9781861972712", 2, "12.99"),
        ("INV-1001", date(2024, 1, 4), "9781781084212", 1, "6.99"),
        ("INV-1002", date(2024, 1, 11), "9780306406157", 1, "18.50"),
        ("INV-1003", date(2024, 1, 19), "9780951751503", 3, "9.99"),
        ("INV-1004", date(2024, 2, 2), "9781912517329", 1, "14.99"),
        ("INV-1004", date(2024, 2, 2), "9781847959171", 1, "11.49"),
        ("INV-1005", date(2024, 2, 14), "9781781084212", 4, "6.99"),
        ("INV-1006", date(2024, 2, 27), "9780143039433", 1, "24.00"),
        ("INV-1007", date(2024, 3, 8), "9781847952820", 2, "8.99"),
        ("INV-1008", date(2024, 3, 15), "9780951751503", 1, "9.99"),
        ("INV-1008", date(2024, 3, 15), "9781847959171", 2, "11.49"),
        ("INV-1009", date(2024, 3, 29), "9780306406157", 2, "18.50"),
    ]
    return [Sale(ref, day, isbn, qty, Decimal(price)) for ref, day, isbn, qty, price in rows]


BOOKS: dict[str, Book] = {}
STOCK: dict[str, int] = {}
CATEGORIES: list[Category] = []
MEMBERS: dict[UUID, Member] = {}
PREFERENCES: dict[UUID, ReadingPreferences] = {}
ORDERS: dict[UUID, Order] = {}
RESERVATIONS: dict[tuple[str, UUID], int] = {}
SALES: list[Sale] = []


def reset() -> None:
    """Put every table back to the shop's opening state."""
    BOOKS.clear()
    BOOKS.update(_books())
    STOCK.clear()
    STOCK.update(_stock())
    CATEGORIES[:] = [_categories()]
    MEMBERS.clear()
    MEMBERS.update(_members())
    PREFERENCES.clear()
    ORDERS.clear()
    RESERVATIONS.clear()
    SALES[:] = _sales()


def get_book(isbn: str) -> Book:
    """The catalogue entry for ``isbn``; ValueError when the shop does not list it."""
    try:
        return BOOKS[isbn]
    except KeyError:
        raise ValueError(f"unknown ISBN {isbn!r}: not in the catalogue") from None


def get_member(member_id: UUID) -> Member:
    """The member with ``member_id``; ValueError when there is none."""
    try:
        return MEMBERS[member_id]
    except KeyError:
        raise ValueError(f"unknown member {member_id}") from None


reset()

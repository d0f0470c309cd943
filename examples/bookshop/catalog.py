"""Catalogue tools: finding, describing and maintaining the books the shop sells.

Docstrings here use the Google style (``Args:`` sections).
"""

from decimal import Decimal
from typing import Annotated, Literal

from mcp.types import TextContent
from pydantic import Field

from examples.bookshop import store
from examples.bookshop.models import Book, BookSummary, Category, Genre, Isbn
from mcp_codegen.decorators import tool

SortKey = Literal["title", "price", "published"]


def _summary(book: Book) -> BookSummary:
    return BookSummary(
        isbn=book.isbn,
        title=book.title,
        authors=book.authors,
        price=book.price,
        in_stock=store.STOCK.get(book.isbn, 0) > 0,
    )


@tool(title="Search the catalogue", read_only=True, idempotent=True, open_world=False)
def search_books(
    query: str,
    genres: list[Genre] | None = None,
    sort_by: SortKey = "title",
    in_stock_only: bool = False,
    min_rating: float = 0.0,
    limit: Annotated[
        int, Field(ge=1, le=100, description="Maximum number of books to return.")
    ] = 20,
) -> list[BookSummary]:
    """Search the catalogue by title, author or tag.

    Matching ignores case. An empty query matches every book, which together with the
    filters makes this the way to browse a shelf.

    Args:
        query: Text to look for in titles, author names and tags.
        genres: Only return books from these genres; all genres when omitted.
        sort_by: Order of the results; prices ascend, publication dates descend.
        in_stock_only: Leave out books with no copies on the shelf.
        min_rating: Lowest average review score to include, from 0 to 5.
        limit: Page size.

    Returns:
        Summaries of the matching books.
    """
    needle = query.casefold()
    matches = [
        book
        for book in store.BOOKS.values()
        if (genres is None or book.genre in genres)
        and book.rating >= min_rating
        and (not in_stock_only or store.STOCK.get(book.isbn, 0) > 0)
        and any(needle in text.casefold() for text in [book.title, *book.authors, *book.tags])
    ]
    if sort_by == "price":
        matches.sort(key=lambda book: (book.price, book.title))
    elif sort_by == "published":
        matches.sort(key=lambda book: (book.published, book.title), reverse=True)
    else:
        matches.sort(key=lambda book: book.title.casefold())
    return [_summary(book) for book in matches[:limit]]


@tool(annotations={"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False})
def get_book(
    isbn: str = Field(description="The book's ISBN-13, digits only.", pattern=r"^97[89][0-9]{10}$"),
) -> Book:
    """Look up the full catalogue entry for one book.

    Raises:
        ValueError: The shop does not list a book with this ISBN.
    """
    return store.get_book(isbn)


@tool(read_only=True)
def list_categories(root: str | None = None) -> Category:
    """Return the category tree, or the subtree below one category.

    Args:
        root: Slug of the category to start from; the whole tree when omitted.

    Raises:
        ValueError: No category has the slug ``root``.
    """
    tree = store.CATEGORIES[0]
    return tree if root is None else _find_category(tree, root)


@tool(destructive=False, idempotent=True)
def merge_categories(tree: Category, parent: str = "books") -> int:
    """Merge a tree of categories into the catalogue below an existing category.

    Categories are matched by slug: a known slug keeps its name and gains the new children,
    an unknown slug is added. Merging the same tree twice changes nothing.

    Args:
        tree: The categories to merge, as a tree.
        parent: Slug of the existing category to merge below.

    Returns:
        How many categories were added.
    """
    return _merge(_find_category(store.CATEGORIES[0], parent), tree)


@tool(
    destructive=False,
    idempotent=True,
    icons=[{"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}],
)
def add_book(book: Book, initial_stock: Annotated[int, Field(ge=0)] = 0) -> BookSummary:
    """Add a book to the catalogue, or replace the entry with the same ISBN.

    Args:
        book: The complete catalogue entry.
        initial_stock: Copies on the shelf; only used when the ISBN is new.
    """
    store.BOOKS[book.isbn] = book
    store.STOCK.setdefault(book.isbn, initial_stock)
    return _summary(book)


@tool(idempotent=True, destructive=False)
def tag_book(isbn: Isbn, tags: tuple[str, ...]) -> None:
    """Attach search tags to a book.

    Tags are stored in lower case; tags the book already has are skipped.

    Parameters
    ----------
    isbn
        The book to tag.
    tags
        One or more tags, such as ``"signed-copy"`` or ``"staff-pick"``.

    Raises
    ------
    ValueError
        The ISBN is not in the catalogue.
    """
    book = store.get_book(isbn)
    new_tags = [tag.lower() for tag in tags if tag.lower() not in book.tags]
    store.BOOKS[isbn] = book.model_copy(update={"tags": [*book.tags, *dict.fromkeys(new_tags)]})


@tool(read_only=True)
def stock_levels(isbns: set[Isbn]) -> dict[str, int]:
    """Count the copies on the shelf for several books at once.

    Args:
        isbns: The books to count. ISBNs the shop does not list are left out of the result.

    Returns:
        Copies in stock per ISBN.
    """
    return {isbn: store.STOCK[isbn] for isbn in sorted(isbns) if isbn in store.STOCK}


@tool(read_only=True)
def price_range(genre: Genre) -> tuple[Decimal, Decimal]:
    """Return the cheapest and the dearest price within a genre.

    Args:
        genre: The genre to look at.

    Raises:
        ValueError: The catalogue has no book in this genre.
    """
    prices = [book.price for book in store.BOOKS.values() if book.genre == genre]
    if not prices:
        raise ValueError(f"no books in genre {genre.value!r}")
    return min(prices), max(prices)


@tool(read_only=True)
async def describe_book(isbn: Isbn) -> list[TextContent]:
    """Write a short shop-window blurb for a book, as text for the reader.

    Args:
        isbn: The book to describe.
    """
    book = store.get_book(isbn)
    copies = store.STOCK.get(isbn, 0)
    availability = f"{copies} in stock" if copies else "currently out of stock"
    return [
        TextContent(type="text", text=f"{book.title} by {' & '.join(book.authors)}"),
        TextContent(
            type="text",
            text=(
                f"{book.genre.value.replace('-', ' ').capitalize()},"
                f" published {book.published:%B %Y}. Rated {book.rating:.1f}/5."
                f" £{book.price}, {availability}."
            ),
        ),
    ]


def _find_category(tree: Category, slug: str) -> Category:
    pending = [tree]
    while pending:
        node = pending.pop()
        if node.slug == slug:
            return node
        pending.extend(node.children)
    raise ValueError(f"unknown category {slug!r}")


def _merge(into: Category, incoming: Category) -> int:
    """Merge ``incoming`` as a child of ``into``; return the number of nodes added."""
    existing = next((child for child in into.children if child.slug == incoming.slug), None)
    if existing is None:
        into.children.append(incoming.model_copy(deep=True))
        return _size(incoming)
    return sum(_merge(existing, child) for child in incoming.children)


def _size(tree: Category) -> int:
    return 1 + sum(_size(child) for child in tree.children)

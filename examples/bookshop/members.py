"""Membership tools: registering customers, finding them and keeping their preferences.

Docstrings here use the Sphinx style (``:param x:``), and annotations are postponed
(``from __future__ import annotations``), so the generator has to resolve them from strings.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Optional, Union
from uuid import UUID

from pydantic import AnyUrl, EmailStr, Field

from examples.bookshop import store
from examples.bookshop.models import Member, MembershipTier, ReadingPreferences
from mcp_codegen.decorators import tool


@tool(idempotent=True, destructive=False, open_world=False)
def register_member(
    name: Annotated[str, Field(min_length=1, max_length=80)],
    email: EmailStr,
    joined_on: date,
    tier: MembershipTier = "reader",
    website: AnyUrl | None = None,
) -> Member:
    """Register a customer as a member of the shop.

    The member id is derived from the email address, so registering an address that is
    already a member returns the existing membership unchanged.

    :param name: Full name, as it should appear on parcels.
    :param email: Contact address; also the member's login.
    :param joined_on: Day the membership starts.
    :param tier: Membership level; collectors and patrons get longer reservation holds.
    :param website: The member's blog or reading list, if they want it shown on reviews.
    :returns: The membership record.
    """
    member_id = store.member_id_for(email)
    if member_id not in store.MEMBERS:
        store.MEMBERS[member_id] = Member(
            member_id=member_id,
            name=name,
            email=email,
            tier=tier,
            joined_on=joined_on,
            website=website,
        )
    return store.MEMBERS[member_id]


@tool(read_only=True)
def find_member(key: Union[UUID, EmailStr]) -> Optional[Member]:  # noqa: UP007, UP045
    """Find a member by member id or by email address.

    :param key: A member id, or the email address the member registered with.
    :returns: The member, or null when nobody matches.
    """
    member_id = key if isinstance(key, UUID) else store.member_id_for(key)
    return store.MEMBERS.get(member_id)


@tool(idempotent=True, destructive=False)
def update_preferences(member_id: UUID, preferences: ReadingPreferences) -> ReadingPreferences:
    """Update what a member wants to hear about.

    Keys left out of ``preferences`` keep their current value.

    :param member_id: The member to update.
    :param preferences: The preferences to change.
    :returns: The member's preferences after the update.
    :raises ValueError: There is no member with this id.
    """
    store.get_member(member_id)
    current = store.PREFERENCES.get(member_id, ReadingPreferences(newsletter=False))
    store.PREFERENCES[member_id] = {**current, **preferences}
    return store.PREFERENCES[member_id]


@tool(read_only=True, box_field="total")
def count_members(tier: MembershipTier | None = None) -> int:
    """Count the shop's members.

    :param tier: Only count members of this tier.
    :returns: The number of members.
    """
    return sum(1 for member in store.MEMBERS.values() if tier is None or member.tier == tier)

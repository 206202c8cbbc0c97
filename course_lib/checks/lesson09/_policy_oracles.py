"""What the checks of lesson 09 share: the notebook's name, and the two policies as the contracts
state them (the oracles of 09.1 and 09.2, and what 09.6's scenarios expect each request to
offer)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from course_lib.capstone.policies import CATEGORIES, KEYWORDS, ORDER_ID, PERMISSIONS, ROLES

NOTEBOOK = "09_capstone"


def keyword_found(keyword: str, question: str) -> bool:
    """An ASCII keyword as a whole word, ignoring case; any other keyword anywhere."""
    if keyword.isascii():
        pattern = rf"(?<![A-Za-z0-9]){re.escape(keyword)}(?![A-Za-z0-9])"
        return re.search(pattern, question, flags=re.IGNORECASE) is not None
    return keyword in question


def expected_route(question: str) -> list[str]:
    """09.1's oracle: the categories whose keywords the question holds, in CATEGORIES order
    (an order number picks "orders"), or every category when none matched."""
    found = {c for c in CATEGORIES if any(keyword_found(k, question) for k in KEYWORDS[c])}
    if ORDER_ID.search(question):
        found.add("orders")
    return [c for c in CATEGORIES if c in found] or list(CATEGORIES)


def expected_may_use(role: str, tags: Iterable[str]) -> bool:
    """09.2's oracle: the tool needs at least one permission, and the role holds all it needs."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    needed = PERMISSIONS & set(tags)
    return bool(needed) and needed <= ROLES[role]

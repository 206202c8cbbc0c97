"""The Responses API's memory: replies kept for ``previous_response_id``, bounded, in memory.

The real API stores each response (unless ``store=false``) so the next request can say
``previous_response_id`` instead of sending the conversation again. The local model keeps the
last ``limit`` stored responses of one endpoint (one client, or one server), forgetting the
oldest first; an id it never stored, or has forgotten, gets the real API's 400.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from course_lib.local_model.protocol import ProtocolError

MESSAGES = {
    "unknown_previous": (
        "Previous response with id '{id}' not found. The local model keeps the last {limit} "
        "stored responses of this client (or server), and none sent with store=false."
    ),
    "unknown_response": "Response with id '{id}' not found.",
}


@dataclass(frozen=True)
class Stored:
    """A stored response and the whole conversation (input items, then its output) behind it."""

    items: tuple[dict[str, Any], ...]
    response: dict[str, Any]


class ResponseStore:
    """A bounded, thread-safe map from response id to :class:`Stored`."""

    def __init__(self, limit: int = 1000) -> None:
        self.limit = limit
        self._kept: OrderedDict[str, Stored] = OrderedDict()
        self._lock = threading.Lock()

    def keep(self, items: list[dict[str, Any]], response: dict[str, Any]) -> None:
        """Remember ``response`` (if its ``store`` is true) after the conversation ``items``."""
        if not response.get("store", True) or self.limit <= 0:
            return
        stored = Stored((*items, *response["output"]), response)
        with self._lock:
            self._kept[response["id"]] = stored
            while len(self._kept) > self.limit:
                self._kept.popitem(last=False)

    def conversation(self, response_id: str) -> list[dict[str, Any]]:
        """The items a ``previous_response_id`` stands for, or the real API's 400."""
        with self._lock:
            stored = self._kept.get(response_id)
        if stored is None:
            raise ProtocolError(
                MESSAGES["unknown_previous"].format(id=response_id[:100], limit=self.limit),
                param="previous_response_id",
                code="previous_response_not_found",
            )
        return list(stored.items)

    def retrieve(self, response_id: str) -> dict[str, Any]:
        """``GET /v1/responses/{id}``: the stored response, or a 404."""
        with self._lock:
            stored = self._kept.get(response_id)
        if stored is None:
            raise ProtocolError(
                MESSAGES["unknown_response"].format(id=response_id[:100]), status=404
            )
        return stored.response

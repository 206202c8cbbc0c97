"""Message Threads (the ``thread`` field of the beta Messages API), which the local model declines.

With ``thread: {"type": "create"}`` the real API keeps a conversation so that later requests
(``{"type": "continue", "previous_message_id": ...}``) send only their new messages; the
``anthropic`` SDK's tool runner (``client.beta.messages.tool_runner``) asks for one by default.
The local model keeps no conversations between Anthropic requests, so it answers a request
with ``thread`` as the real API answers one it cannot thread: a 400 whose
``error.details.error_code`` is ``thread_unsupported_request``. The SDK's tool runner then sends
the whole conversation without ``thread`` and carries on; code that asked for a thread itself
gets the error, which says what to do.
"""

from __future__ import annotations

from typing import Any

from course_lib.local_model.protocol import ProtocolError

MESSAGES = {
    "unsupported": (
        "thread: the local model does not keep conversations between requests (message "
        "threads). Send the whole conversation in 'messages', without 'thread'."
    ),
}


class ThreadUnsupported(ProtocolError):
    """The 400 with the ``details`` the SDK reads to stop threading."""

    def __init__(self) -> None:
        super().__init__(MESSAGES["unsupported"], param="thread")
        self.details = {"error_code": "thread_unsupported_request", "unsupported": []}


def refuse_threads(body: dict[str, Any]) -> None:
    """Any ``thread`` other than ``null``/``false`` is declined (see the module docstring)."""
    if body.get("thread") not in (None, False):
        raise ThreadUnsupported()

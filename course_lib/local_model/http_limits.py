"""How much a client may send, and for how long, before ``serve-model`` answers it with an error.

One frozen value shared by the connection layer (``http_protocol.py``: header size and the timers
before a request's head is complete) and the application (``http_app.py``: body size, body time,
worker threads). ``serve-model --max-body-mb / --header-timeout / --body-timeout / --idle-timeout``
set the common ones; tests shrink the timeouts so a stalled connection is answered in a moment.
"""

from __future__ import annotations

from dataclasses import dataclass

MEGABYTE = 1024 * 1024

MESSAGES = {
    "seconds": "ServerLimits.{name} must be a positive number of seconds, not {value!r}.",
    "count": "ServerLimits.{name} must be at least 1, not {value!r}.",
    "size": "ServerLimits.{name} must be a number of bytes (0 or more), not {value!r}.",
}


@dataclass(frozen=True)
class ServerLimits:
    """Limits of one server; every field has a default a learner never needs to change.

    - ``max_body_bytes``: a request body above this is refused with 413. Chat requests are a few
      KB; 4 MB leaves room for long conversations while keeping the model's work bounded.
    - ``max_discard_bytes``: an over-large body up to this size is read and thrown away before
      the 413, so a client that sends its whole body before reading (most SDKs) sees the 413
      instead of a reset connection; a larger declared body gets the 413 at once, then a close.
    - ``max_header_bytes``: request line plus headers; more gets 431.
    - ``header_timeout``: seconds from a request's first byte to the end of its headers
      (a client dripping headers gets 408, then a close).
    - ``body_timeout``: seconds to send the whole body once the headers are in (408 and a close).
    - ``idle_timeout``: seconds a connection may wait for its next request (closed silently,
      as a keep-alive connection is).
    - ``write_timeout``: seconds a client may stop reading our reply before we drop it.
    - ``workers``: threads running the (CPU-bound) model, so a slow request does not block
      the event loop that accepts and reads every other connection.
    - ``inline_body_bytes``: a request body up to this size, to the built-in policy, is answered
      on the event loop itself: its work is bounded (under 10 ms in the worst requests of
      16 KB we could build, well under a millisecond for a usual one) and handing it to a
      worker thread and back costs more than that work (about 0.3 ms on a 2-core machine).
      Bigger bodies, and every request to another policy (whose time nobody knows), go to the
      workers. 0: always them.
    """

    max_body_bytes: int = 4 * MEGABYTE
    max_discard_bytes: int = 64 * MEGABYTE
    max_header_bytes: int = 16 * 1024
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    idle_timeout: float = 30.0
    write_timeout: float = 30.0
    workers: int = 8
    inline_body_bytes: int = 16 * 1024

    def __post_init__(self) -> None:
        for name in ("header_timeout", "body_timeout", "idle_timeout", "write_timeout"):
            if not getattr(self, name) > 0:
                raise ValueError(MESSAGES["seconds"].format(name=name, value=getattr(self, name)))
        for name in ("max_body_bytes", "max_header_bytes", "workers"):
            if not getattr(self, name) >= 1:
                raise ValueError(MESSAGES["count"].format(name=name, value=getattr(self, name)))
        if not self.inline_body_bytes >= 0:
            message = MESSAGES["size"].format(
                name="inline_body_bytes", value=self.inline_body_bytes
            )
            raise ValueError(message)

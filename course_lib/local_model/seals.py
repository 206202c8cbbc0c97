"""Sealed values: what the reasoning model hands out and must get back exactly as it was.

A reasoning model's hidden thoughts travel through the client as opaque values: the
``signature`` of an Anthropic ``thinking`` block, the ``data`` of a ``redacted_thinking``
block, the ``encrypted_content`` of a Responses ``reasoning`` item. The real APIs refuse one
that was altered or made up. The local model does the same with a **seal**: the payload
encrypted and authenticated under a key only this process knows.

* :func:`seal` is deterministic (a synthetic IV: the IV is the payload's own MAC, as in
  AES-SIV; the keystream is SHAKE-256 of a secret key and that IV), so the same request gets
  byte-identical replies within a process.
* :func:`unseal` gives the payload back only for a token this process sealed, for the same
  purpose; any change to a token (one character) makes it fail.
* :func:`tag` marks the ids of a reasoning model's items, so a ``function_call`` item's id
  alone says which ``reasoning`` item came before it (no state kept).

The key is 32 random bytes drawn once per process (``secrets.token_bytes``), never derived from
anything a learner can see: code in a notebook cannot compute a valid signature, and when a
grader runs the model in its own process, a submission's kernel cannot read that key at all.
The price: a signature is valid only in the process (or the ``serve-model`` server) that made
it, and the sealed bytes differ from one process to the next (the text they hold does not), so
a notebook must never print them. HMAC-SHA256 and SHAKE-256 (``hmac``, ``hashlib``) do all of
it: no dependency, one C call each (see ``benchmarks/bench_local_model.py``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from typing import Any

KEY = secrets.token_bytes(32)
IV_BYTES = 16


def _derived(purpose: str) -> bytes:
    return hmac.digest(KEY, purpose.encode(), "sha256")


_MAC_KEY = _derived("mac")
_STREAM_KEY = _derived("stream")
_TAG_KEY = _derived("tag")


def tag(*parts: str, length: int = 24) -> str:
    """``length`` hex characters that only this process can compute for ``parts``."""
    text = "\x1f".join(parts).encode()
    return hmac.digest(_TAG_KEY, text, "sha256").hex()[:length]


def seal(purpose: str, payload: dict[str, Any]) -> str:
    """``payload`` (JSON values) encrypted and authenticated for ``purpose``, as base64."""
    plain = json.dumps(payload, ensure_ascii=False, sort_keys=True).encode()
    iv = _mac(purpose, plain)
    return base64.b64encode(iv + _xor(plain, _keystream(iv, len(plain)))).decode()


def unseal(purpose: str, token: Any) -> dict[str, Any] | None:
    """The payload of a token :func:`seal` made for ``purpose``; ``None`` for anything else."""
    if not isinstance(token, str):
        return None
    try:
        raw = base64.b64decode(token.encode("ascii"), validate=True)
    except (UnicodeEncodeError, binascii.Error, ValueError):
        return None
    if base64.b64encode(raw).decode() != token:  # another spelling of the same bytes is a change
        return None
    iv, cipher = raw[:IV_BYTES], raw[IV_BYTES:]
    plain = _xor(cipher, _keystream(iv, len(cipher)))
    if len(iv) != IV_BYTES or not hmac.compare_digest(iv, _mac(purpose, plain)):
        return None
    payload = json.loads(plain)  # it was sealed here, so it is JSON
    return payload if isinstance(payload, dict) else None


def _mac(purpose: str, plain: bytes) -> bytes:
    message = purpose.encode() + b"\x00" + plain
    return hmac.digest(_MAC_KEY, message, "sha256")[:IV_BYTES]


def _keystream(iv: bytes, size: int) -> bytes:
    """``size`` bytes from SHAKE-256 (an extendable-output hash) keyed by a secret prefix."""
    return hashlib.shake_256(_STREAM_KEY + iv).digest(size)


def _xor(data: bytes, stream: bytes) -> bytes:
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(data), "big")

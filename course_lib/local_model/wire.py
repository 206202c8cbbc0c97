"""What every reply shares on the wire: deterministic ids, approximate token counts, SSE framing.

Determinism: ids and timestamps come from an :class:`IdSource` seeded per client (or per
server), so the same conversation run twice prints the same ids, and notebooks stay stable.

Token counts are **approximate** (there is no tokenizer here) but deterministic: one token per
4 ASCII characters (rounded up) plus one per non-ASCII character. Real providers count
differently; only the shape and the arithmetic (``total = input + output``) match.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import string
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

EPOCH = 1_767_225_600  # 2026-01-01T00:00:00Z: timestamps count up from here, one per reply
ALPHABET = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
PIECE = re.compile(r"\s*[\u3400-\u9fff\uf900-\ufaff]{1,2}|\s*[^\s\u3400-\u9fff\uf900-\ufaff]+|\s+")
# How each API spells its ids: (prefix, alphabet, length of the random part).
ID_STYLES = {
    "chatcmpl": ("chatcmpl-", ALPHABET, 29),
    "call": ("call_", ALPHABET, 24),
    "resp": ("resp_", HEX, 48),
    "msg": ("msg_", HEX, 48),
    "fc": ("fc_", HEX, 48),
    "anthropic_msg": ("msg_01", ALPHABET, 22),
    "toolu": ("toolu_01", ALPHABET, 22),
}


class IdSource:
    """Deterministic ids and timestamps under a seed; thread-safe."""

    def __init__(self, seed: int = 0) -> None:
        self._random = random.Random(seed)
        self._replies = 0
        self._lock = threading.Lock()

    def reply(self, calls: int) -> tuple[str, int, list[str]]:
        """Reserve ids for one Chat Completions reply: (completion id, created, call ids)."""
        completion_id, created, [call_ids] = self.reserve("chatcmpl", [("call", calls)])
        return completion_id, created, call_ids

    def reserve(self, kind: str, groups: list[tuple[str, int]]) -> tuple[str, int, list[list[str]]]:
        """One reply's id of style ``kind``, its timestamp, and ``count`` ids per group style."""
        with self._lock:
            self._replies += 1
            main = self._id(kind)
            return main, EPOCH + self._replies, [[self._id(k) for _ in range(n)] for k, n in groups]

    def _id(self, kind: str) -> str:
        prefix, alphabet, length = ID_STYLES[kind]
        return prefix + _DRAW(self._random, alphabet, length)


def request_id(*parts: bytes | str) -> str:
    """An Anthropic-style request id (``req_011C`` and 20 letters or digits) for an error body,
    drawn from the request itself, so the same request gets the same id in every run and the
    reply ids of the requests that follow stay as they were."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8", "replace") if isinstance(part, str) else part)
        digest.update(b"\0")
    number = int.from_bytes(digest.digest(), "big")
    letters = []
    for _ in range(20):
        number, index = divmod(number, len(ALPHABET))
        letters.append(ALPHABET[index])
    return "req_011C" + "".join(letters)


def draw_by_choice(generator: random.Random, alphabet: str, length: int) -> str:
    """``length`` characters of ``alphabet``, one ``random.choice`` each: the definition."""
    return "".join(generator.choice(alphabet) for _ in range(length))


def draw_inline(generator: random.Random, alphabet: str, length: int) -> str:
    """The same characters as :func:`draw_by_choice`, about three times faster.

    ``choice`` calls ``_randbelow(len(alphabet))``, which draws ``getrandbits(k)`` (``k`` the
    size's bit length) until the value is below the size; doing that here, with the method
    looked up once, skips two Python calls per character and draws the very same bits.
    """
    size = len(alphabet)
    bits = size.bit_length()
    getrandbits = generator.getrandbits
    out = []
    for _ in range(length):
        value = getrandbits(bits)
        while value >= size:
            value = getrandbits(bits)
        out.append(alphabet[value])
    return "".join(out)


REFUSED = 0xFF  # a byte no ASCII alphabet holds: a drawn value ``choice`` would draw again
_TABLES: dict[str, bytes] = {}


def draw_words(generator: random.Random, alphabet: str, length: int) -> str:
    """The same characters as :func:`draw_by_choice`, drawn many at a time (ASCII alphabets of
    fewer than 256 characters, so a value fits in the top byte; others go to
    :func:`draw_inline`).

    ``getrandbits(k)`` for ``k <= 32`` is the top ``k`` bits of one 32-bit output of the
    Mersenne Twister, and ``getrandbits(32 * n)`` is ``n`` such outputs in a row (the first
    lowest). So ``n`` characters come from one call: the top byte of each output, mapped by a
    table to its character, or to :data:`REFUSED` where ``choice`` would have drawn again
    (the value is not below the alphabet's size). Those are dropped and only as many outputs
    drawn again as characters are missing: never more than ``choice`` draws, so the generator
    ends where it would have ended.
    """
    table = _TABLES.get(alphabet) or _table(alphabet)
    if table is None:
        return draw_inline(generator, alphabet, length)
    drawn = b""
    while len(drawn) < length:
        missing = length - len(drawn)
        words = generator.getrandbits(32 * missing).to_bytes(4 * missing, "little")
        drawn += words[3::4].translate(table).replace(bytes([REFUSED]), b"")
    return drawn.decode("ascii")


def _table(alphabet: str) -> bytes | None:
    """Top byte of a 32-bit output -> the character ``choice`` picks with it, or REFUSED."""
    size = len(alphabet)
    if not (0 < size < 256 and alphabet.isascii()):
        return None
    values = [top >> (8 - size.bit_length()) for top in range(256)]
    table = bytes(ord(alphabet[v]) if v < size else REFUSED for v in values)
    _TABLES[alphabet] = table
    return table


def _matches_choice(draw: Callable[[random.Random, str, int], str]) -> bool:
    """Whether ``draw`` gives what this Python's ``random.choice`` gives, and leaves the
    generator where it leaves it (true for CPython 3.10 to 3.13): otherwise ids are drawn by
    ``choice`` itself."""
    for alphabet in {style[1] for style in ID_STYLES.values()}:
        fast, reference = random.Random(12345), random.Random(12345)
        for length in (1, 7, 48, 200):
            if draw(fast, alphabet, length) != draw_by_choice(reference, alphabet, length):
                return False
        if fast.random() != reference.random():
            return False
    return True


_DRAW = next((draw for draw in (draw_words, draw_inline) if _matches_choice(draw)), draw_by_choice)


def _make_encoder() -> Callable[[Any], str] | None:
    """The C encoder behind ``json.dumps(value, ensure_ascii=False)``, built once.

    ``json.dumps`` with any argument other than its defaults builds a ``JSONEncoder`` and a C
    encoder for every call: for the small events of a stream that costs more than the encoding
    itself. This one is the same encoder with the same settings (separators ``", "`` and
    ``": "``, ``allow_nan``, the same ``default``), so its text is the same, byte for byte;
    it skips only the check for circular containers, which no reply has. ``None`` when this
    Python has no C encoder (then :func:`to_json` is ``json.dumps`` itself)."""
    if json.encoder.c_make_encoder is None:
        return None
    encoder = json.encoder.c_make_encoder(
        None,  # no circular check
        json.JSONEncoder().default,  # the same TypeError for what JSON cannot hold
        json.encoder.encode_basestring,  # ensure_ascii=False
        None,  # no indent
        ": ",
        ", ",
        False,  # sort_keys
        False,  # skipkeys
        True,  # allow_nan
    )
    return lambda value: "".join(encoder(value, 0))


_ENCODE = _make_encoder()


def to_json(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)``, the same text, several times faster for the
    small values of a stream (see :func:`_make_encoder`)."""
    if _ENCODE is None:
        return json.dumps(value, ensure_ascii=False)
    return _ENCODE(value)


def count_tokens(text: str) -> int:
    """Approximate tokens: ceil(ASCII chars / 4) + one per other character."""
    ascii_chars = len(text.encode("ascii", "ignore"))
    return -(-ascii_chars // 4) + (len(text) - ascii_chars)


def json_tokens(value: Any) -> int:
    """Approximate tokens of a value's JSON text."""
    return count_tokens(to_json(value))


def text_pieces(text: str) -> list[str]:
    """Split text into small streaming pieces: a word (with its leading space) or two CJK chars."""
    pieces = PIECE.findall(text)
    assert "".join(pieces) == text, "text pieces must join back to the text"
    return pieces


def argument_pieces(arguments: str, size: int = 8) -> list[str]:
    """Arguments in fragments of ``size`` characters, as they are streamed."""
    return [arguments[start : start + size] for start in range(0, len(arguments), size)]


def sse_data(events: Iterator[dict[str, Any]]) -> Iterator[bytes]:
    """OpenAI Chat framing: ``data: <json>`` blank line, ending with ``data: [DONE]``."""
    for event in events:
        yield b"data: " + to_json(event).encode() + b"\n\n"
    yield b"data: [DONE]\n\n"


def sse_named(events: Iterable[dict[str, Any]]) -> Iterator[bytes]:
    """Responses and Anthropic framing: ``event: <type>`` then ``data: <json>``, no [DONE]."""
    for event in events:
        head = b"event: " + event["type"].encode() + b"\ndata: "
        yield head + to_json(event).encode() + b"\n\n"


SLOT = "\x00slot\x00"  # a string no event holds: where a templated event's value goes


def sse_named_run(make: Callable[[str], dict[str, Any]], values: Iterable[str]) -> Iterator[bytes]:
    """``sse_named(make(value) for value in values)``, the same bytes, several times faster.

    A stream's deltas are the same event but for one string (a word of text, a piece of JSON),
    and there are many of them: the event is encoded once, with :data:`SLOT` for that string,
    and each value's JSON string is spliced in where the slot's was. The text around it is
    what the encoder writes, so the result is byte for byte what encoding each event gives;
    each event's JSON is encoded to UTF-8 whole, as :func:`sse_named` does, so a string UTF-8
    cannot hold fails the same way. ``make`` must put its argument in exactly one place."""
    quote = json.encoder.encode_basestring  # what the encoder writes for a string
    template = make(SLOT)
    before, slot, after = to_json(template).partition(quote(SLOT))
    if not slot or slot in after:
        raise ValueError("make() must put its argument in exactly one place")
    head = b"event: " + template["type"].encode() + b"\ndata: "
    for value in values:
        yield head + (before + quote(value) + after).encode() + b"\n\n"

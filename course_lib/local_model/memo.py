"""Bounded, thread-safe memories of work the local model would otherwise redo on every request.

A tool-calling conversation sends the same tools (and, until the user speaks again, the same
question) with every request, so the model keeps what it worked out from them: the policy's
plan for a question and a set of tools, a tool's checked and normalized schema. Each memory is
keyed by an exact text form of its inputs (:func:`exact_key`), holds only immutable values or
JSON text (so nobody can change what another request will get), and forgets its oldest entries
beyond ``size``. Replies are the same with or without them; :func:`forget_everything` empties
them all (the tests compare replies made both ways, and the benchmark times both).
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

Value = TypeVar("Value")
MAX_KEY_CHARS = 16 * 1024  # inputs bigger than this are worked out afresh, not kept
MAX_KEPT_CHARS = 1024 * 1024  # a memory forgets its oldest once its keys hold more than this
_BYPASSED = threading.Event()  # set: every memory works its values out afresh
_MEMORIES: weakref.WeakSet[Memo[Any]] = weakref.WeakSet()  # a policy's memo goes with it


def exact_key(*parts: Any) -> str | None:
    """A text that differs whenever the parts differ in any way a reply could notice, or None
    for parts too big to keep.

    ``repr`` of JSON values (dicts, lists, strings, numbers, booleans, None) keeps key order and
    tells ``1``, ``1.0`` and ``True`` (and a list from a tuple) apart, as the replies do.
    """
    key = repr(parts)
    return key if len(key) <= MAX_KEY_CHARS else None


class Memo(Generic[Value]):
    """At most ``size`` values by key, and keys of at most :data:`MAX_KEPT_CHARS` characters
    in all (values are about as big as their keys, or smaller); the least recently used is
    forgotten first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: OrderedDict[str, Value] = OrderedDict()
        self._kept_chars = 0
        self._lock = threading.Lock()
        self.hits = 0  # how often a kept value was given again
        self.bypassed = False
        _MEMORIES.add(self)

    def get_or_make(self, key: str | None, make: Callable[[], Value]) -> Value:
        """The value kept for ``key``, or ``make()`` (kept unless ``key`` is None). ``make``
        runs outside the lock: two threads may both make a value, and both get an equal one."""
        if key is None or self.bypassed or _BYPASSED.is_set():
            return make()
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                self.hits += 1
                return self._values[key]
        value = make()
        with self._lock:
            if key not in self._values:
                self._kept_chars += len(key)
            self._values[key] = value
            while len(self._values) > self.size or self._kept_chars > MAX_KEPT_CHARS:
                forgotten, _ = self._values.popitem(last=False)
                self._kept_chars -= len(forgotten)
        return value

    def __reduce__(self) -> tuple[type, tuple[int]]:
        """A copy (``copy.deepcopy``, ``pickle``) of a policy gets an empty memory of its own."""
        return (type(self), (self.size,))

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
            self._kept_chars = 0

    def __len__(self) -> int:
        return len(self._values)


def forget_everything() -> None:
    """Empty every memory (the next requests work everything out afresh)."""
    for memory in list(_MEMORIES):
        memory.clear()


@contextlib.contextmanager
def bypassed(*memories: Memo[Any]) -> Iterator[None]:
    """Within the block, the given memories (all of them if none is given) keep and give
    nothing: the plain code's replies (the benchmark also times a new question this way)."""
    if not memories:
        _BYPASSED.set()
    for memory in memories:
        memory.bypassed = True
    try:
        yield
    finally:
        if not memories:
            _BYPASSED.clear()
        for memory in memories:
            memory.bypassed = False


def total_hits() -> int:
    """How many kept values every memory has given again, all together."""
    return sum(memory.hits for memory in list(_MEMORIES))

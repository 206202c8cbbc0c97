"""``Catalog``: a check module's table of hints or texts, said in the learner's language.

One type for every learner-facing table of a check module (its ``HINTS``, its ``TEXTS``),
written as an empty catalog joined with a dict literal (so the formatter keeps the dict flat)::

    HINTS = Catalog() | {"returns": "It returned None: `return` the text instead of printing it."}
    TEXTS = Catalog() | {"summary": "{count} cases"}

    HINTS.hint("returns")           # a HintText: the failure carries its key
    TEXTS.text("summary", count=3)  # a str, translated

A catalog may fall back on others (``also=``: a lesson's shared hints); ``hint`` and ``text``
look a key up in the catalog, then in each of those, and say it from the table that holds it, so
its ``msgctxt`` stays that table's (``course_lib.i18n.messages``: the translation machinery reads
``NAME = Catalog(...) | {...}`` from the source like a dict literal). ``exercise(..., hints=HINTS)``
calls ``require`` at import: a rule whose hint no table holds is an error before any learner
runs the check.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from course_lib.i18n import translate


class Catalog(dict[str, str]):
    """English sentences by key (a ``dict``), with the catalogs to fall back on."""

    def __init__(self, entries: Mapping[str, str] | None = None, *, also: Iterable[Catalog] = ()):
        super().__init__(entries or {})
        self.also = tuple(also)

    def __or__(self, entries: Mapping[str, str]) -> Catalog:  # type: ignore[override]
        return Catalog({**self, **entries}, also=self.also)

    def holder(self, key: str) -> dict[str, str]:
        """The table that holds ``key``: this one, else the first of ``also`` that does."""
        if dict.__contains__(self, key):
            return self
        for other in self.also:
            if other.knows(key):
                return other.holder(key)
        raise KeyError(f"no hint or text {key!r} in this catalog or the ones it falls back on")

    def knows(self, key: str) -> bool:
        return dict.__contains__(self, key) or any(other.knows(key) for other in self.also)

    def hint(self, key: str, **fields: object) -> str:
        """The hint ``key``, placeholders filled, in the learner's language."""
        # compare reaches the reference: a lesson importing the checks must not load it
        from course_lib.checks.compare import HintText

        return HintText.of(self.holder(key), key, **fields)

    def english(self, key: str) -> str:
        """The English of ``key`` as written, in every language: for what stays language-free
        (a record the grader keeps), never for what a learner reads."""
        return self.holder(key)[key]

    def text(self, key: str, **fields: object) -> str:
        """The text ``key``, placeholders filled, in the learner's language."""
        return translate(self.holder(key), key, **fields)

    def require(self, keys: Iterable[str], *, owner: str) -> None:
        """Raise ``LookupError`` naming ``owner`` unless every key of ``keys`` is known."""
        missing = sorted({key for key in keys if key and not self.knows(key)})
        if missing:
            raise LookupError(f"{owner}: no hint {', '.join(map(repr, missing))} in its catalog")

"""The course in more than one language.

- ``parts``: what of a notebook cell is translatable, cut out and put back without touching code;
- ``catalog``: one gettext PO catalog per lesson and language (``translations/<lang>/``);
- ``update``: keep catalogs in step with the English; count translated, pending and stale;
- ``cli``: ``course i18n update`` and ``course i18n status``.

docs/translating.md is the translator's guide.
"""

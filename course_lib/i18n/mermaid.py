"""Which parts of a Mermaid diagram are prose a translator rewrites, and which are its syntax.

``syntax(code)`` returns the diagram with every prose part replaced by ``""``, so two diagrams
with the same structure (ids, arrows, keywords, lines) give the same string whatever their
labels say. What counts as prose follows Mermaid's own grammars (``flowchart.jison`` and
``sequenceDiagram.jison`` in mermaid-js/mermaid), so a translated label can never change how
Mermaid reads the line:

- in every diagram, a quoted label: ``A["a function"]``, ``-->|"yes"|``;
- in a flowchart, an unquoted edge label between pipes after an arrow: ``A -->|no| B``.
  Mermaid's text there may not hold ``[](){}|"``, so a label holding one stays syntax;
- in a ``sequenceDiagram``, the rest of the line after ``participant X as`` (or ``actor X as``),
  after the ``:`` of a message (``C->>M: text``) or a note (``Note over C,M: text``,
  ``Note left of C: text``), and after ``loop``, ``alt``, ``else``, ``opt``, ``par``, ``and``,
  ``critical``, ``option``, ``break`` and ``title``. Mermaid ends that text at ``#`` (a comment)
  or ``;`` (a new statement), so the prose stops there too: a translation that adds either
  changes the syntax.
"""

from __future__ import annotations

import re

QUOTED = re.compile(r'"[^"\n]*"')
EDGE_TEXT = re.compile(r"(?<=[-=.>ox])(?P<space>[ \t]*)\|[^|\[\](){}\"\n]*\|")
REST = r"(?P<prose>[^#;\n]*)"
SEQUENCE_PROSE = [
    re.compile(r"^(?P<syntax>[ \t]*(?:participant|actor)[ \t]+\S.*?[ \t]as[ \t])" + REST, re.I),
    re.compile(
        r"^(?P<syntax>[ \t]*note[ \t]+(?:over|left of|right of)[ \t]+[^:#;\n]+:)" + REST, re.I
    ),
    re.compile(
        r"^(?P<syntax>[ \t]*(?:loop|alt|else|opt|par_over|par|and|critical|option|break|title)"
        r"(?=[ \t]|$))" + REST,
        re.I,
    ),
    # A message: an actor, an arrow (every arrow holds a "-"), an actor, then ":" and its text.
    # Lines starting with the keywords whose text after ":" is a URL or JSON are not messages.
    re.compile(
        r"^(?![ \t]*(?:links?|properties|details)[ \t])"
        r"(?P<syntax>[ \t]*[^:#;\n%]*?-[^:#;\n]*:)" + REST,
        re.I,
    ),
]


def syntax(code: str) -> str:
    """``code`` with its prose replaced by ``""``: what a translation must keep as it is."""
    lines = code.splitlines()
    kind = next((line.split()[0] for line in lines if _meaningful(line)), "")
    if kind == "sequenceDiagram":
        return "\n".join(_sequence_line(line) for line in lines)
    code = QUOTED.sub('""', code)
    if kind in ("flowchart", "graph"):
        code = EDGE_TEXT.sub(r'\g<space>|""|', code)
    return code


def _meaningful(line: str) -> bool:
    """Whether a line says something to Mermaid (not blank, not a ``%%`` comment)."""
    return bool(line.strip()) and not line.lstrip().startswith("%%")


def _sequence_line(line: str) -> str:
    """One line of a sequence diagram with its prose, if it has any, replaced by ``""``."""
    for rule in SEQUENCE_PROSE:
        if match := rule.match(line):
            return match["syntax"] + '""' + line[match.end() :]
    return line

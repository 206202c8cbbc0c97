"""What a translation must keep exactly: the parts of a text that are code, not prose.

``kept(text)`` lists them as a multiset; a translation is safe when ``kept(translation)`` equals
``kept(english)`` (``problems`` says what differs). They are:

- ``{placeholders}``, as ``str.format`` reads them (``{name}``, ``{id!r}``, ``{count:>3}``);
- inline code spans (`` `greeting(name)` ``);
- link targets (``[text](target)`` and ``<https://...>``): the text of a link is prose;
- fenced code blocks: the fence line (with its language) and the code. In a ``mermaid`` block
  only the diagram's syntax counts (node ids, arrows, shapes): the quoted labels are prose. In
  any other block a ``#`` comment is prose too.

A translated edition lives one folder down (``notebooks/zh-CN/``), so a path written as
``notebooks/<lang>/...`` or ``solutions/<lang>/...`` counts as the English ``notebooks/...``.
"""

from __future__ import annotations

import re
import string
from collections import Counter

from course_lib.i18n import EDITIONS

FENCE = re.compile(
    r"^(?P<fence>```|~~~)(?P<info>[^\n]*)\n(?P<code>.*?)^(?P=fence)[ \t]*$", re.M | re.S
)
CODE_SPAN = re.compile(r"(?<!`)(?P<ticks>`+)(?!`)(?P<code>.+?)(?<!`)(?P=ticks)(?!`)", re.S)
LINK_TARGET = re.compile(r"\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
AUTOLINK = re.compile(r"<(?P<target>(?:https?|mailto):[^>\s]+)>")
MERMAID_LABEL = re.compile(r'"[^"\n]*"')
SHELL_COMMENT = re.compile(r"(?:^|(?<=\s))#.*$", re.M)
EDITION_PATH = re.compile(r"\b(notebooks|solutions)/(?:" + "|".join(EDITIONS) + r")/")


def kept(text: str) -> Counter[str]:
    """The multiset of everything in ``text`` a translation must keep as it is."""
    text = EDITION_PATH.sub(r"\1/", text)
    found: Counter[str] = Counter()
    for fence in FENCE.finditer(text):
        info, code = fence["info"].strip(), fence["code"]
        if info.split()[:1] == ["mermaid"]:
            code = MERMAID_LABEL.sub('""', code)
        else:
            code = SHELL_COMMENT.sub("", code)
        lines = [line.rstrip() for line in code.splitlines()]
        found[f"fence {info}: " + "\n".join(lines)] += 1
    prose = FENCE.sub("", text)
    for span in CODE_SPAN.finditer(prose):
        found[f"code `{span['code']}`"] += 1
    prose = CODE_SPAN.sub("", prose)
    for link in [*LINK_TARGET.finditer(prose), *AUTOLINK.finditer(prose)]:
        found[f"link {link['target']}"] += 1
    found.update(f"placeholder {field}" for field in placeholders(prose))
    return found


def placeholders(text: str) -> list[str]:
    """Every ``str.format`` field of ``text`` as written (``{id!r}``); none if it is not a
    format string (markdown with a lone brace)."""
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        return [match for match in re.findall(r"\{[A-Za-z_]\w*(?:![rsa])?(?::[^{}]*)?\}", text)]
    found = []
    for _, name, spec, conversion in fields:
        if name is None:
            continue
        found.append(
            "{"
            + name
            + (f"!{conversion}" if conversion else "")
            + (f":{spec}" if spec else "")
            + "}"
        )
    return found


def problems(english: str, translation: str) -> list[str]:
    """One line per thing the translation lost or added (empty when it is safe)."""
    want, have = kept(english), kept(translation)
    lost = [f"lost {item}" for item in sorted((want - have).elements())]
    added = [f"added {item}" for item in sorted((have - want).elements())]
    return lost + added

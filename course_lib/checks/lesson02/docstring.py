"""Exercise 02.3, ``parse_google_docstring(doc) -> tuple[str, dict[str, str]]``.

Docstrings travel as plain text, in both forms Python stores them: indented after the first line
(up to Python 3.12) and already dedented (3.13 and later, which dedent at compile time).
Results are shown in Python spelling, a tuple as a tuple (the reply's ``.type``).
Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.

One module because it is one exercise's check: its contract (``RULES``, the notebook's bullets
word for word) and hint table are about half its lines, and the hidden docstrings, their
hints and the check read each other's cases; split, every part would import every other.
"""

from __future__ import annotations

import inspect
import random
from typing import Any

from course_lib.checks.cases import Case
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import (
    Hint,
    Plain,
    fail,
    first_difference,
    hidden_rng,
    pick_hint,
    where_they_differ,
)
from course_lib.checks.core import Rule, exercise
from course_lib.checks.function_cases import py, python_text, run_json_cases
from course_lib.checks.learner import Learner, Reply

WEATHER_DOC = """Get the weather forecast for a city.

    Args:
        city: The city name, for example 北京 or London.
        unit (str): Temperature unit, "c" or "f".
        days (int, optional): How many days to forecast,
            counting today.

    Returns:
        A short forecast: one line per day.

    Raises:
        ValueError: If the city is unknown.
    """
CHINESE_DOC = """
    查询城市天气，
    返回今天的温度。

    这一段是补充说明，不属于摘要。

    Args:
        城市: 城市名称，例如 北京、上海。
        天数 (int): 预报天数：1 到 7。
    """
TRIP_DOC = """Plan a trip.

    Args:
        origin: Where the trip starts, for example 上海.

        destination (str): Where it ends.
    """
ARGUMENTS_DOC = """Book a table.

    Arguments:
        time: When, as HH:MM on a 24-hour clock.
        people (int): How many guests.
    """
# A summary line that ends with a colon, a description with parentheses, a deeper line that
# looks like an entry, and Args ended by a header the summary rule does not list.
CONVERT_DOC = """Convert a temperature to one of two units:
    Celsius or Fahrenheit.

    Args:
        value (float): The temperature (in degrees) to convert.
        unit (str): The unit to convert to, "c" or "f".
            Default: "c", as most of the world uses.

    Warning:
        Rounds to one decimal place.
    """
# Summary lines with trailing spaces and one indented deeper than the rest: each is stripped.
SPACED_DOC = (
    "Look up a word   \n      in the dictionary.  \n\n    Args:\n        word: The word to look "
    "up.\n    "
)
WEATHER = (
    "Get the weather forecast for a city.",
    {
        "city": "The city name, for example 北京 or London.",
        "unit": 'Temperature unit, "c" or "f".',
        "days": "How many days to forecast, counting today.",
    },
)
# (docstring as Python stores it, summary, descriptions)
VISIBLE = (
    (WEATHER_DOC, *WEATHER),
    (inspect.cleandoc(WEATHER_DOC) + "\n", *WEATHER),  # as Python 3.13 stores it
    (CHINESE_DOC, "查询城市天气， 返回今天的温度。",
     {"城市": "城市名称，例如 北京、上海。", "天数": "预报天数：1 到 7。"}),
    ("Say hello.", "Say hello.", {}),
    ("Add two numbers.\n    Args:\n        a: The first number.\n        b: The second one.",
     "Add two numbers.", {"a": "The first number.", "b": "The second one."}),
    (ARGUMENTS_DOC, "Book a table.",
     {"time": "When, as HH:MM on a 24-hour clock.", "people": "How many guests."}),
    (None, "", {}),
    ("   ", "", {}),
    (TRIP_DOC, "Plan a trip.",
     {"origin": "Where the trip starts, for example 上海.", "destination": "Where it ends."}),
    (CONVERT_DOC, "Convert a temperature to one of two units: Celsius or Fahrenheit.",
     {"value": "The temperature (in degrees) to convert.",
      "unit": 'The unit to convert to, "c" or "f". Default: "c", as most of the world uses.'}),
    (SPACED_DOC, "Look up a word in the dictionary.", {"word": "The word to look up."}),
)  # fmt: skip


def case_of(doc: str | None) -> str:
    return f"parse_google_docstring({py(doc)})"


RULES = (
    Rule("tuple", "it returns a **tuple** `(summary, descriptions)`, not a list",
         case=case_of(WEATHER_DOC), hint="tuple"),
    Rule("cleandoc", "the text is cleaned with `inspect.cleandoc` first (up to Python 3.12 the "
         "headers are indented)", case=case_of(WEATHER_DOC), hint="indented_header"),
    Rule("type_dropped", "in `name (type): text` the `(type)` part is dropped",
         case=case_of(WEATHER_DOC), hint="drop_type"),
    Rule("continuation", "a line indented deeper than the entries continues the previous "
         "description, joined with one space", case=case_of(WEATHER_DOC), hint="continuation"),
    Rule("section_end", "the section ends at the next line that is not indented (`Returns:`, "
         "`Raises:`)", case=case_of(WEATHER_DOC), hint="section_end"),
    Rule("summary_joined", "**summary**: the lines before the first blank line, each stripped, "
         "joined with one space", case=case_of(CHINESE_DOC), hint="summary_lines"),
    Rule("summary_header", "a section header (`Args:`, `Arguments:`, `Returns:`, `Raises:`, "
         "`Yields:`, `Examples:`, `Example:`, `Note:`) ends the summary too, even without a blank "
         "line before it", case=case_of(VISIBLE[4][0]), hint="summary_header"),
    Rule("arguments", "**descriptions**, name to description, come from the section that starts at "
         "`Args:` or at `Arguments:`", case=case_of(ARGUMENTS_DOC), hint="arguments_header"),
    Rule("first_colon", "an entry splits at its **first** colon only: `time: When, as HH:MM.` "
         "gives `When, as HH:MM.`", case=case_of(ARGUMENTS_DOC), hint="first_colon"),
    Rule("empty", '`None` or a blank text gives `("", {})`', case=case_of(None), hint="none"),
    Rule("blank_inside", "a blank line inside the section is skipped: it does not end the section",
         case=case_of(TRIP_DOC), hint="blank_inside"),
)  # fmt: skip

TEXTS = Catalog() | {
    "summary": "{visible} visible and {hidden} hidden docstrings",
    "a_tuple": "a tuple (summary, descriptions)",
    "a_kind": "a {kind}",
}

HINTS = Catalog() | {
    "shape": "Return a tuple of two: (summary, {{name: description}}).",
    "tuple": "Return a tuple, as the signature says: `return summary, descriptions`.",
    "none": 'doc may be None (a function without a docstring), or blank: return ("", {{}}).',
    "summary_header": (
        "The summary stops at the first blank line or the first section header (such as "
        "Args:), whichever comes first."
    ),
    "drop_type": "Drop the `(type)` part: in `days (int): text` the name is `days`.",
    "section_end": (
        "The Args section ends at the first line that is not indented (such as Returns: or "
        "Raises:): the entries and lines after it are not parameters."
    ),
    "arguments_header": (
        "This docstring's section starts with `Arguments:`, the other spelling Google style "
        "allows: accept both Args: and Arguments:."
    ),
    "indented_header": (
        "No descriptions came back, and in this docstring the section header is indented (as "
        "Python up to 3.12 stores a docstring, after its first line): clean the text with "
        "inspect.cleandoc(doc) first, then look for the line `Args:`."
    ),
    "every_entry": "Every `name: text` line of the Args section is one parameter.",
    "blank_inside": (
        "A blank line inside Args does not end it: skip blank lines, and end the section only "
        "at a line that is not indented (such as Returns:)."
    ),
    "first_line_blank": (
        "The summary came back empty, but this docstring's text starts on the line after the "
        "opening quotes, so its first line is blank: clean it with inspect.cleandoc(doc) first "
        "(which also drops leading blank lines), then read the summary."
    ),
    "first_colon": (
        "Split an entry at its first colon only: in `time: When, as HH:MM.` the description "
        "is `When, as HH:MM.`, colons and all."
    ),
    "continuation": (
        "A line indented deeper than the entries continues the previous description: join it "
        "with one space."
    ),
    "one_space": (
        "Strip each line and join lines with exactly one space (no newlines, no double spaces, "
        "and not glued together)."
    ),
    "summary_blank": (
        "The summary stops at the first blank line (or a section header such as Args:)."
    ),
    "must_not_raise": (
        "Every docstring of the check is Google style, or None or blank: parse_google_docstring "
        "returns (summary, descriptions) for each, never raises. Which line did it stop at?"
    ),
    "non_ascii_names": (
        "The parameter names that are not ASCII are missing: names may be Chinese (城市, 天数). "
        "Match a name with \\w+, as ENTRY does: \\w matches them, [A-Za-z_] does not."
    ),
    "deeper_entry": (
        "A line indented deeper than the entries continues the previous description even when "
        'it looks like `name: text` (such as `Default: "c", ...`): only a line at the entries\' '
        "own indentation starts a new entry."
    ),
    "colon_summary": (
        "A summary line may end with a colon: only a section name (Args:, Returns:, ...) alone "
        "on its line is a header, so the summary runs on to the first blank line."
    ),
    "summary_lines": (
        "The summary is every line before the first blank line (or header), each stripped, "
        "joined with one space."
    ),
}

SECTION_HEADERS = (
    "Args:", "Arguments:", "Returns:", "Raises:", "Yields:", "Examples:", "Example:", "Note:",
)  # fmt: skip


hint = HINTS.hint


# --- hidden docstrings ---------------------------------------------------------------------

WORDS_EN = ("weather", "notes", "the", "city", "today", "forecast", "search", "for", "a", "list")
WORDS_ZH = ("查询", "天气", "北京", "上海", "笔记", "今天", "城市", "搜索", "列表", "温度")
NAMES = ("city", "days", "unit", "limit", "query", "verbose", "tags", "城市", "天数", "关键词")


def text(rng: random.Random, count: int) -> str:
    if rng.random() < 0.5:
        return " ".join(rng.choice(WORDS_EN) for _ in range(count)).capitalize() + "."
    return "".join(rng.choice(WORDS_ZH) for _ in range(count)) + "。"


def random_docstring(rng: random.Random, names: list[str]) -> tuple[str, str, dict[str, str]]:
    """A Google-style docstring as Python stores it (indented, or dedented as 3.13 stores it),
    with its known summary and descriptions."""
    summary_lines = [text(rng, rng.randint(2, 6)) for _ in range(rng.randint(1, 2))]
    lines = list(summary_lines)
    if rng.random() < 0.3:
        lines += ["", text(rng, 5), text(rng, 3)]
    descriptions: dict[str, str] = {}
    if names:
        gap = [""] if rng.random() < 0.7 else []  # a header also ends the summary
        lines += [*gap, rng.choice(["Args:", "Arguments:"])]
        step = rng.choice([2, 4])
        for name in names:
            kind = rng.choice(["", " (str)", " (int, optional)", "(list[str])"])
            parts = [text(rng, rng.randint(1, 5)) for _ in range(rng.randint(1, 3))]
            if rng.random() < 0.2:
                parts[0] = "Format: " + parts[0]
            lines.append(f"{' ' * step}{name}{kind}: {parts[0]}")
            lines += [f"{' ' * (2 * step)}{part}" for part in parts[1:]]
            descriptions[name] = " ".join(parts)
    if rng.random() < 0.5:
        lines += ["", "Returns:", f"    {text(rng, 4)}"]
        if rng.random() < 0.5:
            lines.append("    error: " + text(rng, 2))
    if rng.random() < 0.3:
        lines += ["", "Raises:", f"    ValueError: {text(rng, 3)}"]
    indent = " " * rng.choice([0, 4, 8])
    body = "\n".join(f"{indent}{line}" if line else "" for line in lines[1:])
    first = lines[0] if rng.random() < 0.7 else f"\n{indent}{lines[0]}"
    return f"{first}\n{body}\n{indent}", " ".join(summary_lines), descriptions


# --- hints ---------------------------------------------------------------------------------


def _indented_header(doc: str | None) -> bool:
    return any(
        line[:1].isspace() and line.strip() in ("Args:", "Arguments:")
        for line in (doc or "").splitlines()
    )


def _args_section(lines: list[str]) -> tuple[bool, set[str]]:
    """Of the Args section (cleaned lines): whether a blank line sits between two of its indented
    lines, and the ``name`` of each line indented deeper than the entries that reads ``name:
    text`` (a continuation, though it looks like an entry)."""
    blank_inside, names = False, set()
    inside, blank_seen, entry_indent = False, False, None
    for line in lines:
        if line and not line[0].isspace():
            inside, blank_seen = line.strip() in ("Args:", "Arguments:"), False
            entry_indent = None
        elif inside and not line.strip():
            blank_seen = True
        elif inside:
            blank_inside = blank_inside or blank_seen
            indent = len(line) - len(line.lstrip())
            entry_indent = indent if entry_indent is None else entry_indent
            name, colon, _ = line.strip().partition(":")
            name = name.split("(")[0].strip()
            if indent > entry_indent and colon and name.isidentifier():
                names.add(name)
    return blank_inside, names


def _colon_cuts(summary_lines: list[str]) -> set[str]:
    """What a summary becomes when it stops at (or just after) a line ending with a colon."""
    return {
        " ".join(summary_lines[:stop])
        for index, line in enumerate(summary_lines)
        if line.endswith(":")
        for stop in (index, index + 1)
    }


def hints(doc: str | None, summary: str, expected: dict[str, str]) -> list[Hint]:
    """Likely mistakes for ``parse_google_docstring(doc)``, most specific first; each predicate
    sees the reply as JSON (a tuple arrives as a list of two)."""
    lines = inspect.cleandoc(doc or "").splitlines()
    summary_lines = [line.strip() for line in lines[: next(
        (i for i, line in enumerate(lines) if not line.strip() or line.strip() in SECTION_HEADERS),
        len(lines),
    )]]  # fmt: skip
    blank_inside, deeper = _args_section(lines)

    def missing(got: Any) -> set[str]:
        return set(expected) - set(got[1])

    def squashed(value: str) -> str:
        return "".join(value.split())

    return [
        (lambda g: doc is None or not doc.strip(), hint("none")),
        (lambda g: not isinstance(g, list) or len(g) != 2 or not isinstance(g[1], dict),
         hint("shape")),
        (lambda g: g[0] == "" and summary != "" and not doc.splitlines()[0].strip(),
         hint("first_line_blank")),
        (lambda g: g[0] != summary and g[0] in _colon_cuts(summary_lines), hint("colon_summary")),
        (lambda g: g[0] != summary and any(h in g[0] for h in SECTION_HEADERS),
         hint("summary_header")),
        (lambda g: any(":" in name for name in g[1]), hint("first_colon")),
        (lambda g: any("(" in name or ")" in name for name in g[1]), hint("drop_type")),
        (lambda g: expected and not g[1] and "Arguments:" in lines, hint("arguments_header")),
        (lambda g: missing(g) and all(not name.isascii() for name in missing(g)),
         hint("non_ascii_names")),
        (lambda g: expected and not g[1] and _indented_header(doc), hint("indented_header")),
        (lambda g: set(g[1]) - set(expected) and set(g[1]) - set(expected) <= deeper,
         hint("deeper_entry")),
        (lambda g: set(g[1]) - set(expected), hint("section_end")),
        (lambda g: set(g[1]) < set(expected) and blank_inside, hint("blank_inside")),
        (lambda g: set(g[1]) != set(expected), hint("every_entry")),
        (lambda g: any(":" in expected[n] and ":" not in g[1][n] for n in expected),
         hint("first_colon")),
        (lambda g: any(g[1][n] != expected[n] and g[1][n].startswith(expected[n])
                       for n in expected), hint("section_end")),
        (lambda g: any(expected[n] != g[1][n] and expected[n].startswith(g[1][n])
                       for n in expected), hint("continuation")),
        (lambda g: any(v != " ".join(v.split()) for v in g[1].values())
         or g[0] != " ".join(g[0].split())
         or any(squashed(g[1][n]) == squashed(expected[n])
                for n in expected if g[1][n] != expected[n])
         or (g[0] != summary and squashed(g[0]) == squashed(summary)), hint("one_space")),
        (lambda g: g[0] != summary and len(g[0]) > len(summary), hint("summary_blank")),
        (lambda g: g[0] != summary and summary.startswith(g[0]), hint("summary_lines")),
    ]  # fmt: skip


def docstring_case(doc: str | None, summary: str, expected: dict) -> Case:
    """The case of ``doc``: its expected value as shown (a tuple), ``extra`` the JSON of it."""
    raised = [
        (lambda r: doc is None or not doc.strip(), hint("none")),
        (lambda r: True, hint("must_not_raise")),
    ]
    want = [summary, expected]
    shown, hints_of_doc = python_text(want, "tuple"), hints(doc, summary, expected)
    return Case(case_of(doc), (doc,), shown, hints_of_doc, raised, extra=want)


def judge(case: Case, got: Any, reply: Reply) -> None:
    __tracebackhide__ = True
    if first_difference(case.extra, got) is not None:
        where = where_they_differ(case.extra, got)
        shown = python_text(got, reply.type)
        fail(case.label, case.expected, shown, pick_hint(got, case.hints), where=where)
    if reply.type != "tuple":
        wanted, got = TEXTS.text("a_tuple"), TEXTS.text("a_kind", kind=reply.type)
        fail(case.label, Plain(wanted), Plain(got), hint("tuple"))


@exercise("02.3", notebook="02_reflection", title="parse_google_docstring", points=2, rules=RULES)
def check_parse_google_docstring(learner: Learner) -> str:
    rng = hidden_rng("02.3")
    hidden = [random_docstring(rng, rng.sample(NAMES, rng.randint(0, 4))) for _ in range(40)]
    cases = [docstring_case(*row) for row in (*VISIBLE, *hidden)]
    run_json_cases(learner, "parse_google_docstring", cases, judge)
    return TEXTS.text("summary", visible=len(VISIBLE), hidden=len(hidden))

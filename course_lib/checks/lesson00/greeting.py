"""Exercise 00.1, ``greeting(name) -> str``: a warm-up that shows how checks behave.

Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.
"""

from __future__ import annotations

from course_lib.checks.cases import Case, run_cases
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Hint, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner

RULES = (
    Rule("returns", "it **returns** the text (printing it is not returning it)",
         case="greeting('Ada')", hint="returns"),
    Rule("exact", "the text is exactly `Hello, <name>!`: a comma, one space and one exclamation "
         "mark", case="greeting('Ada')", hint="punctuation"),
    Rule("name", "the name appears exactly as given, every character of it, capitals and all: "
         '`greeting("Ada")` returns `"Hello, Ada!"` and `greeting("张伟")` returns '
         '`"Hello, 张伟!"`', case="greeting('jo娜')", hint="capitals"),
)  # fmt: skip

HINTS = Catalog() | {
    "returns": "It returned None: `return` the text instead of printing it.",
    "not_str": "greeting must return a string (str).",
    "f_string": "The braces did not fill in: put an `f` before the quote to make an f-string.",
    "capitals": "Keep the name exactly as given: do not change its capitalisation.",
    "hello_capital": "Write the greeting word exactly as shown: Hello, with a capital H.",
    "quoted": (
        "The name came out in quotes: put it in with {{name}}, not {{name!r}}, and add no quotes "
        "of your own."
    ),
    "stripped": (
        "Keep the name exactly as given, spaces included: this name has spaces around it "
        "({name}), so do not strip it."
    ),
    "name": (
        "The text must contain the name it was given ({name}), every character of it: use the "
        "parameter, do not hard-code a name."
    ),
    "spaces": "Remove the extra spaces or newlines at the start or end.",
    "punctuation": (
        "Check the punctuation: a comma after Hello and one exclamation mark at the end."
    ),
    "one_space": "Put exactly one space between the comma and the name, no more, no less.",
}

TEXTS = Catalog() | {"summary": "{visible} visible and {hidden} hidden cases"}

VISIBLE_NAMES = ("Ada", "张伟", "Zoë")
# A hidden name with spaces around it: "every character" includes them.
SPACED_NAME = " 李娜 "
# Pieces for hidden names: Latin, accented, Chinese, and names with spaces or hyphens.
_SYLLABLES = ("an", "li", "mo", "ré", "ka", "jo", "张", "伟", "李", "娜", "王", "芳")


def expected_greeting(name: str) -> str:
    """The oracle: exactly ``Hello, <name>!``, the name unchanged."""
    return f"Hello, {name}!"


def hidden_names(count: int = 12) -> list[str]:
    """``count`` generated names, then one with spaces around it."""
    rng = hidden_rng("00.1")
    names = []
    for _ in range(count):
        parts = ["".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 3)))]
        if rng.random() < 0.3:
            parts.append(rng.choice((" ", "-")) + rng.choice(_SYLLABLES).capitalize())
        names.append("".join(parts))
    return [*names, SPACED_NAME]


def _words(text: str) -> str:
    return "".join(char for char in text if char.isalnum())


def hints(name: str) -> list[Hint]:
    """Likely mistakes for ``greeting(name)``, most specific first; each predicate sees the
    returned value as JSON."""
    expected = expected_greeting(name)
    return [
        (lambda got: got is None, HINTS.hint("returns")),
        (lambda got: not isinstance(got, str), HINTS.hint("not_str")),
        (lambda got: "{name}" in got or "Hello, name" in got, HINTS.hint("f_string")),
        (lambda got: f"'{name}'" in got or f'"{name}"' in got, HINTS.hint("quoted")),
        (
            lambda got: name != name.strip() and got == expected_greeting(name.strip()),
            HINTS.hint("stripped", name=repr(name)),
        ),
        (lambda got: name not in got and got.lower() == expected.lower(), HINTS.hint("capitals")),
        (lambda got: got.lower() == expected.lower(), HINTS.hint("hello_capital")),
        (lambda got: name not in got, HINTS.hint("name", name=repr(name))),
        (lambda got: got.strip() != got, HINTS.hint("spaces")),
        (lambda got: got.replace(" ", "") == expected.replace(" ", ""), HINTS.hint("one_space")),
        (lambda got: _words(got) == _words(expected), HINTS.hint("punctuation")),
    ]


@exercise("00.1", notebook="00_welcome", title="greeting", points=1, rules=RULES, hints=HINTS)
def check_greeting(learner: Learner) -> str:
    cases = [Case(f"greeting({name!r})", (name,), expected_greeting(name), hints(name))
             for name in (*VISIBLE_NAMES, *hidden_names())]  # fmt: skip
    count = run_cases(learner, "greeting", cases)
    return TEXTS.text("summary", visible=len(VISIBLE_NAMES), hidden=count - len(VISIBLE_NAMES))

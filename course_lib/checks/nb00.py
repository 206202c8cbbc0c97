"""Checks for notebook 00_welcome: a warm-up that exists to show how checks behave."""

from __future__ import annotations

from course_lib.checks.core import Hint, call_learner, exercise, expect_json_equal, hidden_rng

VISIBLE_NAMES = ("Ada", "张伟", "Zoë")
# Pieces for hidden names: Latin, accented, Chinese, and names with spaces or hyphens.
_SYLLABLES = ("an", "li", "mo", "ré", "ka", "jo", "张", "伟", "李", "娜", "王", "芳")


def expected_greeting(name: str) -> str:
    """The contract of exercise 00.1: exactly ``Hello, <name>!``, the name unchanged."""
    return f"Hello, {name}!"


def hidden_names(count: int = 12) -> list[str]:
    rng = hidden_rng("00.1")
    names = []
    for _ in range(count):
        parts = ["".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 3)))]
        if rng.random() < 0.3:
            parts.append(rng.choice((" ", "-")) + rng.choice(_SYLLABLES).capitalize())
        names.append("".join(parts))
    return names


def _words(text: str) -> str:
    """The text without spaces and punctuation, to spot a greeting that only differs in those."""
    return "".join(char for char in text if char.isalnum())


def _hints(name: str) -> list[Hint]:
    """Likely mistakes for ``greeting(name)``, most specific first."""
    return [
        (lambda got: got is None, "It returned None: `return` the text instead of printing it."),
        (lambda got: not isinstance(got, str), "greeting must return a string (str)."),
        (
            lambda got: "{name}" in got or "Hello, name" in got,
            "The braces did not fill in: put an `f` before the quote to make an f-string.",
        ),
        (
            lambda got: name not in got and got.lower() == expected_greeting(name).lower(),
            "Keep the name exactly as given: do not change its capitalisation.",
        ),
        (
            lambda got: name not in got,
            f"The text must contain the name it was given ({name!r}), every character of it: "
            "use the parameter, do not hard-code a name.",
        ),
        (
            lambda got: got.strip() != got,
            "Remove the extra spaces or newlines at the start or end.",
        ),
        (
            lambda got: _words(got) == _words(expected_greeting(name)),
            "Check the punctuation: a comma after Hello and one exclamation mark at the end.",
        ),
    ]


@exercise("00.1", notebook="00_welcome", title="greeting", points=1, targets=("greeting",))
def check_greeting(greeting) -> str:
    names = [*VISIBLE_NAMES, *hidden_names()]
    for name in names:
        case = f"greeting({name!r})"
        got = call_learner(greeting, name, case=case)
        expect_json_equal(case, expected_greeting(name), got, hints=_hints(name))
    return f"{len(VISIBLE_NAMES)} visible and {len(names) - len(VISIBLE_NAMES)} hidden cases"

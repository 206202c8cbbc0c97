"""The labels of exercise 04.1's cases (``cases.py`` says what each case registers and expects).

A label is made when the check runs, so a failure names its case in the language in force then;
the rules in ``__init__.py`` make theirs at import (in English, the rule's own ``case``).
"""

from __future__ import annotations

from typing import Any

from course_lib.i18n import translate

NOTES_TEXT = "Search my notes, e.g. for 北京."
KEYWORD_KWARGS = {
    "name": "lookup_city",
    "description": "Find a city.",
    "tags": ["geo", "读"],
    "owner": "地图组",
    "version": "2.1",
}
EMPTY_GIVEN_KWARGS = {"name": "weather_quietly", "description": ""}

NAMES_CASE = "registry.names()"
UNKNOWN_FORMAT_CASE = 'registry.schemas(format="xml")'

CASE_TEXTS = {
    "visible": "the visible tools",
    "hidden": "the hidden registrations",
    "field_case": "{case}: its {field}",
    "default_case": "registry.schemas() for {what}",
    "schemas_case": 'registry.schemas(format="{format}") for {what}',
    "registered_on": "{decorator} on {tool}",
    "no_doc_case": "{call} (a function without a docstring)",
    "two_lines_case": "{call} (a docstring whose first paragraph has two lines)",
    "tags_copy_case": "{call}, then the caller appends to its tags",
    "new_list_case": (
        "registry.schemas() and registry.names(), each called twice, appending to the first; "
        "then whether two calls give two lists"
    ),
    "duplicate_case": "registering search_web under the taken name 'search_notes'",
    "hidden_names_case": "names() in the hidden cases",
    "hidden_registry_case": "ToolRegistry() for the hidden cases",
}

# Which tools a schemas case reads: a key of CASE_TEXTS, said with the case's label.
VISIBLE = "visible"
HIDDEN = "hidden"


def say(key: str, **fields: object) -> str:
    return translate(CASE_TEXTS, key, **fields)


def decorator(kwargs: dict[str, Any]) -> str:
    """``@registry.tool(...)`` with these keyword arguments."""
    arguments = ", ".join(f"{key}={value!r}" for key, value in kwargs.items())
    return f"@registry.tool({arguments})"


def registered_on(decorator: str, tool: str) -> str:
    return say("registered_on", decorator=decorator, tool=tool)


def field_case(case: str, field: str) -> str:
    """The label of the part of a case that reads one field of the entry."""
    return say("field_case", case=case, field=field)


def schemas_case(format: str, what: str = VISIBLE) -> str:
    """``registry.schemas(format=...)`` for ``what`` (VISIBLE or HIDDEN)."""
    return say("schemas_case", format=format, what=say(what))


def default_case(what: str = VISIBLE) -> str:
    return say("default_case", what=say(what))


def plain_case() -> str:
    return registered_on("@registry.tool", "get_weather")


def string_case() -> str:
    return registered_on(f"@registry.tool({NOTES_TEXT!r})", "search_notes")


def keyword_case() -> str:
    return registered_on(decorator(KEYWORD_KWARGS), "find_city")


def no_doc_case() -> str:
    return say("no_doc_case", call="registry.tool(find_city, name='city_lookup')")


def empty_given_case() -> str:
    return registered_on(decorator(EMPTY_GIVEN_KWARGS), "get_weather")


def now_case() -> str:
    return say("two_lines_case", call=registered_on("@registry.tool", "now"))


def tags_copy_case() -> str:
    return say("tags_copy_case", call="registry.tool(find_city, name='tagged', tags=tags)")


def replace_case() -> str:
    return registered_on('@registry.tool(name="search_notes", replace=True)', "search_web")


def hidden_names_case() -> str:
    return say("hidden_names_case")


def hidden_registry_case() -> str:
    return say("hidden_registry_case")

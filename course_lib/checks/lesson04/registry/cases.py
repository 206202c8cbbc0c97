"""The cases of exercise 04.1 (``ToolRegistry``), its hints and its oracle.

``__init__.py`` drives the learner's registry through these cases; this module says what each
case registers, what the entry and the schemas must then be, and which hint names which mistake.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Hint, Plain, expect_equal, fail
from course_lib.checks.learner import Learner
from course_lib.checks.lesson04._tool_sources import local_tool, phrase
from course_lib.checks.lesson04.registry import labels
from course_lib.checks.lesson04.registry.labels import (
    EMPTY_GIVEN_KWARGS,
    KEYWORD_KWARGS,
    NOTES_TEXT,
)
from course_lib.i18n import translate
from course_lib.reference import parameters_schema

FORMATS = ("openai", "responses", "anthropic")
BASE_KEYS = ("function", "description", "parameters", "tags")
METADATA_KEYS = ("owner", "version")
ENTRY_KEYS = (*BASE_KEYS, *METADATA_KEYS)

SYLLABLES = ("get", "find", "list", "send", "book", "note", "city", "rate", "user", "order")
DESCRIPTIONS = (
    "Look something up.",
    "查询天气",
    "Send a message to 张伟.",
    "Book a train to 上海.",
)
OWNERS = ("地图组", "notes-team", "ops@example.com")
VERSIONS = ("1.0", "2.1.0", "2024-05")
HIDDEN_TOOLS = ("get_weather", "search_notes", "find_city", "now", "search_web")

HINTS = Catalog() | {
    "plain_raised": (
        "@registry.tool passes the function itself as the first argument: register it at once "
        "and return it."
    ),
    "plain_form": (
        "With @registry.tool (no parentheses) tool() receives the function itself: register it "
        "at once and return it, instead of returning a decorator."
    ),
    "string_form": (
        'With a string (@registry.tool("...")) the string is the description and tool() '
        "returns a decorator: a function that takes the function to register."
    ),
    "keyword_form": (
        "With only keywords (@registry.tool(name=...)) tool() receives no function: return a "
        "decorator that takes the function, registers it and returns it."
    ),
    "unchanged": (
        "tool must return the function unchanged (not None, not a wrapper), so the name in the "
        "module still refers to the plain function."
    ),
    "no_tools": "Keep self._tools = {{}} from __init__ and store one entry per tool there.",
    "no_entry": "There is no entry under {name!r}: register each tool in self._tools[name].",
    "name": "The tool's name is name= when it is given ({name!r}), else function.__name__.",
    "entry_keys": (
        "Each self._tools[name] is a dict with exactly the keys {keys} (04.4 reads them)."
    ),
    "metadata": (
        "Store owner and version in the entry as they were given (None when they were not)."
    ),
    "function": 'Store the function itself under "function".',
    "parameters": (
        "parameters is parameters_schema(function), computed once when the tool is registered."
    ),
    "tags_tuple": (
        "Store tags as a new list of str, in the order given ([] when there are none): "
        "list(tags), since the default tags=() is a tuple."
    ),
    "tags_order": "Store tags as a list, in the order given ([] when there are none).",
    "first_paragraph": (
        "Without a description argument, use only the docstring's first paragraph "
        '(inspect.getdoc(func).split("\\n\\n")[0].strip()).'
    ),
    "first_line": (
        "The first paragraph runs up to the first blank line, and here it has two lines: keep "
        'them both (split on "\\n\\n", a blank line, not on "\\n").'
    ),
    "tags_copy": (
        "Store a new list, list(tags), not the caller's own list: the caller may change its list "
        "after registering, and the tool's tags must not change with it."
    ),
    "no_doc": 'A function without a docstring gets the description "", not None.',
    "use_description": (
        "The description is the one given to tool() (a string argument or description=), else "
        "the docstring's first paragraph."
    ),
    "empty_given": (
        'description="" is given (it is not None), so the description is "": only None means '
        '"not given" and falls back to the docstring (test `is None`, not truthiness).'
    ),
    "names_list": "names() returns a list of str (list(self._tools)).",
    "order": "Keep registration order (a dict remembers insertion order); do not sort.",
    "replace_order": (
        "With replace=True the new entry takes the old one's place in the order: assign "
        "self._tools[name] = entry; do not delete the old entry and add the new one."
    ),
    "replace_refused": "With replace=True a taken name is replaced, not refused.",
    "schemas_list": "schemas() returns a list with one dict per tool.",
    "schemas_raised": (
        "schemas() raised: it builds one dict per entry from its name, description and "
        "parameters; check what tool() stores in each entry."
    ),
    "names_raised": "names() raised: it returns list(self._tools), the names in order.",
    "count": "One schema per registered tool: check that every form of tool() registers.",
    "metadata_in_schema": (
        "Tags, owner and version are notes for people and code, not for the model: leave them "
        "out of every schema."
    ),
    "openai_nested": (
        'An OpenAI tool nests name, description and parameters under "function": '
        '{{"type": "function", "function": {{...}}}}.'
    ),
    "openai_type": 'An OpenAI tool starts with "type": "function".',
    "openai_keys": (
        'An OpenAI tool\'s "function" holds exactly "name", "description" and "parameters", '
        'and its "type": "function" sits outside it.'
    ),
    "responses_flat": 'Responses tools are flat: "name" etc. sit next to "type".',
    "responses_type": 'A Responses tool keeps "type": "function".',
    "responses_parameters": 'Responses calls the schema "parameters".',
    "responses_strict": (
        'The Responses API treats a missing "strict" as true; these tools are not strict: add '
        '"strict": False.'
    ),
    "anthropic_flat": 'Anthropic tools are flat: no "function" wrapper.',
    "anthropic_input_schema": 'Anthropic calls the schema "input_schema".',
    "anthropic_type": 'Anthropic tools have no "type": keep name, description, input_schema.',
    "default_format": 'The default format is "openai": schemas() with no argument.',
    "new_list": (
        "Return a new list on every call: a caller that changes the list it got (appends, "
        "removes) must not change what the registry returns next time."
    ),
    "unknown_format": (
        "An unknown format is a mistake the caller should hear about: raise ValueError naming "
        "the formats."
    ),
    "format_names": (
        "Name the three supported formats in the message, so the caller sees what to use instead."
    ),
    "silent_overwrite": (
        "This is the silent overwrite: registering a second tool named 'search_notes' replaced "
        "the first without a word. Raise ValueError unless replace=True."
    ),
    "duplicate_type": "Raise ValueError for a taken name.",
    "duplicate_message": (
        "Say which name is taken and how to resolve it (another name, or replace=True)."
    ),
    "first_stays": (
        "Check the name before storing anything: a refused registration leaves the tool that "
        "was registered first in place."
    ),
}

PHRASES = {"not_mentioned": "the message does not mention {word!r}"}


hint = HINTS.hint


def say(key: str, **fields: object) -> str:
    return translate(PHRASES, key, **fields)


@dataclass(frozen=True)
class Registration:
    """One registration: which tool, through which form, with which arguments."""

    tool: str
    form: str  # "plain", "string" or "keywords"
    text: str | None = None  # the description given as the string form's argument
    kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.kwargs.get("name", self.tool)

    @property
    def description(self) -> str:
        given = self.text if self.form == "string" else self.kwargs.get("description")
        return expected_description(local_tool(self.tool), given)

    def label(self) -> str:
        """The case's label in the language in force (a hidden registration's)."""
        return labels.registered_on(labels.decorator(self.kwargs), self.tool)


# (the case's label, the registration)
VISIBLE_REGISTRATIONS = (
    (labels.plain_case, Registration("get_weather", "plain")),
    (labels.string_case, Registration("search_notes", "string", text=NOTES_TEXT)),
    (labels.keyword_case, Registration("find_city", "keywords", kwargs=KEYWORD_KWARGS)),
    (labels.now_case, Registration("now", "plain")),
    (labels.no_doc_case, Registration("find_city", "plain", kwargs={"name": "city_lookup"})),
    (labels.empty_given_case, Registration("get_weather", "keywords", kwargs=EMPTY_GIVEN_KWARGS)),
)

NEW_LIST_SNIPPET = """
first = registry.schemas()
first.append({"name": "not a tool"})
names = registry.names()
names.append("not_a_tool")
result = [len(registry.schemas()), len(registry.names())]
result += [registry.schemas() is not registry.schemas(), registry.names() is not registry.names()]
"""

TAGS_COPY_SNIPPET = """
tags = ["geo", "读"]
registry = ToolRegistry()
registry.tool(function, name="tagged", tags=tags)
tags.append("changed by the caller")
entry = getattr(registry, "_tools", {}).get("tagged")
result = list(entry["tags"]) if isinstance(entry, dict) and "tags" in entry else None
"""

# What the check reads of an entry, as JSON (the function itself is compared by identity).
ENTRY_SNIPPET = """
tools = getattr(registry, "_tools", None)
if not isinstance(tools, dict):
    report = {"problem": "no_tools", "type": type(tools).__name__}
elif name not in tools:
    report = {"problem": "no_entry", "names": [str(key) for key in tools]}
elif not isinstance(tools[name], dict):
    report = {"problem": "not_dict", "type": type(tools[name]).__name__}
else:
    entry = tools[name]
    tags = entry.get("tags")
    report = {
        "keys": [str(key) for key in entry],
        "function": entry.get("function") is function,
        "description": entry.get("description"),
        "parameters": entry.get("parameters"),
        "tags": list(tags) if isinstance(tags, (list, tuple)) else tags,
        "tags_type": type(tags).__name__,
        "owner": entry.get("owner"),
        "version": entry.get("version"),
    }
"""


def entry_report(learner: Learner, registry: str, name: str, function: str) -> dict[str, Any]:
    """The entry under ``name`` as the snippet reports it; a part JSON cannot hold becomes a
    report that says where it is."""
    bind = {
        "registry": learner.handle(registry),
        "name": name,
        "function": learner.handle(function),
    }
    reply = learner.run(ENTRY_SNIPPET, result="report", bind=bind)
    if reply.raised:
        return {"problem": "not_dict", "type": reply.raised_text}
    if "unjson" in reply.data:
        return {"problem": "unjson", "where": reply.data["unjson"], "repr": reply.data["repr"]}
    return reply.value


def expected_description(func: Any, description: str | None) -> str:
    """The contract: the given description, else the docstring's first paragraph, else ""."""
    if description is not None:
        return description
    return (inspect.getdoc(func) or "").split("\n\n")[0].strip()


def expected_entry(item: Registration) -> dict[str, Any]:
    """The entry's JSON report when the learner stored what the contract says."""
    kwargs = item.kwargs
    return {
        "keys": list(ENTRY_KEYS),
        "function": True,
        "description": item.description,
        "parameters": parameters_schema(local_tool(item.tool)),
        "tags": list(kwargs.get("tags", [])),
        "tags_type": "list",
        "owner": kwargs.get("owner"),
        "version": kwargs.get("version"),
    }


def expect_entry_fields(case: str, got: dict, expected: dict, item: Registration) -> None:
    __tracebackhide__ = True
    if got.get("problem") == "unjson":
        key = "parameters" if "$.parameters" in got["where"] else "entry_keys"
        chosen = hint(key, keys=", ".join(ENTRY_KEYS))
        fail(case, expected["parameters"], Plain(got["repr"]), chosen, where=got["where"])
    keys = got["keys"]
    if sorted(keys) != sorted(ENTRY_KEYS):
        missing = set(ENTRY_KEYS) - set(keys)
        key = "metadata" if missing and missing <= set(METADATA_KEYS) else "entry_keys"
        fail(case, list(ENTRY_KEYS), keys, hint(key, keys=", ".join(ENTRY_KEYS)))
    if got["function"] is not True:
        fail(case, phrase("itself", name=item.tool), phrase("another_object"), hint("function"))
    if got["tags_type"] != "list":
        shown = phrase("a_kind_value", kind=got["tags_type"], value=repr(got["tags"]))
        fail(labels.field_case(case, "tags"), expected["tags"], shown, hint("tags_tuple"))
    fields = [("tags", "tags_order"), *((key, "metadata") for key in METADATA_KEYS)]
    for key, chosen in [*fields, ("parameters", "parameters")]:
        expect_equal(labels.field_case(case, key), expected[key], got[key], hint=hint(chosen))
    description = expected["description"]
    expect_equal(labels.field_case(case, "description"), description, got["description"],
                 hints=description_hints(item, description))  # fmt: skip


def description_hints(item: Registration, expected: str) -> list[Hint]:
    given = item.text if item.form == "string" else item.kwargs.get("description")
    return [
        (lambda g: given == "" and isinstance(g, str), hint("empty_given")),
        (lambda g: given is not None, hint("use_description")),
        (lambda g: g is None and expected == "", hint("no_doc")),
        (lambda g: isinstance(g, str) and len(g) > len(expected), hint("first_paragraph")),
        (
            lambda g: isinstance(g, str) and "\n" in expected and expected.startswith(g),
            hint("first_line"),
        ),
    ]

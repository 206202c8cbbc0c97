"""Exercise 08.2, ``mcp_tools_to_openai(tools, *, prefix=None) -> list[dict]``: an MCP listing
as Chat Completions tools, with names every provider accepts, unique.

The ``tools`` are real ``mcp_types.Tool`` objects, built beside the learner's code from the JSON
a server sends; the check builds the same objects and compares with the reference conversion.
Rules, the case that breaks each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

import json
import re
from random import Random
from typing import Any

import mcp_types as types

from course_lib.checks.cases import Case, Table
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import expect_equal, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply
from course_lib.checks.lesson08._kernel_bridge import NOTEBOOK
from course_lib.mcp_servers.notes_book import TOOLS as NOTES_TOOLS
from course_lib.reference.mcp_client import MAX_NAME_LENGTH, mcp_tools_to_openai

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
EMPTY = {"type": "object", "properties": {}}
LONG = "summarise_the_latest_messages_of_every_channel_in_the_workspace_and_send_a_digest"


def listing(*names: str, description: str | None = "A tool.") -> list[dict[str, Any]]:
    tools = []
    for name in names:
        tool: dict[str, Any] = {"name": name, "inputSchema": SCHEMA}
        if description is not None:
            tool["description"] = description
        tools.append(tool)
    return tools


# (tools as the server sends them, prefix)
VISIBLE = [
    (list(NOTES_TOOLS), None),
    (list(NOTES_TOOLS), "notes"),
    # ping has a title (a display name) but no description: its description is still "".
    ([{"name": "ping", "title": "Ping", "inputSchema": EMPTY}, *listing("echo")], None),
    (listing("notes.search", "notes/search", "notes_search"), None),
    (listing("搜索笔记", "list notes", "read-note"), "my server"),
    (listing(LONG + "_1", LONG + "_2", "x" * 100), None),
    # two names repeated: each counts its own repeats; letters keep their case
    (listing("Notes.Search", "Notes_Search", "tags.list", "tags_list", "tags-list"), None),
    # a suffix that lands on a name an earlier tool already has: the first one not taken is _3
    (listing("tags", "tags_2", "tags"), None),
]

TEXTS = Catalog() | {
    "case": "mcp_tools_to_openai([{names}], prefix={prefix})",
    "more": ", … {count} more",
    "summary": "{count} listings",
}
text = TEXTS.text


def short(name: str, limit: int = 24) -> str:
    return repr(name if len(name) <= limit else name[: limit - 1] + "…")


def case_label(tools: list[dict[str, Any]], prefix: str | None) -> str:
    names = ", ".join(short(tool["name"]) for tool in tools[:3])
    if len(tools) > 3:
        names += text("more", count=len(tools) - 3)
    return text("case", names=names, prefix=repr(prefix))


NOTES_CASE = case_label(*VISIBLE[0])
PREFIX_CASE = case_label(*VISIBLE[1])
NO_DESCRIPTION_CASE = case_label(*VISIBLE[2])
COLLISION_CASE = case_label(*VISIBLE[3])
LONG_CASE = case_label(*VISIBLE[5])

RULES = (
    Rule("shape", "one `{\"type\": \"function\", \"function\": {\"name\": ..., \"description\": "
         "..., \"parameters\": ...}}` per tool, in the listing's order", case=NOTES_CASE,
         hint="shape"),
    Rule("parameters", "`parameters` is the tool's `input_schema`, unchanged", case=NOTES_CASE,
         hint="parameters"),
    Rule("description", "`description` is the tool's description, `\"\"` when it has none",
         case=NO_DESCRIPTION_CASE, hint="description"),
    Rule("allowed", "in the name, every character other than ASCII letters, digits, `_` and `-` "
         "becomes `_` (`tags.list` becomes `tags_list`, `笔记` becomes `__`)", case=COLLISION_CASE,
         hint="allowed"),
    Rule("prefix", "with a `prefix`, the name is `f\"{prefix}_{tool.name}\"` before that (the "
         "prefix's characters are replaced too)", case=PREFIX_CASE, hint="prefix"),
    Rule("cut", "names are cut to 64 characters", case=LONG_CASE, hint="too_long"),
    Rule("unique", "a name an earlier tool already has gets `_2`, or `_3`, ...: the first one not "
         "taken", case=COLLISION_CASE, hint="duplicates"),
    Rule("suffix_fits", "with its suffix a name still fits in 64 characters: cut the name before "
         "adding the suffix", case=LONG_CASE, hint="suffix_fits"),
)  # fmt: skip

HINTS = Catalog() | {
    "not_list": "Return a list with one Chat Completions tool per MCP tool, in the same order.",
    "shape": (
        'Each tool is {{"type": "function", "function": {{"name": ..., "description": ..., '
        '"parameters": ...}}}}, one per MCP tool, in the listing\'s order.'
    ),
    "parameters": (
        "parameters is the tool's input_schema exactly as the server sent it; do not rebuild it."
    ),
    "description": (
        'A tool without a description gets "" (the API refuses null); others keep theirs.'
    ),
    "allowed": (
        "Chat Completions accepts only ASCII letters, digits, _ and - in a name: replace every "
        "other character ({found}) with _."
    ),
    "ascii_only": (
        "Only ASCII letters count: str.isalnum() also accepts 中文 and é, which the API refuses. "
        "Test against [A-Za-z0-9_-] instead."
    ),
    "prefix": 'With a prefix, a name is prefix + "_" + the tool\'s name, the whole made valid.',
    "too_long": "Cut every name to 64 characters, the longest the API accepts.",
    "duplicates": (
        "Two tools ended up with the same name ({name}): give the later one _2 (then _3, ...), "
        "the first suffix not taken yet."
    ),
    "suffix_number": (
        "The first repeat of a name gets _2, its next _3, and so on, each name counting its "
        "own repeats: the first suffix not taken."
    ),
    "order": "Keep the listing's order: the n-th tool you return is the server's n-th tool.",
    "extra_keys": (
        "Each tool holds only type and function, and function only name, description and "
        "parameters; leave out {keys} (strict mode is lesson 06's choice, not asked here)."
    ),
    "dropped": (
        "Replace each character the API refuses by _, do not drop it: the names keep their "
        "length, so tags.list becomes tags_list."
    ),
    "suffix_form": (
        "The suffix is an underscore and a number, _2 (then _3, ...): {got} should be {want}."
    ),
    "underscore": "Replace each refused character by _, not by -: tags.list becomes tags_list.",
    "per_character": (
        "Replace each refused character by one _, however many bytes it takes in UTF-8: 笔记 "
        "becomes __ (two characters, two underscores), not ______."
    ),
    "name_differs": (
        "The names differ from the expected ones at {got} (expected {want}): replace each refused "
        "character by _, prefix, cut to 64, then add _2, _3, ... to a name already taken."
    ),
    "hyphen": "- is one of the characters the API accepts (with _): keep it as it is.",
    "letter_case": (
        "Keep each letter as it is: A-Z are allowed, and the name maps back to the server's by "
        "position, not by a lower-cased copy."
    ),
    "cut_short": (
        "Cut a name at 64 characters exactly, the longest the API accepts, not shorter "
        "({length} here)."
    ),
    "suffix_fits": (
        "With its suffix the name is {length} characters long: cut the name first, so that name "
        "and suffix fit in 64 together."
    ),
    "endless": (
        "Your search for a free name never ends: adding _2 and then cutting the name to 64 "
        "characters cuts the suffix away again, so the name is the one already taken, every "
        "time. Cut first, then add the suffix (or check the name again after cutting)."
    ),
    "input_schema_attr": (
        "In the 2.x SDK a Tool's schema is tool.input_schema (inputSchema is its name on the "
        "wire only)."
    ),
    "attributes": "An MCP Tool is an object: read tool.name, tool.description, tool.input_schema.",
}


hint = HINTS.hint


EXCEPTION_HINTS = [
    (lambda r: "inputSchema" in r.message, hint("input_schema_attr")),
    (lambda r: "subscriptable" in r.message or "not iterable" in r.message, hint("attributes")),
]
BUILD = "from mcp_types import Tool\ntools = [Tool.model_validate(t) for t in json.loads({text!r})]"
_ALLOWED = re.compile(r"[A-Za-z0-9_-]")
_ALLOWED_TEXT = re.compile(r"[A-Za-z0-9_-]*")


@exercise(
    "08.2", notebook=NOTEBOOK, title="mcp_tools_to_openai", points=2, rules=RULES, hints=HINTS
)
def check_mcp_tools_to_openai(learner: Learner) -> str:
    cases = [*VISIBLE, *hidden_cases(hidden_rng("08.2"))]
    table = Table("mcp_tools_to_openai", RULES, HINTS, judge=judge, raised=EXCEPTION_HINTS)
    rows = [
        table.case(
            case_label(tools, prefix),
            learner.source("tools", setup=BUILD.format(text=json.dumps(tools, ensure_ascii=False))),
            expected=mcp_tools_to_openai(
                [types.Tool.model_validate(t) for t in tools], prefix=prefix
            ),
            endless_hint=hint("endless"),  # for the call, not for the function
            **({} if prefix is None else {"prefix": prefix}),
        )
        for tools, prefix in cases
    ]
    return text("summary", count=table.run(learner, rows))


def judge(case: Case, got: Any, reply: Reply) -> None:
    __tracebackhide__ = True
    label, expected, prefix = case.label, case.expected, case.kwargs.get("prefix")
    if not isinstance(got, list) or len(got) != len(expected):
        fail(label, expected, got, hint("not_list"))
    expect_equal(label, expected, got, hints=[(lambda value: True, pick(expected, got, prefix))])


FUNCTION_KEYS = ("name", "description", "parameters")


def pick(expected: list[dict], got: list[Any], prefix: str | None):
    """The hint for the first tool that differs."""
    names = []
    if in_another_order(expected, got):
        return hint("order")
    for want, have in zip(expected, got, strict=True):
        function = have.get("function") if isinstance(have, dict) else None
        if not isinstance(function, dict) or have.get("type") != "function":
            return hint("shape")
        extra = [key for key in have if key not in ("type", "function")]
        extra += [key for key in function if key not in FUNCTION_KEYS]
        if extra and all(key in function for key in FUNCTION_KEYS):
            return hint("extra_keys", keys=", ".join(repr(key) for key in extra))
        if function.get("parameters") != want["function"]["parameters"]:
            return hint("parameters")
        if function.get("description") != want["function"]["description"]:
            return hint("description")
        names.append(function.get("name"))
    wanted = [tool["function"]["name"] for tool in expected]
    return name_hint(wanted, names, prefix)


def in_another_order(expected: list[dict], got: list[Any]) -> bool:
    """The same tools (by description and parameters) in a different order."""

    def key(tool: Any) -> str:
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict):
            return repr(tool)
        fields = {k: function.get(k) for k in ("description", "parameters")}
        return json.dumps(fields, sort_keys=True, ensure_ascii=False, default=repr)

    mine, theirs = [key(tool) for tool in expected], [key(tool) for tool in got]
    return mine != theirs and sorted(mine) == sorted(theirs)


def name_hint(wanted: list[str], names: list[Any], prefix: str | None):
    if not all(isinstance(name, str) for name in names):
        return hint("shape")
    for name in names:
        bad = sorted({char for char in name if not _ALLOWED.fullmatch(char)})
        if any(char.isalnum() for char in bad):
            return hint("ascii_only")
        if bad:
            return hint("allowed", found=" ".join(repr(char) for char in bad))
    if prefix is not None and any(
        misprefixed(want, name, prefix) for want, name in zip(wanted, names, strict=True)
    ):
        return hint("prefix")
    mistake = name_mistake(wanted, names)
    if mistake is not None:
        return mistake
    for want, name in zip(wanted, names, strict=True):
        if len(name) > MAX_NAME_LENGTH:
            suffixed = re.search(r"_\d+$", want) and len(want) == MAX_NAME_LENGTH
            return hint("suffix_fits", length=len(name)) if suffixed else hint("too_long")
    repeated = next((name for name in names if names.count(name) > 1), None)
    if repeated is not None:
        return hint("duplicates", name=repeated)
    if names != wanted and [unsuffixed(n) for n in names] == [unsuffixed(n) for n in wanted]:
        return hint("suffix_number")
    differing = next(((w, n) for w, n in zip(wanted, names, strict=True) if w != n), None)
    if differing is not None:
        return hint("name_differs", want=repr(differing[0]), got=repr(differing[1]))
    return None


def unsuffixed(name: str) -> str:
    """``name`` without a ``_2``-style suffix (names that differ only there differ in numbering)."""
    return re.sub(r"_\d+$", "", name)


def name_mistake(wanted: list[str], names: list[str]):
    """A hint for names that differ from the wanted ones in one recognisable way, if any."""
    for want, name in zip(wanted, names, strict=True):
        if name == want:
            continue
        if name == want.replace("-", "_"):
            return hint("hyphen")
        suffix = re.search(r"_(\d+)$", want)
        if suffix and name in (
            f"{want[: suffix.start()]}-{suffix[1]}",
            f"{want[: suffix.start()]}{suffix[1]}",
        ):
            return hint("suffix_form", got=repr(name), want=repr(want))
        if "-" in name and name.replace("-", "_") == want:
            return hint("underscore")
        if len(name) > len(want) and want.replace("_", "") == name.replace("_", ""):
            return hint("per_character")
        if name.lower() == want.lower():
            return hint("letter_case")
        if len(name) < len(want) <= MAX_NAME_LENGTH and _ALLOWED_TEXT.fullmatch(name):
            if want.startswith(name) and len(want) == MAX_NAME_LENGTH:
                return hint("cut_short", length=len(name))
            if want.replace("_", "") == name.replace("_", ""):  # the refused ones left out
                return hint("dropped")
    return None


def misprefixed(want: str, name: str, prefix: str) -> bool:
    """``name`` lacks the prefix ``want`` has, or joins it to the tool's name other than by one
    ``_`` (``notes__search``, ``notes-search``, ``notessearch``)."""
    start = re.sub(r"[^A-Za-z0-9_-]", "_", f"{prefix}_")
    if not want.startswith(start) or name == want:
        return False
    if not name.startswith(start[:-1]):
        return True
    rest = want[len(start) :]
    joins = ("", "-", "__")  # what the prefix and the name were joined by instead of "_"
    return bool(rest) and any(name == f"{start[:-1]}{join}{rest}" for join in joins)


# -- hidden cases ----------------------------------------------------------------------------------

PIECES = ("notes", "search", "读", "list", "tags", "v2", "get", "天气", "x" * 30, "é")
JOINERS = (".", "/", "_", "-", " ", "")
PREFIXES = (None, None, "notes", "srv-1", "我的", "a.b")


def hidden_cases(rng: Random, count: int = 8) -> list[tuple[list[dict[str, Any]], str | None]]:
    cases = []
    for _ in range(count):
        names = []
        for _ in range(rng.randint(2, 5)):
            parts = [rng.choice(PIECES) for _ in range(rng.randint(1, 4))]
            names.append(rng.choice(JOINERS).join(parts))
        if rng.random() < 0.5:
            names.append(names[0].replace("_", "."))  # sanitises to the same name
        tools = listing(*names, description=rng.choice([None, "A tool.", "一个工具。"]))
        cases.append((tools, rng.choice(PREFIXES)))
    return cases

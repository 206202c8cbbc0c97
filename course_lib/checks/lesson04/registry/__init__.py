"""Exercise 04.1, ``ToolRegistry``: registration in three forms, entries, names and schemas.

The registry lives beside the learner's code as a handle; the tools it registers are built there
from source text (``_tool_sources.TOOL_SOURCES``) and kept as handles too, so "returns the function
unchanged" is a question of identity asked where the objects are. What comes back is JSON: the
entry of a tool as a small report, ``names()``, ``schemas(format=...)``.
Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.
"""

from __future__ import annotations

from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, expect_equal, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply
from course_lib.checks.lesson04._tool_sources import (
    NOTEBOOK,
    keep_tool,
    local_tool,
    method,
    phrase,
    shown,
)
from course_lib.checks.lesson04.registry import cases, labels
from course_lib.checks.lesson04.registry.cases import ENTRY_KEYS, FORMATS, Registration, hint
from course_lib.checks.lesson04.registry.schemas import expected_schema, schema_hints
from course_lib.i18n import translate

RULES = (
    Rule("plain", "`@registry.tool` and `registry.tool(function, name=...)` register at once",
         case=labels.plain_case(), hint="plain_form"),
    Rule("unchanged", "each form returns the function itself, unchanged", case=labels.plain_case(),
         hint="unchanged"),
    Rule("entry", "exactly the keys `function`, `description`, `parameters`, `tags`, `owner`, "
         "`version`", case=labels.plain_case(), hint="entry_keys"),
    Rule("metadata", "`owner`, `version` as given (`None` by default)", case=labels.plain_case(),
         hint="metadata"),
    Rule("parameters", "`parameters_schema(function)` as `parameters`, computed at registration",
         case=labels.field_case(labels.plain_case(), "parameters"), hint="parameters"),
    Rule("tags", "`tags` a `list` in the order given (`[]` by default)",
         case=labels.field_case(labels.plain_case(), "tags"), hint="tags_tuple"),
    Rule("tags_copy", "a new list, not the caller's", case=labels.tags_copy_case(),
         hint="tags_copy"),
    Rule("first_paragraph", "else the docstring's first paragraph (`inspect.getdoc` up to the "
         "first blank line, stripped)", case=labels.field_case(labels.plain_case(), "description"),
         hint="first_paragraph"),
    Rule("paragraph_lines", "all its lines",
         case=labels.field_case(labels.now_case(), "description"), hint="first_line"),
    Rule("string_form", '`@registry.tool("text")` returns a decorator; the text is the description',
         case=labels.string_case(), hint="string_form"),
    Rule("use_description", "description: the one given",
         case=labels.field_case(labels.string_case(), "description"), hint="use_description"),
    Rule("keyword_form", "`@registry.tool(name=...)`, without a function, returns a decorator",
         case=labels.keyword_case(), hint="keyword_form"),
    Rule("name", "name: `name`, else `function.__name__`", case=labels.keyword_case(), hint="name"),
    Rule("no_docstring", 'else `""`', case=labels.no_doc_case(), hint="no_doc"),
    Rule("order", "in registration order", case=labels.NAMES_CASE, hint="order"),
    Rule("openai", '`"openai"`: '
         '`{"type": "function", "function": {"name", "description", "parameters"}}`',
         case=labels.schemas_case("openai"), hint="openai_nested"),
    Rule("metadata_out", "no tags, owner or version in any schema",
         case=labels.schemas_case("openai"), hint="metadata_in_schema"),
    Rule("responses", '`"responses"`: '
         '`{"type": "function", "name", "description", "parameters", "strict": False}`',
         case=labels.schemas_case("responses"), hint="responses_strict"),
    Rule("anthropic", '`"anthropic"`: `{"name", "description", "input_schema"}`',
         case=labels.schemas_case("anthropic"), hint="anthropic_input_schema"),
    Rule("default_format", '`format` defaults to `"openai"`', case=labels.default_case(),
         hint="default_format"),
    Rule("new_list", "a new list on every call", case=labels.say("new_list_case"), hint="new_list"),
    Rule("unknown_format", "another format: `ValueError` naming the three",
         case=labels.UNKNOWN_FORMAT_CASE, hint="unknown_format"),
    Rule("duplicate", "refuse a taken name: `ValueError` naming it and `replace=True`; the old "
         "tool stays", case=labels.say("duplicate_case"), hint="silent_overwrite"),
    Rule("replace", "with `replace=True`, replace the entry in its old place",
         case=labels.replace_case(), hint="replace_order"),
)  # fmt: skip


# --- registering, one form at a time ------------------------------------------------------


TEXTS = Catalog() | {
    "summary": "3 forms, 3 formats, duplicates refused, {hidden} hidden registrations",
    "first_stays": "{case}: the first one stays",
}


def register(learner: Learner, registry: str, item: Registration, case: str) -> str:
    """Register a new copy of ``item.tool`` in ``registry`` through ``item.form``, insist that
    the form returns that very function and that the entry holds what the contract says, and
    return the function's handle."""
    __tracebackhide__ = True
    function = keep_tool(learner, item.tool)
    tool, given = method(learner, registry, "tool"), learner.handle(function)
    itself = phrase("itself", name=item.tool)
    if item.form == "plain":
        returned = learner.attempt(tool, given, keep=True, **item.kwargs)
    else:
        args = (item.text,) if item.form == "string" else ()
        decorator = learner.attempt(tool, *args, keep=True, **item.kwargs)
        wanted = phrase("a_decorator")
        if decorator.raised or not learner.describe(learner.handle(decorator.handle))["callable"]:
            fail(case, wanted, shown(decorator), raised_hint(item, decorator))
        returned = learner.attempt(learner.handle(decorator.handle), given, keep=True)
    if returned.raised:
        fail(case, itself, shown(returned), raised_hint(item, returned))
    bind = {"returned": learner.handle(returned.handle), "function": given}
    same = learner.run("", result="returned is function", bind=bind)
    if same.value is not True:
        registered = cases.entry_report(learner, registry, item.name, function)
        key = "plain_form" if item.form == "plain" and "problem" in registered else "unchanged"
        fail(case, itself, shown(returned), hint(key))
    expect_entry(learner, registry, item, function, case)
    return function


def raised_hint(item: Registration, reply: Reply) -> HintText:
    """The hint for a registration that raised: a docstring that is not there, a replacement
    refused, or the form itself."""
    given = item.text if item.form == "string" else item.kwargs.get("description")
    if local_tool(item.tool).__doc__ is None and given is None and "NoneType" in reply.message:
        return hint("no_doc")
    if item.kwargs.get("replace") and reply.raised_a("ValueError"):
        return hint("replace_refused")
    return hint({"plain": "plain_raised", "string": "string_form"}.get(item.form, "keyword_form"))


def expect_entry(
    learner: Learner, registry: str, item: Registration, function: str, case: str
) -> None:
    """The entry under ``item.name`` holds what the contract says, read as a JSON report."""
    __tracebackhide__ = True
    report = cases.entry_report(learner, registry, item.name, function)
    expected = cases.expected_entry(item)
    problem = report.get("problem")
    if problem == "no_tools":
        fail(case, phrase("tools_dict"), phrase("a_kind", kind=report["type"]), hint("no_tools"))
    if problem == "no_entry":
        key = "name" if item.name != item.tool and item.tool in report["names"] else "no_entry"
        fail(case, phrase("an_entry", name=item.name), report["names"], hint(key, name=item.name))
    if problem == "not_dict":
        fail(case, {key: "..." for key in ENTRY_KEYS}, phrase("a_kind", kind=report["type"]),
             hint("entry_keys", keys=", ".join(ENTRY_KEYS)))  # fmt: skip
    cases.expect_entry_fields(case, report, expected, item)


# --- reading the registry back --------------------------------------------------------------


def expect_names(
    learner: Learner, registry: str, expected: list[str], case: str, order_hint: str = "order"
) -> None:
    __tracebackhide__ = True
    raised = [(lambda r: True, hint("names_raised"))]
    reply = learner.call(method(learner, registry, "names"), case=case, hints=raised)
    got = reply.value if reply.type == "list" else Plain(reply.data.get("repr") or str(reply.value))
    hints = [(lambda g: isinstance(g, Plain), hint("names_list")),
             (lambda g: sorted(g) == sorted(expected), hint(order_hint))]  # fmt: skip
    expect_equal(case, expected, got, hints=hints)


def expect_schemas(learner: Learner, registry: str, entries: list[Registration], what: str) -> None:
    __tracebackhide__ = True
    schemas = method(learner, registry, "schemas")
    for format in FORMATS:
        expected = [expected_schema(item, format) for item in entries]
        case = labels.schemas_case(format, what)
        raised = [(lambda r: True, hint("schemas_raised"))]
        reply = learner.call(schemas, case=case, hints=raised, format=format)
        expect_equal(case, expected, reply.value, hints=schema_hints(format, expected))
    case = labels.default_case(what)
    raised = [(lambda r: r.raised_a("TypeError"), hint("default_format")),
              (lambda r: True, hint("schemas_raised"))]  # fmt: skip
    reply = learner.call(schemas, case=case, hints=raised)
    expected = [expected_schema(item, "openai") for item in entries]
    expect_equal(case, expected, reply.value, hint=hint("default_format"))


def expect_snippet(
    learner: Learner, case: str, snippet: str, bind: dict, wanted: Any, key: str
) -> None:
    """``snippet``, run beside the learner's code, leaves ``wanted`` in ``result``: else the
    hint ``key`` (the lists ``schemas()`` and ``names()`` return, the tags a registry keeps)."""
    __tracebackhide__ = True
    reply = learner.run(snippet, result="result", bind=bind)
    if reply.raised:
        fail(case, wanted, shown(reply), hint(key))
    expect_equal(case, wanted, reply.value, hint=hint(key))


def expect_unknown_format_refused(learner: Learner, registry: str) -> None:
    __tracebackhide__ = True
    case = labels.UNKNOWN_FORMAT_CASE
    wanted = phrase("format_error")
    reply = learner.attempt(method(learner, registry, "schemas"), format="xml")
    if not reply.raised:
        got = phrase("no_error", kind=reply.type)
        fail(case, wanted, got, hint("unknown_format"))
    if not reply.raised_a("ValueError"):
        fail(case, wanted, shown(reply), hint("unknown_format"))
    missing = [name for name in FORMATS if name not in reply.message]
    if missing:
        where = cases.say("not_mentioned", word=missing[0])
        fail(case, wanted, shown(reply), hint("format_names"), where=where)


def expect_duplicate_refused(learner: Learner, registry: str, first: str) -> None:
    """Registering another function under a taken name raises, and the first one stays."""
    __tracebackhide__ = True
    case = labels.say("duplicate_case")
    wanted = phrase("duplicate_error")
    other = learner.handle(keep_tool(learner, "search_web"))
    reply = learner.attempt(method(learner, registry, "tool"), other, name="search_notes")
    if not reply.raised:
        fail(case, wanted, phrase("went_through"), hint("silent_overwrite"))
    if not reply.raised_a("ValueError"):
        fail(case, wanted, shown(reply), hint("duplicate_type"))
    if "search_notes" not in reply.message or "replace=True" not in reply.message:
        fail(case, wanted, shown(reply), hint("duplicate_message"))
    case = translate(TEXTS, "first_stays", case=case)
    report = cases.entry_report(learner, registry, "search_notes", first)
    if report.get("problem") == "no_entry" or report.get("function") is False:
        itself = phrase("itself", name="search_notes")
        fail(case, itself, phrase("another_object"), hint("first_stays"))
    stays = Registration("search_notes", "string", text=cases.NOTES_TEXT)
    expect_entry(learner, registry, stays, first, case)


def expect_replaced(learner: Learner, registry: str, names: list[str]) -> None:
    __tracebackhide__ = True
    case = labels.replace_case()
    item = Registration("search_web", "keywords", kwargs={"name": "search_notes", "replace": True})
    register(learner, registry, item, case)
    expect_names(learner, registry, names, case, order_hint="replace_order")


# --- the check ------------------------------------------------------------------------------


def hidden_registrations(count: int = 8) -> list[Registration]:
    rng = hidden_rng("04.1")
    items: list[Registration] = []
    used: set[str] = set()
    while len(items) < count:
        name = "_".join(rng.sample(cases.SYLLABLES, 2)) + f"_{rng.randint(1, 99)}"
        if name in used:
            continue
        used.add(name)
        tags = rng.sample(["weather", "notes", "读", "write", "geo"], rng.randint(0, 3))
        kwargs: dict[str, Any] = {"name": name, "tags": tags}
        description = rng.choice((None, *cases.DESCRIPTIONS))
        if description is not None:
            kwargs["description"] = description
        if rng.random() < 0.6:
            kwargs["owner"] = rng.choice(cases.OWNERS)
            kwargs["version"] = rng.choice(cases.VERSIONS)
        items.append(Registration(rng.choice(cases.HIDDEN_TOOLS), "keywords", kwargs=kwargs))
    return items


@exercise("04.1", notebook=NOTEBOOK, title="ToolRegistry", points=3, rules=RULES, hints=cases.HINTS)
def check_tool_registry(learner: Learner) -> str:
    registry = learner.call("ToolRegistry", case="ToolRegistry()", keep=True).handle
    functions: dict[str, str] = {}
    for label, item in cases.VISIBLE_REGISTRATIONS:
        functions[item.name] = register(learner, registry, item, label())
    visible = [item for _, item in cases.VISIBLE_REGISTRATIONS]
    names = [item.name for item in visible]
    expect_names(learner, registry, names, labels.NAMES_CASE)
    expect_schemas(learner, registry, visible, labels.VISIBLE)
    sizes, bind = [len(visible), len(visible), True, True], {"registry": learner.handle(registry)}
    case = labels.say("new_list_case")
    expect_snippet(learner, case, cases.NEW_LIST_SNIPPET, bind, sizes, "new_list")
    expect_unknown_format_refused(learner, registry)
    expect_duplicate_refused(learner, registry, functions["search_notes"])
    expect_replaced(learner, registry, names)
    # A registry keeps its own list of tags: the caller changing its list changes nothing.
    bind = {"ToolRegistry": learner.target("ToolRegistry"),
            "function": learner.handle(keep_tool(learner, "find_city"))}  # fmt: skip
    case, tags = labels.tags_copy_case(), ["geo", "读"]
    expect_snippet(learner, case, cases.TAGS_COPY_SNIPPET, bind, tags, "tags_copy")

    hidden = learner.call("ToolRegistry", case=labels.hidden_registry_case(), keep=True)
    items = hidden_registrations()
    for item in items:
        register(learner, hidden.handle, item, item.label())
    expect_names(learner, hidden.handle, [item.name for item in items], labels.hidden_names_case())
    expect_schemas(learner, hidden.handle, items, labels.HIDDEN)
    return translate(TEXTS, "summary", hidden=len(items))

"""Exercise 06.3, ``select_tools`` and ``call_as``: routing by tags, refusing by role.

The registry the learner's functions receive is built beside their code from ``REGISTRY_SOURCE``
(a reference ``ToolRegistry`` whose tools change a note store), and the check builds its own
copy from the same source for the expected answers. ``call_as`` runs in one request that also
sends back which notes are left, so a refused call that ran anyway shows. Rules, the case that
breaks each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

import json
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, expect_equal, fail
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply, raise_learner_error
from course_lib.checks.lesson06._roles_and_answers import NOTEBOOK, shown_answer
from course_lib.checks.lesson06.roles.cases import (
    CALLS,
    NOTES,
    REGISTRY_SOURCE,
    SELECTIONS,
    allowed,
    any_permission,
    catalog,
    check_registry,
    expected_selection,
    hidden_selections,
    tool_tags,
    usable_tools,
)

TEXTS = Catalog() | {
    "title": "select_tools and call_as",
    "select_case": "select_tools(registry, tags={tags}, role={role})",
    "call_case": "call_as(registry, {role}, {name}, {arguments})",
    "value_error": "ValueError (an unknown role)",
    "error_result": '{{"error": "..."}} naming the role and the tool, listing the usable tools',
    "nothing_ran": "nothing run: the notes {notes} all still there",
    "ran": "the tool ran: the notes left are {notes}",
    "names_where": "the names of the tools returned (function.name)",
    "not_mentioned": "{word} is not mentioned",
    "no_mention": "no mention of tools this role may not use ({hidden})",
    "summary": "{selections} selections and {calls} role-aware calls",
}
text = TEXTS.text


def select_label(tags: Any, role: Any) -> str:
    return text("select_case", tags=repr(tags), role=repr(role))


def call_label(role: str, name: str, arguments: Any) -> str:
    return text("call_case", role=repr(role), name=repr(name), arguments=repr(arguments))


FIRST_SELECTION = select_label(None, None)
GUEST_DELETES = call_label("guest", "delete_note", {"note_id": 1})
RULES = (
    Rule("schemas", "returns the tools' schemas as `registry.schemas()` gives them, not their "
         "names", case=FIRST_SELECTION, hint="names_not_schemas"),
    Rule("order", "in registration order", case=FIRST_SELECTION, hint="order"),
    Rule("any_tag", "`tags=None` keeps every tool; otherwise a tool needs **at least one** of "
         "`tags`", case=select_label(["weather", "mail"], None), hint="any_tag"),
    Rule("empty_tags", "so `tags=[]` keeps no tool", case=select_label([], None),
         hint="empty_tags"),
    Rule("role", "`role=None` keeps every tool; otherwise keep a tool only if "
         "`allowed(role, its tags)`", case=select_label(None, "guest"), hint="role"),
    Rule("both", "with tags and a role, both filters apply", case=select_label(["notes"], "guest"),
         hint="apply_tags"),
    Rule("unknown_role", "the role comes from your program, not from the model, so an unknown "
         "role is a configuration mistake: let the `ValueError` from `allowed` through",
         case=select_label(None, "visitor"), hint="unknown_role"),
    Rule("permitted", "a permitted call returns `registry.call(name, arguments)`",
         case=call_label("guest", "get_weather", '{"city": "上海"}'), hint="permitted"),
    Rule("refuse_as_data", "a call the role may not make returns `error_text(message)` and never "
         "raises", case=GUEST_DELETES, hint="refuse_as_data"),
    Rule("no_run", "and runs nothing", case=GUEST_DELETES, hint="ran"),
    Rule("message", "the message names the role and the tool and lists the tools this role may use",
         case=GUEST_DELETES, hint="message"),
    Rule("unknown_tool", "an unregistered `name` is refused the same way",
         case=call_label("guest", "hack_the_planet", {}), hint="unknown_tool"),
    Rule("no_leak", "the message mentions no other tool the role may not use (a guest must not "
         "learn that `wipe_all_notes` exists)", case=call_label("guest", "hack_the_planet", {}),
         hint="no_leak"),
)  # fmt: skip

HINTS = Catalog() | {
    "not_list": "Return a list of OpenAI tool schemas.",
    "names_not_schemas": "Return the schemas (dicts from registry.schemas()), not the names.",
    "schemas_unchanged": "Return each tool's schema exactly as registry.schemas() gives it.",
    "order": "Keep registration order: the order of registry.names().",
    "any_tag": "A tool needs at least one of the tags, not all of them.",
    "empty_tags": (
        "tags=[] keeps no tool at all: no tool has at least one of zero tags (only tags=None "
        "turns the tag filter off)."
    ),
    "role": "Apply the role too: keep a tool only if allowed(role, its tags).",
    "every_permission": (
        "A role needs every permission a tool needs, not one of them: move_note needs read and "
        "write, so a guest (read only) may not use it. Keep a tool only if allowed(role, its "
        "tags), which applies the rule."
    ),
    "apply_tags": "Apply the tags too: keep a tool having any of them.",
    "deny_default": (
        "Deny by default: a tool without any tag the role holds (here an untagged one) is "
        "refused; allowed(role, tags) does that for you."
    ),
    "unknown_role": (
        "The role comes from your program, not from the model: an unknown role is a "
        "configuration mistake, so let allowed() raise its ValueError."
    ),
    "permitted": (
        "A permitted call returns registry.call(name, arguments) unchanged: it parses JSON "
        "text, validates, and turns errors into results for you."
    ),
    "refuse_as_data": (
        "A call the role may not make is answered with error_text(...): the model reads it "
        "as a result. Do not raise."
    ),
    "ran": (
        "The tool ran although the role may not use it: check permission before calling "
        "registry.call, and do not call it at all when refusing."
    ),
    "not_a_result": 'Answer a refused call with error_text(message): {{"error": "..."}} text.',
    "message": (
        "The error message names the role ({role}) and the requested tool ({name}) and lists "
        "the tools this role may use ({usable})."
    ),
    "unknown_tool": (
        "A name that is not registered gets the same refusal (registry.get returns None for "
        "it): answer it with error_text, do not raise."
    ),
    "no_leak": (
        "Do not reveal tools the role may not use: list only the usable ones (registry.call's "
        "unknown-tool error lists every tool, so do not pass it through)."
    ),
}
hint = HINTS.hint


# --- the check's own registry -------------------------------------------------------------------


def names_of(tools: list) -> list[str | None]:
    names = []
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        names.append(name if isinstance(name, str) else None)
    return names


def selection_hint(got: list, tags: Any, role: Any) -> HintText:
    """The hint for a wrong list of names, from what the names show."""
    expected = names_of(expected_selection(tags, role))
    if tags is not None and len(tags) == 0 and got:
        return hint("empty_tags")
    if role is not None and got == names_of(expected_selection(tags, None)):
        return hint("role")
    if role is not None and got == names_of(expected_selection(tags, role, any_permission)):
        return hint("every_permission")
    if tags is not None and got == names_of(expected_selection(None, role)):
        return hint("apply_tags")
    every_tag = [name for name, known, _ in catalog() if tags and set(tags) <= known]
    if tags is not None and len(tags) > 1 and got == every_tag:
        return hint("any_tag")
    if "debug_dump" in got and role is not None:
        return hint("deny_default")
    if sorted(map(str, got)) == sorted(map(str, expected)):
        return hint("order")
    return hint("schemas_unchanged")


# --- select_tools -------------------------------------------------------------------------------


def expect_selection(learner: Learner, registry: dict, tags: Any, role: Any) -> None:
    __tracebackhide__ = True
    case = select_label(tags, role)
    spec = learner.source(repr(tags)) if isinstance(tags, tuple) else tags  # a tuple as it is
    reply = learner.call("select_tools", registry, tags=spec, role=role, case=case)
    expected = expected_selection(tags, role)
    got = reply.value
    if "unjson" in reply.data or not isinstance(got, list):
        fail(case, names_of(expected), shown_answer(reply), hint("not_list"))
    if any(isinstance(tool, str) for tool in got):
        fail(case, names_of(expected), got, hint("names_not_schemas"))
    names = names_of(got)
    if None not in names and names != names_of(expected):
        where = text("names_where")
        fail(case, names_of(expected), names, selection_hint(names, tags, role), where=where)
    expect_equal(case, expected, got, hint=hint("schemas_unchanged"))


def expect_unknown_role_refused(case: str, reply: Reply) -> None:
    """An unknown role (``select_tools`` or ``call_as``) lets ``allowed``'s ValueError through."""
    __tracebackhide__ = True
    if not reply.raised_a("ValueError"):
        fail(case, Plain(text("value_error")), shown_answer(reply), hint("unknown_role"))


def run_call_as(learner: Learner, role: str, name: str, arguments: Any) -> Reply:
    """``call_as`` on a fresh registry; the reply is its result and the note ids left."""
    return learner.run(
        REGISTRY_SOURCE + "\nreply = call_as(registry, role, name, arguments)\n",
        result="{'reply': reply, 'notes': sorted(store)}",
        bind={"call_as": learner.target("call_as"), "role": role, "name": name,
              "arguments": arguments},
    )  # fmt: skip


def expect_call(learner: Learner, role: str, name: str, arguments: Any) -> None:
    __tracebackhide__ = True
    case = call_label(role, name, arguments)
    tags = tool_tags(name)
    permitted = tags is not None and allowed(role, tags)
    reply = run_call_as(learner, role, name, arguments)
    if reply.raised:
        key = "permitted" if permitted else "unknown_tool" if tags is None else "refuse_as_data"
        raise_learner_error(case, reply, [(lambda r: True, hint(key))])
    if "unjson" in reply.data or not isinstance(reply.value.get("reply"), str):
        fail(case, Plain(text("error_result")), shown_answer(reply), hint("not_a_result"))
    result, notes = reply.value["reply"], reply.value["notes"]
    if permitted:
        registry, _ = check_registry()
        expect_equal(case, registry.call(name, arguments), result, hint=hint("permitted"))
        return
    expect_refused(case, role, name, result, notes)


def expect_refused(case: str, role: str, name: str, result: str, notes: list) -> None:
    __tracebackhide__ = True
    if notes != NOTES:
        tags = tool_tags(name)
        held_one = tags is not None and any_permission(role, tags)
        fail(case, Plain(text("nothing_ran", notes=NOTES)), Plain(text("ran", notes=notes)),
             hint("every_permission" if held_one else "ran"))  # fmt: skip
    try:
        value = json.loads(result)
    except ValueError:
        value = None
    if not isinstance(value, dict) or not isinstance(value.get("error"), str):
        fail(case, Plain(text("error_result")), result, hint("not_a_result"))
    message = value["error"]
    usable = usable_tools(role)
    hidden = [known for known, _, _ in catalog() if known not in usable and known != name]
    if any(n in result for n in hidden):
        expected = Plain(text("no_mention", hidden=", ".join(hidden)))
        fail(case, expected, message, hint("no_leak"))
    for word in [role, name, *usable]:
        if word not in message:
            chosen = hint("message", role=role, name=name, usable=", ".join(usable))
            fail(case, Plain(text("error_result")), message, chosen,
                 where=text("not_mentioned", word=repr(word)))  # fmt: skip


@exercise(
    "06.3",
    notebook=NOTEBOOK,
    title=HintText.of(TEXTS, "title"),
    points=3,
    targets=("select_tools", "call_as"),
    rules=RULES,
    hints=HINTS,
)
def check_roles(learner: Learner) -> str:
    selections = [*SELECTIONS, *hidden_selections()]
    # The registry built once beside the learner's code, kept there for every selection.
    registry = learner.handle(learner.run(REGISTRY_SOURCE, result="registry", keep=True).handle)
    for tags, role in selections:
        expect_selection(learner, registry, tags, role)
    refused = learner.attempt("select_tools", registry, tags=None, role="visitor")
    expect_unknown_role_refused(select_label(None, "visitor"), refused)
    for role, name, arguments in CALLS:
        expect_call(learner, role, name, arguments)
    refused = run_call_as(learner, "visitor", "read_note", {"note_id": 1})
    expect_unknown_role_refused(call_label("visitor", "read_note", {"note_id": 1}), refused)
    return text("summary", selections=len(selections), calls=len(CALLS))

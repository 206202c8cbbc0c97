"""Exercise 06.3: the solution passes; a wrong select_tools or call_as fails on the rule it
breaks. Each wrong pair is the solution cell with one realistic mistake edited in."""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from course_lib.checks.lesson06._roles_and_answers import PERMISSIONS, ROLES
from course_lib.checks.lesson06.roles.cases import check_registry, expected_selection
from lesson06.notebook import EX3, solution, targets, wrong


def edited(old: str, new: str, *more: tuple[str, str]):
    return wrong("06.3", EX3, old, new, *more)


ROLE_FILTER = "if role is not None and not allowed(role, tool_tags):"
TAG_FILTER = "if tags is not None and not set(tags) & tool_tags:"
REFUSAL = "if tool is None or not allowed(role, tool.tags):"
MESSAGE = (
    'f"role {role!r} may not use a tool called {name!r}; "\n'
    "            f\"tools for this role: {', '.join(usable) or 'none'}\""
)
WRONG_BY_RULE = {
    "06.3": {
        "schemas": edited("selected.append(schema)", "selected.append(name)"),
        "order": edited(
            "    return selected\n",
            '    return sorted(selected, key=lambda tool: tool["function"]["name"])\n',
        ),
        "any_tag": edited("not set(tags) & tool_tags", "not set(tags) <= tool_tags"),
        "empty_tags": edited(TAG_FILTER, "if tags and not set(tags) & tool_tags:"),
        "role": edited(ROLE_FILTER, "if False:"),
        "both": edited(
            TAG_FILTER, "if role is None and tags is not None and not set(tags) & tool_tags:"
        ),
        "unknown_role": edited(
            "    selected = []\n",
            "    if role is not None and role not in ROLES:\n"
            "        return []\n"
            "    selected = []\n",
            (
                "    tool = registry.get(name)\n",
                "    if role not in ROLES:\n        return error_text(f'unknown role {role!r}')\n"
                "    tool = registry.get(name)\n",
            ),
        ),
        "permitted": edited(
            "    return registry.call(name, arguments)\n",
            "    return registry.get(name).function(**arguments)\n",
        ),
        "refuse_as_data": edited(
            "        return error_text(\n", "        raise PermissionError(\n"
        ),
        "no_run": edited(
            "    tool = registry.get(name)\n",
            "    result = registry.call(name, arguments)\n    tool = registry.get(name)\n",
            ("    return registry.call(name, arguments)\n", "    return result\n"),
        ),
        "message": edited(MESSAGE, '"this call is not allowed"'),
        "unknown_tool": edited(REFUSAL, "if not allowed(role, tool.tags):"),
        "no_leak": edited(REFUSAL, "if tool is not None and not allowed(role, tool.tags):"),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["06.3"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("06.3", rule, *WRONG_BY_RULE["06.3"][rule])


def test_the_solution_passes():
    assert evaluate("06.3", *targets("06.3")) == (
        "Exercise 06.3 passed: select_tools and call_as (17 selections and 11 role-aware calls)."
    )


def test_the_notebook_defines_the_roles_and_permissions_the_check_uses():
    assert solution("ROLES") == ROLES
    assert solution("PERMISSIONS") == PERMISSIONS


def test_allowed_needs_every_permission_the_tool_needs_as_lesson_09_does():
    allowed = solution("allowed")
    assert allowed("guest", {"notes", "read"}) and not allowed("guest", {"notes", "read", "write"})
    assert allowed("member", {"notes", "read", "write"}) and not allowed("admin", {"notes"})


ANY_PERMISSION = "ROLES[role] & set(tool_tags)"


def test_a_selection_by_any_permission_the_role_holds_is_told_every_permission():
    pair = edited(ROLE_FILTER, f"if role is not None and not ({ANY_PERMISSION}):")
    message = rejected("06.3", *pair)
    assert "select_tools(registry, tags=None, role='guest')" in message
    assert "needs read and write, so a guest (read only) may not use it" in message


def test_a_call_allowed_by_any_permission_the_role_holds_is_told_every_permission():
    pair = edited(REFUSAL, "if tool is None or not (ROLES[role] & set(tool.tags)):")
    message = rejected("06.3", *pair)
    assert "call_as(registry, 'guest', 'move_note'" in message
    assert "A role needs every permission a tool needs" in message


CHINESE_CALL_AS = """
def call_as(registry, role, name, arguments):
    if role not in ROLES:
        raise ValueError(f"未知角色 {role}")
    usable = [n for n in registry.names() if allowed(role, registry.get(n).tags)]
    if name not in usable:
        return error_text(f"角色 {role} 无权使用工具 {name}。可用的工具：{'、'.join(usable)}")
    return registry.call(name, arguments)
"""
COMPREHENSION_SELECT = """
def select_tools(registry, *, tags=None, role=None):
    wanted = None if tags is None else frozenset(tags)
    return [
        schema
        for schema, name in zip(registry.schemas(), registry.names())
        if (wanted is None or wanted & registry.get(name).tags)
        and (role is None or allowed(role, registry.get(name).tags))
    ]
"""


def test_correct_alternatives_written_differently_pass_chinese_messages_included():
    from lesson06.notebook import load

    namespace = load()
    exec(CHINESE_CALL_AS + COMPREHENSION_SELECT, namespace)  # noqa: S102
    result = evaluate("06.3", namespace["select_tools"], namespace["call_as"])
    assert result.startswith("Exercise 06.3 passed")


def test_the_stub_is_not_done_yet():
    pair = edited("    selected = []\n", '    raise NotImplementedError("Exercise 06.3: x")\n')
    with pytest.raises(NotDoneYet):
        evaluate("06.3", *pair)


def test_the_selection_agrees_with_the_reference_tag_filter():
    registry, _ = check_registry()
    for tags in (["notes"], ["weather", "mail"], ["admin"]):
        assert solution("select_tools")(registry, tags=tags) == registry.schemas(tags=tags)
        assert expected_selection(tags, None) == registry.schemas(tags=tags)


def test_empty_tags_show_short_lists_of_names_not_schema_dumps():
    message = rejected("06.3", *WRONG_BY_RULE["06.3"]["empty_tags"])
    assert "tags=[] keeps no tool at all" in message
    assert '"read_note"' in message and '"parameters"' not in message


def test_tags_given_as_a_tuple_arrive_as_a_tuple():
    seen = []
    select_tools, call_as = targets("06.3")

    def recording(registry, *, tags=None, role=None):
        seen.append(type(tags).__name__)
        return select_tools(registry, tags=tags, role=role)

    evaluate("06.3", recording, call_as)
    assert "tuple" in seen and "list" in seen


def test_raising_permission_error_is_told_not_to_raise():
    message = rejected("06.3", *WRONG_BY_RULE["06.3"]["refuse_as_data"])
    assert "raised PermissionError" in message and "Do not raise" in message


def test_a_refused_call_that_ran_anyway_shows_the_notes_left():
    message = rejected("06.3", *WRONG_BY_RULE["06.3"]["no_run"])
    assert "the tool ran: the notes left are [2]" in message


def test_answering_an_unknown_role_as_data_in_call_as_alone_is_a_configuration_mistake():
    pair = edited(
        "    tool = registry.get(name)\n",
        "    if role not in ROLES:\n        return error_text(f'unknown role {role!r}')\n"
        "    tool = registry.get(name)\n",
    )
    message = rejected("06.3", *pair)
    assert "call_as(registry, 'visitor', 'read_note'" in message
    assert "configuration mistake" in message


def test_passing_the_unknown_tool_error_through_is_told_not_to_leak():
    message = rejected("06.3", *WRONG_BY_RULE["06.3"]["no_leak"])
    assert "Do not reveal tools" in message and "wipe_all" in message


def test_a_message_missing_the_usable_tools_names_what_is_missing():
    message = rejected("06.3", *WRONG_BY_RULE["06.3"]["message"])
    assert "Where:    'guest' is not mentioned" in message
    assert "lists the tools this role may use (read_note, get_weather)" in message


def test_allowing_untagged_tools_is_told_deny_by_default():
    pair = edited(
        ROLE_FILTER, "if role is not None and tool_tags and not allowed(role, tool_tags):"
    )
    assert "Deny by default" in rejected("06.3", *pair)

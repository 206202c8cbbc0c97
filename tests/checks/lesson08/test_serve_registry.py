"""Exercise 08.1: the solution passes; a wrong serve_registry fails on the rule it breaks.

Every answer is a real ``Server`` (or what the learner returns instead); the check connects a
real ``ClientSession`` to it, so these tests are about what an MCP client sees on the wire.
"""

from __future__ import annotations

import json

import mcp_types as types
import pytest
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import EXERCISES, NotDoneYet, evaluate
from course_lib.checks.compare import hidden_rng
from course_lib.checks.lesson08.serve_registry.cases import (
    built_registry,
    expected_listing,
    hidden_cases,
    visible_case,
)
from course_lib.i18n import speaking

from .notebook import edited, solution

CELL = "w08-ex1"


def serve_registry_with(*edits):
    return edited("serve_registry", *((CELL, old, new) for old, new in edits))


def as_mcpserver(registry):
    server = MCPServer("my-registry")
    for tool in registry:
        server.add_tool(tool.function, name=tool.name, description=tool.description)
    return server


def sync_handlers(registry):
    def list_tools(ctx, params):
        return types.ListToolsResult(tools=[])

    def call_tool(ctx, params):
        return types.CallToolResult(content=[])

    return Server("sync", on_list_tools=list_tools, on_call_tool=call_tool)


DRIFT = (
    'input_schema=tool["function"]["parameters"],',
    'input_schema={k: v for k, v in tool["function"]["parameters"].items()'
    ' if k != "additionalProperties"},',
)
DIRECT = (
    "text = registry.call(params.name, params.arguments)",
    "tool = registry.get(params.name)\n"
    "        text = json.dumps(tool.function(**params.arguments))",
)
SPLIT = (
    'block = types.TextContent(type="text", text=text)\n'
    "        return types.CallToolResult(content=[block], is_error=is_error(text))",
    'value = json.loads(text) if text.startswith("[") else [text]\n'
    '        blocks = [types.TextContent(type="text", text=str(v)) for v in value]\n'
    "        return types.CallToolResult(content=blocks, is_error=is_error(text))",
)
RAISE_UNKNOWN = (
    "text = registry.call(params.name, params.arguments)",
    "if params.name not in registry:\n"
    '            raise ValueError(f"unknown tool {params.name}")\n'
    "        text = registry.call(params.name, params.arguments)",
)

# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE = {
    "08.1": {
        "server": as_mcpserver,
        "async": sync_handlers,
        "every_tool": serve_registry_with(
            ("for tool in registry.schemas()",
             'for tool in sorted(registry.schemas(), key=lambda t: t["function"]["name"])')
        ),
        "name": serve_registry_with(
            ('name=tool["function"]["name"],',
             'name=registry.get(tool["function"]["name"]).function.__name__,')
        ),
        "description": serve_registry_with(
            ('description=tool["function"]["description"],',
             'description=registry.get(tool["function"]["name"]).function.__doc__,')
        ),
        "schema": serve_registry_with(DRIFT),
        "call": serve_registry_with(DIRECT),
        "text_block": serve_registry_with(SPLIT),
        "only_errors": serve_registry_with(
            ("is_error=is_error(text)", 'is_error="error" in text.lower()')
        ),
        "flag_errors": serve_registry_with(("is_error=is_error(text)", "is_error=False")),
        "never_raise": serve_registry_with(RAISE_UNKNOWN),
    }
}  # fmt: skip


def test_the_solution_passes_every_registry_and_call():
    assert evaluate("08.1", solution("serve_registry")) == (
        "Exercise 08.1 passed: serve_registry (4 registries, 38 calls)."
    )


def test_the_reference_serve_registry_passes_too():
    from course_lib.reference.mcp_server import serve_registry

    assert evaluate("08.1", serve_registry).startswith("Exercise 08.1 passed")


def test_the_exercise_is_registered_with_its_notebook_points_and_target():
    spec = EXERCISES["08.1"]
    assert (spec.notebook, spec.points, spec.targets) == ("08_mcp", 3, ("serve_registry",))


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["08.1"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("08.1", rule, WRONG_BY_RULE["08.1"][rule])


def test_the_stub_is_not_done_yet():
    def serve_registry(registry):
        raise NotImplementedError("Exercise 08.1: two async handlers")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("08.1", serve_registry)


def test_a_second_json_encoding_of_the_text_is_named():
    wrong = serve_registry_with(
        ('block = types.TextContent(type="text", text=text)',
         'block = types.TextContent(type="text", text=json.dumps(text))')
    )  # fmt: skip
    assert "JSON-encoded a second time" in rejected("08.1", wrong)


def test_a_bare_list_from_the_listing_handler_is_named():
    wrong = serve_registry_with(("return types.ListToolsResult(tools=tools)", "return tools"))
    assert "not a bare list" in rejected("08.1", wrong)


def test_a_server_without_a_call_handler_is_told_to_pass_one():
    wrong = serve_registry_with(
        ("on_list_tools=list_tools, on_call_tool=call_tool", "on_list_tools=list_tools")
    )
    message = rejected("08.1", wrong)
    assert "Case: tools/call get_weather" in message and "on_call_tool=" in message


def test_returning_something_else_than_a_server_says_what_came_back():
    message = rejected("08.1", lambda registry: registry.schemas())
    assert "it returned a list" in message


def test_leaving_out_a_tool_is_told_how_many_were_expected():
    wrong = serve_registry_with(
        ("for tool in registry.schemas()", "for tool in registry.schemas()[1:]")
    )
    assert "8 tools, not 7" in rejected("08.1", wrong)


@pytest.mark.parametrize(
    "edit, case, says",
    [
        (("is_error=is_error(text)", "is_error=text.startswith('{\"error\"')"),
         'check_service({"service": "mail"})', "though not as its first key"),
        (('return isinstance(value, dict) and "error" in value', 'return "error" in value'),
         "log_levels({})", "although it mentions one"),
    ],
)  # fmt: skip
def test_a_shortcut_for_is_error_meets_the_answer_it_gets_wrong(edit, case, says):
    message = rejected("08.1", serve_registry_with(edit))
    assert f"Case: tools/call {case}" in message and says in message


IS_ERROR = 'return isinstance(value, dict) and "error" in value'


@pytest.mark.parametrize(
    "test", ['bool(value.get("error"))', 'value.get("error") is not None']
)  # fmt: skip
def test_an_error_key_holding_null_is_still_an_error(test):
    """The contract flags "a JSON object with an "error" key": the key, whatever it holds.
    A hidden registry's check_service answers {"error": null} for a service it cannot read."""
    wrong = serve_registry_with((IS_ERROR, f"return isinstance(value, dict) and {test}"))
    message = rejected("08.1", wrong)
    assert 'Case: tools/call lookup({"service": "数据库"})' in message
    assert 'whose "error" key holds null: it is still an error object' in message
    with speaking("zh-CN"):
        chinese = rejected("08.1", wrong)
    assert '它的 "error" 键的值是 null：它仍然是一个错误对象' in chinese, chinese


def flagged_by_pattern(registry):
    """is_error by a mapping pattern, which matches a dict holding "error" whatever its value."""

    async def on_list(ctx, params):
        schemas = [tool["function"] for tool in registry.schemas()]
        tools = [types.Tool(name=f["name"], description=f["description"],
                            input_schema=f["parameters"]) for f in schemas]  # fmt: skip
        return types.ListToolsResult(tools=tools)

    async def on_call(ctx, params):
        answer = registry.call(params.name, params.arguments)
        try:
            match json.loads(answer):
                case {"error": _}:
                    flagged = True
                case _:
                    flagged = False
        except ValueError:
            flagged = False
        block = types.TextContent(type="text", text=answer)
        return types.CallToolResult(content=[block], is_error=flagged)

    return Server("by-pattern", on_list_tools=on_list, on_call_tool=on_call)


def test_an_error_test_by_mapping_pattern_passes():
    assert evaluate("08.1", flagged_by_pattern).startswith("Exercise 08.1 passed")


def test_one_block_per_line_of_the_text_is_one_block_too_many():
    wrong = serve_registry_with(
        ("content=[block]",
         "content=[types.TextContent(type='text', text=line) for line in text.splitlines()]")
    )  # fmt: skip
    message = rejected("08.1", wrong)
    assert 'Case: tools/call forecast({"city": "上海"})' in message
    assert "exactly one text block" in message


def test_hidden_registries_are_fixed_and_vary_names_descriptions_and_order():
    cases = hidden_cases(hidden_rng("08.1"))
    assert [case.setup for case in cases] == [
        case.setup for case in hidden_cases(hidden_rng("08.1"))
    ]
    names = [tuple(case.function_names) for case in cases]
    assert len(set(names)) == len(names)
    assert any(name != function for case in cases for name, function in case.function_names.items())
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in case.setup) for case in cases)


def test_the_visible_registry_lists_a_renamed_tool_and_answers_errors_as_error_objects():
    case = visible_case()
    listing = expected_listing(case.setup)
    assert [tool["name"] for tool in listing][:2] == ["get_weather", "search_notes"]
    registry = built_registry(case.setup)
    assert "error" in json.loads(registry.call("find_colleague", {"name": "王五"}))
    assert registry.call("explain_error", {"code": 404}) == "Error 404 means: Not Found"


def served_differently(registry):
    """The listing built by a helper, is_error decided without a helper of its own."""

    def listing():
        return [
            types.Tool(
                name=tool["function"]["name"],
                description=tool["function"]["description"],
                input_schema=tool["function"]["parameters"],
            )
            for tool in registry.schemas()
        ]

    async def on_list(ctx, params):
        return types.ListToolsResult(tools=listing())

    async def on_call(ctx, params):
        answer = registry.call(params.name, params.arguments)
        try:
            parsed = json.loads(answer)
        except json.JSONDecodeError:
            parsed = None
        flagged = isinstance(parsed, dict) and "error" in parsed
        block = types.TextContent(type="text", text=answer)
        return types.CallToolResult(content=[block], is_error=flagged)

    return Server("served-differently", on_list_tools=on_list, on_call_tool=on_call)


def test_a_server_written_differently_passes_too():
    assert evaluate("08.1", served_differently).startswith("Exercise 08.1 passed")

"""SchemaExplorer's model without a browser: set the source and format, read the state."""

from __future__ import annotations

import pytest

from course_lib.reference import function_to_tool, parameters_schema
from course_lib.widgets import SchemaExplorer
from course_lib.widgets.schema_explorer import DEFAULT_SOURCE, SourceError, function_from_source

ADD = '''def add(a: int, b: int = 2) -> int:
    """Add two numbers."""
    return a + b
'''


def test_the_default_source_shows_get_weather_as_an_openai_tool():
    explorer = SchemaExplorer()
    assert explorer.error is None
    assert explorer.tool["function"]["name"] == "get_weather"
    assert explorer.tool["function"]["parameters"]["required"] == ["city"]
    assert "get_weather" in explorer.output.value


def test_changing_the_source_changes_the_tool_and_the_output():
    explorer = SchemaExplorer()
    before = explorer.output.value
    explorer.source_input.value = ADD  # what typing in the browser does
    assert explorer.tool["function"]["name"] == "add"
    assert explorer.tool["function"]["parameters"]["properties"]["b"]["default"] == 2
    assert explorer.output.value != before
    assert "add" in explorer.output.value and "get_weather" not in explorer.output.value


@pytest.mark.parametrize(
    ("format", "key"),
    [("openai", "function"), ("responses", "strict"), ("anthropic", "input_schema"),
     ("gemini", "parameters")],
)  # fmt: skip
def test_switching_the_format_shows_that_formats_shape(format, key):
    explorer = SchemaExplorer(ADD)
    explorer.format_input.value = format
    assert key in explorer.tool
    assert explorer.tool == function_to_tool(function_from_source(ADD), format=format)


def test_strict_format_makes_every_parameter_required():
    explorer = SchemaExplorer(ADD, format="strict")
    function = explorer.tool["function"]
    assert function["strict"] is True
    assert sorted(function["parameters"]["required"]) == ["a", "b"]
    assert "OpenAI strict mode" in explorer.text()


def test_star_args_is_an_inline_error_naming_the_parameter():
    explorer = SchemaExplorer("def f(*values: int) -> int:\n    return 0\n")
    assert explorer.tool is None
    assert "*values" in explorer.error
    assert "course-error" in explorer.output.value
    assert "Traceback" not in explorer.output.value
    assert explorer.text().splitlines()[1].startswith("error: TypeError")


def test_an_unannotated_parameter_is_an_inline_error():
    explorer = SchemaExplorer("def f(city):\n    return city\n")
    assert "'city' has no type annotation" in explorer.error


def test_a_syntax_error_names_the_line():
    explorer = SchemaExplorer("x = 1\ndef f(city: str:\n    pass\n")
    assert explorer.error.startswith("Syntax error on line 2")


def test_source_without_a_function_says_to_define_one():
    with pytest.raises(SourceError, match="define one"):
        function_from_source("x = 1\n")


def test_code_that_raises_while_running_is_reported_not_raised():
    explorer = SchemaExplorer("import not_a_module_here\ndef f(a: int): pass\n")
    assert explorer.error.startswith("Running the code raised ModuleNotFoundError")


def test_the_source_runs_in_a_fresh_namespace_each_time():
    explorer = SchemaExplorer("SEEN = 1\ndef f(a: int): pass\n")
    explorer.source = "def g(a: SEEN): pass\n"  # SEEN from the previous run must not leak
    assert "SEEN" in explorer.error


def test_the_last_function_defined_is_the_one_shown():
    explorer = SchemaExplorer(ADD + "\n\ndef second(text: str) -> str:\n    return text\n")
    assert explorer.tool["function"]["name"] == "second"


def test_future_annotations_in_the_source_still_resolve():
    explorer = SchemaExplorer("from __future__ import annotations\n" + ADD)
    assert explorer.tool["function"]["parameters"]["properties"]["a"] == {"type": "integer"}


def test_an_unknown_format_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="openai, responses, anthropic, gemini, strict"):
        SchemaExplorer(format="mistral")


# -- compare ---------------------------------------------------------------------------------


def sloppy_parameters(func):
    """A learner's converter with two typical mistakes: everything required, no closing flag."""
    schema = parameters_schema(func)
    schema["required"] = list(schema["properties"])
    del schema["additionalProperties"]
    return schema


def test_compare_with_a_matching_converter_says_it_matches():
    explorer = SchemaExplorer(ADD, compare=parameters_schema)
    assert explorer.differences == []
    assert "Yours matches the reference." in explorer.text()


def test_compare_highlights_the_first_differing_paths():
    explorer = SchemaExplorer(ADD, compare=sloppy_parameters)
    found = [(d.path, d.kind) for d in explorer.differences]
    assert found == [("$.required[1]", "extra"), ("$.additionalProperties", "missing")]
    assert 'data-path="$.additionalProperties"' in explorer.output.value  # missing: on the left
    assert 'data-path="$.required[1]"' in explorer.learner_view.value  # extra: on the right
    assert "2 differences from the reference:" in explorer.diff_view.value


def test_compare_a_whole_tool_against_the_reference_tool_in_the_chosen_format():
    explorer = SchemaExplorer(ADD, compare=lambda f: function_to_tool(f, format="anthropic"))
    assert explorer.differences  # compared with the OpenAI tool: different shape
    explorer.format = "anthropic"
    assert explorer.differences == []


def test_compare_shows_the_learners_exception_inline():
    def unfinished(func):
        raise NotImplementedError("Exercise 02.2: build the parameters schema")

    explorer = SchemaExplorer(ADD, compare=unfinished)
    assert explorer.learner_error == (
        "Your converter raised NotImplementedError: Exercise 02.2: build the parameters schema"
    )
    assert "course-error" in explorer.learner_view.value


def test_compare_says_when_the_reference_refuses_what_the_learner_accepted():
    explorer = SchemaExplorer("def f(*args: int): pass\n", compare=lambda f: {"type": "object"})
    assert "The reference refuses this function; yours accepted it." in explorer.text()


def test_the_text_form_is_deterministic_and_readable():
    assert SchemaExplorer().text() == SchemaExplorer(DEFAULT_SOURCE).text()
    assert repr(SchemaExplorer()) == SchemaExplorer().text()
    assert '"city"' in SchemaExplorer().text()


def test_any_of_bare_types_and_a_type_list_are_not_a_difference():
    def any_of_spelling(func):
        schema = parameters_schema(func)
        schema["properties"]["limit"] = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
        return schema

    source = "def f(limit: int | None) -> None:\n    pass\n"
    assert (
        parameters_schema(function_from_source(source))["properties"]["limit"]
        != (any_of_spelling(function_from_source(source))["properties"]["limit"])
    )
    assert SchemaExplorer(source, compare=any_of_spelling).differences == []

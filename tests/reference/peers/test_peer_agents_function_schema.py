"""The OpenAI Agents SDK's ``function_schema`` tests, translated to ``course_lib.reference``.

Peer: openai/openai-agents-python, ``tests/test_function_schema.py``. Their
``function_schema(f)`` gives a JSON schema and a pydantic model that validates and calls; ours
are ``parameters_schema`` / ``function_to_tool`` and ``ToolRegistry.call``, so "parse the input
and call the function" becomes one ``registry.call``. Left out, as a different job: the
``RunContextWrapper`` cases (the SDK injects a run context; we have no such parameter). Each test
names the case it comes from; where our convention differs on purpose, it asserts ours and says
why in one line.
"""

import json
from collections.abc import Mapping
from enum import Enum
from typing import Annotated, Any, Literal

import pytest
import typing_extensions as te
from pydantic import BaseModel, Field

from course_lib.reference import ToolRegistry, function_to_tool, parameters_schema
from course_lib.reference.docstrings import parse_docstring

PEER = "openai/openai-agents-python tests/test_function_schema.py"


def registered(func) -> ToolRegistry:
    registry = ToolRegistry()
    registry.tool(func)
    return registry


def rejected(result: str) -> bool:
    return "error" in json.loads(result) if result.startswith("{") else False


def no_args_function():
    """This function has no args."""
    return "ok"


# test_no_args_function
def test_function_without_arguments():
    tool = function_to_tool(no_args_function)["function"]
    assert tool["description"] == "This function has no args."
    assert tool["parameters"]["properties"] == {}
    assert registered(no_args_function).call("no_args_function", {}) == "ok"


def simple_function(a: int, b: int = 5):
    """
    Args:
        a: The first argument
        b: The second argument

    Returns:
        The sum of a and b
    """
    return a + b


# test_simple_function (a docstring that is only an Args section)
def test_docstring_of_only_sections_gives_parameter_texts_and_no_description():
    tool = function_to_tool(simple_function)["function"]
    assert "description" not in tool
    props = tool["parameters"]["properties"]
    assert props["a"]["description"] == "The first argument"
    assert props["b"]["description"] == "The second argument"
    registry = registered(simple_function)
    assert registry.call("simple_function", {"a": 3}) == "8"
    assert registry.call("simple_function", {"a": 3, "b": 10}) == "13"
    assert rejected(registry.call("simple_function", {"a": "not an integer"}))


# test_varargs_function
def test_varargs_and_kwargs_are_refused():
    def varargs_function(x: int, *numbers: float, flag: bool = False, **kwargs: Any):
        return x, numbers, flag, kwargs

    # Ours refuses them, naming the parameter: a model sends named JSON arguments only.
    with pytest.raises(TypeError, match=r"parameter '\*numbers' cannot be a tool argument"):
        parameters_schema(varargs_function)


class Foo(te.TypedDict):
    a: int
    b: str


class InnerModel(BaseModel):
    a: int
    b: str


class OuterModel(BaseModel):
    inner: InnerModel
    foo: Foo


def complex_args_function(model: OuterModel) -> str:
    return f"{model.inner.a}, {model.inner.b}, {model.foo['a']}, {model.foo['b']}"


# test_nested_data_function
def test_nested_model_and_typed_dict_arguments_are_converted_before_the_call():
    model = OuterModel(inner=InnerModel(a=1, b="hello"), foo=Foo(a=2, b="world"))
    registry = registered(complex_args_function)
    result = registry.call("complex_args_function", {"model": model.model_dump()})
    assert result == "1, hello, 2, world"


def complex_args_and_docs_function(model: OuterModel, some_flag: int = 0) -> str:
    """
    This function takes a model and a flag, and returns a string.

    Args:
        model: A model with an inner and foo field
        some_flag: An optional flag with a default of 0

    Returns:
        A string with the values of the model and flag
    """
    return f"{model.inner.a}, {model.inner.b}, {model.foo['a']}, {model.foo['b']}, {some_flag}"


# test_complex_args_and_docs_function
def test_docstring_descriptions_defaults_and_validation_with_nested_arguments():
    props = parameters_schema(complex_args_and_docs_function)["properties"]
    assert props["model"]["description"] == "A model with an inner and foo field"
    assert props["some_flag"]["description"] == "An optional flag with a default of 0"
    registry = registered(complex_args_and_docs_function)
    dumped = OuterModel(inner=InnerModel(a=1, b="hello"), foo=Foo(a=2, b="world")).model_dump()
    assert registry.call("complex_args_and_docs_function", {"model": dumped}) == (
        "1, hello, 2, world, 0"
    )
    bad = {"model": dumped, "some_flag": "not an int"}
    assert rejected(registry.call("complex_args_and_docs_function", bad))


class MyClass:
    def foo(self, a: int, b: int = 5):
        return a + b

    @classmethod
    def bar(cls, a: int, b: int = 5):
        return a + b

    @staticmethod
    def baz(a: int, b: int = 5):
        return a + b


# test_class_based_functions (the cases without a run context)
@pytest.mark.parametrize(
    "method",
    [MyClass().foo, MyClass.bar, MyClass.baz],
    ids=["bound", "classmethod", "staticmethod"],
)
def test_bound_methods_classmethods_and_staticmethods_are_tools(method):
    registry = registered(method)
    assert registry.call(method.__name__, {"a": 1, "b": 2}) == "3"
    assert function_to_tool(method)["function"]["name"] == method.__name__


class MyEnum(str, Enum):
    FOO = "foo"
    BAR = "bar"
    BAZ = "baz"


def enum_and_literal_function(a: MyEnum, b: Literal["a", "b", "c"]) -> str:
    return f"{a.value} {b}"


# test_enum_and_literal_function
def test_enum_and_literal_become_enums_and_are_validated():
    props = parameters_schema(enum_and_literal_function)["properties"]
    # Ours inlines a definition used once (theirs: $defs/MyEnum): fewer tokens, same values.
    assert props["a"] == {"type": "string", "enum": ["foo", "bar", "baz"]}
    assert props["b"] == {"type": "string", "enum": ["a", "b", "c"]}
    registry = registered(enum_and_literal_function)
    assert registry.call("enum_and_literal_function", {"a": "foo", "b": "a"}) == "foo a"
    assert rejected(registry.call("enum_and_literal_function", {"a": "nope", "b": "a"}))
    assert rejected(registry.call("enum_and_literal_function", {"a": "foo", "b": "nope"}))


# test_var_positional_tuple_annotation
def test_var_positional_with_a_tuple_annotation_is_refused():
    def func(*args: tuple[int, ...]) -> int:
        return sum(sum(arg) for arg in args)

    # Ours: see test_varargs_and_kwargs_are_refused; the message suggests a list parameter.
    with pytest.raises(TypeError, match=r"replace it with a named list parameter"):
        parameters_schema(func)


# test_var_keyword_dict_annotation
def test_var_keyword_with_a_dict_annotation_is_refused():
    def func(**kwargs: dict[str, int]):
        return kwargs

    # Ours: see test_varargs_and_kwargs_are_refused.
    with pytest.raises(TypeError, match=r"parameter '\*\*kwargs' cannot be a tool argument"):
        parameters_schema(func)


# test_schema_with_mapping_raises_strict_mode_error
def test_mapping_is_refused_in_strict_mode():
    def func_with_mapping(test_one: Mapping[str, int]) -> str:
        return "foo"

    with pytest.raises(ValueError, match=r"parameters\.test_one: .*open map"):
        function_to_tool(func_with_mapping, strict=True)


# test_name_override_without_docstring
def test_name_override():
    def foo(x: int) -> int:
        return x

    assert function_to_tool(foo, name="custom")["function"]["name"] == "custom"
    registry = ToolRegistry()
    registry.tool(foo, name="custom")
    assert registry.call("custom", {"x": 4}) == "4"


# test_function_uses_annotated_descriptions_without_docstring
def test_annotated_text_is_the_description():
    def add(a: Annotated[int, "First number to add"], b: Annotated[int, "Second number to add"]):
        return a + b

    props = parameters_schema(add)["properties"]
    assert props["a"]["description"] == "First number to add"
    assert props["b"]["description"] == "Second number to add"


# test_function_prefers_docstring_descriptions_over_annotated_metadata
def test_annotated_description_wins_over_the_docstring():
    def add(
        a: Annotated[int, "Annotated description for a"],
        b: Annotated[int, "Annotated description for b"],
    ) -> int:
        """Adds two integers.

        Args:
            a: Docstring provided description.
        """
        return a + b

    # Ours prefers the annotation (theirs the docstring): it sits on the parameter itself.
    props = parameters_schema(add)["properties"]
    assert props["a"]["description"] == "Annotated description for a"
    assert props["b"]["description"] == "Annotated description for b"


# test_function_with_field_description_merge
def test_field_description_wins_over_the_docstring():
    def func_with_field_and_docstring(
        param_with_field_desc: int = Field(..., description="Field description"),
        param_with_both: str = Field(default="hello", description="Field description"),
    ) -> str:
        """
        Function with both field and docstring descriptions.

        Args:
            param_with_field_desc: Docstring description
            param_with_both: Docstring description
        """
        return f"{param_with_field_desc}: {param_with_both}"

    # Ours: see test_annotated_description_wins_over_the_docstring; Field() is such an annotation.
    props = parameters_schema(func_with_field_and_docstring)["properties"]
    assert props["param_with_field_desc"]["description"] == "Field description"
    assert props["param_with_both"]["description"] == "Field description"


def func_with_field_desc_only(
    param_with_field_desc: int = Field(..., description="Field description only"),
    param_without_desc: str = Field(default="hello"),
) -> str:
    return f"{param_with_field_desc}: {param_without_desc}"


# test_function_with_field_description_only
def test_field_description_without_a_docstring():
    props = parameters_schema(func_with_field_desc_only)["properties"]
    assert props["param_with_field_desc"]["description"] == "Field description only"
    assert "description" not in props["param_without_desc"]
    registry = registered(func_with_field_desc_only)
    assert registry.call("func_with_field_desc_only", {"param_with_field_desc": 1}) == "1: hello"


def _string_field_case(annotated: bool):
    if annotated:

        def greet(
            name: Annotated[str, Field(..., min_length=3, max_length=20, pattern=r"^[A-Za-z]+$")],
        ) -> str:
            return f"Hello, {name}!"

    else:

        def greet(  # type: ignore[misc]
            name: str = Field(..., min_length=3, max_length=20, pattern=r"^[A-Za-z]+$"),
        ) -> str:
            return f"Hello, {name}!"

    return greet


# test_function_with_field_string_constraints, test_function_with_annotated_field_string_constraints
@pytest.mark.parametrize("annotated", [False, True], ids=["Field-default", "Annotated-Field"])
def test_string_constraints_of_a_field(annotated):
    greet = _string_field_case(annotated)
    schema = parameters_schema(greet)
    assert schema["properties"]["name"] == {
        "type": "string",
        "minLength": 3,
        "maxLength": 20,
        "pattern": r"^[A-Za-z]+$",
    }
    assert schema["required"] == ["name"]
    registry = registered(greet)
    assert registry.call("greet", {"name": "Alice"}) == "Hello, Alice!"
    for name in ("Al", "A" * 25, "Alice123"):
        assert rejected(registry.call("greet", {"name": name})), name


def _multiple_constraints_case(annotated: bool):
    if annotated:

        def score_it(
            score: Annotated[int, Field(..., ge=0, le=100, description="Score from 0 to 100")],
            name: Annotated[str, Field(default="Unknown", min_length=1, max_length=50)],
            factor: Annotated[float, Field(default=1.0, gt=0.0, description="Positive multiplier")],
        ) -> str:
            return f"{name} scored {score * factor}"

    else:

        def score_it(  # type: ignore[misc]
            score: int = Field(..., ge=0, le=100, description="Score from 0 to 100"),
            name: str = Field(default="Unknown", min_length=1, max_length=50),
            factor: float = Field(default=1.0, gt=0.0, description="Positive multiplier"),
        ) -> str:
            return f"{name} scored {score * factor}"

    return score_it


# test_function_with_field_multiple_constraints,
# test_function_with_annotated_field_multiple_constraints
@pytest.mark.parametrize("annotated", [False, True], ids=["Field-default", "Annotated-Field"])
def test_several_fields_with_constraints_descriptions_and_defaults(annotated):
    score_it = _multiple_constraints_case(annotated)
    schema = parameters_schema(score_it)
    assert schema["properties"] == {
        "score": {
            "type": "integer",
            "minimum": 0,
            "maximum": 100,
            "description": "Score from 0 to 100",
        },
        "name": {"type": "string", "minLength": 1, "maxLength": 50, "default": "Unknown"},
        "factor": {
            "type": "number",
            "exclusiveMinimum": 0.0,
            "description": "Positive multiplier",
            "default": 1.0,
        },
    }
    assert schema["required"] == ["score"]  # an Annotated Field default makes it optional too
    registry = registered(score_it)
    assert registry.call("score_it", {"score": 85}) == "Unknown scored 85.0"
    given = {"score": 90, "name": "Alice", "factor": 1.5}
    assert registry.call("score_it", given) == "Alice scored 135.0"
    for bad in ({"score": 150}, {"score": 50, "name": ""}, {"score": 50, "factor": 0.0}):
        assert rejected(registry.call("score_it", bad)), bad


def _required_bounds_case(annotated: bool):
    if annotated:

        def double(my_number: Annotated[int, Field(..., gt=10, le=100)]) -> int:
            return my_number * 2

    else:

        def double(my_number: int = Field(..., gt=10, le=100)) -> int:  # type: ignore[misc]
            return my_number * 2

    return double


# test_function_with_field_required_constraints,
# test_function_with_annotated_field_required_constraints
@pytest.mark.parametrize("annotated", [False, True], ids=["Field-default", "Annotated-Field"])
def test_field_with_dots_is_required_and_its_constraints_apply(annotated):
    double = _required_bounds_case(annotated)
    schema = parameters_schema(double)
    assert schema["properties"]["my_number"] == {
        "type": "integer",
        "exclusiveMinimum": 10,
        "maximum": 100,
    }
    assert schema["required"] == ["my_number"]
    registry = registered(double)
    assert registry.call("double", {"my_number": 50}) == "100"
    for value in (5, 150):
        assert rejected(registry.call("double", {"my_number": value}))
    assert rejected(registry.call("double", {}))


def _optional_field_case(annotated: bool):
    if annotated:

        def show(required_param: str, optional_param: Annotated[float, Field(default=5.0, ge=0.0)]):
            return f"{required_param}: {optional_param}"

    else:

        def show(required_param: str, optional_param: float = Field(default=5.0, ge=0.0)):  # type: ignore[misc]
            return f"{required_param}: {optional_param}"

    return show


# test_function_with_field_optional_with_default,
# test_function_with_annotated_field_optional_with_default
@pytest.mark.parametrize("annotated", [False, True], ids=["Field-default", "Annotated-Field"])
def test_field_default_is_optional_in_the_schema_and_filled_by_dispatch(annotated):
    show = _optional_field_case(annotated)
    schema = parameters_schema(show)
    assert schema["properties"]["optional_param"] == {
        "type": "number",
        "minimum": 0.0,
        "default": 5.0,
    }
    assert schema["required"] == ["required_param"]
    registry = registered(show)
    assert registry.call("show", {"required_param": "test"}) == "test: 5.0"
    assert registry.call("show", {"required_param": "t", "optional_param": 10.5}) == "t: 10.5"
    assert rejected(registry.call("show", {"required_param": "t", "optional_param": -1.0}))


def missing_blank_line_google_function(city: str, units: str):
    """Get the weather for a city.
    Args:
        city: The city to get weather for.
        units: Temperature units to use.
    """
    return f"{city} {units}"


def blank_line_google_function(city: str, units: str):
    """Get the weather for a city.

    Args:
        city: The city to get weather for.
        units: Temperature units to use.
    """
    return f"{city} {units}"


WEATHER_PARAMS = {
    "city": "The city to get weather for.",
    "units": "Temperature units to use.",
}


# test_google_docstring_missing_blank_line_before_args
def test_args_right_after_the_summary_without_a_blank_line():
    tool = function_to_tool(missing_blank_line_google_function)["function"]
    assert tool["description"] == "Get the weather for a city."
    props = tool["parameters"]["properties"]
    assert {name: prop["description"] for name, prop in props.items()} == WEATHER_PARAMS


# test_google_docstring_missing_blank_line_matches_blank_line_form
def test_missing_blank_line_gives_the_same_tool_as_the_blank_line():
    fixed = function_to_tool(missing_blank_line_google_function)["function"]
    control = function_to_tool(blank_line_google_function)["function"]
    assert fixed["description"] == control["description"]
    assert fixed["parameters"] == control["parameters"]


# test_google_docstring_blank_line_form_is_unchanged
def test_well_formed_google_docstring_parses_as_written():
    doc = parse_docstring(blank_line_google_function.__doc__)
    assert doc.description == "Get the weather for a city."
    assert doc.params == WEATHER_PARAMS


# test_google_docstring_missing_blank_line_function_tool
def test_missing_blank_line_through_the_registry_decorator():
    registry = ToolRegistry()

    @registry.tool
    def weather(city: str, units: str) -> str:
        """Get the weather for a city.
        Args:
            city: The city to get weather for.
            units: Temperature units to use.
        """
        return f"{city} {units}"

    (tool,) = registry.schemas()
    props = tool["function"]["parameters"]["properties"]
    assert {name: prop["description"] for name, prop in props.items()} == WEATHER_PARAMS
    assert "Args:" not in tool["function"]["description"]


def section_body_before_args_google_function(city: str, units: str):
    """Get the weather for a city.

    Note:
        Results are cached.
    Args:
        city: The city to get weather for.
        units: Temperature units to use.
    """
    return f"{city} {units}"


def section_body_before_args_blank_line_google_function(city: str, units: str):
    """Get the weather for a city.

    Note:
        Results are cached.

    Args:
        city: The city to get weather for.
        units: Temperature units to use.
    """
    return f"{city} {units}"


# test_google_docstring_missing_blank_line_after_section_body
def test_args_right_after_another_sections_body():
    tool = function_to_tool(section_body_before_args_google_function)["function"]
    props = tool["parameters"]["properties"]
    assert {name: prop["description"] for name, prop in props.items()} == WEATHER_PARAMS
    assert "Args:" not in tool["description"]
    # Ours keeps the Note in the description: it is prose meant for the reader (the model).
    assert tool["description"] == "Get the weather for a city.\n\nNote:\n    Results are cached."


# test_google_docstring_after_section_body_matches_blank_line_form
def test_args_after_a_section_body_with_or_without_a_blank_line_agree():
    fixed = function_to_tool(section_body_before_args_google_function)["function"]
    control = function_to_tool(section_body_before_args_blank_line_google_function)["function"]
    assert fixed == {**control, "name": fixed["name"]}


# test_variadic_param_descriptions_preserved (google, numpy and sphinx styles)
@pytest.mark.parametrize("style", ["google", "numpy", "sphinx"])
def test_variadic_parameters_are_refused_whatever_the_docstring_style(style):
    docs = {
        "google": """Add numbers to a base.

        Args:
            x: The base value.
            *numbers: The numbers to add.
        """,
        "numpy": """Add numbers to a base.

        Parameters
        ----------
        x : int
            The base value.
        *numbers : float
            The numbers to add.
        """,
        "sphinx": """Add numbers to a base.

        :param x: The base value.
        :param numbers: The numbers to add.
        """,
    }

    def add(x: int, *numbers: float) -> str:
        return f"{x} {numbers}"

    add.__doc__ = docs[style]
    assert parse_docstring(add.__doc__).params["x"] == "The base value."
    # Ours refuses *numbers (see test_varargs_and_kwargs_are_refused), documented or not.
    with pytest.raises(TypeError, match=r"'\*numbers' cannot be a tool argument"):
        parameters_schema(add)


class _ElementwiseEqual:
    """Mimics numpy-array equality: ``==`` returns a container whose truthiness raises."""

    def __eq__(self, other: object) -> Any:
        return _ElementwiseEqual()

    def __ne__(self, other: object) -> Any:
        return _ElementwiseEqual()

    def __bool__(self) -> bool:
        raise ValueError("The truth value of an elementwise comparison is ambiguous.")

    def __hash__(self) -> int:
        return 0


class _AlwaysEqual:
    """A default whose ``__eq__`` answers True for anything, including sentinels."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0


# test_default_equality_is_not_used_for_sentinel_comparison (both parameters)
@pytest.mark.parametrize("default", [_ElementwiseEqual(), _AlwaysEqual()], ids=type)
def test_defaults_with_odd_equality_stay_optional_and_reach_the_tool(default):
    def tool(x: int, value: Any = default) -> str:
        return type(value).__name__

    schema = parameters_schema(tool)
    assert schema["required"] == ["x"]
    assert "default" not in schema["properties"]["value"]  # not JSON: left out, not guessed
    assert registered(tool).call("tool", {"x": 1}) == type(default).__name__

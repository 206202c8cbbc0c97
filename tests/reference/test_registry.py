"""ToolRegistry registration: decorator forms, names, duplicates, tags, metadata, cached schemas."""

from __future__ import annotations

import dataclasses
import functools

import pydantic
import pytest

from course_lib.reference import ToolRegistry, function_to_tool, parameters
from course_lib.reference.registry import MAX_NAME_LENGTH, RegisteredTool, check_tool_name


def get_weather(city: str, unit: str = "c") -> str:
    """Current weather for a city.

    Args:
        city: City name, e.g. 北京.
        unit: "c" or "f".
    """
    return f"{city}: 21{unit}"


def search_notes(keyword: str, limit: int = 5) -> list[str]:
    """Search the notes."""
    return [keyword] * limit


# -- the three decorator forms ------------------------------------------------------------------


def test_the_bare_decorator_registers_under_the_function_name_and_returns_it_unchanged():
    registry = ToolRegistry()
    decorated = registry.tool(get_weather)
    assert decorated is get_weather
    assert registry.names() == ["get_weather"]
    assert registry.get("get_weather").description.startswith("Current weather for a city.")


def test_the_description_form_overrides_the_docstring():
    registry = ToolRegistry()

    @registry.tool("Look up today's weather in one city.")
    def weather(city: str) -> str:
        """Ignored docstring."""
        return city

    assert weather("x") == "x"  # still the plain function
    (tool,) = registry.schemas()
    assert tool["function"]["description"] == "Look up today's weather in one city."


def test_the_keyword_form_sets_name_description_tags_and_metadata():
    registry = ToolRegistry()

    @registry.tool(
        name="notes_search",
        description="Search my notes.",
        tags=["notes", "read"],
        owner="team-notes",
        version="2.1",
    )
    def search(keyword: str) -> str:
        return keyword

    record = registry.get("notes_search")
    assert isinstance(record, RegisteredTool)
    assert record.function is search
    assert (record.description, record.tags) == ("Search my notes.", frozenset({"notes", "read"}))
    assert (record.owner, record.version) == ("team-notes", "2.1")
    assert "search" not in registry


def test_the_plain_call_form_works_like_the_decorator():
    registry = ToolRegistry()
    assert registry.tool("Search the notes.")(search_notes) is search_notes
    assert registry.tool(get_weather, name="weather_now") is get_weather
    assert registry.names() == ["search_notes", "weather_now"]
    assert registry.get("search_notes").description == "Search the notes."


def test_the_empty_keyword_form_behaves_like_the_bare_decorator():
    registry = ToolRegistry()
    assert registry.tool()(get_weather) is get_weather
    assert registry.names() == ["get_weather"]


def test_a_description_given_twice_is_refused():
    with pytest.raises(TypeError, match="description given twice"):
        ToolRegistry().tool("one", description="two")


def test_something_that_is_neither_a_function_nor_a_description_is_refused():
    with pytest.raises(TypeError, match="expects a function or a description string, got int"):
        ToolRegistry().tool(42)


def test_bound_methods_and_partials_register_without_self_or_fixed_arguments():
    class Notes:
        def find(self, keyword: str) -> str:
            """Find a note."""
            return f"found {keyword}"

    registry = ToolRegistry()
    registry.tool(Notes().find)
    registry.tool(functools.partial(search_notes, limit=2), name="two_notes")
    assert list(registry.get("find").parameters["properties"]) == ["keyword"]
    assert list(registry.get("two_notes").parameters["properties"]) == ["keyword"]
    assert registry.call("find", {"keyword": "a"}) == "found a"
    assert registry.call("two_notes", {"keyword": "a"}) == '["a", "a"]'


def test_what_reflection_cannot_represent_fails_at_registration_naming_the_parameter():
    registry = ToolRegistry()

    def bad(*items: str) -> str:
        return ""

    with pytest.raises(TypeError, match="items"):
        registry.tool(bad)
    assert len(registry) == 0


# -- names ---------------------------------------------------------------------------------------


def test_a_duplicate_name_is_refused_naming_the_existing_function_and_replace():
    registry = ToolRegistry()
    registry.tool(get_weather)

    def other(city: str) -> str:
        return city

    with pytest.raises(ValueError) as caught:
        registry.tool(other, name="get_weather")
    message = str(caught.value)
    assert "'get_weather' is already registered" in message
    assert f"{__name__}.get_weather" in message and "replace=True" in message
    assert registry.get("get_weather").function is get_weather  # nothing was overwritten


def test_replace_true_replaces_the_tool_and_keeps_its_position():
    registry = ToolRegistry()
    registry.tool(get_weather)
    registry.tool(search_notes)

    @registry.tool(name="get_weather", replace=True)
    def weather_v2(city: str) -> str:
        return "v2"

    assert registry.names() == ["get_weather", "search_notes"]
    assert registry.call("get_weather", {"city": "x"}) == "v2"
    assert len(registry) == 2


@pytest.mark.parametrize(
    "name, rule",
    [
        ("", "cannot be empty"),
        ("get weather", "contains ' '"),
        ("get.weather", "contains '.'"),
        ("天气", "contains"),
        ("<lambda>", "contains '<', '>'"),
        ("a" * (MAX_NAME_LENGTH + 1), "is 65 characters long"),
        ("1weather", "Gemini requires a letter or '_' first"),
        ("-weather", "Gemini requires a letter or '_' first"),
    ],
)
def test_names_every_provider_would_refuse_are_refused_saying_which_rule_broke(name, rule):
    with pytest.raises(ValueError, match=rule):
        check_tool_name(name)


@pytest.mark.parametrize("name", ["get_weather", "_private", "a", "kebab-case", "A" * 64, "v2_x"])
def test_names_every_provider_accepts_are_accepted(name):
    check_tool_name(name)


def test_a_lambda_needs_an_explicit_name_and_works_with_one():
    registry = ToolRegistry()

    def make() -> object:
        return lambda: "pong"

    with pytest.raises(ValueError, match="pass name="):
        registry.tool(make())
    registry.tool(make(), name="ping")
    assert registry.call("ping") == "pong"


# -- lookup --------------------------------------------------------------------------------------


def test_names_get_contains_and_len():
    registry = ToolRegistry()
    registry.tool(search_notes)
    registry.tool(get_weather)
    assert registry.names() == ["search_notes", "get_weather"]
    assert "get_weather" in registry and "nope" not in registry and 3 not in registry
    assert len(registry) == 2
    assert registry.get("nope") is None and registry.get(None) is None
    assert [tool.name for tool in registry] == ["search_notes", "get_weather"]


# -- schemas -------------------------------------------------------------------------------------


@pytest.mark.parametrize("format", ["openai", "responses", "anthropic", "gemini"])
def test_schemas_match_function_to_tool_in_every_format(format):
    registry = ToolRegistry()
    registry.tool(get_weather)
    assert registry.schemas(format=format) == [function_to_tool(get_weather, format=format)]


def test_schemas_use_the_registered_name_and_description():
    registry = ToolRegistry()
    registry.tool(get_weather, name="weather", description="Weather now.")
    (tool,) = registry.schemas(format="anthropic")
    assert (tool["name"], tool["description"]) == ("weather", "Weather now.")


def test_an_unknown_format_is_refused():
    registry = ToolRegistry()
    registry.tool(get_weather)
    with pytest.raises(ValueError, match="bedrock"):
        registry.schemas(format="bedrock")


def test_schemas_come_in_registration_order():
    registry = ToolRegistry()
    for function in (search_notes, get_weather):
        registry.tool(function)
    assert [t["function"]["name"] for t in registry.schemas()] == ["search_notes", "get_weather"]


def test_the_tags_filter_keeps_tools_with_any_of_the_tags():
    registry = ToolRegistry()
    registry.tool(get_weather, tags=["weather", "read"])
    registry.tool(search_notes, tags=["notes", "read"])

    def delete_note(note_id: int) -> str:
        return "deleted"

    registry.tool(delete_note, tags=["notes", "write"])

    def names(tags):
        return [t["function"]["name"] for t in registry.schemas(tags=tags)]

    assert names(["read"]) == ["get_weather", "search_notes"]
    assert names(["weather", "write"]) == ["get_weather", "delete_note"]
    assert names("notes") == ["search_notes", "delete_note"]  # one string is one tag
    assert names([]) == []
    assert names(None) == ["get_weather", "search_notes", "delete_note"]


def test_tags_must_be_non_empty_strings():
    with pytest.raises(ValueError, match="tags must be non-empty strings"):
        ToolRegistry().tool(get_weather, tags=["ok", 3])


def counted(monkeypatch, owner, name: str) -> list:
    """Replace ``owner.name`` with a wrapper that records each call's arguments; the record."""
    calls = []
    original = getattr(owner, name)

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return calls


def test_reflection_happens_once_per_tool_however_often_schemas_and_call_are_used(monkeypatch):
    calls = counted(monkeypatch, parameters, "inspect_function")
    registry = ToolRegistry()
    registry.tool(get_weather)
    for _ in range(3):
        for format in ("openai", "responses", "anthropic", "gemini"):
            registry.schemas(format=format)
        registry.call("get_weather", {"city": "上海"})
    assert calls == [(get_weather,)]


def test_the_argument_validator_is_built_once_at_registration(monkeypatch):
    registry = ToolRegistry()
    built = counted(monkeypatch, pydantic, "TypeAdapter")
    registry.tool(get_weather)
    for _ in range(3):
        registry.call("get_weather", '{"city": "x"}')
    assert len(built) == 1


@dataclasses.dataclass
class Contact:
    name: str


def add_contact(contact: Contact) -> str:
    """Add a contact."""
    return contact.name


def test_a_tools_json_schema_validator_is_compiled_once_not_per_call(monkeypatch):
    from course_lib.reference import registry as registry_module
    from course_lib.reference import validation

    def keyed_lookup(schema):
        raise AssertionError("call() looked its validator up by the schema's JSON text")

    compiled = counted(monkeypatch, registry_module, "compile_validator")
    monkeypatch.setattr(validation, "_validator", keyed_lookup)
    registry = ToolRegistry()
    registry.tool(add_contact)
    assert registry.get("add_contact")._needs_schema_check  # the jsonschema pass does run here
    for name in ("张三", "Li Si", "Ada"):
        assert registry.call("add_contact", {"contact": {"name": name}}) == name
    assert "extra" in registry.call("add_contact", {"contact": {"name": "x", "extra": 1}})
    assert len(compiled) == 1


def test_schemas_in_each_format_are_served_from_the_cache_as_the_same_objects():
    registry = ToolRegistry()
    registry.tool(get_weather)
    for format in ("openai", "responses", "anthropic", "gemini"):
        first, second = registry.schemas(format=format)[0], registry.schemas(format=format)[0]
        assert first is second
    assert registry.get("get_weather").parameters is registry.schemas()[0]["function"]["parameters"]


# -- strict schemas ------------------------------------------------------------------------------


@pytest.mark.parametrize("format", ["openai", "responses", "anthropic", "gemini"])
def test_strict_schemas_match_function_to_tool_strict_in_every_format(format):
    registry = ToolRegistry()
    registry.tool(get_weather)
    expected = function_to_tool(get_weather, format=format, strict=True)
    assert registry.schemas(format=format, strict=True) == [expected]


def test_strict_schemas_require_everything_and_make_optional_parameters_nullable():
    registry = ToolRegistry()
    registry.tool(search_notes)
    (tool,) = registry.schemas(strict=True)
    function = tool["function"]
    assert function["strict"] is True
    assert function["parameters"]["required"] == ["keyword", "limit"]
    assert function["parameters"]["properties"]["limit"] == {"type": ["integer", "null"]}
    assert registry.schemas()[0]["function"]["parameters"]["required"] == ["keyword"]


def test_strict_schemas_are_computed_once_and_kept_apart_from_the_plain_ones():
    registry = ToolRegistry()
    registry.tool(get_weather)
    for format in ("openai", "responses", "anthropic", "gemini"):
        first = registry.schemas(format=format, strict=True)[0]
        assert registry.schemas(format=format, strict=True)[0] is first
        assert registry.schemas(format=format)[0] is not first
    assert "strict" not in registry.schemas()[0]["function"]


def test_a_tool_that_cannot_be_strict_raises_at_schemas_naming_the_tool():
    registry = ToolRegistry()
    registry.tool(get_weather)

    def score(weights: dict[str, int]) -> int:
        return sum(weights.values())

    registry.tool(score)
    with pytest.raises(
        ValueError, match=r"tool 'score' cannot be offered in strict mode.*open map"
    ):
        registry.schemas(strict=True)
    assert len(registry.schemas()) == 2  # the plain schemas are unaffected
    assert len(registry.schemas(tags="none", strict=True)) == 0  # filtered out: not converted

"""parameters_schema / inspect_function: reflection pitfalls, each proven by a failing case."""

import dataclasses
import datetime as dt
import enum
import functools
import importlib.util
import json
import sys
import textwrap
from typing import Annotated, Literal, Optional, TypedDict, Union

import jsonschema
import pytest
from pydantic import Field

from course_lib.reference import FunctionSpec, inspect_function, parameters_schema


class Unit(enum.Enum):
    C = "c"
    F = "f"


def get_weather(city: str, unit: Literal["c", "f"] = "c") -> str:
    """Get the current weather for a city.

    Args:
        city: City name, e.g. 北京.
        unit: Temperature unit.
    """
    return city


def test_required_means_no_default():
    schema = parameters_schema(get_weather)
    assert schema == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name, e.g. 北京."},
            "unit": {
                "type": "string",
                "enum": ["c", "f"],
                "description": "Temperature unit.",
                "default": "c",
            },
        },
        "required": ["city"],
        "additionalProperties": False,
    }


def test_nullable_without_default_is_still_required():
    def f(note: Optional[str], limit: int | None = None) -> None: ...

    schema = parameters_schema(f)
    assert schema["required"] == ["note"]
    assert schema["properties"]["note"] == {"type": ["string", "null"]}
    assert schema["properties"]["limit"]["default"] is None


def test_union_does_not_collapse_to_its_first_member():
    def f(value: Union[int, str]) -> None: ...

    assert parameters_schema(f)["properties"]["value"] == {"type": ["integer", "string"]}


def test_bool_parameter_is_boolean():
    def f(flag: bool = False) -> None: ...

    assert parameters_schema(f)["properties"]["flag"] == {"type": "boolean", "default": False}


def test_enum_default_is_emitted_as_its_value():
    def f(unit: Unit = Unit.F) -> None: ...

    assert parameters_schema(f)["properties"]["unit"] == {
        "type": "string",
        "enum": ["c", "f"],
        "default": "f",
    }


def test_tuple_default_becomes_a_list_and_non_json_default_is_left_out():
    def f(pair: tuple[int, int] = (1, 2), when: dt.date = dt.date(2024, 1, 1)) -> None: ...

    properties = parameters_schema(f)["properties"]
    assert properties["pair"]["default"] == [1, 2]
    assert "default" not in properties["when"]


def test_none_default_on_a_non_nullable_type_fails_loudly():
    def f(limit: int = None) -> None: ...  # type: ignore[assignment]

    with pytest.raises(TypeError, match=r"f\(\): parameter 'limit' defaults to None.*X \| None"):
        parameters_schema(f)


def test_annotated_description_wins_over_docstring():
    def f(city: Annotated[str, "From Annotated"]) -> None:
        """Do it.

        Args:
            city: From the docstring.
        """

    assert parameters_schema(f)["properties"]["city"]["description"] == "From Annotated"


def test_field_constraints_reach_the_schema():
    def f(n: Annotated[int, Field(ge=1, le=10)] = 3) -> None: ...

    assert parameters_schema(f)["properties"]["n"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 10,
        "default": 3,
    }


def test_var_positional_fails_naming_function_and_parameter():
    def tag(*names: str) -> None: ...

    with pytest.raises(TypeError, match=r"tag\(\): parameter '\*names'.*list parameter"):
        parameters_schema(tag)


def test_var_keyword_fails_naming_function_and_parameter():
    def configure(**options: int) -> None: ...

    with pytest.raises(TypeError, match=r"configure\(\): parameter '\*\*options'"):
        parameters_schema(configure)


def test_unannotated_parameter_fails_naming_it():
    def search(query, limit: int = 5) -> None: ...

    with pytest.raises(TypeError, match=r"search\(\): parameter 'query' has no type annotation"):
        parameters_schema(search)


def test_unsupported_type_names_function_parameter_and_type():
    def upload(data: bytes) -> None: ...

    with pytest.raises(TypeError, match=r"upload\(\): parameter 'data': unsupported type bytes"):
        parameters_schema(upload)


def test_unresolvable_annotation_names_the_missing_name():
    def f(x: "Missing") -> None: ...  # noqa: F821

    with pytest.raises(TypeError, match=r"f\(\): cannot resolve an annotation: .*'Missing'"):
        parameters_schema(f)


def _import_module(tmp_path, name: str, source: str):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


def test_future_annotations_are_resolved_not_read_as_strings(tmp_path):
    module = _import_module(
        tmp_path,
        "future_tools",
        """
        from __future__ import annotations
        from dataclasses import dataclass
        from typing import Literal

        def search(query: str, limit: int = 5, tags: list[str] | None = None,
                   order: Literal["new", "old"] = "new", near: Place | None = None) -> list[str]:
            return []

        @dataclass
        class Place:
            name: str
        """,
    )
    assert isinstance(module.search.__annotations__["limit"], str)  # the pitfall is real
    schema = parameters_schema(module.search)
    assert schema["properties"]["limit"] == {"type": "integer", "default": 5}
    tags = schema["properties"]["tags"]
    assert tags["anyOf"][0] == {"type": "array", "items": {"type": "string"}}
    assert schema["properties"]["order"]["enum"] == ["new", "old"]
    assert schema["properties"]["near"]["anyOf"][0]["properties"] == {"name": {"type": "string"}}


def test_future_annotations_with_a_missing_name_fail_naming_it(tmp_path):
    module = _import_module(
        tmp_path,
        "future_broken",
        """
        from __future__ import annotations

        def lookup(key: Undefined) -> None: ...
        """,
    )
    with pytest.raises(TypeError, match=r"lookup\(\): cannot resolve.*'Undefined'"):
        parameters_schema(module.lookup)


class Notes:
    def search(self, keyword: str, limit: int = 5) -> list[str]:
        """Search the notes."""
        return []

    @classmethod
    def make(cls, title: str) -> "Notes":
        return cls()

    @staticmethod
    def count(text: str) -> int:
        return len(text)


@pytest.mark.parametrize(
    ("method", "names"),
    [
        (Notes().search, ["keyword", "limit"]),
        (Notes.make, ["title"]),
        (Notes.count, ["text"]),
        (Notes.__dict__["make"], ["title"]),
        (Notes.__dict__["count"], ["text"]),
    ],
)
def test_methods_have_no_self_or_cls(method, names):
    assert list(parameters_schema(method)["properties"]) == names


def test_partial_hides_the_parameters_it_fixes():
    def query(sql: str, api_key: str, limit: int = 10) -> str: ...

    bound = functools.partial(query, api_key="secret")
    schema = parameters_schema(bound)
    assert list(schema["properties"]) == ["sql", "limit"]
    assert "secret" not in str(schema)
    assert inspect_function(bound).name == "query"


def test_function_without_parameters_has_an_empty_object_without_required():
    def now() -> str:
        """The time."""
        return ""

    assert parameters_schema(now) == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }


def test_no_empty_required_list_anywhere():
    class Filters(TypedDict, total=False):
        city: str

    @dataclasses.dataclass
    class Page:
        size: int = 10

    def f(filters: Filters, page: Page, note: str = "") -> None: ...

    schema = parameters_schema(f)
    assert schema["required"] == ["filters", "page"]
    assert '"required": []' not in json.dumps(schema)
    assert "required" not in schema["properties"]["filters"]
    assert "required" not in schema["properties"]["page"]


def test_inspect_function_returns_everything_a_registry_needs():
    async def fetch(url: Annotated[str, "Where"], retries: int = 2, /) -> str:
        """Fetch a page.

        Args:
            retries: How often to retry.
        """
        return url

    spec = inspect_function(fetch)
    assert isinstance(spec, FunctionSpec)
    assert spec.name == "fetch"
    assert spec.description == "Fetch a page."
    assert spec.hints == {"url": Annotated[str, "Where"], "retries": int}
    assert spec.required == ("url",)
    assert spec.defaults == {"retries": 2}
    assert spec.param_names == ("url", "retries")
    assert spec.positional_only == ("url", "retries")
    assert spec.is_async is True
    assert spec.func is fetch
    assert spec.param_descriptions == {"retries": "How often to retry."}


def test_every_parameters_schema_is_valid_json_schema():
    def f(a: list[tuple[int, str]], b: dict[str, Unit] | None = None, c: set[int] = frozenset()):
        pass

    jsonschema.Draft202012Validator.check_schema(parameters_schema(f))


def test_parameters_schema_returns_a_fresh_dict_each_time():
    first = parameters_schema(get_weather)
    first["properties"]["city"]["type"] = "integer"
    assert parameters_schema(get_weather)["properties"]["city"]["type"] == "string"

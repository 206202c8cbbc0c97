"""Property tests: every strict tool we emit, checked against the openai SDK and jsonschema.

Hypothesis builds tool functions from a grammar of annotations (scalars, Literal, Enum,
constrained ints, lists, Optional and Union, and dataclasses, TypedDicts and pydantic models
with and without defaults, nested in each other) and registers each in a ``ToolRegistry``. For
each tool:

1. the openai SDK's own strict pass (``openai.lib._pydantic._ensure_strict_json_schema``, what
   ``openai.pydantic_function_tool`` runs) leaves our strict schema unchanged;
2. the schema obeys OpenAI's documented strict rules, checked here independently of our code:
   every object closed with every property required, every array with ``items``, nothing beside
   a ``$ref``, a type everywhere, no keyword outside the subset, the size limits;
3. ``registry.call`` accepts exactly the arguments that jsonschema accepts under the emitted
   schema with every optional, non-nullable property also allowing null ("use the default");
4. for complete arguments (every declared key present, the only kind a strict model sends),
   ``registry.call`` accepts exactly what the strict schema accepts.

Sets are left out of the grammar: strict mode cannot carry ``uniqueItems`` (``to_strict`` drops
it and ``call`` still enforces it), so property 4 would not hold for them by design. Floats are
never integral: JSON Schema calls ``1.0`` an integer and pydantic's strict mode does not.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import itertools
import json
import typing
from typing import Annotated, Any, Literal, Optional, Union

import annotated_types as at
import jsonschema
import pydantic
import typing_extensions as te
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.lib._pydantic import _ensure_strict_json_schema
from strict_oracles import Validator, check_strict_rules, lenient
from test_schema_properties import PROFILE as SCHEMA_PROFILE
from test_schema_properties import Color

from course_lib.reference import ToolRegistry

PROFILE = settings(SCHEMA_PROFILE, max_examples=80)  # derandomized, no deadline, no database


SmallInt = Annotated[int, at.Ge(0), at.Le(9)]
LEAVES = [str, int, float, bool, Literal["a", "b"], Color, SmallInt]
DEFAULTS = {str: "d", int: 0, float: 0.5, bool: False, Color: Color.RED, SmallInt: 3}
FIELD_NAMES = ["city", "days", "note", "tags"]
_counter = itertools.count()


@dataclasses.dataclass(frozen=True)
class Field:
    name: str
    annotation: Any
    optional: bool


def default_for(tp: Any) -> tuple[bool, Any]:
    """(True, value) when ``tp`` can have a simple default; lists get a factory elsewhere."""
    if tp in DEFAULTS:
        return True, DEFAULTS[tp]
    if typing.get_origin(tp) is Literal:
        return True, typing.get_args(tp)[0]
    if type(None) in typing.get_args(tp):
        return True, None
    return False, None


def make_class(kind: str, fields: list[Field]) -> type:
    name = f"{kind.capitalize()}{next(_counter)}"
    if kind == "typeddict":
        hints = {
            f.name: te.NotRequired[f.annotation] if f.optional else f.annotation for f in fields
        }
        return te.TypedDict(name, hints)  # type: ignore[operator]
    if kind == "model":
        spec = {}
        for f in fields:
            ok, value = default_for(f.annotation)
            spec[f.name] = (f.annotation, value if f.optional and ok else ...)
        return pydantic.create_model(name, **spec)  # type: ignore[call-overload]
    ordered = sorted(fields, key=lambda f: f.optional)  # dataclass defaults come last
    specs = []
    for f in ordered:
        ok, value = default_for(f.annotation)
        if f.optional and ok:
            specs.append((f.name, f.annotation, dataclasses.field(default=value)))
        elif f.optional and typing.get_origin(f.annotation) is list:
            specs.append((f.name, f.annotation, dataclasses.field(default_factory=list)))
        else:
            specs.append((f.name, f.annotation))
    return dataclasses.make_dataclass(name, specs)


def fields_of(draw: Any, children: st.SearchStrategy) -> list[Field]:
    names = draw(st.lists(st.sampled_from(FIELD_NAMES), min_size=1, max_size=3, unique=True))
    return [Field(n, draw(children), draw(st.booleans())) for n in names]


def annotations() -> st.SearchStrategy:
    def extend(children: st.SearchStrategy) -> st.SearchStrategy:
        @st.composite
        def classes(draw: Any) -> type:
            kind = draw(st.sampled_from(["dataclass", "typeddict", "model"]))
            return make_class(kind, fields_of(draw, children))

        return st.one_of(
            children.map(lambda t: list[t]),
            children.map(lambda t: Optional[t]),
            st.tuples(children, children).map(lambda ts: Union[ts[0], ts[1]]),
            classes(),
        )

    return st.recursive(st.sampled_from(LEAVES), extend, max_leaves=5)


@st.composite
def tools(draw: Any) -> tuple[ToolRegistry, str, list[Field]]:
    fields = fields_of(draw, annotations())
    parameters = []
    hints: dict[str, Any] = {}
    for f in fields:
        ok, value = default_for(f.annotation)
        default = value if f.optional and ok else typing.cast(Any, _EMPTY)
        parameters.append(_param(f.name, default))
        hints[f.name] = f.annotation

    def tool(**kwargs: Any) -> str:
        return "ok"

    tool.__signature__ = _signature(parameters)  # type: ignore[attr-defined]
    tool.__annotations__ = hints
    tool.__name__ = tool.__qualname__ = "generated_tool"
    registry = ToolRegistry()
    registry.tool(tool)
    real = [
        Field(f.name, f.annotation, f.optional and default_for(f.annotation)[0]) for f in fields
    ]
    return registry, "generated_tool", real


_EMPTY = inspect.Parameter.empty


def _param(name: str, default: Any) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)


def _signature(parameters: list[inspect.Parameter]) -> inspect.Signature:
    return inspect.Signature(parameters)


# -- instances ----------------------------------------------------------------------------------

FLOATS = st.floats(-1e3, 1e3, allow_nan=False).filter(lambda f: not f.is_integer())
TEXT = st.text(st.sampled_from('ab 北京"'), max_size=3)
JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 12), FLOATS, TEXT, st.just([]), st.just({})
)


def class_fields(cls: type) -> list[Field]:
    hints = typing.get_type_hints(cls, include_extras=True)
    if isinstance(cls, type) and issubclass(cls, pydantic.BaseModel):
        return [Field(n, hints[n], not f.is_required()) for n, f in cls.model_fields.items()]
    if dataclasses.is_dataclass(cls):
        return [
            Field(
                f.name,
                hints[f.name],
                f.default is not dataclasses.MISSING
                or f.default_factory is not dataclasses.MISSING,
            )
            for f in dataclasses.fields(cls)
        ]
    optional = getattr(cls, "__optional_keys__", frozenset())
    return [Field(n, _unwrap_required(h), n in optional) for n, h in hints.items()]


def _unwrap_required(hint: Any) -> Any:
    if typing.get_origin(hint) in (te.NotRequired, te.Required):
        return typing.get_args(hint)[0]
    return hint


@st.composite
def instance(draw: Any, tp: Any, complete: bool) -> Any:
    """A JSON value for ``tp``: mostly valid, sometimes wrong somewhere (the oracle decides)."""
    if draw(st.integers(0, 11)) == 0:
        return draw(JUNK)
    if tp in (str,):
        return draw(TEXT)
    if tp is int:
        return draw(st.integers(-5, 5))
    if tp is float:
        return draw(st.one_of(FLOATS, st.integers(-5, 5)))
    if tp is bool:
        return draw(st.booleans())
    if tp is Color:
        return draw(st.sampled_from(["red", "蓝", "green"]))
    if tp is SmallInt:
        return draw(st.integers(-1, 10))
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        return draw(st.sampled_from([*args, "c"]))
    if origin is list:
        return draw(st.lists(instance(args[0], complete), max_size=2))
    if origin in (Union, __import__("types").UnionType):
        options = [a for a in args if a is not type(None)]
        if len(options) < len(args) and draw(st.integers(0, 3)) == 0:
            return None
        return draw(instance(draw(st.sampled_from(options)), complete))
    return draw(object_instance(class_fields(tp), complete))


@st.composite
def object_instance(draw: Any, fields: list[Field], complete: bool) -> dict:
    out = {}
    for f in fields:
        if not complete and draw(st.integers(0, 4)) == 0:
            continue  # left out (fine when it has a default)
        if f.optional and draw(st.integers(0, 3)) == 0:
            out[f.name] = None  # "use the default", as a strict model says it
        else:
            out[f.name] = draw(instance(f.annotation, complete))
    if not complete and draw(st.integers(0, 9)) == 0:
        out["unexpected"] = 1
    return out


# -- the oracles --------------------------------------------------------------------------------


def accepted(registry: ToolRegistry, name: str, arguments: dict) -> bool:
    result = registry.call(name, json.dumps(arguments, ensure_ascii=False))
    if result == "ok":
        return True
    assert json.loads(result)["error"].startswith("invalid arguments"), result
    return False


# -- the properties -----------------------------------------------------------------------------


@PROFILE
@given(tools())
def test_the_openai_sdk_strict_pass_leaves_every_strict_tool_unchanged(generated):
    registry, name, _ = generated
    (tool,) = registry.schemas(strict=True)
    parameters = tool["function"]["parameters"]
    theirs = copy.deepcopy(parameters)
    assert _ensure_strict_json_schema(theirs, path=(), root=theirs) == parameters
    assert tool["function"]["strict"] is True


@PROFILE
@given(tools())
def test_every_strict_tool_obeys_the_documented_rules(generated):
    registry, _, _ = generated
    (tool,) = registry.schemas(strict=True)
    parameters = tool["function"]["parameters"]
    jsonschema.Draft202012Validator.check_schema(parameters)
    check_strict_rules(parameters)


@PROFILE
@given(st.data())
def test_call_accepts_exactly_the_emitted_schema_with_null_meaning_the_default(data):
    registry, name, fields = data.draw(tools(), label="tool")
    (plain,) = registry.schemas()
    oracle = Validator(lenient(plain["function"]["parameters"]))
    for _ in range(4):
        arguments = data.draw(object_instance(fields, complete=False), label="arguments")
        expected = oracle.is_valid(arguments)
        assert accepted(registry, name, arguments) == expected, (arguments, expected)


@PROFILE
@given(st.data())
def test_call_accepts_exactly_the_complete_arguments_the_strict_schema_accepts(data):
    registry, name, fields = data.draw(tools(), label="tool")
    (tool,) = registry.schemas(strict=True)
    strict = Validator(tool["function"]["parameters"])
    for _ in range(4):
        arguments = data.draw(object_instance(fields, complete=True), label="arguments")
        expected = strict.is_valid(arguments)
        assert accepted(registry, name, arguments) == expected, (arguments, expected)

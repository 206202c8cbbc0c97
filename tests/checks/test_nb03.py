"""Notebook 03's checks accept its solutions and reject each pitfall with the hint that names it.

The solutions are executed from the cells of ``solutions/03_pitfalls.ipynb``. Each wrong
implementation is the correct solution with one pitfall put back (an ``issubclass`` walk, a union
collapsed to its first member, types read from ``parameter.annotation``, a dropped ``*args``, ...),
so the hint can only come from that one mistake.
"""

from __future__ import annotations

import ast
import enum
import inspect
import json
import random
import types
import typing
from functools import cache
from typing import Any, Literal

import pytest
from solution_cells import load_cells, rejected

from course_lib.checks import CheckFailed, NotDoneYet, evaluate, nb02, nb03
from course_lib.reference import parameters_schema as reference_parameters_schema
from course_lib.reference import type_schema

NOTEBOOK = "03_pitfalls"
LOADED_CELLS = ("w03-setup", "w03-ex1", "w03-ex2")


def fresh_solution() -> dict[str, Any]:
    """A fresh namespace with the names the solution notebook's cells define."""
    return load_cells(NOTEBOOK, LOADED_CELLS)


@cache
def solution() -> dict[str, Any]:
    return fresh_solution()


def correct_json_type(annotation):
    return solution()["json_type"](annotation)


@pytest.mark.parametrize(
    ("exercise_id", "name"), [("03.1", "json_type"), ("03.2", "parameters_schema")]
)
def test_the_solution_passes_its_check(exercise_id, name):
    assert evaluate(exercise_id, solution()[name]).startswith(f"Exercise {exercise_id} passed")


@pytest.mark.parametrize("exercise_id", ["03.1", "03.2"])
def test_a_stub_is_not_done_yet(exercise_id):
    def stub(*args, **kwargs):
        raise NotImplementedError(f"Exercise {exercise_id}: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate(exercise_id, stub)


# --- 03.1 json_type: the solution with one pitfall put back ------------------------------------


def with_override(override):
    """The solution's json_type with one pitfall put back: ``override(annotation, recurse)``
    answers first, and the solution handles what it leaves (``None``). The solution recurses
    through its global name, so nested annotations meet the pitfall too."""
    namespace = fresh_solution()
    correct = namespace["json_type"]

    def json_type(annotation):
        answer = override(annotation, json_type)
        return correct(annotation) if answer is None else answer

    namespace["json_type"] = json_type
    return json_type


def issubclass_walk(annotation, recurse):
    for python_type, name in [
        (int, "integer"),
        (float, "number"),
        (str, "string"),
        (bool, "boolean"),
    ]:
        if isinstance(annotation, type) and issubclass(annotation, python_type):
            return {"type": name}
    return None


def union_only_typing(annotation, recurse):
    """Handles typing.Union but not types.UnionType (`int | None`), which falls back to string."""
    if isinstance(annotation, types.UnionType):
        return {"type": "string"}
    return None


def union_first_member(annotation, recurse):
    """Keeps null for Optional, but a real union collapses to its first member."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = [m for m in typing.get_args(annotation) if m is not type(None)]
        if len(members) > 1:
            branches = [recurse(members[0])]
            if len(members) < len(typing.get_args(annotation)):
                branches.append({"type": "null"})
            return branches[0] if len(branches) == 1 else {"anyOf": branches}
    return None


def optional_unwrapped(annotation, recurse):
    """`Optional[X]` becomes X: the null branch is dropped."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = [m for m in typing.get_args(annotation) if m is not type(None)]
        if len(members) == 1:
            return recurse(members[0])
    return None


def enum_without_values(annotation, recurse):
    if typing.get_origin(annotation) is Literal:
        return {"type": "string"} if isinstance(typing.get_args(annotation)[0], str) else None
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return {"type": "integer" if issubclass(annotation, int) else "string"}
    return None


def int_enum_as_integer(annotation, recurse):
    """Checks int before Enum, so an IntEnum is a plain integer."""
    if isinstance(annotation, type) and issubclass(annotation, int) and annotation is not bool:
        return {"type": "integer"}
    return None


def list_without_items(annotation, recurse):
    if typing.get_origin(annotation) is list:
        return {"type": "array"}
    return None


def tuple_as_items(annotation, recurse):
    if typing.get_origin(annotation) is tuple:
        return {"type": "array", "items": recurse(typing.get_args(annotation)[0])}
    return None


def set_as_list(annotation, recurse):
    if typing.get_origin(annotation) in (set, frozenset):
        return {"type": "array", "items": recurse(typing.get_args(annotation)[0])}
    return None


def dict_without_values(annotation, recurse):
    if typing.get_origin(annotation) is dict:
        return {"type": "object"}
    return None


def strings_become_strings(annotation, recurse):
    """The fallback that made every annotation a string under __future__."""
    return {"type": "string"} if isinstance(annotation, str) else None


def any_dict_keys(annotation, recurse):
    if typing.get_origin(annotation) is dict and typing.get_args(annotation):
        return {"type": "object", "additionalProperties": recurse(typing.get_args(annotation)[1])}
    return None


def union_type_refused(annotation, recurse):
    """Handles typing.Union only and refuses `int | None` loudly (the learner's report)."""
    if isinstance(annotation, types.UnionType):
        raise TypeError(f"no JSON Schema for annotation {annotation}")
    return None


def bare_alias_refused(annotation, recurse):
    if annotation in (typing.List, typing.Dict):  # noqa: UP006
        raise TypeError(f"no JSON Schema for annotation {annotation}")
    return None


def any_accepts_anything(annotation, recurse):
    return {} if annotation in (typing.Any, object) else None


def literal_none_is_null(annotation, recurse):
    if typing.get_origin(annotation) is Literal and typing.get_args(annotation) == (None,):
        return {"type": "null"}
    return None


def literal_numbers_widened(annotation, recurse):
    """Literal[1, 2.5] widened to number instead of refused."""
    values = typing.get_args(annotation) if typing.get_origin(annotation) is Literal else ()
    if {type(v) for v in values} == {int, float}:
        return {"type": "number", "enum": list(values)}
    return None


def empty_enum_accepted(annotation, recurse):
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum) and not len(annotation):
        return {"type": "string", "enum": []}
    return None


NULL = {"type": "null"}


def shared_null_constant(annotation, recurse):
    """One module-level dict handed out for every None (the check leaves it as it was)."""
    return NULL if annotation in (None, type(None)) else None


def shared_nested_dicts():
    cache_: dict[Any, dict] = {}

    def json_type(annotation):
        key = repr(annotation)
        if key not in cache_:
            cache_[key] = correct_json_type(annotation)
        return cache_[key]

    return json_type


@pytest.mark.parametrize(
    ("wrong", "hint"),
    [
        (with_override(issubclass_walk), nb02.BOOL_HINT),
        (with_override(union_only_typing), "types.UnionType"),
        (with_override(union_first_member), "The union collapsed to one member"),
        (with_override(optional_unwrapped), "The null branch was dropped"),
        (with_override(enum_without_values), "Literal and Enum become"),
        (with_override(int_enum_as_integer), "check for Enum first"),
        (with_override(list_without_items), "A container needs to say what it holds"),
        (with_override(tuple_as_items), "prefixItems"),
        (with_override(set_as_list), '"uniqueItems": true'),
        (with_override(dict_without_values), "the values need a schema too"),
        (with_override(strings_become_strings), "typing.get_type_hints() first"),
        (with_override(any_dict_keys), "JSON object keys are always strings"),
        (shared_nested_dicts(), "Return new dicts on every call"),
        (with_override(shared_null_constant), "Return new dicts on every call"),
        (with_override(union_type_refused), "is a types.UnionType, not a typing.Union"),
        (with_override(bare_alias_refused), "typing.List, typing.Dict, ... without [...]"),
        (with_override(any_accepts_anything), "typing.Any and object tell the model nothing"),
        (with_override(literal_none_is_null), "raise TypeError for Literal[None]"),
        (with_override(literal_numbers_widened), "do not widen them to number"),
        (with_override(empty_enum_accepted), "An Enum without members has no values"),
    ],
)
def test_json_type_rejects(wrong, hint):
    assert hint in rejected("03.1", wrong)


def test_a_shared_null_constant_is_named_in_the_case_on_every_run():
    wrong = with_override(shared_null_constant)
    for _ in range(2):
        message = rejected("03.1", wrong)
        assert "Case: json_type(None) called twice; the caller changed the first result" in message
    assert NULL == {"type": "null"}


def test_a_wrong_part_is_reported_as_that_part_not_the_whole_annotation():
    """A recursive json_type gets a part wrong wherever it is: the case names the part."""

    def bool_literal_without_enum(annotation, recurse):
        if typing.get_origin(annotation) is Literal and typing.get_args(annotation) == (True,):
            return {"type": "boolean"}
        return None

    wrong = with_override(bool_literal_without_enum)
    annotation = list[dict[str, Literal[True] | None]]
    with pytest.raises(CheckFailed) as info:
        nb03.expect_type_schema(wrong, annotation, "json_type(list[dict[str, ...]])")
    message = str(info.value)
    assert message.startswith(
        "Case: json_type(Literal[True]), a part of json_type(list[dict[str, ...]])"
    )
    assert "Literal and Enum become" in message


def test_a_union_type_error_names_the_union_case_and_its_origin():
    message = rejected("03.1", with_override(union_type_refused))
    assert "Case: json_type(int | None)\n" in message
    assert 'Got:      "TypeError: no JSON Schema for annotation int | None"' in message


def _none_count(node: ast.expr) -> int:
    """How many `None` members a union written at ``node`` has once Python flattens it."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _none_count(node.left) + _none_count(node.right)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        if node.value.id == "Optional":
            return _none_count(node.slice) + 1
        if node.value.id == "Union" and isinstance(node.slice, ast.Tuple):
            return sum(_none_count(member) for member in node.slice.elts)
    return int(isinstance(node, ast.Constant) and node.value is None)


def test_generated_annotations_never_add_none_twice_to_one_union():
    """`list[int] | None | None` reads oddly and Python flattens it anyway."""
    rng = random.Random("generated unions")
    for _ in range(2000):
        source = nb03.random_annotation(rng)
        for node in ast.walk(ast.parse(source, mode="eval")):
            assert _none_count(node) <= 1, source


# --- 03.2 parameters_schema --------------------------------------------------------------------

EMPTY = inspect.Parameter.empty


def make_parameters_schema(
    *,
    hints_from_signature=False,
    required_rule=None,
    skip_variadic=False,
    guess_unannotated=False,
    guess_from_default=False,
    raw_enum_defaults=False,
    empty_as_default=False,
    message=None,
):
    """The solution's logic, written out, with one pitfall switched on."""

    def parameters_schema(func):
        if hints_from_signature:
            hints = {n: p.annotation for n, p in inspect.signature(func).parameters.items()}
            hints = {n: a for n, a in hints.items() if a is not EMPTY}
        else:
            hints = typing.get_type_hints(func)
        properties, required = {}, []
        for name, parameter in inspect.signature(func).parameters.items():
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                if skip_variadic:
                    continue
                raise TypeError(message or f"{func.__name__}(): parameter {name} is variadic")
            if name not in hints:
                if guess_unannotated:
                    hints[name] = str
                elif guess_from_default and parameter.default is not EMPTY:
                    hints[name] = type(parameter.default)
                elif guess_from_default:
                    raise TypeError(f"{func.__name__}(): parameter {name} has no annotation")
                else:
                    hints[name]  # noqa: B018 (the KeyError is the mistake)
            schema = correct_json_type(hints[name])
            if empty_as_default:
                schema["default"] = parameter.default
            if parameter.default is EMPTY:
                required.append(name)
            else:
                default = parameter.default
                if isinstance(default, enum.Enum) and not raw_enum_defaults:
                    default = default.value
                schema["default"] = default
            properties[name] = schema
        if required_rule:
            required = required_rule(func, hints)
        return {"type": "object", "properties": properties, "required": required,
                "additionalProperties": False}  # fmt: skip

    return parameters_schema


def every_parameter(func, hints):
    return list(inspect.signature(func).parameters)


def not_optional(func, hints):
    return [
        n for n in inspect.signature(func).parameters if type(None) not in typing.get_args(hints[n])
    ]


def without_additional_properties(func):
    schema = solution()["parameters_schema"](func)
    del schema["additionalProperties"]
    return schema


@pytest.mark.parametrize(
    ("wrong", "hint"),
    [
        (make_parameters_schema(hints_from_signature=True), "from __future__ import annotations"),
        (
            make_parameters_schema(required_rule=every_parameter),
            "A parameter with a default is optional",
        ),
        (make_parameters_schema(required_rule=not_optional), "Nullable is not optional"),
        (make_parameters_schema(skip_variadic=True), "Never drop or guess a parameter"),
        (make_parameters_schema(guess_unannotated=True), "Never drop or guess a parameter"),
        (make_parameters_schema(), "Raise TypeError (not KeyError)"),
        (
            make_parameters_schema(message="variadic parameters are not supported"),
            "does not mention",
        ),
        (make_parameters_schema(raw_enum_defaults=True), "is an Enum member is not JSON"),
        (make_parameters_schema(guess_from_default=True), "do not guess its type from the default"),
        (make_parameters_schema(empty_as_default=True), "inspect.Parameter.empty is how inspect"),
        (without_additional_properties, '"additionalProperties": false'),
    ],
)
def test_parameters_schema_rejects(wrong, hint):
    assert hint in rejected("03.2", wrong)


def test_a_value_json_cannot_hold_is_located_by_its_path():
    message = rejected("03.2", make_parameters_schema(empty_as_default=True))
    assert "Where:    at $.properties.city.default: <class 'inspect._empty'> is not a JSON" in (
        message
    )


def test_a_wrong_property_is_shown_alone_not_the_whole_schema():
    """Expected and Got hold only the property that differs, so neither is cut short."""

    def null_branch_dropped(func):
        schema = solution()["parameters_schema"](func)
        schema["properties"]["max_price"] = {"type": "integer"}
        return schema

    message = rejected("03.2", null_branch_dropped)
    assert "= False)), its properties.max_price\nExpected: {\n" in message
    assert "more characters" not in message and '"city"' not in message
    assert "Where:    at $.properties.max_price: missing key" in message


# --- agreement with course_lib.reference -------------------------------------------------------


_OUTER = ("default", "description")
_KIND = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}


def canonical(schema: Any) -> Any:
    """``schema`` with every union spelled as a sorted ``anyOf``.

    The reference prints a union in its shortest form (``{"type": ["integer", "null"]}``, an enum
    merged with null); 03.1 always spells it ``{"anyOf": [...]}``, one branch per member, because
    that is one rule a learner can apply at every depth. Both accept exactly the same values.
    """
    if isinstance(schema, list):
        return [canonical(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    schema = {key: canonical(value) for key, value in schema.items()}
    if isinstance(schema.get("properties"), dict):
        schema["properties"] = {k: canonical(v) for k, v in schema["properties"].items()}
    outer = {key: schema.pop(key) for key in _OUTER if key in schema}
    if isinstance(schema.get("type"), list):
        rest = {key: value for key, value in schema.items() if key not in ("type", "enum")}
        branches = []
        for json_type in schema["type"]:
            branch = {"type": json_type} if json_type == "null" else {"type": json_type, **rest}
            if "enum" in schema and json_type != "null":
                branch["enum"] = [v for v in schema["enum"] if _KIND.get(type(v)) == json_type]
            branches.append(branch)
        schema = {"anyOf": branches}
    if "anyOf" in schema:
        flat = []
        for branch in schema["anyOf"]:
            flat.extend(branch["anyOf"] if set(branch) == {"anyOf"} else [branch])
        schema["anyOf"] = sorted(flat, key=lambda b: json.dumps(b, sort_keys=True))
    return {**schema, **outer}


def generated_annotations(count: int) -> list[str]:
    rng = random.Random("agreement 03.1")
    return [*nb03.VISIBLE_TYPES, *(nb03.random_annotation(rng) for _ in range(count))]


def test_json_type_agrees_with_the_reference_type_schema():
    """Same values accepted (compared in ``canonical`` form). Intended differences, kept out of
    these cases: the reference merges union members whose schemas are equal, and gives a Literal
    of mixed types a list of types where 03.1 raises TypeError."""
    for source in generated_annotations(300):
        annotation = nb03.evaluate(source)
        assert canonical(correct_json_type(annotation)) == canonical(type_schema(annotation)), (
            source
        )


def test_parameters_schema_agrees_with_the_reference_in_both_kinds_of_module():
    """Compared in ``canonical`` form; an empty "required" is left out by the reference only."""
    rng = random.Random("agreement 03.2")
    mine = solution()["parameters_schema"]
    for index in range(100):
        name, params, n_positional = nb03.random_function(rng, index)
        for future in (False, True):
            func, text = nb03.make(name, params, n_positional, future=future)
            reference = {"required": [], **reference_parameters_schema(func)}
            assert canonical(mine(func)) == canonical(reference), text


def test_the_solution_and_the_reference_both_refuse_what_a_model_cannot_send():
    rng = random.Random("agreement 03.2 errors")
    for index, bad in enumerate(nb03.BAD_PARAMETERS):
        func, text = nb03._bad_function(rng, index, bad, future=bool(index % 2))
        for implementation in (solution()["parameters_schema"], reference_parameters_schema):
            with pytest.raises(TypeError, match=bad[2]):
                implementation(func)

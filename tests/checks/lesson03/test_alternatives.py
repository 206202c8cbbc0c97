"""Correct answers to lesson 03 written differently from the solution, as a learner might: other
control flow, other helpers, and error messages in Chinese (the contracts ask for a message that
names the annotation, the function or the parameter, in any language). Each must pass."""

from __future__ import annotations

import pytest

from course_lib.checks import evaluate

from ._solution import fresh

IMPORTS = """
import enum
import inspect
import types
import typing
from typing import Literal
"""

UNION = """
def union_schema(annotation, json_type):
    origin = typing.get_origin(annotation)
    is_union = isinstance(annotation, types.UnionType) or origin is typing.Union
    if not is_union:
        raise TypeError(f"{annotation!r} 不是联合类型")
    branches = []
    for member in typing.get_args(annotation):
        branches.append(json_type(member))
    return {"anyOf": branches}
"""

ENUM = """
JSON_NAMES = {bool: "boolean", int: "integer", float: "number", str: "string"}


def enum_schema(annotation):
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        values = [member.value for member in list(annotation)]
    elif typing.get_origin(annotation) is Literal:
        values = list(annotation.__args__)
    else:
        raise TypeError(f"{annotation!r} 既不是 Literal 也不是 Enum")
    kinds = {type(value) for value in values}
    if len(kinds) != 1:
        raise TypeError(f"{annotation!r} 的取值必须是同一种类型")
    (kind,) = kinds
    if kind not in JSON_NAMES:
        raise TypeError(f"{annotation!r} 的取值类型 {kind.__name__} 无法写成 JSON")
    return {"type": JSON_NAMES[kind], "enum": values}
"""

CONTAINER = """
def container_schema(annotation, json_type):
    origin = typing.get_origin(annotation) or annotation
    args = typing.get_args(annotation)
    if origin not in (list, tuple, set, frozenset, dict):
        raise TypeError(f"无法把 {annotation!r} 写成容器的 schema")
    if origin is dict:
        schema = {"type": "object"}
        if args:
            if args[0] is not str:
                raise TypeError(f"{annotation!r} 的键必须是 str")
            schema["additionalProperties"] = json_type(args[1])
        return schema
    schema = {"type": "array"}
    if origin is tuple and args and args[-1] is not Ellipsis:
        schema["prefixItems"] = [json_type(arg) for arg in args]
        schema["minItems"] = schema["maxItems"] = len(args)
    elif args:
        schema["items"] = json_type(args[0])
    if origin in (set, frozenset):
        schema["uniqueItems"] = True
    return schema
"""

JSON_TYPE = """
SCALARS = [(bool, "boolean"), (int, "integer"), (float, "number"), (str, "string")]


def json_type(annotation):
    origin = typing.get_origin(annotation)
    if annotation in (None, type(None)):
        return {"type": "null"}
    if origin is typing.Union or isinstance(annotation, types.UnionType):
        return union_schema(annotation, json_type)
    if origin is Literal or (isinstance(annotation, type) and issubclass(annotation, enum.Enum)):
        return enum_schema(annotation)
    for python_type, name in SCALARS:
        if annotation is python_type:
            return {"type": name}
    if (origin or annotation) in (list, tuple, set, frozenset, dict):
        return container_schema(annotation, json_type)
    raise TypeError(f"json_type 无法映射 {annotation!r}（字符串注解请先用 get_type_hints 解析）")
"""

RESOLVE = """
def resolve_annotations(func):
    try:
        hints = typing.get_type_hints(func)
    except NameError as exc:
        raise TypeError(f"{func.__name__} 的注解无法解析：{exc}") from exc
    hints.pop("return", None)
    return {name: hints[name] for name in inspect.signature(func).parameters if name in hints}
"""

PARAMETERS = """
def parameters_schema(func):
    hints = resolve_annotations(func)
    schema = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    for parameter in inspect.signature(func).parameters.values():
        where = f"{func.__name__}() 的参数 {parameter.name}"
        if parameter.kind == parameter.VAR_POSITIONAL:
            raise TypeError(f"{where}（*{parameter.name}）无法由模型传入，请改用列表")
        if parameter.kind == parameter.VAR_KEYWORD:
            raise TypeError(f"{where}（**{parameter.name}）无法写进 schema")
        if parameter.name not in hints:
            raise TypeError(f"{where} 没有类型注解")
        prop = json_type(hints[parameter.name])
        if parameter.default is parameter.empty:
            schema["required"].append(parameter.name)
        elif isinstance(parameter.default, enum.Enum):
            prop["default"] = parameter.default.value
        else:
            prop["default"] = parameter.default
        schema["properties"][parameter.name] = prop
    return schema
"""

# exercise id: (the source that defines its target, after those of the earlier exercises)
ALTERNATIVES = {
    "03.1": ("union_schema", UNION),
    "03.2": ("enum_schema", ENUM),
    "03.3": ("container_schema", CONTAINER),
    "03.4": ("json_type", UNION + ENUM + CONTAINER + JSON_TYPE),
    "03.5": ("resolve_annotations", RESOLVE),
    "03.6": ("parameters_schema", UNION + ENUM + CONTAINER + JSON_TYPE + RESOLVE + PARAMETERS),
}


@pytest.mark.parametrize("exercise_id", sorted(ALTERNATIVES))
def test_an_answer_written_differently_with_chinese_messages_passes(exercise_id):
    target, source = ALTERNATIVES[exercise_id]
    namespace = fresh()  # the notebook's setup (show, accepts, imports), as a learner has it
    exec(IMPORTS + source, namespace)  # noqa: S102
    assert evaluate(exercise_id, namespace[target]).startswith(f"Exercise {exercise_id} passed")

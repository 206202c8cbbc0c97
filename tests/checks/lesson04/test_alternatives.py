"""Lesson 04: correct answers written differently from the solutions pass, Chinese ones included.

Each alternative is source text run beside the solution's cells (as a learner's cell would be):
one whose messages are Chinese, as the source articles write them (``缺少必要参数 city``,
``参数必须是一个 JSON 对象``), and one in English with another structure.
"""

from __future__ import annotations

import textwrap
from typing import Any

import pytest
from solution_cells import run_source

from course_lib.checks import evaluate

from ._solution import solution

VALUE_PROBLEM_ZH = """
JSON_TYPES = {
    "string": lambda v: type(v) is str,
    "integer": lambda v: type(v) is int,
    "number": lambda v: type(v) in (int, float),
    "boolean": lambda v: type(v) is bool,
    "array": lambda v: type(v) is list,
    "object": lambda v: type(v) is dict,
    "null": lambda v: v is None,
}
中文 = {"string": "字符串", "integer": "整数", "number": "数字", "boolean": "布尔值",
        "array": "数组", "object": "对象", "null": "null"}


def _期望(schema):
    if "anyOf" in schema:
        return "或".join(_期望(option) for option in schema["anyOf"])
    if "enum" in schema:
        return "以下之一：" + "、".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    return "或".join(中文[name] for name in names)


def value_problem(schema, value):
    收到 = json.dumps(value, ensure_ascii=False)
    if "anyOf" in schema and all(value_problem(s, value) for s in schema["anyOf"]):
        return f"应为{_期望(schema)}，收到 {收到}"
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(JSON_TYPES[name](value) for name in names):
            return f"应为{_期望({'type': names})}，收到 {收到}"
    if "enum" in schema:
        same = [v for v in schema["enum"] if v == value and type(v) is type(value)]
        if not same:
            return f"应为{_期望({'enum': schema['enum']})}，收到 {收到}"
    return None
"""

VALUE_PROBLEM_EN = """
KINDS = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
         "array": (list,), "object": (dict,), "null": (type(None),)}
JSON_TYPES = {
    name: (lambda kinds: lambda value: isinstance(value, kinds)
           and (bool in kinds or not isinstance(value, bool)))(kinds)
    for name, kinds in KINDS.items()
}


def value_problem(schema, value):
    match schema:
        case {"anyOf": options} if all(value_problem(o, value) is not None for o in options):
            return f"expected {_expected(schema)}"
        case {"type": str(name)} if not JSON_TYPES[name](value):
            return f"expected {_expected(schema)}"
        case {"type": list(names)} if not any(JSON_TYPES[n](value) for n in names):
            return f"expected {_expected(schema)}"
        case {"enum": allowed} if (json.dumps(value) not in map(json.dumps, allowed)):
            return f"expected {_expected(schema)}"
    return None
"""

VALIDATE_ZH = """
def validate_arguments(schema, arguments):
    问题 = []
    待查 = [(schema, arguments, "")]
    while 待查:
        node, value, path = 待查.pop(0)
        problem = value_problem(node, value)
        if problem is not None:
            问题.append(f"{path or '参数'}：{problem}")
            continue
        前缀 = path + "." if path else ""
        if isinstance(value, dict):
            properties = node.get("properties", {})
            问题 += [f"缺少必要参数 {前缀}{key}" for key in node.get("required", [])
                   if key not in value]
            for key, item in value.items():
                if key in properties:
                    待查.append((properties[key], item, 前缀 + key))
                elif node.get("additionalProperties") is False:
                    问题.append(f"未知参数 {前缀}{key}，可用参数：{'、'.join(properties)}")
        if isinstance(value, list) and "items" in node:
            待查 += [(node["items"], item, f"{path}[{i}]") for i, item in enumerate(value)]
    return 问题
"""

VALIDATE_EN = """
def validate_arguments(schema, arguments):
    return list(_walk(schema, arguments, ()))


def _name(parts):
    return "".join(p if p.startswith("[") else "." + p for p in parts).lstrip(".") or "arguments"


def _walk(schema, value, parts):
    problem = value_problem(schema, value)
    if problem is not None:
        yield f"{_name(parts)} {problem}"
        return
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for key in schema.get("required", ()):
            if key not in value:
                yield f"{_name(parts + (key,))} is required but missing"
        for key in value:
            if key in properties:
                yield from _walk(properties[key], value[key], parts + (key,))
            elif schema.get("additionalProperties") is False:
                yield f"{_name(parts + (key,))} is an unexpected parameter"
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if "items" in schema:
                yield from _walk(schema["items"], item, parts + (f"[{index}]",))
"""

DISPATCH_ZH = """
class DispatchRegistry(ToolRegistry):
    def call(self, name, arguments):
        def 错误(text):
            return json.dumps({"error": text}, ensure_ascii=False)

        entry = self._tools.get(name)
        if entry is None:
            return 错误(f"未知工具 {name}。可用工具：{'、'.join(self._tools)}")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments or "{}")
            except ValueError as exc:
                return 错误(f"参数不是合法的 JSON（{exc.msg}），请发送一个 JSON 对象")
        if not isinstance(arguments, dict):
            return 错误("参数必须是一个 JSON 对象")
        problems = validate_arguments(entry["parameters"], arguments)
        if problems:
            return 错误("参数有误：" + "；".join(problems) + "。请改正后再调用。")
        try:
            result = entry["function"](**arguments)
        except Exception as exc:
            return 错误(f"工具 {name} 出错：{type(exc).__name__}: {exc}")
        if isinstance(result, str):
            return result
        try:
            return json.dumps(result, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            return 错误(f"结果无法转成 JSON：{type(exc).__name__}: {exc}")
"""

DISPATCH_EN = """
class _Refused(Exception):
    pass


class DispatchRegistry(ToolRegistry):
    def _entry(self, name):
        if name not in self._tools:
            raise _Refused(f"no tool {name!r}; the tools are: {sorted(self._tools)}")
        return self._tools[name]

    @staticmethod
    def _parsed(arguments):
        if isinstance(arguments, dict):
            return arguments
        try:
            parsed = {} if arguments == "" else json.loads(arguments)
        except json.JSONDecodeError:
            raise _Refused("the arguments are not JSON") from None
        if type(parsed) is not dict:
            raise _Refused("the arguments must be one JSON object of named values")
        return parsed

    def call(self, name, arguments):
        try:
            entry = self._entry(name)
            arguments = self._parsed(arguments)
            problems = validate_arguments(entry["parameters"], arguments)
            if problems:
                raise _Refused("; ".join(problems))
            try:
                result = entry["function"](**arguments)
            except Exception as exc:
                raise _Refused(f"{type(exc).__name__}: {exc}") from exc
            try:
                return result if type(result) is str else json.dumps(result, ensure_ascii=False)
            except TypeError as exc:
                raise _Refused(f"{type(exc).__name__}: {exc}") from exc
        except _Refused as refusal:
            return error_text(str(refusal))
"""

TO_TEXT_ZH = """
def to_text(result, *, max_chars=20_000):
    text = result if isinstance(result, str) else json.dumps(
        result, ensure_ascii=False, default=jsonable)
    if len(text) <= max_chars:
        return text
    kept = max_chars - 10
    return text[:kept] + f"\\n[已截去 {len(text) - kept} 个字符，共 {len(text)} 个]"
"""


def defined(*sources: str) -> dict[str, Any]:
    """The solution's names with ``sources`` run after them, as cells a learner wrote."""
    namespace = dict(solution())
    for number, source in enumerate(sources):
        run_source(textwrap.dedent(source), f"<alternative {number}>", namespace)
    return namespace


@pytest.mark.parametrize("source", [VALUE_PROBLEM_ZH, VALUE_PROBLEM_EN], ids=["zh", "en"])
def test_a_value_problem_written_differently_passes(source):
    assert evaluate("04.2", defined(source)["value_problem"]).startswith("Exercise 04.2 passed")


@pytest.mark.parametrize(
    "sources", [(VALUE_PROBLEM_ZH, VALIDATE_ZH), (VALIDATE_EN,)], ids=["zh", "en"]
)
def test_a_validator_written_differently_passes(sources):
    validate = defined(*sources)["validate_arguments"]
    assert evaluate("04.3", validate).startswith("Exercise 04.3 passed")


def test_the_chinese_validator_says_what_the_source_articles_say():
    validate = defined(VALUE_PROBLEM_ZH, VALIDATE_ZH)["validate_arguments"]
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    assert validate(schema, {}) == ["缺少必要参数 city"]


@pytest.mark.parametrize(
    "sources", [(VALUE_PROBLEM_ZH, VALIDATE_ZH, DISPATCH_ZH), (DISPATCH_EN,)], ids=["zh", "en"]
)
def test_a_dispatch_written_differently_passes(sources):
    registry = defined(*sources)["DispatchRegistry"]
    assert evaluate("04.4", registry).startswith("Exercise 04.4 passed")


def test_a_to_text_with_a_chinese_marker_passes():
    assert evaluate("04.5", defined(TO_TEXT_ZH)["to_text"]).startswith("Exercise 04.5 passed")


REGISTRY_ZH = """
class ToolRegistry:
    FORMATS = ("openai", "responses", "anthropic")

    def __init__(self):
        self._tools = {}

    def tool(self, func=None, /, *, name=None, description=None, tags=(), owner=None,
             version=None, replace=False):
        if isinstance(func, str):
            return self.tool(name=name, description=func, tags=tags, owner=owner,
                             version=version, replace=replace)
        if func is None:
            return lambda function: self.tool(function, name=name, description=description,
                                              tags=tags, owner=owner, version=version,
                                              replace=replace)
        key = func.__name__ if name is None else name
        if key in self._tools and not replace:
            raise ValueError(f"名为 {key!r} 的工具已经注册过了：请换一个名字，或传 replace=True")
        paragraphs = (inspect.getdoc(func) or "").split("\\n\\n")
        self._tools[key] = dict(
            function=func,
            description=paragraphs[0].strip() if description is None else description,
            parameters=parameters_schema(func),
            tags=[*tags],
            owner=owner,
            version=version,
        )
        return func

    def schemas(self, format="openai"):
        shapes = {
            "openai": lambda n, e: {"type": "function", "function": {
                "name": n, "description": e["description"], "parameters": e["parameters"]}},
            "responses": lambda n, e: {"type": "function", "name": n,
                                       "description": e["description"],
                                       "parameters": e["parameters"], "strict": False},
            "anthropic": lambda n, e: {"name": n, "description": e["description"],
                                       "input_schema": e["parameters"]},
        }
        if format not in shapes:
            raise ValueError(f"不支持的格式 {format!r}，可用：openai、responses、anthropic")
        return [shapes[format](n, e) for n, e in self._tools.items()]

    def names(self):
        return [*self._tools]
"""


def test_a_registry_written_differently_with_chinese_errors_passes():
    registry = defined(REGISTRY_ZH)["ToolRegistry"]
    assert evaluate("04.1", registry).startswith("Exercise 04.1 passed")

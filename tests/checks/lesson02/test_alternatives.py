"""Lesson 02: correct answers written differently from the solutions pass every check, those with
free-text messages (02.1, 02.4, 02.5) in Chinese.

Each alternative runs in a copy of the solution notebook's namespace, so it calls the notebook's
earlier exercises (``json_type``, ``parameters_schema``, ...) as a learner's code would.
"""

from __future__ import annotations

import textwrap

import pytest
from solution_cells import run_source

from course_lib.checks import evaluate

from ._solution import namespace_with


def alternative(name: str, source: str):
    """``name`` as defined by ``source``, run after the solution's cells."""
    namespace = namespace_with()
    run_source(textwrap.dedent(source), f"<alternative {name}>", namespace)
    return namespace[name]


JSON_TYPE_IN_CHINESE = """
    def json_type(annotation):
        for python_type, name in [(type(None), "null"), (bool, "boolean"), (int, "integer"),
                                  (float, "number"), (str, "string"), (list, "array"),
                                  (dict, "object")]:
            if annotation is python_type or (annotation is None and python_type is type(None)):
                return dict(type=name)
        raise TypeError(f"json_type 无法把注解 {annotation!r} 映射为 JSON Schema 类型")
"""
JSON_TYPE_BY_LOOKUP = """
    def json_type(annotation):
        names = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array",
                 dict: "object", type(None): "null"}
        key = type(None) if annotation is None else annotation
        if isinstance(key, type) and key in names and type(key) is type:
            return {"type": names[key]}
        raise TypeError("cannot map %r to a JSON type" % (annotation,))
"""
PARAMETERS_BY_COMPREHENSION = """
    def parameters_schema(func):
        hints = typing.get_type_hints(func)
        parameters = inspect.signature(func).parameters.values()
        empty = inspect.Parameter.empty

        def schema_of(p):
            found = json_type(hints[p.name])
            return found if p.default is empty else {**found, "default": p.default}

        return {
            "type": "object",
            "properties": {p.name: schema_of(p) for p in parameters},
            "required": [p.name for p in parameters if p.default is empty],
            "additionalProperties": False,
        }
"""
PARAMETERS_BY_KEYWORDS = """
    def parameters_schema(func):
        schema = dict(type="object", properties={}, required=[], additionalProperties=False)
        types = typing.get_type_hints(func)
        for name, parameter in inspect.signature(func).parameters.items():
            prop = schema["properties"].setdefault(name, json_type(types[name]))
            if parameter.default is parameter.empty:
                schema["required"] += [name]
            else:
                prop.update(default=parameter.default)
        return schema
"""
DOCSTRING_BY_PARTITION = """
    def parse_google_docstring(doc):
        if not doc or doc.isspace():
            return ("", {})
        lines = inspect.cleandoc(doc).splitlines()
        headers = ("Args:", "Arguments:", "Returns:", "Raises:", "Yields:", "Examples:",
                   "Example:", "Note:")
        summary = []
        for line in lines:
            if not line.strip() or line.strip() in headers:
                break
            summary.append(line.strip())
        found, inside, base, name = {}, False, None, None
        for line in lines:
            if not line.strip():
                continue
            depth = len(line) - len(line.lstrip())
            if depth == 0:
                inside, name = line.strip() in ("Args:", "Arguments:"), None
                continue
            if not inside:
                continue
            base = depth if base is None else base
            if depth > base and name is not None:
                found[name] = (found[name] + " " + line.strip()).strip()
                continue
            head, _, rest = line.strip().partition(":")
            name = head.split("(")[0].strip()
            found[name] = rest.strip()
        return " ".join(summary), found
"""
DOCSTRING_BY_SECTIONS = """
    def parse_google_docstring(doc):
        text = inspect.cleandoc(doc or "")
        if not text:
            return "", {}
        header = re.compile(
            r"^(Args|Arguments|Returns|Raises|Yields|Examples|Example|Note):$", re.M
        )
        first = header.search(text)
        head = text[: first.start()] if first else text
        summary = " ".join(line.strip() for line in head.split("\\n\\n")[0].splitlines())
        descriptions = {}
        for section in re.finditer(r"^(?:Args|Arguments):\\n((?:[ \\t]+.*\\n?|\\n)*)", text, re.M):
            body = [line for line in section.group(1).splitlines() if line.strip()]
            indent = min(len(line) - len(line.lstrip()) for line in body) if body else 0
            current = None
            for line in body:
                entry = ENTRY.match(line.strip())
                if len(line) - len(line.lstrip()) == indent and entry:
                    current = entry.group(1)
                    descriptions[current] = entry.group(2).strip()
                elif current:
                    descriptions[current] = f"{descriptions[current]} {line.strip()}".strip()
        return summary.strip(), descriptions
"""
TOOL_IN_CHINESE = """
    def function_to_tool(func, *, description=None):
        summary, documented = parse_google_docstring(func.__doc__)
        text = summary if description is None else description
        if not text:
            raise ValueError(f"函数 {func.__name__} 没有描述：请写文档字符串或传入 description")
        parameters = parameters_schema(func)
        for name in parameters["properties"].keys() & documented.keys():
            parameters["properties"][name]["description"] = documented[name]
        function = dict(name=func.__name__, description=text, parameters=parameters)
        return dict(type="function", function=function)
"""
TOOL_CHECKED_FIRST = """
    def function_to_tool(func, *, description=None):
        if description == "":
            raise ValueError(f"description for {func.__name__} is empty")
        summary, documented = parse_google_docstring(inspect.getdoc(func))
        if description is None and not summary:
            raise ValueError(f"{func.__name__!r} needs a docstring summary or a description")
        schema = parameters_schema(func)
        for name, prop in schema["properties"].items():
            if name in documented:
                prop["description"] = documented[name]
        return {"type": "function", "function": {
            "name": func.__name__, "description": description or summary, "parameters": schema}}
"""
DRIFT_IN_CHINESE = """
    def find_drift(func, tool):
        mine = parameters_schema(func)
        theirs = tool["function"]["parameters"]
        ours, others = mine["properties"], theirs.get("properties", {})
        required_here, required_there = set(mine["required"]), set(theirs.get("required", []))
        lines = [f"missing: {name}（函数里有，工具里没有）" for name in ours if name not in others]
        lines += [f"extra: {name}（工具里有，函数里没有）" for name in others if name not in ours]
        for name in ours.keys() & others.keys():
            if (name in required_here) != (name in required_there):
                lines.append(f"required: {name}：一边必填，另一边可选")
            if ours[name]["type"] != others[name].get("type"):
                there = others[name].get("type", "无类型")
                lines.append(f"type: {name}：函数中是 {ours[name]['type']}，工具中是 {there}")
        return sorted(lines)
"""
DRIFT_BY_SETS = """
    def find_drift(func, tool):
        mine = parameters_schema(func)
        theirs = tool["function"]["parameters"]
        a, b = mine["properties"], theirs.get("properties", {})
        out = []
        out += ["missing: " + n for n in sorted(set(a) - set(b))]
        out += ["extra: " + n for n in sorted(set(b) - set(a))]
        optional_in_tool = set(b) - set(theirs.get("required", ()))
        for n in sorted(set(a) & set(b)):
            if (n in mine["required"]) == (n in optional_in_tool):
                out.append(f"required: {n}")
            if "type" not in b[n] or b[n]["type"] != a[n]["type"]:
                out.append(f"type: {n} {a[n]['type']} vs {b[n].get('type')}")
        return out
"""

ALTERNATIVES = [
    ("02.1", "json_type", JSON_TYPE_IN_CHINESE),
    ("02.1", "json_type", JSON_TYPE_BY_LOOKUP),
    ("02.2", "parameters_schema", PARAMETERS_BY_COMPREHENSION),
    ("02.2", "parameters_schema", PARAMETERS_BY_KEYWORDS),
    ("02.3", "parse_google_docstring", DOCSTRING_BY_PARTITION),
    ("02.3", "parse_google_docstring", DOCSTRING_BY_SECTIONS),
    ("02.4", "function_to_tool", TOOL_IN_CHINESE),
    ("02.4", "function_to_tool", TOOL_CHECKED_FIRST),
    ("02.5", "find_drift", DRIFT_IN_CHINESE),
    ("02.5", "find_drift", DRIFT_BY_SETS),
]


@pytest.mark.parametrize(
    "exercise_id, name, source",
    ALTERNATIVES,
    ids=[f"{exercise}-{index % 2}" for index, (exercise, _, _) in enumerate(ALTERNATIVES)],
)
def test_a_correct_answer_written_differently_passes(exercise_id, name, source):
    assert evaluate(exercise_id, alternative(name, source)).startswith(
        f"Exercise {exercise_id} passed"
    )

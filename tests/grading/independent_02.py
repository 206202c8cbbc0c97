"""Five correct solutions to each exercise of lesson 02, written independently of each other and
of solutions/, each in its own style (an ``if`` chain, a ``match``, a table, a class, a
generator...). The similarity tests prove on them that honest work does not flag; each one
passes the course's own check first (``independent.py``).

Each exercise's solution is the whole exercise cell, stub docstring kept, as a learner would
hand it in.
"""

from __future__ import annotations

JSON_TYPE = [
    '''def json_type(annotation) -> dict:
    """The JSON Schema of a basic annotation, as a new dict: json_type(int) == {"type": "integer"}.

    Handles str, int, float, bool, list, dict, None and type(None); raises TypeError otherwise.
    """
    if annotation is str:
        return {"type": "string"}
    elif annotation is int:
        return {"type": "integer"}
    elif annotation is float:
        return {"type": "number"}
    elif annotation is bool:
        return {"type": "boolean"}
    elif annotation is list:
        return {"type": "array"}
    elif annotation is dict:
        return {"type": "object"}
    elif annotation is None or annotation is type(None):
        return {"type": "null"}
    raise TypeError(f"json_type cannot map {annotation!r}")
''',
    '''import builtins


def json_type(annotation) -> dict:
    """The JSON Schema of a basic annotation, as a new dict: json_type(int) == {"type": "integer"}.

    Handles str, int, float, bool, list, dict, None and type(None); raises TypeError otherwise.
    """
    match annotation:
        case None:
            word = "null"
        case builtins.bool:
            word = "boolean"
        case builtins.int:
            word = "integer"
        case builtins.float:
            word = "number"
        case builtins.str:
            word = "string"
        case builtins.list:
            word = "array"
        case builtins.dict:
            word = "object"
        case _ if annotation is type(None):
            word = "null"
        case _:
            raise TypeError(f"json_type cannot map {annotation!r}: not a basic type")
    return {"type": word}
''',
    '''BASIC = [
    (type(None), "null"),
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
]


def json_type(annotation) -> dict:
    """The JSON Schema of a basic annotation, as a new dict: json_type(int) == {"type": "integer"}.

    Handles str, int, float, bool, list, dict, None and type(None); raises TypeError otherwise.
    """
    wanted = type(None) if annotation is None else annotation
    labels = [label for kind, label in BASIC if kind is wanted]
    if not labels:
        raise TypeError("json_type cannot map " + repr(annotation) + " to a JSON type")
    return dict(type=labels[0])
''',
    '''import builtins

SCHEMA_NAMES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean",
                "list": "array", "dict": "object", "NoneType": "null"}


def json_type(annotation) -> dict:
    """The JSON Schema of a basic annotation, as a new dict: json_type(int) == {"type": "integer"}.

    Handles str, int, float, bool, list, dict, None and type(None); raises TypeError otherwise.
    """
    if annotation is None:
        annotation = type(None)
    name = getattr(annotation, "__name__", None)
    real = type(None) if name == "NoneType" else getattr(builtins, str(name), None)
    if name not in SCHEMA_NAMES or real is not annotation:
        raise TypeError(f"json_type cannot map {annotation!r}; it knows only the basic types")
    return {"type": SCHEMA_NAMES[name]}
''',
    '''_KNOWN = dict(zip((str, int, float, bool, list, dict, type(None)),
                  "string integer number boolean array object null".split()))


def json_type(annotation) -> dict:
    """The JSON Schema of a basic annotation, as a new dict: json_type(int) == {"type": "integer"}.

    Handles str, int, float, bool, list, dict, None and type(None); raises TypeError otherwise.
    """
    key = type(None) if annotation is None else annotation
    try:
        found = _KNOWN[key]
    except (KeyError, TypeError):
        raise TypeError(f"json_type cannot map {annotation!r}") from None
    return {"type": found}
''',
]

PARAMETERS_SCHEMA = [
    '''def parameters_schema(func) -> dict:
    """The JSON Schema object of func's parameters: properties (with defaults), required
    (parameters without a default, in order) and additionalProperties false."""
    hints = typing.get_type_hints(func)
    result = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    for param in inspect.signature(func).parameters.values():
        prop = json_type(hints[param.name])
        if param.default is param.empty:
            result["required"].append(param.name)
        else:
            prop["default"] = param.default
        result["properties"][param.name] = prop
    return result
''',
    '''def parameters_schema(func) -> dict:
    """The JSON Schema object of func's parameters: properties (with defaults), required
    (parameters without a default, in order) and additionalProperties false."""
    types_of = typing.get_type_hints(func)
    params = list(inspect.signature(func).parameters.values())
    no_default = inspect.Parameter.empty

    def describe(p):
        extra = {} if p.default is no_default else {"default": p.default}
        return {**json_type(types_of[p.name]), **extra}

    return {
        "type": "object",
        "properties": {p.name: describe(p) for p in params},
        "required": [p.name for p in params if p.default is no_default],
        "additionalProperties": False,
    }
''',
    '''def _entries(func):
    """(name, property, required?) for each parameter, in signature order."""
    annotations = typing.get_type_hints(func)
    for name, param in inspect.signature(func).parameters.items():
        prop = json_type(annotations[name])
        has_default = param.default is not inspect.Parameter.empty
        if has_default:
            prop["default"] = param.default
        yield name, prop, not has_default


def parameters_schema(func) -> dict:
    """The JSON Schema object of func's parameters: properties (with defaults), required
    (parameters without a default, in order) and additionalProperties false."""
    rows = list(_entries(func))
    return dict(
        type="object",
        properties={name: prop for name, prop, _ in rows},
        required=[name for name, _, needed in rows if needed],
        additionalProperties=False,
    )
''',
    '''class _SchemaBuilder:
    """Collects the parameters one by one."""

    def __init__(self, func):
        self.hints = typing.get_type_hints(func)
        self.signature = inspect.signature(func)
        self.properties = {}
        self.required = []

    def add(self, parameter):
        schema = json_type(self.hints[parameter.name])
        if parameter.default == inspect.Parameter.empty:
            self.required.append(parameter.name)
        else:
            schema.update(default=parameter.default)
        self.properties[parameter.name] = schema

    def build(self):
        for parameter in self.signature.parameters.values():
            self.add(parameter)
        return {"type": "object", "properties": self.properties,
                "required": self.required, "additionalProperties": False}


def parameters_schema(func) -> dict:
    """The JSON Schema object of func's parameters: properties (with defaults), required
    (parameters without a default, in order) and additionalProperties false."""
    return _SchemaBuilder(func).build()
''',
    '''def parameters_schema(func) -> dict:
    """The JSON Schema object of func's parameters: properties (with defaults), required
    (parameters without a default, in order) and additionalProperties false."""
    resolved = typing.get_type_hints(func)
    ordered = inspect.signature(func).parameters
    properties, required = {}, []
    index = 0
    while index < len(ordered):
        key = list(ordered)[index]
        default = ordered[key].default
        properties[key] = json_type(resolved[key])
        if default is inspect.Signature.empty:
            required += [key]
        else:
            properties[key] |= {"default": default}
        index += 1
    schema = {"type": "object"}
    schema["properties"] = properties
    schema["required"] = required
    schema["additionalProperties"] = False
    return schema
''',
]

PARSE_GOOGLE_DOCSTRING = [
    '''SECTION_HEADERS = ("Args:", "Arguments:", "Returns:", "Raises:", "Yields:", "Examples:",
                   "Example:", "Note:")


def parse_google_docstring(doc) -> tuple[str, dict[str, str]]:
    """(summary, {parameter: description}) from a Google-style docstring; ("", {}) for None."""
    if not doc or not doc.strip():
        return "", {}
    lines = inspect.cleandoc(doc).split("\\n")
    summary_lines = []
    for line in lines:
        if line.strip() == "" or line.strip() in SECTION_HEADERS:
            break
        summary_lines.append(line.strip())
    params = {}
    section = None
    level = None
    last = None
    for line in lines:
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip(" "))
        if depth == 0:
            section = line.strip()
            last = None
            continue
        if section not in ("Args:", "Arguments:"):
            continue
        if level is None:
            level = depth
        entry = ENTRY.match(line.strip())
        if depth <= level and entry:
            last = entry.group(1)
            params[last] = entry.group(2).strip()
        elif last is not None:
            params[last] = (params[last] + " " + line.strip()).strip()
    return " ".join(summary_lines), params
''',
    '''import re as _re

_NAMED = _re.compile(r"(?P<name>\\w+)(?:\\s*\\([^)]*\\))?\\s*:(?P<text>.*)")
_STARTS = {"Args:", "Arguments:", "Returns:", "Raises:", "Yields:", "Examples:", "Example:",
           "Note:"}


def _sections(lines):
    """(header, body lines) for each unindented line and the indented lines under it."""
    header, body = None, []
    for line in lines:
        if line and not line[0].isspace():
            yield header, body
            header, body = line.strip(), []
        elif line.strip():
            body.append(line)
    yield header, body


def parse_google_docstring(doc) -> tuple[str, dict[str, str]]:
    """(summary, {parameter: description}) from a Google-style docstring; ("", {}) for None."""
    if doc is None or doc.isspace() or doc == "":
        return ("", {})
    lines = inspect.cleandoc(doc).splitlines()
    head = []
    for line in lines:
        if not line.strip() or line.strip() in _STARTS:
            break
        head.append(line.strip())
    found = {}
    for header, body in _sections(lines):
        if header not in ("Args:", "Arguments:") or not body:
            continue
        first = min(len(line) - len(line.lstrip()) for line in body[:1])
        current = None
        for line in body:
            indent = len(line) - len(line.lstrip())
            match = _NAMED.fullmatch(line.strip()) if indent <= first else None
            if match:
                current = match["name"]
                found[current] = match["text"].strip()
            elif current:
                found[current] = " ".join(filter(None, [found[current], line.strip()]))
    return (" ".join(head), found)
''',
    '''class _DocReader:
    """Walks a cleaned docstring once, keeping what it is in."""

    HEADERS = frozenset({"Args:", "Arguments:", "Returns:", "Raises:", "Yields:", "Examples:",
                         "Example:", "Note:"})

    def __init__(self, text):
        self.lines = inspect.cleandoc(text).splitlines()

    def summary(self):
        words = []
        for raw in self.lines:
            text = raw.strip()
            if not text or text in self.HEADERS:
                return " ".join(words)
            words.append(text)
        return " ".join(words)

    def arguments(self):
        out, name, inside, column = {}, None, False, None
        for raw in self.lines:
            text = raw.strip()
            if not text:
                continue
            column_here = len(raw) - len(raw.lstrip())
            if column_here == 0:
                inside, name = text in ("Args:", "Arguments:"), None
                continue
            if not inside:
                continue
            column = column_here if column is None else column
            before, colon, after = text.partition(":")
            key = before.split("(")[0].strip()
            if column_here <= column and colon and key.isidentifier():
                name = key
                out[name] = after.strip()
            elif name is not None:
                out[name] = f"{out[name]} {text}".strip()
        return out


def parse_google_docstring(doc) -> tuple[str, dict[str, str]]:
    """(summary, {parameter: description}) from a Google-style docstring; ("", {}) for None."""
    if doc is None or not doc.strip():
        return "", {}
    reader = _DocReader(doc)
    return reader.summary(), reader.arguments()
''',
    '''HEADER_WORDS = ["Args", "Arguments", "Returns", "Raises", "Yields", "Examples", "Example",
                "Note"]


def parse_google_docstring(doc) -> tuple[str, dict[str, str]]:
    """(summary, {parameter: description}) from a Google-style docstring; ("", {}) for None."""
    text = inspect.cleandoc(doc or "")
    if text.strip() == "":
        return "", {}
    rows = text.splitlines()
    is_header = lambda row: row.rstrip().endswith(":") and row.strip()[:-1] in HEADER_WORDS
    cut = next((i for i, row in enumerate(rows) if not row.strip() or is_header(row)), len(rows))
    summary = " ".join(row.strip() for row in rows[:cut])
    start = next((i for i, row in enumerate(rows) if row.strip() in ("Args:", "Arguments:")
                  and not row[:1].isspace()), None)
    described = {}
    if start is None:
        return summary, described
    block = []
    for row in rows[start + 1:]:
        if row.strip() and not row[:1].isspace():
            break
        if row.strip():
            block.append(row)
    if not block:
        return summary, described
    margin = len(block[0]) - len(block[0].lstrip())
    key = None
    for row in block:
        depth = len(row) - len(row.lstrip())
        hit = re.match(r"^(\\w+)\\s*(\\([^)]*\\))?\\s*:(.*)$", row.strip())
        if depth <= margin and hit is not None:
            key = hit.group(1)
            described[key] = hit.group(3).strip()
        elif key:
            described[key] = (described[key] + " " + row.strip()).strip()
    return summary, described
''',
    '''import itertools

GOOGLE_SECTIONS = {"Args:", "Arguments:", "Returns:", "Raises:", "Yields:", "Examples:",
                   "Example:", "Note:"}


def _indent(line):
    return len(line) - len(line.lstrip())


def parse_google_docstring(doc) -> tuple[str, dict[str, str]]:
    """(summary, {parameter: description}) from a Google-style docstring; ("", {}) for None."""
    if doc is None:
        return "", {}
    cleaned = inspect.cleandoc(doc)
    if not cleaned.strip():
        return "", {}
    lines = cleaned.splitlines()
    opening = itertools.takewhile(
        lambda line: line.strip() and line.strip() not in GOOGLE_SECTIONS, lines
    )
    summary = " ".join(part.strip() for part in opening)
    entries: dict[str, list[str]] = {}
    reading, first_depth, owner = False, None, None
    for line in filter(str.strip, lines):
        if _indent(line) == 0:
            reading = line.strip() in {"Args:", "Arguments:"}
            owner = None
        elif reading:
            first_depth = first_depth or _indent(line)
            match = ENTRY.match(line.strip())
            if _indent(line) <= first_depth and match:
                owner = match.group(1)
                entries[owner] = [match.group(2)]
            elif owner:
                entries[owner].append(line)
    cleaned_up = {
        name: " ".join(piece.strip() for piece in pieces if piece.strip())
        for name, pieces in entries.items()
    }
    return summary, cleaned_up
''',
]

FUNCTION_TO_TOOL = [
    '''def function_to_tool(func, *, description=None) -> dict:
    """The OpenAI Chat Completions tool for func; descriptions come from its docstring."""
    if description is None:
        description = parse_google_docstring(func.__doc__)[0]
    if not description:
        raise ValueError(f"{func.__name__} needs a description: add a docstring summary")
    notes = parse_google_docstring(func.__doc__)[1]
    parameters = parameters_schema(func)
    properties = parameters["properties"]
    for documented, note in notes.items():
        if documented in properties:
            properties[documented]["description"] = note
    function = dict(name=func.__name__, description=description, parameters=parameters)
    return {"type": "function", "function": function}
''',
    '''def function_to_tool(func, *, description=None) -> dict:
    """The OpenAI Chat Completions tool for func; descriptions come from its docstring."""
    parsed_summary, parameter_notes = parse_google_docstring(getattr(func, "__doc__", None))
    chosen = parsed_summary if description is None else description
    if chosen == "" or chosen is None:
        raise ValueError("no description for " + func.__name__ + "; pass description=...")
    params = parameters_schema(func)
    params["properties"] = {
        key: ({**value, "description": parameter_notes[key]} if key in parameter_notes else value)
        for key, value in params["properties"].items()
    }
    inner = {"name": func.__name__, "description": chosen, "parameters": params}
    return {"type": "function", "function": inner}
''',
    '''def _described(func, description):
    if description is not None:
        if description:
            return description
        raise ValueError(f"the description given for {func.__name__} is empty")
    summary = parse_google_docstring(func.__doc__)[0]
    if summary:
        return summary
    raise ValueError(f"{func.__name__} has no docstring summary to describe it")


def function_to_tool(func, *, description=None) -> dict:
    """The OpenAI Chat Completions tool for func; descriptions come from its docstring."""
    text = _described(func, description)
    notes = parse_google_docstring(func.__doc__)[1]
    parameters = parameters_schema(func)
    for argument in set(notes) & set(parameters["properties"]):
        parameters["properties"][argument]["description"] = notes[argument]
    tool = {"type": "function"}
    tool["function"] = {"name": func.__name__, "description": text, "parameters": parameters}
    return tool
''',
    '''def function_to_tool(func, *, description=None) -> dict:
    """The OpenAI Chat Completions tool for func; descriptions come from its docstring."""
    summary, by_name = parse_google_docstring(func.__doc__)
    match description:
        case None:
            words = summary
        case str() as given:
            words = given
    if len(words) == 0:
        raise ValueError(f"cannot describe {func.__name__!r}: write a docstring or give one")
    schema = parameters_schema(func)
    props = schema["properties"]
    for key in list(props):
        note = by_name.get(key)
        if note is not None:
            props[key] = dict(props[key], description=note)
    return dict(type="function",
                function=dict(name=func.__name__, description=words, parameters=schema))
''',
    '''class _Tool:
    def __init__(self, func, description):
        self.func = func
        self.summary, self.notes = parse_google_docstring(func.__doc__)
        self.description = self.summary if description is None else description

    def check(self):
        if not self.description:
            raise ValueError(
                "function " + self.func.__name__ + " has no description (docstring or argument)"
            )

    def parameters(self):
        schema = parameters_schema(self.func)
        for name, note in self.notes.items():
            if name in schema["properties"]:
                schema["properties"][name]["description"] = note
        return schema

    def as_dict(self):
        self.check()
        body = {"name": self.func.__name__, "description": self.description}
        body["parameters"] = self.parameters()
        return {"type": "function", "function": body}


def function_to_tool(func, *, description=None) -> dict:
    """The OpenAI Chat Completions tool for func; descriptions come from its docstring."""
    return _Tool(func, description).as_dict()
''',
]

FIND_DRIFT = [
    '''def find_drift(func, tool) -> list[str]:
    """One line per mismatch between func and a hand-written OpenAI tool: missing, extra,
    required, type."""
    ours = parameters_schema(func)
    theirs = tool["function"]["parameters"]
    our_props, their_props = ours["properties"], theirs.get("properties", {})
    report = []
    for name in our_props:
        if name not in their_props:
            report.append(f"missing: {name} is a parameter the tool does not describe")
    for name in their_props:
        if name not in our_props:
            report.append(f"extra: {name} is in the tool only")
    for name in our_props:
        if name not in their_props:
            continue
        we_need = name in ours["required"]
        they_need = name in theirs.get("required", [])
        if we_need and not they_need:
            report.append(f"required: {name} is required by the function, optional in the tool")
        elif they_need and not we_need:
            report.append(f"required: {name} is optional in the function, required in the tool")
        a, b = our_props[name].get("type"), their_props[name].get("type")
        if a != b:
            report.append(f"type: {name} is {a} in the function, {b} in the tool")
    return report
''',
    '''def find_drift(func, tool) -> list[str]:
    """One line per mismatch between func and a hand-written OpenAI tool: missing, extra,
    required, type."""
    mine = parameters_schema(func)
    declared = tool["function"]["parameters"]
    have, told = set(mine["properties"]), set(declared.get("properties", {}))
    lines = [f"missing: {n} (the tool lacks it)" for n in sorted(have - told)]
    lines += [f"extra: {n} (the function lacks it)" for n in sorted(told - have)]
    needed_here, needed_there = set(mine["required"]), set(declared.get("required", ()))
    for n in sorted(have & told):
        if (n in needed_here) ^ (n in needed_there):
            side = "function" if n in needed_here else "tool"
            lines.append(f"required: {n} is required only in the {side}")
        here = mine["properties"][n].get("type")
        there = declared["properties"][n].get("type")
        if here != there:
            lines.append(f"type: {n} differs: {here} (function) vs {there} (tool)")
    return lines
''',
    '''KINDS = ("missing", "extra", "required", "type")


def _mismatches(schema, stated):
    props = stated.get("properties", {})
    needed = stated.get("required", [])
    for key, prop in schema["properties"].items():
        if key not in props:
            yield "missing", key, "not in the tool"
            continue
        if (key in schema["required"]) != (key in needed):
            where = "in the function" if key in schema["required"] else "in the tool"
            yield "required", key, f"required {where} only"
        if prop.get("type") != props[key].get("type"):
            yield "type", key, f"{prop.get('type')} against {props[key].get('type')}"
    for key in props:
        if key not in schema["properties"]:
            yield "extra", key, "not a parameter of the function"


def find_drift(func, tool) -> list[str]:
    """One line per mismatch between func and a hand-written OpenAI tool: missing, extra,
    required, type."""
    found = _mismatches(parameters_schema(func), tool["function"]["parameters"])
    return [f"{kind}: {name} ({why})" for kind, name, why in found if kind in KINDS]
''',
    '''def find_drift(func, tool) -> list[str]:
    """One line per mismatch between func and a hand-written OpenAI tool: missing, extra,
    required, type."""
    real = parameters_schema(func)
    written = tool.get("function", {}).get("parameters", {})
    names = list(dict.fromkeys([*real["properties"], *written.get("properties", {})]))
    drift = []
    for name in names:
        in_function = name in real["properties"]
        in_tool = name in written.get("properties", {})
        if not in_tool:
            drift.append("missing: " + name)
        elif not in_function:
            drift.append("extra: " + name)
        else:
            left = name in real["required"]
            right = name in written.get("required", [])
            if left != right:
                drift.append(
                    "required: " + name + (" must be given to the function, not to the tool"
                                           if left else " must be given to the tool only")
                )
            want = real["properties"][name]["type"]
            got = written["properties"][name].get("type", "nothing")
            if want != got:
                drift.append("type: " + name + " wants " + str(want) + ", tool says " + str(got))
    return drift
''',
    '''def find_drift(func, tool) -> list[str]:
    """One line per mismatch between func and a hand-written OpenAI tool: missing, extra,
    required, type."""
    fn_schema = parameters_schema(func)
    tool_schema = tool["function"]["parameters"]
    fn_props = fn_schema["properties"]
    tool_props = tool_schema.get("properties") or {}
    fn_required = fn_schema["required"]
    tool_required = tool_schema.get("required") or []

    def state(name):
        return (name in fn_props, name in tool_props)

    messages = []
    for name in [*fn_props, *(n for n in tool_props if n not in fn_props)]:
        match state(name):
            case (True, False):
                messages.append(f"missing: {name} (the function has it)")
            case (False, True):
                messages.append(f"extra: {name} (only the tool has it)")
            case (True, True):
                if (name in fn_required) is not (name in tool_required):
                    where = "function" if name in fn_required else "tool"
                    messages.append(f"required: {name} (required by the {where} alone)")
                mine = fn_props[name].get("type")
                other = tool_props[name].get("type")
                if mine != other:
                    messages.append(f"type: {name} is {mine} here and {other} in the tool")
    return messages
''',
]

ANSWERS = {
    "02.1": JSON_TYPE,
    "02.2": PARAMETERS_SCHEMA,
    "02.3": PARSE_GOOGLE_DOCSTRING,
    "02.4": FUNCTION_TO_TOOL,
    "02.5": FIND_DRIFT,
}

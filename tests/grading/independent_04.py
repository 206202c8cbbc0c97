"""Five correct solutions to each exercise of lesson 04, written independently of each other and
of solutions/, each in its own style (closures, a named tuple of options, a dispatch table, a
``match``, a class; recursion, a stack, a queue; singledispatch...). Each passes the course's own
check first (``independent.py``).

Each solution is the whole exercise cell, with what the stub provides (signatures, docstrings,
``_expected``, ``_shown``, ``error_text``) kept, as a learner would hand it in.
"""

from __future__ import annotations

_REGISTRY_HEAD = '''class ToolRegistry:
    """Tools by name, each with its function, description, schema, tags and metadata."""

    FORMATS = ("openai", "responses", "anthropic")

    def __init__(self) -> None:
        self._tools: dict[str, dict] = {}

    def tool(self, func=None, /, *, name=None, description=None, tags=(), owner=None,
             version=None, replace=False):
        """Register a function as a tool: @tool, @tool("description") or @tool(name=..., ...)."""
'''
_SCHEMAS = '''
    def schemas(self, format: str = "openai") -> list[dict]:
        """One tool definition per registered tool, in registration order, in the given format."""
'''
_NAMES = '''
    def names(self) -> list[str]:
        """The registered tool names, in registration order."""
'''

TOOL_REGISTRY = [
    "import functools\n\n\n"
    + _REGISTRY_HEAD
    + """        options = dict(name=name, tags=tags, owner=owner, version=version, replace=replace)
        if isinstance(func, str):
            return functools.partial(self.tool, description=func, **options)
        if func is None:
            return functools.partial(self.tool, description=description, **options)
        key = func.__name__ if name is None else name
        if key in self._tools and not replace:
            raise ValueError(f"{key!r} is taken; use another name, or replace=True to overwrite")
        if description is None:
            paragraphs = (inspect.getdoc(func) or "").split("\\n\\n")
            description = paragraphs[0].strip()
        self._tools[key] = {
            "function": func,
            "description": description,
            "parameters": parameters_schema(func),
            "tags": list(tags),
            "owner": owner,
            "version": version,
        }
        return func
"""
    + _SCHEMAS
    + """        if format not in self.FORMATS:
            raise ValueError(f"format must be one of {self.FORMATS}, not {format!r}")
        result = []
        for key, entry in self._tools.items():
            if format == "anthropic":
                result.append({"name": key, "description": entry["description"],
                               "input_schema": entry["parameters"]})
            elif format == "responses":
                result.append({"type": "function", "name": key,
                               "description": entry["description"],
                               "parameters": entry["parameters"], "strict": False})
            else:
                inner = {"name": key, "description": entry["description"],
                         "parameters": entry["parameters"]}
                result.append({"type": "function", "function": inner})
        return result
"""
    + _NAMES
    + """        return [key for key in self._tools]
""",
    # 1: a named tuple of pending options that is itself the decorator; a table of shapes
    """from typing import NamedTuple


class _Pending(NamedTuple):
    registry: object
    name: object
    description: object
    tags: tuple
    owner: object
    version: object
    replace: bool

    def __call__(self, function):
        return self.registry._add(function, self)


"""
    + _REGISTRY_HEAD
    + """        if isinstance(func, str):
            func, description = None, func
        pending = _Pending(self, name, description, tuple(tags), owner, version, replace)
        return pending if func is None else pending(func)

    def _add(self, function, how):
        label = how.name or function.__name__
        if not how.replace and label in self._tools:
            raise ValueError("a tool called " + repr(label) + " exists (pass replace=True to swap)")
        text = how.description
        if text is None:
            doc = inspect.getdoc(function)
            text = doc.split("\\n\\n", 1)[0].strip() if doc else ""
        self._tools[label] = dict(function=function, description=text,
                                  parameters=parameters_schema(function), tags=list(how.tags),
                                  owner=how.owner, version=how.version)
        return function

    _SHAPES = {
        "openai": lambda n, d, p: {"type": "function",
                                   "function": {"name": n, "description": d, "parameters": p}},
        "responses": lambda n, d, p: {"type": "function", "name": n, "description": d,
                                      "parameters": p, "strict": False},
        "anthropic": lambda n, d, p: {"name": n, "description": d, "input_schema": p},
    }
"""
    + _SCHEMAS
    + """        shape = self._SHAPES.get(format)
        if shape is None:
            known = ", ".join(self._SHAPES)
            raise ValueError("unknown format " + repr(format) + "; known: " + known)
        return [shape(n, e["description"], e["parameters"]) for n, e in self._tools.items()]
"""
    + _NAMES
    + """        return list(self._tools.keys())
""",
    # 2: an inner decorator, the description by takewhile, a match on the format
    "import itertools\n\n\n"
    + _REGISTRY_HEAD
    + """        if isinstance(func, str):
            description = func
            func = None

        def decorate(function):
            key = name if name is not None else function.__name__
            if key in self._tools and not replace:
                raise ValueError(f"tool name {key!r} already registered (replace=True replaces it)")
            self._tools[key] = {
                "function": function,
                "description": self._describe(function) if description is None else description,
                "parameters": parameters_schema(function),
                "tags": [*tags],
                "owner": owner,
                "version": version,
            }
            return function

        if func is None:
            return decorate
        return decorate(func)

    @staticmethod
    def _describe(function):
        lines = (inspect.getdoc(function) or "").splitlines()
        paragraph = itertools.takewhile(lambda line: line.strip() != "", lines)
        return "\\n".join(paragraph).strip()
"""
    + _SCHEMAS
    + """        if format not in ("openai", "responses", "anthropic"):
            raise ValueError(f"no format {format!r}: choose openai, responses or anthropic")
        made = []
        for key, entry in self._tools.items():
            text, params = entry["description"], entry["parameters"]
            match format:
                case "openai":
                    made.append({"type": "function",
                                 "function": {"name": key, "description": text,
                                              "parameters": params}})
                case "responses":
                    made.append({"type": "function", "name": key, "description": text,
                                 "parameters": params, "strict": False})
                case "anthropic":
                    made.append({"name": key, "description": text, "input_schema": params})
        return made
"""
    + _NAMES
    + """        return [*self._tools]
""",
    # 3: keyword options forwarded to one private method; one base dict per tool, merged
    _REGISTRY_HEAD
    + """        settings = {"name": name, "tags": tags, "owner": owner, "version": version,
                    "replace": replace, "description": description}
        if type(func) is str:
            settings["description"] = func
            return lambda function: self._register(function, **settings)
        if func is None:
            return lambda function: self._register(function, **settings)
        return self._register(func, **settings)

    def _register(self, function, *, name, tags, owner, version, replace, description):
        tool_name = function.__name__ if name is None else name
        if tool_name in self._tools and replace is False:
            raise ValueError(
                f"cannot register {tool_name!r} twice; choose a new name or set replace=True"
            )
        if description is None:
            documented = inspect.getdoc(function)
            description = "" if documented is None else documented.partition("\\n\\n")[0].strip()
        entry = {}
        entry["function"] = function
        entry["description"] = description
        entry["parameters"] = parameters_schema(function)
        entry["tags"] = list(tags)
        entry["owner"] = owner
        entry["version"] = version
        self._tools[tool_name] = entry
        return function
"""
    + _SCHEMAS
    + """        known = ["openai", "responses", "anthropic"]
        if format not in known:
            raise ValueError("format " + repr(format) + " is not one of " + " / ".join(known))
        listed = []
        for tool_name in self._tools:
            base = {"name": tool_name, "description": self._tools[tool_name]["description"]}
            schema = self._tools[tool_name]["parameters"]
            if format == "openai":
                listed.append({"type": "function", "function": base | {"parameters": schema}})
            if format == "responses":
                listed.append({"type": "function"} | base | {"parameters": schema,
                                                              "strict": False})
            if format == "anthropic":
                listed.append(base | {"input_schema": schema})
        return listed
"""
    + _NAMES
    + """        return list(iter(self._tools))
""",
    # 4: module-level helpers for the entry and the description; schemas through a generator
    """def _first_paragraph(function):
    text = inspect.getdoc(function)
    if not text:
        return ""
    kept = []
    for line in text.split("\\n"):
        if not line.strip():
            break
        kept.append(line)
    return "\\n".join(kept).strip()


def _entry(function, description, tags, owner, version):
    return {
        "function": function,
        "description": _first_paragraph(function) if description is None else description,
        "parameters": parameters_schema(function),
        "tags": [tag for tag in tags],
        "owner": owner,
        "version": version,
    }


"""
    + _REGISTRY_HEAD
    + """        text = func if isinstance(func, str) else description

        def put(function):
            chosen = name or function.__name__
            if chosen in self._tools:
                if not replace:
                    raise ValueError(f"the name {chosen!r} is in use: pass replace=True to replace")
            self._tools[chosen] = _entry(function, text, tags, owner, version)
            return function

        return put(func) if callable(func) else put
"""
    + _SCHEMAS
    + """        if format not in self.FORMATS:
            raise ValueError("format should be 'openai', 'responses' or 'anthropic'")
        return list(self._each(format))

    def _each(self, format):
        for tool_name, entry in self._tools.items():
            described = {"name": tool_name, "description": entry["description"]}
            if format == "anthropic":
                yield {**described, "input_schema": entry["parameters"]}
            elif format == "openai":
                yield {"type": "function",
                       "function": {**described, "parameters": entry["parameters"]}}
            else:
                yield {"type": "function", **described, "parameters": entry["parameters"],
                       "strict": False}
"""
    + _NAMES
    + """        return sorted(self._tools, key=list(self._tools).index)
""",
]

_HELPERS_04_2 = '''

def _expected(schema: dict) -> str:
    """What a schema node asks for, in words: "an integer", "a string or null", 'one of "c", "f"';
    for "anyOf", every option joined with "or" ("an integer or null")."""
    if "anyOf" in schema:
        return " or ".join(_expected(option) for option in schema["anyOf"])
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    names = schema.get("type", [])
    names = names if isinstance(names, list) else [names]
    words = [n if n == "null" else f"an {n}" if n[0] in "aeiou" else f"a {n}" for n in names]
    return " or ".join(words) or "a valid value"


def _shown(value) -> str:
    """A value as the model wrote it, with its JSON type: 'true (boolean)', '"ten" (string)'."""
    kind = next((name for name, test in JSON_TYPES.items() if test(value)), type(value).__name__)
    return f"{json.dumps(value, ensure_ascii=False)} ({kind})"
'''
_VALUE_PROBLEM_HEAD = '''def value_problem(schema: dict, value) -> str | None:
    """What is wrong with `value` against one schema node ("type", "anyOf", "enum"), or None."""
'''

VALUE_PROBLEM = [
    """def _string(value):
    return isinstance(value, str)


def _integer(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value):
    return _integer(value) or isinstance(value, float)


def _boolean(value):
    return value is True or value is False


JSON_TYPES = {
    "string": _string,
    "integer": _integer,
    "number": _number,
    "boolean": _boolean,
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
    "null": lambda value: value is None,
}


"""
    + _VALUE_PROBLEM_HEAD
    + """    if "anyOf" in schema:
        if all(value_problem(option, value) is not None for option in schema["anyOf"]):
            return f"expected {_expected(schema)}, got {_shown(value)}"
    if "type" in schema:
        allowed = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(JSON_TYPES[kind](value) for kind in allowed):
            return f"expected {_expected({'type': allowed})}, got {_shown(value)}"
    if "enum" in schema:
        same = [o for o in schema["enum"] if o == value and _boolean(o) == _boolean(value)]
        if not same:
            return f"expected {_expected({'enum': schema['enum']})}, got {_shown(value)}"
    return None
"""
    + _HELPERS_04_2,
    # 1: tests made from a table of Python classes; the checks collected, the first one reported
    """_CLASSES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def _test_for(name, classes):
    def test(value):
        if isinstance(value, bool) and name != "boolean":
            return False
        return isinstance(value, classes)

    return test


JSON_TYPES = {name: _test_for(name, classes) for name, classes in _CLASSES.items()}


def _in_enum(options, value):
    return any(type(option) is type(value) and option == value for option in options) or any(
        option == value and not isinstance(option, bool) and not isinstance(value, bool)
        for option in options
    )


"""
    + _VALUE_PROBLEM_HEAD
    + """    failures = []
    if "anyOf" in schema and not any(value_problem(s, value) is None for s in schema["anyOf"]):
        failures.append(_expected(schema))
    declared = schema.get("type")
    if declared is not None:
        names = declared if type(declared) is list else [declared]
        if not any(JSON_TYPES[n](value) for n in names):
            failures.append(_expected({"type": names}))
    if "enum" in schema and not _in_enum(schema["enum"], value):
        failures.append(_expected({"enum": schema["enum"]}))
    if not failures:
        return None
    return "must be " + failures[0] + ", but is " + _shown(value)
"""
    + _HELPERS_04_2,
    # 2: small fit predicates, and a generator of problems whose first one is the answer
    """JSON_TYPES = dict(
    string=lambda v: type(v) is str,
    integer=lambda v: type(v) is int,
    number=lambda v: type(v) in (int, float),
    boolean=lambda v: type(v) is bool,
    array=lambda v: type(v) is list,
    object=lambda v: type(v) is dict,
    null=lambda v: v is None,
)


def _fits_type(node, value):
    kinds = node["type"]
    return any(JSON_TYPES[k](value) for k in (kinds if isinstance(kinds, list) else [kinds]))


def _fits_enum(node, value):
    for option in node["enum"]:
        if option == value and isinstance(option, bool) is isinstance(value, bool):
            return True
    return False


def _problems_of(node, value):
    if "anyOf" in node and all(value_problem(o, value) for o in node["anyOf"]):
        yield _expected({"anyOf": node["anyOf"]})
    if "type" in node and not _fits_type(node, value):
        kinds = node["type"]
        yield _expected({"type": kinds})
    if "enum" in node and not _fits_enum(node, value):
        yield _expected({"enum": node["enum"]})


"""
    + _VALUE_PROBLEM_HEAD
    + """    wanted = next(_problems_of(schema, value), None)
    return None if wanted is None else f"wanted {wanted}; the model sent {_shown(value)}"
"""
    + _HELPERS_04_2,
    # 3: a class that judges one node
    """class _Kind:
    def __init__(self, *classes, booleans=False):
        self.classes, self.booleans = classes, booleans

    def __call__(self, value):
        if isinstance(value, bool):
            return self.booleans
        return isinstance(value, self.classes)


JSON_TYPES = {
    "string": _Kind(str),
    "integer": _Kind(int),
    "number": _Kind(int, float),
    "boolean": _Kind(booleans=True),
    "array": _Kind(list),
    "object": _Kind(dict),
    "null": _Kind(type(None)),
}


class _Node:
    def __init__(self, schema):
        self.schema = schema

    def accepts_one_of(self, value):
        options = self.schema.get("anyOf")
        return options is None or any(_Node(o).problem(value) is None for o in options)

    def has_type_of(self, value):
        if "type" not in self.schema:
            return True
        names = self.schema["type"]
        names = [names] if isinstance(names, str) else names
        return any(JSON_TYPES[name](value) for name in names)

    def lists(self, value):
        if "enum" not in self.schema:
            return True
        marked = (type(value) is bool, value)
        return any((type(o) is bool, o) == marked for o in self.schema["enum"])

    def problem(self, value):
        if not self.accepts_one_of(value):
            wanted = _expected({"anyOf": self.schema["anyOf"]})
        elif not self.has_type_of(value):
            wanted = _expected({"type": self.schema["type"]})
        elif not self.lists(value):
            wanted = _expected({"enum": self.schema["enum"]})
        else:
            return None
        return f"should be {wanted} (got {_shown(value)})"


"""
    + _VALUE_PROBLEM_HEAD
    + """    return _Node(schema).problem(value)
"""
    + _HELPERS_04_2,
    # 4: a list of (key, fits, words) rules walked in order
    """JSON_TYPES = {}
JSON_TYPES["string"] = lambda value: isinstance(value, str)
JSON_TYPES["integer"] = lambda value: isinstance(value, int) and type(value) is not bool
JSON_TYPES["number"] = lambda value: isinstance(value, (int, float)) and type(value) is not bool
JSON_TYPES["boolean"] = lambda value: type(value) is bool
JSON_TYPES["array"] = lambda value: isinstance(value, list)
JSON_TYPES["object"] = lambda value: isinstance(value, dict)
JSON_TYPES["null"] = lambda value: value is None


def _as_list(names):
    return list(names) if isinstance(names, (list, tuple)) else [names]


RULES = [
    ("anyOf",
     lambda node, v: any(value_problem(option, v) is None for option in node["anyOf"]),
     lambda node: _expected({"anyOf": node["anyOf"]})),
    ("type",
     lambda node, v: any(JSON_TYPES[t](v) for t in _as_list(node["type"])),
     lambda node: _expected({"type": _as_list(node["type"])})),
    ("enum",
     lambda node, v: any(o == v and (o is True or o is False) == (v is True or v is False)
                         for o in node["enum"]),
     lambda node: _expected({"enum": node["enum"]})),
]


"""
    + _VALUE_PROBLEM_HEAD
    + """    for key, fits, words in RULES:
        if key in schema and not fits(schema, value):
            return "is not " + words(schema) + ": " + _shown(value)
    return None
"""
    + _HELPERS_04_2,
]

_VALIDATE_HEAD = '''def validate_arguments(schema: dict, arguments: dict) -> list[str]:
    """Every problem with `arguments` against the object `schema`, one message each; [] if valid."""
'''
_PROBLEMS_HEAD = '''def _problems(schema: dict, value, path: str) -> list[str]:
    """The problems of one value at `path` ("" for the arguments object itself)."""
'''

VALIDATE_ARGUMENTS = [
    _VALIDATE_HEAD
    + """    return list(_walk(schema, arguments, ""))


def _joined(path, key):
    return key if path == "" else path + "." + key


def _walk(schema, value, path):
    problem = value_problem(schema, value)
    if problem is not None:
        yield f"{path or 'arguments'}: {problem}"
        return
    if isinstance(value, dict):
        known = schema.get("properties", {})
        for needed in schema.get("required", []):
            if needed not in value:
                yield f"{_joined(path, needed)}: missing (it is required)"
        for key, item in value.items():
            if key in known:
                yield from _walk(known[key], item, _joined(path, key))
            elif schema.get("additionalProperties") is False:
                yield f"{_joined(path, key)}: unexpected, the tool has no such argument"
    elif isinstance(value, list) and "items" in schema:
        for position, item in enumerate(value):
            yield from _walk(schema["items"], item, f"{path}[{position}]")


"""
    + _PROBLEMS_HEAD
    + """    return list(_walk(schema, value, path))
""",
    # 1: an explicit stack instead of recursion
    _VALIDATE_HEAD
    + """    return _problems(schema, arguments, "")


"""
    + _PROBLEMS_HEAD
    + """    found = []
    pending = [(schema, value, path)]
    while pending:
        node, current, where = pending.pop()
        issue = value_problem(node, current)
        if issue:
            found.append((where or "(the arguments)") + ": " + issue)
            continue
        later = []
        if type(current) is dict:
            props = node.get("properties") or {}
            dot = where + "." if where else ""
            for required_key in node.get("required") or []:
                if required_key not in current:
                    found.append(dot + required_key + ": this required argument is missing")
            for key, item in current.items():
                if key in props:
                    later.append((props[key], item, dot + key))
                elif node.get("additionalProperties") is False:
                    found.append(dot + key + ": unexpected (not in the schema)")
        if type(current) is list and node.get("items") is not None:
            for i, item in enumerate(current):
                later.append((node["items"], item, f"{where}[{i}]"))
        pending.extend(reversed(later))
    return found
""",
    # 2: a walker object that collects
    """class _Walker:
    def __init__(self):
        self.messages = []

    def report(self, path, text):
        self.messages.append(f"{path}: {text}")

    def visit(self, schema, value, path):
        trouble = value_problem(schema, value)
        if trouble is not None:
            self.report(path or "the whole call", trouble)
            return
        if isinstance(value, dict):
            self.visit_object(schema, value, path)
        elif isinstance(value, list):
            self.visit_array(schema, value, path)

    def visit_object(self, schema, value, path):
        fields = schema.get("properties", {})
        closed = schema.get("additionalProperties") is False
        name_of = (lambda key: f"{path}.{key}") if path else (lambda key: key)
        for key in [k for k in schema.get("required", []) if k not in value]:
            self.report(name_of(key), "missing required field")
        for key in value:
            if key in fields:
                self.visit(fields[key], value[key], name_of(key))
            elif closed:
                self.report(name_of(key), "unexpected field")

    def visit_array(self, schema, value, path):
        if "items" not in schema:
            return
        for index in range(len(value)):
            self.visit(schema["items"], value[index], f"{path}[{index}]")


"""
    + _VALIDATE_HEAD
    + """    walker = _Walker()
    walker.visit(schema, arguments, "")
    return walker.messages


"""
    + _PROBLEMS_HEAD
    + """    walker = _Walker()
    walker.visit(schema, value, path)
    return walker.messages
""",
    # 3: a queue, breadth first
    """from collections import deque


"""
    + _VALIDATE_HEAD
    + """    return _problems(schema, arguments, "")


"""
    + _PROBLEMS_HEAD
    + """    queue = deque([(schema, value, path)])
    out = []
    while queue:
        node, item, at = queue.popleft()
        wrong = value_problem(node, item)
        if wrong is not None:
            out.append(f"{at if at else 'arguments'}: {wrong}")
            continue
        if isinstance(item, dict):
            inner = node.get("properties", {})
            prefix = at + "." if at else ""
            missing = [k for k in node.get("required", []) if k not in item]
            out.extend(f"{prefix}{k}: missing from the call" for k in missing)
            for k, v in item.items():
                if k in inner:
                    queue.append((inner[k], v, prefix + k))
                elif node.get("additionalProperties") is False:
                    out.append(f"{prefix}{k}: unexpected key")
        elif isinstance(item, list) and "items" in node:
            queue.extend((node["items"], v, f"{at}[{n}]") for n, v in enumerate(item))
    return out
""",
    # 4: every part returns a list, and the lists are chained
    """import itertools


def _object_problems(schema, value, path):
    where = (lambda key: f"{path}.{key}" if path else key)
    properties = schema.get("properties", {})
    absent = [f"{where(key)}: missing required argument {key!r}"
              for key in schema.get("required", []) if key not in value]
    unknown = [f"{where(key)}: unexpected argument {key!r}"
               for key in value
               if key not in properties and schema.get("additionalProperties") is False]
    nested = [_problems(properties[key], item, where(key))
              for key, item in value.items() if key in properties]
    return absent + unknown + list(itertools.chain.from_iterable(nested))


def _array_problems(schema, value, path):
    if "items" not in schema:
        return []
    return list(itertools.chain.from_iterable(
        _problems(schema["items"], item, f"{path}[{i}]") for i, item in enumerate(value)
    ))


"""
    + _VALIDATE_HEAD
    + """    return _problems(schema, arguments, "")


"""
    + _PROBLEMS_HEAD
    + """    first = value_problem(schema, value)
    if first is not None:
        return [(path or "arguments") + ": " + first]
    if isinstance(value, dict):
        return _object_problems(schema, value, path)
    if isinstance(value, list):
        return _array_problems(schema, value, path)
    return []
""",
]

_DISPATCH_HEAD = '''def error_text(message: str, **details) -> str:
    """An error result as the model reads it: a JSON object whose "error" says what to fix."""
    return json.dumps({"error": message, **details}, ensure_ascii=False)


class DispatchRegistry(ToolRegistry):
    """Your registry from 04.1 plus `call`: run a tool by name, always answer with a string."""

    def call(self, name: str, arguments: dict | str) -> str:
        """Run tool `name` with `arguments` (a dict or a JSON string); never raises."""
'''

DISPATCH_REGISTRY = [
    _DISPATCH_HEAD
    + """        entry = self._tools.get(name)
        if entry is None:
            known = ", ".join(self._tools) or "(none)"
            return error_text(f"There is no tool {name!r}. Registered tools: {known}.")
        if isinstance(arguments, str):
            if arguments.strip() == "":
                arguments = {}
            else:
                try:
                    arguments = json.loads(arguments)
                except ValueError as problem:
                    return error_text(f"The arguments are not valid JSON: {problem}")
        if not isinstance(arguments, dict):
            return error_text("The arguments must be a JSON object with one key per parameter.")
        problems = validate_arguments(entry["parameters"], arguments)
        if problems:
            return error_text("Invalid arguments: " + "; ".join(problems))
        try:
            result = entry["function"](**arguments)
        except Exception as exc:
            return error_text(f"The tool {name!r} raised {type(exc).__name__}: {exc}")
        if isinstance(result, str):
            return result
        try:
            return json.dumps(result, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            return error_text(f"The result could not be sent as JSON: {type(exc).__name__}: {exc}")
""",
    # 1: each step returns (value, error)
    _DISPATCH_HEAD
    + """        steps = (self._lookup, self._parse, self._check, self._run, self._encode)
        state = {"name": name, "arguments": arguments}
        for step in steps:
            failure = step(state)
            if failure is not None:
                return error_text(failure)
        return state["text"]

    def _lookup(self, state):
        if state["name"] not in self._tools:
            names = ", ".join(repr(n) for n in self._tools)
            return f"Unknown tool {state['name']!r}; the tools are: {names or 'none'}"
        state["entry"] = self._tools[state["name"]]
        return None

    def _parse(self, state):
        raw = state["arguments"]
        if raw == "":
            raw = "{}"
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except json.JSONDecodeError as bad:
                return f"Send the arguments as valid JSON ({bad.msg})"
        if not isinstance(raw, dict):
            return "The arguments must be one JSON object"
        state["arguments"] = raw
        return None

    def _check(self, state):
        found = validate_arguments(state["entry"]["parameters"], state["arguments"])
        return "Fix these arguments: " + " | ".join(found) if found else None

    def _run(self, state):
        try:
            state["result"] = state["entry"]["function"](**state["arguments"])
        except Exception as err:
            return "The tool failed with " + f"{type(err).__name__}: {err}"
        return None

    def _encode(self, state):
        result = state["result"]
        if type(result) is str:
            state["text"] = result
            return None
        try:
            state["text"] = json.dumps(result, ensure_ascii=False)
        except (TypeError, ValueError) as err:
            return f"The tool's result is not JSON ({type(err).__name__}: {err})"
        return None
""",
    # 2: refusals raised inside and turned into text in one place
    """class _Refusal(Exception):
    pass


"""
    + _DISPATCH_HEAD
    + """        try:
            return self._answer(name, arguments)
        except _Refusal as refusal:
            return error_text(str(refusal))

    def _answer(self, name, arguments):
        if name not in self._tools:
            listing = ", ".join(sorted(self._tools))
            raise _Refusal(f"No tool is called {name!r}. Try one of: {listing}")
        if arguments == "":
            arguments = {}
        elif isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except json.JSONDecodeError as e:
                raise _Refusal(f"Arguments must be JSON; this is not ({e.msg}).") from None
        if type(arguments) is not dict:
            raise _Refusal("Arguments must be an object, not " + type(arguments).__name__)
        tool_entry = self._tools[name]
        wrong = validate_arguments(tool_entry["parameters"], arguments)
        if wrong:
            raise _Refusal("These arguments do not fit the schema: " + "; ".join(wrong))
        try:
            output = tool_entry["function"](**arguments)
        except Exception as e:
            raise _Refusal(f"{name} stopped with {type(e).__name__}: {e}") from None
        if isinstance(output, str):
            return output
        try:
            return json.dumps(output, ensure_ascii=False)
        except Exception as e:
            raise _Refusal(f"{name} returned something JSON cannot hold: "
                           f"{type(e).__name__}: {e}") from None
""",
    # 3: a match on what the arguments are
    _DISPATCH_HEAD
    + """        if name not in self._tools:
            return error_text(
                "unknown tool " + json.dumps(name, ensure_ascii=False)
                + "; registered: " + json.dumps(list(self._tools), ensure_ascii=False)
            )
        match arguments:
            case "":
                parsed = {}
            case str() as text:
                try:
                    parsed = json.loads(text)
                except ValueError as failure:
                    return error_text(f"the arguments must be JSON: {failure}")
            case _:
                parsed = arguments
        match parsed:
            case dict():
                pass
            case _:
                return error_text("the arguments must be a JSON object")
        spec = self._tools[name]
        issues = validate_arguments(spec["parameters"], parsed)
        if issues:
            return error_text("; ".join(issues))
        try:
            value = spec["function"](**parsed)
        except Exception as failure:
            return error_text(f"{type(failure).__name__}: {failure}")
        if isinstance(value, str):
            return value
        try:
            return json.dumps(value, ensure_ascii=False)
        except Exception as failure:
            return error_text(f"cannot encode the result: {type(failure).__name__}: {failure}")
""",
    # 4: guard clauses through small predicates, one dictionary of messages
    """FAULTS = {
    "unknown": "Tool {name} does not exist. Available: {available}.",
    "json": "Could not read the arguments as JSON: {detail}.",
    "object": "Expected the arguments as a JSON object, got {kind}.",
    "invalid": "The arguments break the schema: {detail}.",
    "raised": "Running {name} raised {detail}.",
    "encode": "The result of {name} is not JSON-serialisable: {detail}.",
}


def _decoded(arguments):
    if isinstance(arguments, dict):
        return arguments, None
    text = arguments.strip() or "{}"
    try:
        return json.loads(text), None
    except json.JSONDecodeError as error:
        return None, error


"""
    + _DISPATCH_HEAD
    + """        if name not in self._tools:
            available = ", ".join(self.names()) if self._tools else "nothing"
            return error_text(FAULTS["unknown"].format(name=repr(name), available=available))
        if not isinstance(arguments, (dict, str)):
            return error_text(FAULTS["object"].format(kind=type(arguments).__name__))
        decoded, error = _decoded(arguments)
        if error is not None:
            return error_text(FAULTS["json"].format(detail=error))
        if not isinstance(decoded, dict):
            return error_text(FAULTS["object"].format(kind=type(decoded).__name__))
        record = self._tools[name]
        listing = validate_arguments(record["parameters"], decoded)
        if listing:
            return error_text(FAULTS["invalid"].format(detail=" / ".join(listing)))
        try:
            produced = record["function"](**decoded)
        except Exception as error:
            detail = f"{type(error).__name__}: {error}"
            return error_text(FAULTS["raised"].format(name=name, detail=detail))
        if isinstance(produced, str):
            return produced
        try:
            return json.dumps(produced, ensure_ascii=False)
        except (TypeError, ValueError, OverflowError) as error:
            detail = f"{type(error).__name__}: {error}"
            return error_text(FAULTS["encode"].format(name=name, detail=detail))
""",
]

_TO_TEXT_HEAD = '''def to_text(result, *, max_chars: int = 20_000) -> str:
    """The text a model reads for `result`: strings unchanged, the rest as JSON, cut if too long."""
'''
_JSONABLE_HEAD = '''def jsonable(value):
    """What `json.dumps(..., default=jsonable)` calls for a value JSON cannot hold itself."""
'''

TO_TEXT = [
    _TO_TEXT_HEAD
    + """    text = result if isinstance(result, str) else json.dumps(
        result, ensure_ascii=False, default=jsonable
    )
    if len(text) > max_chars:
        dropped = len(text) - max_chars
        text = text[:max_chars] + f"\\n[cut {dropped} characters of {len(text)}]"
    return text


"""
    + _JSONABLE_HEAD
    + """    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    raise TypeError(f"cannot turn {type(value).__name__} into JSON")
""",
    # 1: singledispatch
    """import functools


"""
    + _TO_TEXT_HEAD
    + """    if type(result) is str:
        whole = result
    else:
        whole = json.dumps(result, ensure_ascii=False, default=jsonable)
    if len(whole) <= max_chars:
        return whole
    return whole[:max_chars] + "\\n[... " + str(len(whole) - max_chars) + " characters cut ...]"


@functools.singledispatch
"""
    + _JSONABLE_HEAD
    + """    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    raise TypeError("to_text does not know how to write a " + type(value).__name__)


@jsonable.register(datetime.date)
@jsonable.register(datetime.time)
def _(value):
    return value.isoformat()


@jsonable.register
def _(value: decimal.Decimal):
    return str(value)


@jsonable.register(set)
@jsonable.register(frozenset)
def _(value):
    return sorted(value)
""",
    # 2: a match on the value's class
    _TO_TEXT_HEAD
    + """    encoded = result if isinstance(result, str) else json.dumps(
        result, default=jsonable, ensure_ascii=False
    )
    marker_room = 60
    if len(encoded) <= max_chars:
        return encoded
    keep = max(0, max_chars - marker_room)
    return f"{encoded[:keep]}\\n<{len(encoded) - keep} more characters were cut>"


"""
    + _JSONABLE_HEAD
    + """    match value:
        case datetime.datetime() | datetime.date() | datetime.time():
            return value.isoformat()
        case decimal.Decimal():
            return str(value)
        case set() | frozenset():
            try:
                return sorted(value)
            except TypeError:
                return sorted(value, key=str)
        case pydantic.BaseModel():
            return value.model_dump(mode="json")
        case _ if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return dataclasses.asdict(value)
        case _:
            raise TypeError(f"{type(value).__name__} is not JSON serializable (to_text)")
""",
    # 3: a table of (test, conversion) pairs
    """CONVERSIONS = [
    (lambda v: isinstance(v, (datetime.datetime, datetime.date, datetime.time)),
     lambda v: v.isoformat()),
    (lambda v: isinstance(v, decimal.Decimal), str),
    (lambda v: isinstance(v, (set, frozenset)), sorted),
    (lambda v: dataclasses.is_dataclass(v) and not isinstance(v, type), dataclasses.asdict),
    (lambda v: isinstance(v, pydantic.BaseModel), lambda v: v.model_dump(mode="json")),
]


"""
    + _TO_TEXT_HEAD
    + """    if not isinstance(result, str):
        result = json.dumps(result, ensure_ascii=False, default=jsonable)
    overflow = len(result) - max_chars
    if overflow <= 0:
        return result
    note = "\\n[" + f"{overflow} of {len(result)} characters were cut; ask for less" + "]"
    return result[:max_chars] + note


"""
    + _JSONABLE_HEAD
    + """    for applies, convert in CONVERSIONS:
        if applies(value):
            return convert(value)
    raise TypeError(f"jsonable: no rule for {type(value).__name__}")
""",
    # 4: a converter object whose bound method is jsonable
    """class _Converter:
    \"\"\"Turns the values JSON lacks into ones it has, one method per kind.\"\"\"

    def convert(self, value):
        for kind in ("moment", "decimal", "collection", "model", "record"):
            handled, converted = getattr(self, kind)(value)
            if handled:
                return converted
        raise TypeError("no JSON form for a value of type " + type(value).__name__)

    def moment(self, value):
        ok = isinstance(value, (datetime.date, datetime.time))
        return ok, value.isoformat() if ok else None

    def decimal(self, value):
        ok = isinstance(value, decimal.Decimal)
        return ok, str(value) if ok else None

    def collection(self, value):
        ok = isinstance(value, (set, frozenset))
        return ok, sorted(value) if ok else None

    def model(self, value):
        ok = isinstance(value, pydantic.BaseModel)
        return ok, value.model_dump(mode="json") if ok else None

    def record(self, value):
        ok = dataclasses.is_dataclass(value) and not isinstance(value, type)
        return ok, dataclasses.asdict(value) if ok else None


"""
    + _TO_TEXT_HEAD
    + """    body = result if isinstance(result, str) else json.dumps(
        result, ensure_ascii=False, default=jsonable)
    size = len(body)
    return body if size <= max_chars else "".join(
        [body[:max_chars], "\\n(", str(size - max_chars), " characters left out)"])


_CONVERTER = _Converter()


"""
    + _JSONABLE_HEAD
    + """    return _CONVERTER.convert(value)
""",
]

ANSWERS = {
    "04.1": TOOL_REGISTRY,
    "04.2": VALUE_PROBLEM,
    "04.3": VALIDATE_ARGUMENTS,
    "04.4": DISPATCH_REGISTRY,
    "04.5": TO_TEXT,
}

"""One Python annotation to one JSON Schema (draft 2020-12).

The model only ever sees JSON, so every annotation must say what JSON it accepts. The rules:

- ``bool`` is checked before ``int`` (``bool`` is a subclass of ``int``; ``True`` is no integer).
- ``None`` is ``{"type": "null"}``; never OpenAPI's ``nullable``.
- ``Union[A, B]`` keeps every member; nothing collapses to its first type. A union of plain types
  is a type list (``str | None`` is ``{"type": ["string", "null"]}``), and so is one scalar schema
  or null (``Literal["a", "b"] | None`` adds ``null`` to the type and ``None`` to the ``enum``);
  any other union is an ``anyOf`` of its members. Both are plain JSON Schema, the type list is
  just shorter: tool schemas are paid for in tokens on every request.
- Containers always say what they contain (``items``, ``prefixItems``, ``additionalProperties``).
  A bare one (``list``, ``typing.List``, ``typing.Tuple``, ``typing.Dict``, ...) holds anything,
  as in pydantic: ``{"type": "array"}`` (``items: {}`` says nothing, so it is left out).
- Classes (dataclasses, TypedDicts, pydantic models) live in ``$defs`` and are referenced with
  ``$ref``, which is what makes recursive types possible; a class used only once is inlined again
  at the end to keep the schema small.
- ``Decimal`` is a string of digits (``"12.50"``): a JSON number would be read as a binary float and
  lose exactly the precision ``Decimal`` exists for. pydantic accepts such strings in strict mode.
- What JSON cannot carry (bytes, callables, type variables, ...) raises ``TypeError`` naming it.
"""

from __future__ import annotations

import collections.abc as cabc
import dataclasses
import datetime as dt
import enum
import pathlib
import types
import typing
import uuid
from decimal import Decimal
from typing import Any

import annotated_types as at
import typing_extensions as te
from pydantic import BaseModel
from pydantic.errors import PydanticUserError
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema

from .docstrings import parse_docstring
from .fields import MISSING, field_shape

__all__ = [
    "type_schema",
    "SchemaBuilder",
    "json_default",
    "allows_null",
    "union_schema",
    "or_null",
    "copy_json",
]

DECIMAL_PATTERN = r"^-?[0-9]+(\.[0-9]+)?$"  # [0-9], not \d: \d also matches non-ASCII digits

_SCALARS: dict[Any, dict] = {
    str: {"type": "string"},
    bool: {"type": "boolean"},
    int: {"type": "integer"},
    float: {"type": "number"},
    type(None): {"type": "null"},
    dt.datetime: {"type": "string", "format": "date-time"},
    dt.date: {"type": "string", "format": "date"},
    dt.time: {"type": "string", "format": "time"},
    dt.timedelta: {"type": "string", "format": "duration"},
    uuid.UUID: {"type": "string", "format": "uuid"},
    Decimal: {"type": "string", "pattern": DECIMAL_PATTERN},
    pathlib.Path: {"type": "string"},
    pathlib.PurePath: {"type": "string"},
    pathlib.PosixPath: {"type": "string"},
    pathlib.PurePosixPath: {"type": "string"},
    pathlib.WindowsPath: {"type": "string"},
    pathlib.PureWindowsPath: {"type": "string"},
}

_ARRAYS = {list, typing.List, cabc.Sequence, cabc.MutableSequence, typing.Sequence}  # noqa: UP006
_SETS = {set, frozenset, cabc.Set, cabc.MutableSet, typing.Set, typing.FrozenSet}  # noqa: UP006
_MAPS = {dict, typing.Dict, cabc.Mapping, cabc.MutableMapping, typing.Mapping}  # noqa: UP006
# typing's unsubscripted aliases: get_origin() gives list, tuple, ... and get_args() nothing, so
# without this table typing.List would look like list[] and typing.Tuple like tuple[()].
_BARE_ALIASES = {
    typing.List, typing.Tuple, typing.Set, typing.FrozenSet, typing.AbstractSet,  # noqa: UP006
    typing.MutableSet, typing.Dict, typing.Mapping, typing.MutableMapping,  # noqa: UP006
    typing.Sequence, typing.MutableSequence,
}  # fmt: skip
_UNIONS = {typing.Union, types.UnionType}
_LITERALS = {typing.Literal, te.Literal}
_ANY = {typing.Any, te.Any, object}
# typing has Required/NotRequired from Python 3.11 on; typing_extensions has them everywhere.
_REQUIRED = {te.Required, getattr(typing, "Required", te.Required)}
_NOT_REQUIRED = {te.NotRequired, getattr(typing, "NotRequired", te.NotRequired)}
_TD_WRAPPERS = _REQUIRED | _NOT_REQUIRED
if hasattr(te, "ReadOnly"):
    _TD_WRAPPERS.add(te.ReadOnly)

_JSON_TYPE_OF = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    type(None): "null",
}


def type_schema(annotation: Any, defs: dict[str, dict] | None = None) -> dict:
    """Return the JSON Schema of ``annotation``.

    With ``defs=None`` the result is self-contained (a ``$defs`` section is added when needed).
    Pass a dict as ``defs`` to collect class definitions across several calls yourself, as
    ``parameters_schema`` does; the result then holds ``$ref``s into that dict.
    """
    if defs is not None:
        return SchemaBuilder(defs).schema(annotation)
    builder = SchemaBuilder()
    return builder.finish(builder.schema(annotation))


class SchemaBuilder:
    """Converts annotations one by one while sharing one ``$defs`` table between them."""

    def __init__(self, defs: dict[str, dict] | None = None) -> None:
        self.defs: dict[str, dict] = {} if defs is None else defs
        self._names: dict[Any, str] = {}

    # -- entry points -------------------------------------------------------------------------

    def schema(self, annotation: Any) -> dict:
        """The schema of one annotation; class definitions go to ``self.defs``."""
        if isinstance(annotation, (str, typing.ForwardRef)):
            name = annotation if isinstance(annotation, str) else annotation.__forward_arg__
            raise TypeError(
                f"unresolved forward reference {name!r}: resolve annotations with "
                "typing.get_type_hints() before converting them (and make sure the name exists)"
            )
        if annotation is None:
            return {"type": "null"}
        if _hashable(annotation):  # Annotated[x, [1, 2]] is not, and is in no table either
            if annotation in _SCALARS:
                return dict(_SCALARS[annotation])
            if annotation in _ANY:
                return {}
            if annotation in _BARE_ALIASES:
                return self._plain(typing.get_origin(annotation))
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            return self._annotated(annotation)
        if origin is not None:
            return self._generic(annotation, origin, typing.get_args(annotation))
        return self._plain(annotation)

    def finish(self, schema: dict) -> dict:
        """Inline single-use, non-recursive definitions and attach the rest as ``$defs``."""
        return attach_defs(schema, self.defs)

    # -- plain (unsubscripted) annotations ---------------------------------------------------

    def _plain(self, tp: Any) -> dict:
        if tp in _ARRAYS or tp is tuple or tp is typing.Tuple:  # noqa: UP006
            return {"type": "array"}
        if tp in _SETS:
            return {"type": "array", "uniqueItems": True}
        if tp in _MAPS:
            return {"type": "object"}
        supertype = getattr(tp, "__supertype__", None)  # typing.NewType
        if supertype is not None:
            return self.schema(supertype)
        if isinstance(tp, type):
            if issubclass(tp, enum.Enum):
                return enum_schema(tp)
            if issubclass(tp, BaseModel):
                return self._model(tp)
            if dataclasses.is_dataclass(tp):
                return self._ref(tp, self._dataclass)
            if te.is_typeddict(tp):
                return self._ref(tp, self._typeddict)
        raise TypeError(
            f"unsupported type {_show(tp)}: JSON tools accept str, int, float, bool, None, Any, "
            "containers of those, Literal, Enum, TypedDict, dataclasses, pydantic models, "
            "datetime/date/time, UUID, Path and Decimal"
        )

    # -- subscripted generics -----------------------------------------------------------------

    def _generic(self, tp: Any, origin: Any, args: tuple) -> dict:
        if origin in _UNIONS:
            return self._union(args)
        if origin in _LITERALS:
            return literal_schema(args)
        if origin in _TD_WRAPPERS:
            return self.schema(args[0])
        if origin in _ARRAYS:
            return {"type": "array", "items": self.schema(args[0])}
        if origin in _SETS:
            return {"type": "array", "items": self.schema(args[0]), "uniqueItems": True}
        if origin is tuple:
            return self._tuple(args)
        if origin in _MAPS:
            return self._mapping(tp, args)
        if isinstance(origin, type) and (
            dataclasses.is_dataclass(origin) or te.is_typeddict(origin)
        ):
            raise TypeError(f"unsupported type {_show(tp)}: generic classes are not supported")
        if isinstance(origin, type) and issubclass(origin, BaseModel):
            return self._model(tp)
        raise TypeError(
            f"unsupported type {_show(tp)}: JSON tools accept str, int, float, bool, None, Any, "
            "lists, tuples, sets and dicts of those, Literal, Enum, TypedDict, dataclasses and "
            "pydantic models (a model sends a JSON array for an Iterable or a generator: write "
            "list[...])"
        )

    def _union(self, args: tuple) -> dict:
        branches: list[dict] = []
        for arg in args:
            branch = self.schema(arg)
            if branch == {}:  # Any absorbs every other member
                return {}
            if branch not in branches:
                branches.append(branch)
        return union_schema(branches)

    def _tuple(self, args: tuple) -> dict:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": self.schema(args[0])}
        if args == ((),):  # typing.Tuple[()] spelling of the empty tuple
            args = ()
        items = [self.schema(arg) for arg in args]
        schema: dict = {"type": "array"}
        if items:
            schema["prefixItems"] = items
        schema.update(minItems=len(items), maxItems=len(items))
        return schema

    def _mapping(self, tp: Any, args: tuple) -> dict:
        key, value = args if args else (str, Any)
        if key not in (str, Any) and typing.get_origin(key) is not typing.Annotated:
            raise TypeError(
                f"unsupported type {_show(tp)}: JSON object keys are always strings, "
                f"so use dict[str, ...] instead of dict[{_show(key)}, ...]"
            )
        value_schema = self.schema(value)
        schema: dict = {"type": "object"}
        if value_schema != {}:
            schema["additionalProperties"] = value_schema
        return schema

    # -- Annotated: descriptions and constraints ----------------------------------------------

    def _annotated(self, tp: Any) -> dict:
        base, *metadata = typing.get_args(tp)
        schema = self.schema(base)
        extra: dict = {}
        for item in metadata:
            _apply_metadata(item, schema, extra)
        if not extra:
            return schema
        if "$ref" in schema and any(k != "description" for k in extra):
            schema = {"allOf": [schema]}
        schema.update(extra)
        return schema

    # -- classes, via $defs -------------------------------------------------------------------

    def _ref(self, cls: Any, build: typing.Callable[[Any], dict]) -> dict:
        name = self._names.get(cls)
        if name is None:
            base = _class_name(cls)
            name = self._names[cls] = self._free_name(base)
            self.defs[name] = {}  # placeholder so recursive references find the name
            built = self.defs[name] = build(cls)
            if name != base and _rename_refs(built, {name: base}) == self.defs[base]:
                del self.defs[name]  # the same definition is already there (shared defs dict)
                name = self._names[cls] = base
        return {"$ref": f"#/$defs/{name}"}

    def _free_name(self, name: str) -> str:
        candidate, n = name, 1
        while candidate in self.defs:
            n += 1
            candidate = f"{name}{n}"
        return candidate

    def _dataclass(self, cls: type) -> dict:
        hints = _class_hints(cls)
        properties: dict[str, dict] = {}
        required: list[str] = []
        for field in dataclasses.fields(cls):
            if not field.init:
                continue
            default = MISSING if field.default is dataclasses.MISSING else field.default
            factory = (
                None if field.default_factory is dataclasses.MISSING else field.default_factory
            )
            shape = self._field(cls, field.name, hints[field.name], default, factory)
            prop = self.schema(shape.annotation)
            if shape.required:
                required.append(shape.key)
            elif shape.default_factory is None:
                ok, value = json_default(shape.default)
                if ok:
                    prop["default"] = value
            description = field.metadata.get("description") if field.metadata else None
            if description and "description" not in prop:
                prop["description"] = description
            properties[shape.key] = prop
        return _object(cls, properties, required, own_doc=not _is_generated_doc(cls))

    def _typeddict(self, cls: type) -> dict:
        hints = _class_hints(cls)
        required_keys = getattr(cls, "__required_keys__", frozenset(hints))
        properties: dict[str, dict] = {}
        required: list[str] = []
        for key, hint in hints.items():
            # Under `from __future__ import annotations` __required_keys__ cannot see
            # NotRequired/Required (they are strings then); the resolved hint still can.
            wrapper = typing.get_origin(hint)
            inner = typing.get_args(hint)[0] if wrapper in _TD_WRAPPERS else hint
            shape = self._field(cls, key, inner)  # Annotated[T, Field(default=...)] is optional
            if shape.required and (
                wrapper in _REQUIRED or (key in required_keys and wrapper not in _NOT_REQUIRED)
            ):
                required.append(shape.key)
            prop = self.schema(shape.annotation)
            if not shape.required and shape.default_factory is None:
                ok, value = json_default(shape.default)
                if ok:
                    prop["default"] = value
            properties[shape.key] = prop
        return _object(cls, properties, required, own_doc=True)

    @staticmethod
    def _field(cls: type, name: str, hint: Any, default: Any = MISSING, factory: Any = None):
        try:
            return field_shape(name, hint, default, factory)
        except TypeError as exc:
            raise TypeError(f"field {name!r} of {cls.__qualname__}: {exc}") from None

    def _model(self, model: Any) -> dict:
        """pydantic knows its models best: take its schema and merge its ``$defs`` into ours."""
        name = self._names.get(model)
        if name is not None:
            return {"$ref": f"#/$defs/{name}"}
        try:
            schema = model_schema(model)
        except PydanticUserError as exc:  # e.g. a field of a class pydantic cannot describe
            first = str(exc).split("\n", 1)[0]
            raise TypeError(
                f"pydantic cannot describe model {_show(model)} as JSON: {first}; give its "
                "fields JSON types (arbitrary_types_allowed lets pydantic validate a class, "
                "but not describe it to a model)"
            ) from None
        local = schema.pop("$defs", {})
        if set(schema) == {"$ref"}:  # recursive models come back as a reference into $defs
            own = schema["$ref"][8:]
        else:
            own = _class_name(model)
            while own in local:
                own += "_"
            local[own] = schema
        renames = {
            n: self._free_name(n) for n in local if n in self.defs and self.defs[n] != local[n]
        }
        if renames:
            local = {renames.get(k, k): _rename_refs(v, renames) for k, v in local.items()}
        for def_name, definition in local.items():
            self.defs.setdefault(def_name, definition)
        name = self._names[model] = renames.get(own, own)
        return {"$ref": f"#/$defs/{name}"}


# -- helpers shared with parameters.py and strict.py -------------------------------------------


def enum_schema(cls: type[enum.Enum]) -> dict:
    """``{"type": ..., "enum": [values]}`` for an Enum class; its values must be JSON scalars."""
    values = [member.value for member in cls]
    if not values:
        raise TypeError(
            f"unsupported type Enum {cls.__name__}: it has no members, so no value would be "
            "valid; give it members or use another type"
        )
    return _enum_of(values, f"Enum {cls.__name__}")


def literal_schema(args: tuple) -> dict:
    """``Literal["a", "b"]`` becomes a typed ``enum``; Enum members stand for their values."""
    values = [arg.value if isinstance(arg, enum.Enum) else arg for arg in args]
    return _enum_of(values, f"Literal{list(args)!r}")


def _enum_of(values: list, what: str) -> dict:
    types_seen: list[str] = []
    for value in values:
        json_type = _JSON_TYPE_OF.get(type(value))
        if json_type is None:
            raise TypeError(
                f"unsupported type {what}: value {value!r} is not a JSON string, number, "
                "boolean or null"
            )
        if json_type not in types_seen:
            types_seen.append(json_type)
    if types_seen == ["null"]:
        return {"type": "null"}
    json_types: Any = types_seen[0] if len(types_seen) == 1 else types_seen
    return {"type": json_types, "enum": values}


# Keywords that only constrain values of one JSON type: null passes them whatever they say, so
# "this schema or null" can be written as the same schema with "null" added to its type.
_SCALAR_KEYWORDS = frozenset(
    {"type", "enum", "format", "pattern", "minLength", "maxLength", "multipleOf"}
    | {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
)
_NULL_TYPE = {"type": "null"}


def union_schema(branches: list[dict]) -> dict:
    """The schema accepting what any of ``branches`` accepts, in its shortest plain form.

    Plain types merge into a type list (``{"type": ["integer", "string"]}``) and one scalar schema
    merges with null (``{"type": ["string", "null"], "enum": ["a", "b", None]}``); anything else
    stays ``{"anyOf": branches}``, which says exactly the same in more bytes.
    """
    if len(branches) == 1:
        return branches[0]
    if all(set(b) == {"type"} and isinstance(b["type"], str) for b in branches):
        return {"type": list(dict.fromkeys(b["type"] for b in branches))}
    others = [b for b in branches if b != _NULL_TYPE]
    if len(others) == 1 and len(others) < len(branches):
        merged = or_null(others[0])
        if "anyOf" not in merged:
            return merged
    return {"anyOf": branches}


def or_null(schema: dict) -> dict:
    """``schema`` or JSON null: a type list when ``schema`` is one scalar, else ``anyOf``.

    ``schema`` must not accept null already (``allows_null``); a ``description`` stays on the
    outside, where the model reads it.
    """
    json_type = schema.get("type")
    types = [json_type] if isinstance(json_type, str) else json_type
    if (
        isinstance(types, list)
        and "null" not in types
        and all(isinstance(t, str) and t not in ("object", "array") for t in types)
        and set(schema) - {"description"} <= _SCALAR_KEYWORDS
    ):
        out = {**schema, "type": [*types, "null"]}
        if "enum" in schema:
            out["enum"] = [*schema["enum"], None]
        return out
    inner = {k: v for k, v in schema.items() if k != "description"}
    branches = [*inner["anyOf"], _NULL_TYPE] if set(inner) == {"anyOf"} else [inner, _NULL_TYPE]
    out = {"anyOf": [dict(b) for b in branches]}
    if "description" in schema:
        out["description"] = schema["description"]
    return out


def json_default(value: Any) -> tuple[bool, Any]:
    """``(True, json_value)`` when a default can be shown to the model as JSON, else ``(False, _)``.

    Enum members become their values and tuples become lists; anything else that is not plain JSON
    (objects, datetimes, NaN) is left out rather than guessed.
    """
    if isinstance(value, enum.Enum):
        return json_default(value.value)
    if value is None or isinstance(value, (bool, int, str)):
        return True, value
    if isinstance(value, float):
        return (value == value and value not in (float("inf"), float("-inf"))), value
    if isinstance(value, (list, tuple)):
        items = [json_default(v) for v in value]
        return all(ok for ok, _ in items), [v for _, v in items]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        pairs = {k: json_default(v) for k, v in value.items()}
        return all(ok for ok, _ in pairs.values()), {k: v for k, (_, v) in pairs.items()}
    return False, None


def allows_null(schema: dict, defs: dict[str, dict] | None = None) -> bool:
    """Whether JSON ``null`` can satisfy ``schema`` (used to catch ``x: int = None``)."""
    if not schema:
        return True
    if "enum" in schema and None not in schema["enum"]:
        return False
    json_type = schema.get("type")
    if json_type == "null" or (isinstance(json_type, list) and "null" in json_type):
        return True
    if json_type is not None:
        return False
    if "enum" in schema:
        return True
    if "anyOf" in schema:
        return any(allows_null(branch, defs) for branch in schema["anyOf"])
    ref = schema.get("$ref")
    if ref and defs is not None:
        target = defs.get(ref.rsplit("/", 1)[-1])
        return target is not None and target is not schema and allows_null(target, None)
    return False


_MODEL_CACHE: dict[Any, dict] = {}


def model_schema(model: Any) -> dict:
    """pydantic's validation schema for a model, minus the ``title`` noise (cached per class).

    Class docstrings are parsed like function docstrings (``_DocstringsParsed``): pydantic would
    put the raw text, ``Args:`` section and all, into the description.
    """
    cached = _MODEL_CACHE.get(model)
    if cached is None:
        raw = model.model_json_schema(
            mode="validation", ref_template="#/$defs/{model}", schema_generator=_DocstringsParsed
        )
        cached = _MODEL_CACHE[model] = strip_titles(raw)
    return copy_json(cached)


class _DocstringsParsed(GenerateJsonSchema):
    """pydantic's schema generator, with each class docstring split into its summary and the
    descriptions of the fields it documents (for models, dataclasses and TypedDicts alike)."""

    def model_schema(self, schema: Any) -> Any:
        return _parsed_class_doc(super().model_schema(schema), schema.get("cls"))

    def dataclass_schema(self, schema: Any) -> Any:
        return _parsed_class_doc(super().dataclass_schema(schema), schema.get("cls"))

    def typed_dict_schema(self, schema: Any) -> Any:
        return _parsed_class_doc(super().typed_dict_schema(schema), schema.get("cls"))


def _parsed_class_doc(json_schema: Any, cls: Any) -> Any:
    own = cls.__dict__.get("__doc__") if isinstance(cls, type) else None
    if not own or not isinstance(json_schema, dict) or "description" not in json_schema:
        return json_schema
    doc = parse_docstring(own)
    if doc.description:
        json_schema["description"] = doc.description
    else:
        del json_schema["description"]
    properties = json_schema.get("properties")
    if isinstance(properties, dict):
        for name, text in doc.params.items():
            prop = properties.get(name)
            if isinstance(prop, dict) and "description" not in prop:
                prop["description"] = text
    return json_schema


def strip_titles(schema: Any) -> Any:
    """Drop every ``title`` keyword, but keep properties that happen to be called ``title``.

    Unions are rewritten in our shorter form as well (``union_schema``), so a pydantic model's
    ``Optional[str]`` field reads like any other ``str | None``.
    """
    if isinstance(schema, list):
        return [strip_titles(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs", "patternProperties"):
            out[key] = {name: strip_titles(sub) for name, sub in value.items()}
        elif key in ("default", "enum", "const", "examples"):
            out[key] = value
        elif key == "anyOf" and isinstance(value, list):
            merged = union_schema(strip_titles(value))
            if "anyOf" in merged or set(merged) & set(schema):
                out[key] = strip_titles(value)
            else:
                out.update(merged)
        else:
            out[key] = strip_titles(value)
    return out


def attach_defs(schema: dict, defs: dict[str, dict]) -> dict:
    """Inline definitions referenced once and not recursively; put the rest under ``$defs``."""
    if not defs:
        return schema
    defs = dict(defs)
    counts: dict[str, int] = dict.fromkeys(defs, 0)
    _count_refs(schema, counts)
    for definition in defs.values():
        _count_refs(definition, counts)
    recursive = {name for name in defs if _reaches(name, name, defs, set())}
    inline = {name for name, n in counts.items() if n <= 1 and name not in recursive}
    # Resolve inlined definitions inside the ones that stay, and inside each other.
    resolved: dict[str, dict] = {}

    def body(name: str) -> dict:
        if name not in resolved:
            resolved[name] = _inline(defs[name], inline, body)
        return resolved[name]

    out = _inline(schema, inline, body)
    kept = {name: body(name) for name in defs if name not in inline and counts[name] > 0}
    if kept:
        out = {**out, "$defs": kept}
    return out


def _inline(node: Any, inline: set[str], body: typing.Callable[[str], dict]) -> Any:
    if isinstance(node, list):
        return [_inline(item, inline, body) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in inline:
        siblings = {k: _inline(v, inline, body) for k, v in node.items() if k != "$ref"}
        return {**body(ref[8:]), **siblings}
    out = {}
    for key, value in node.items():
        if key in ("default", "enum", "const", "examples"):
            out[key] = value
        else:
            out[key] = _inline(value, inline, body)
    return out


def _count_refs(node: Any, counts: dict[str, int]) -> None:
    if isinstance(node, list):
        for item in node:
            _count_refs(item, counts)
    elif isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in counts:
            counts[ref[8:]] += 1
        for key, value in node.items():
            if key not in ("default", "enum", "const", "examples"):
                _count_refs(value, counts)


def _reaches(start: str, target: str, defs: dict[str, dict], seen: set[str]) -> bool:
    found: dict[str, int] = dict.fromkeys(defs, 0)
    _count_refs(defs[start], found)
    for name, n in found.items():
        if not n:
            continue
        if name == target:
            return True
        if name not in seen:
            seen.add(name)
            if _reaches(name, target, defs, seen):
                return True
    return False


def _rename_refs(node: Any, renames: dict[str, str]) -> Any:
    if isinstance(node, list):
        return [_rename_refs(item, renames) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "$ref" and isinstance(value, str) and value[8:] in renames:
            out[key] = "#/$defs/" + renames[value[8:]]
        elif key in ("default", "enum", "const", "examples"):
            out[key] = value
        else:
            out[key] = _rename_refs(value, renames)
    return out


def copy_json(node: Any) -> Any:
    """A deep copy of JSON data (dicts, lists, scalars), much cheaper than ``copy.deepcopy``."""
    if isinstance(node, dict):
        return {k: copy_json(v) for k, v in node.items()}
    if isinstance(node, list):
        return [copy_json(v) for v in node]
    return node


# -- metadata of Annotated ----------------------------------------------------------------------

_CONSTRAINTS = {
    at.Gt: ("gt", "exclusiveMinimum"),
    at.Ge: ("ge", "minimum"),
    at.Lt: ("lt", "exclusiveMaximum"),
    at.Le: ("le", "maximum"),
    at.MultipleOf: ("multiple_of", "multipleOf"),
}


def _apply_metadata(item: Any, schema: dict, extra: dict) -> None:
    """Turn one ``Annotated`` extra into schema keywords (unknown extras are left to validation)."""
    if isinstance(item, str):
        extra["description"] = item
    elif isinstance(item, te.Doc):
        extra["description"] = item.documentation
    elif isinstance(item, FieldInfo):
        if item.description:
            extra["description"] = item.description
        if item.examples:
            extra["examples"] = list(item.examples)
        for sub in item.metadata:
            _apply_metadata(sub, schema, extra)
        _apply_schema_extra(item.json_schema_extra, extra)
    elif type(item) in _CONSTRAINTS:
        attr, keyword = _CONSTRAINTS[type(item)]
        extra[keyword] = getattr(item, attr)
    elif isinstance(item, (at.MinLen, at.MaxLen)):
        kind = _length_kind(schema)
        if isinstance(item, at.MinLen):
            extra[f"min{kind}"] = item.min_length
        else:
            extra[f"max{kind}"] = item.max_length
    elif isinstance(item, at.GroupedMetadata):  # Interval, Len, StringConstraints, ...
        for sub in item:
            _apply_metadata(sub, schema, extra)
    else:
        pattern = getattr(item, "pattern", None)  # pydantic's Field(pattern=...) metadata
        if isinstance(pattern, str):
            extra["pattern"] = pattern
        elif hasattr(pattern, "pattern"):
            extra["pattern"] = pattern.pattern


def _apply_schema_extra(addition: Any, extra: dict) -> None:
    """``Field(json_schema_extra={...})``: keywords added as given, as pydantic does."""
    if addition is None:
        return
    if not isinstance(addition, dict):
        raise TypeError(
            "Field(json_schema_extra=...) must be a dict of JSON Schema keywords here; a "
            "function that edits the schema cannot be applied to a tool's parameter"
        )
    extra.update(strip_titles(copy_json(addition)))


def _length_kind(schema: dict) -> str:
    json_type = schema.get("type")
    if json_type == "array":
        return "Items"
    if json_type == "object":
        return "Properties"
    return "Length"


# -- small helpers ------------------------------------------------------------------------------


def _object(cls: type, properties: dict, required: list[str], *, own_doc: bool) -> dict:
    schema: dict = {"type": "object"}
    doc = parse_docstring(cls.__doc__ if own_doc else None)
    if doc.description:
        schema["description"] = doc.description
    for name, text in doc.params.items():  # an Args: or Attributes: section names the fields
        if name in properties and "description" not in properties[name]:
            properties[name]["description"] = text
    schema["properties"] = properties
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def _class_hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except NameError as exc:
        raise TypeError(
            f"cannot resolve an annotation of {cls.__qualname__}: {exc}; "
            "define or import that name in the class's module"
        ) from exc


def _class_name(cls: Any) -> str:
    name = getattr(cls, "__name__", None) or repr(cls)
    return "".join(ch if ch.isalnum() or ch in "_-." else "_" for ch in name)


def _is_generated_doc(cls: type) -> bool:
    doc = cls.__doc__ or ""
    return doc.startswith(f"{cls.__name__}(")


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _show(tp: Any) -> str:
    if isinstance(tp, type) and typing.get_origin(tp) is None:
        return tp.__qualname__
    return repr(tp).replace("typing.", "")

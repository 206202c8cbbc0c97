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
- Class fields and ``Field()`` defaults are read by ``fields.field_shape``, the same function
  that reads a function's parameters, so schema and dispatch agree on what is required.

The pieces live beside this module: ``unions`` (type lists, ``or_null``), ``annotated_metadata``
(``Annotated`` extras), ``model_schemas`` (pydantic's own schemas, without titles),
``schema_defs`` (``$defs``: inlining and copying) and ``class_schemas`` (dataclasses, TypedDicts
and pydantic models as ``$defs`` entries; ``json_default``).
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

import typing_extensions as te
from pydantic import BaseModel

from .annotated_metadata import apply_metadata
from .class_schemas import _TD_WRAPPERS, ClassSchemas, _show, json_default
from .schema_defs import attach_defs, copy_json
from .unions import allows_null, or_null, union_schema

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


class SchemaBuilder(ClassSchemas):
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
            apply_metadata(item, schema, extra)
        if not extra:
            return schema
        if "$ref" in schema and any(k != "description" for k in extra):
            schema = {"allOf": [schema]}
        schema.update(extra)
        return schema


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


# -- small helpers ------------------------------------------------------------------------------


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True

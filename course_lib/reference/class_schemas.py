"""Classes as JSON Schema for ``type_map.SchemaBuilder``: dataclasses, TypedDicts and pydantic
models, each defined once in ``$defs`` and referenced with ``$ref`` (which is what makes recursive
types possible), plus ``json_default`` for the defaults a schema shows.

Split from ``type_map`` (which still exports ``json_default``); ``ClassSchemas`` is a base class of
``SchemaBuilder`` and uses its ``schema()``, ``defs`` and ``_names``.
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from typing import Any

import typing_extensions as te
from pydantic.errors import PydanticUserError

from .docstrings import parse_docstring
from .fields import MISSING, field_shape, resolved_hints
from .model_schemas import model_schema
from .schema_defs import rename_refs

# typing has Required/NotRequired from Python 3.11 on; typing_extensions has them everywhere.
_REQUIRED = {te.Required, getattr(typing, "Required", te.Required)}
_NOT_REQUIRED = {te.NotRequired, getattr(typing, "NotRequired", te.NotRequired)}
_TD_WRAPPERS = _REQUIRED | _NOT_REQUIRED
if hasattr(te, "ReadOnly"):
    _TD_WRAPPERS.add(te.ReadOnly)


class ClassSchemas:
    """The class half of ``SchemaBuilder``: one ``$defs`` entry a class, under a free name."""

    defs: dict[str, dict]
    _names: dict[Any, str]
    schema: typing.Callable[[Any], dict]  # SchemaBuilder.schema

    def _ref(self, cls: Any, build: typing.Callable[[Any], dict]) -> dict:
        name = self._names.get(cls)
        if name is None:
            base = _class_name(cls)
            name = self._names[cls] = self._free_name(base)
            self.defs[name] = {}  # placeholder so recursive references find the name
            built = self.defs[name] = build(cls)
            if name != base and rename_refs(built, {name: base}) == self.defs[base]:
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
        hints = resolved_hints(cls, cls.__qualname__, "class")
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
            prop = self._property(shape)
            if shape.required:
                required.append(shape.key)
            description = field.metadata.get("description") if field.metadata else None
            if description and "description" not in prop:
                prop["description"] = description
            properties[shape.key] = prop
        return _object(cls, properties, required, own_doc=not _is_generated_doc(cls))

    def _typeddict(self, cls: type) -> dict:
        hints = resolved_hints(cls, cls.__qualname__, "class")
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
            properties[shape.key] = self._property(shape)
        return _object(cls, properties, required, own_doc=True)

    def _property(self, shape: Any) -> dict:
        """A field's schema, with its default when it has one JSON can show."""
        prop = self.schema(shape.annotation)
        if not shape.required and shape.default_factory is None:
            ok, value = json_default(shape.default)
            if ok:
                prop["default"] = value
        return prop

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
            local = {renames.get(k, k): rename_refs(v, renames) for k, v in local.items()}
        for def_name, definition in local.items():
            self.defs.setdefault(def_name, definition)
        name = self._names[model] = renames.get(own, own)
        return {"$ref": f"#/$defs/{name}"}


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


def _class_name(cls: Any) -> str:
    name = getattr(cls, "__name__", None) or repr(cls)
    return "".join(ch if ch.isalnum() or ch in "_-." else "_" for ch in name)


def _is_generated_doc(cls: type) -> bool:
    doc = cls.__doc__ or ""
    return doc.startswith(f"{cls.__name__}(")


def _show(tp: Any) -> str:
    if isinstance(tp, type) and typing.get_origin(tp) is None:
        return tp.__qualname__
    return repr(tp).replace("typing.", "")

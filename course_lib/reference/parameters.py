"""A function's parameters as one JSON Schema object, reflected once.

``inspect_function`` does all the reflection a tool needs in one pass (signature, resolved type
hints, docstring, schema) and returns a ``FunctionSpec``; a registry keeps that spec instead of
reflecting again on every request. ``parameters_schema`` is the schema part of it.

The rules that keep the schema honest:

- Annotations are resolved with ``typing.get_type_hints(include_extras=True)``, so
  ``from __future__ import annotations`` (strings) and forward references work.
- Required means "has no default". Nullable (``X | None``) is a separate fact about the type.
- ``*args``, ``**kwargs``, unannotated parameters and types JSON cannot carry fail at definition
  time with a ``TypeError`` naming the function and the parameter: never dropped, never guessed.
- pydantic's ``Field()`` counts, as the default or inside ``Annotated`` (see ``fields``): its
  constraints and description go into the schema, ``Field(...)`` is required, and its default
  is the one the tool receives. ``FunctionSpec.fields`` holds that decision for dispatch.
- An ``Annotated[..., "text"]`` (or ``Field(description=...)``) description wins over the
  docstring's: it sits on the parameter itself.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .docstrings import parse_docstring
from .fields import MISSING, FieldShape, field_shape, resolved_hints
from .type_map import SchemaBuilder, allows_null, json_default

__all__ = ["FunctionSpec", "inspect_function", "parameters_schema"]

_EMPTY = inspect.Parameter.empty


@dataclass(frozen=True)
class FunctionSpec:
    """Everything reflected from one function, computed once.

    ``parameters`` is the JSON Schema object of the arguments; ``hints`` maps each parameter to its
    resolved annotation (``Annotated`` extras kept, so a validator sees the same constraints as the
    schema); ``signature`` has no ``self``/``cls`` and no parameters fixed by ``functools.partial``.
    ``fields`` says, per parameter, its JSON name, whether it is required and its default (see
    ``field_shape``); ``defaults`` are those default values (a ``default_factory`` is not called).
    Treat ``parameters`` as read-only: copy it before changing it.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    hints: dict[str, Any]
    func: Callable[..., Any]
    signature: inspect.Signature
    defaults: dict[str, Any] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    param_descriptions: dict[str, str] = field(default_factory=dict)
    is_async: bool = False
    fields: dict[str, FieldShape] = field(default_factory=dict)

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(self.signature.parameters)

    @property
    def positional_only(self) -> tuple[str, ...]:
        kind = inspect.Parameter.POSITIONAL_ONLY
        return tuple(n for n, p in self.signature.parameters.items() if p.kind is kind)


def parameters_schema(func: Callable[..., Any]) -> dict[str, Any]:
    """The JSON Schema object describing ``func``'s parameters (a fresh dict on every call)."""
    return inspect_function(func).parameters


def inspect_function(func: Callable[..., Any]) -> FunctionSpec:
    """Reflect ``func`` once: name, description, parameter schema, hints and signature.

    Raises ``TypeError`` naming the function and the parameter for anything the schema cannot
    represent, and for annotations that cannot be resolved.
    """
    target, fixed = _unwrap_partial(func)
    name = getattr(target, "__name__", None) or type(target).__name__
    signature = _signature(func, name, fixed)
    hints = resolved_hints(target, f"{name}()", "function")
    # The raw text: parse_docstring cleans and caches it (inspect.getdoc would clean it again on
    # every call); getdoc only for what a class inherits.
    raw_doc = getattr(target, "__doc__", None)
    doc = parse_docstring(raw_doc if isinstance(raw_doc, str) else inspect.getdoc(target))

    builder = SchemaBuilder()
    properties: dict[str, dict] = {}
    required: list[str] = []  # JSON names, for the schema
    required_names: list[str] = []  # parameter names, for the spec
    defaults: dict[str, Any] = {}
    param_hints: dict[str, Any] = {}
    shapes: dict[str, FieldShape] = {}
    for position, (pname, param) in enumerate(signature.parameters.items()):
        annotation = _check_param(param, pname, hints, name, position)
        try:
            shape = field_shape(pname, annotation, _default_of(param))
            prop = builder.schema(shape.annotation)
        except TypeError as exc:
            raise TypeError(f"{name}(): parameter {pname!r}: {exc}") from None
        if shape.key in properties:
            raise TypeError(
                f"{name}(): parameter {pname!r} is sent as {shape.key!r}, which another "
                "parameter already uses; give one of them another alias"
            )
        param_hints[pname] = shape.annotation
        shapes[pname] = shape
        if "description" not in prop and pname in doc.params:
            prop["description"] = doc.params[pname]  # prop is a fresh dict: ours to change
        if shape.required:
            required.append(shape.key)
            required_names.append(pname)
        elif shape.default_factory is None:
            defaults[pname] = shape.default
            _add_default(prop, shape.default, pname, name, builder.defs)
        properties[shape.key] = prop

    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:  # an empty list says nothing that its absence does not
        schema["required"] = required
    schema["additionalProperties"] = False
    return FunctionSpec(
        name=name,
        description=doc.description,
        parameters=builder.finish(schema),
        hints=param_hints,
        func=func,
        signature=signature,
        defaults=defaults,
        required=tuple(required_names),
        param_descriptions=dict(doc.params),
        is_async=inspect.iscoroutinefunction(target),
        fields=shapes,
    )


def _default_of(param: inspect.Parameter) -> Any:
    return MISSING if param.default is _EMPTY else param.default


def _unwrap_partial(func: Callable[..., Any]) -> tuple[Callable[..., Any], set[str]]:
    """The function under (nested) ``functools.partial`` and the keywords it already fixes."""
    fixed: set[str] = set()
    target = func
    while isinstance(target, functools.partial):
        fixed.update(target.keywords)
        target = target.func
    if isinstance(target, (classmethod, staticmethod)):
        target = target.__func__
    if not inspect.isroutine(target) and callable(target) and not isinstance(target, type):
        target = target.__call__  # a callable object: describe its __call__ (bound, no self)
    return target, fixed


def _signature(func: Callable[..., Any], name: str, fixed: set[str]) -> inspect.Signature:
    raw = func.__func__ if isinstance(func, (classmethod, staticmethod)) else func
    try:
        signature = inspect.signature(raw)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name}(): cannot read its signature: {exc}") from None
    params = list(signature.parameters.values())
    if isinstance(func, classmethod) and params:
        params = params[1:]  # an unbound classmethod object: drop cls
    params = [p for p in params if p.name not in fixed]
    return signature.replace(parameters=params)


def _check_param(
    param: inspect.Parameter, pname: str, hints: dict[str, Any], name: str, position: int
) -> Any:
    if param.kind is inspect.Parameter.VAR_POSITIONAL:
        raise TypeError(
            f"{name}(): parameter '*{pname}' cannot be a tool argument: a model sends named "
            "JSON arguments; replace it with a named list parameter, e.g. "
            f"{pname}: list[str]"
        )
    if param.kind is inspect.Parameter.VAR_KEYWORD:
        raise TypeError(
            f"{name}(): parameter '**{pname}' cannot be a tool argument: the schema must list "
            "every argument; replace it with named parameters (or one dict[str, ...] parameter)"
        )
    if pname not in hints and position == 0 and pname in ("self", "cls"):
        raise TypeError(
            f"{name}(): its first parameter is {pname!r}, so this looks like a method taken from "
            f"its class; register the bound method instead (an_instance.{name}), or make it a "
            "@staticmethod or a plain function; a model cannot send the instance"
        )
    if pname not in hints:
        raise TypeError(
            f"{name}(): parameter {pname!r} has no type annotation; annotate it (e.g. "
            f"{pname}: str) so the schema can say what the model must send"
        )
    return hints[pname]


def _add_default(prop: dict, default: Any, pname: str, name: str, defs: dict) -> None:
    if default is None and not allows_null(prop, defs):
        raise TypeError(
            f"{name}(): parameter {pname!r} defaults to None but its annotation does not allow "
            f"None; annotate it as `X | None = None` (or give it a default of the right type)"
        )
    ok, value = json_default(default)
    if ok:
        prop["default"] = value

"""What one parameter (or one field of a class) is: its type, its JSON name, its default.

The schema says which arguments a model may leave out and what they default to; dispatch fills
those defaults in. If the two asked different questions they would disagree, so both ask this
module: ``field_shape(annotation, default)`` decides once.

pydantic's ``Field()`` is honoured wherever pydantic itself honours it, because pydantic is what
validates the arguments:

- as the default, ``n: int = Field(..., gt=10)`` (the FastAPI and Agents SDK idiom): the
  constraints and description move into the annotation, ``...`` means required, and the
  function's own default (the ``FieldInfo`` object) is never what the tool receives;
- inside ``Annotated``, ``n: Annotated[int, Field(default=3, ge=0)]``: a default there makes the
  parameter optional even though the signature has none, so dispatch must pass it;
- ``alias`` (or a string ``validation_alias``) is the name the model sends.

What cannot be honoured is refused with a ``TypeError``: two defaults for one parameter, alias
paths and choices, a ``default_factory`` that wants the validated data.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

__all__ = ["MISSING", "FieldShape", "field_shape"]


class _Missing:
    """No default: the sentinel shared by signatures, dataclasses and ``Field(...)``."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()

MESSAGES = {
    "two_defaults": (
        "it has two defaults, {first} and {second}; keep one (the signature's default or the "
        "Field's default, not both)"
    ),
    "alias_path": (
        "Field(validation_alias={alias}) is not supported: a tool argument has exactly one name; "
        "use Field(alias='name') or rename the parameter"
    ),
    "factory_with_data": (
        "its default_factory takes the validated data, which a tool argument cannot have; use a "
        "default_factory without arguments"
    ),
}


@dataclass(frozen=True)
class FieldShape:
    """The answers for one parameter or field.

    ``annotation`` is what the schema builder and the validator both read (``Annotated`` with any
    ``Field`` constraints inside). ``key`` is the JSON name. ``filled`` says the default lives in a
    ``Field`` rather than in the signature, so the caller has to pass it explicitly.
    """

    annotation: Any
    key: str
    required: bool
    default: Any = MISSING
    default_factory: Callable[[], Any] | None = None
    filled: bool = False

    @property
    def has_default(self) -> bool:
        return not self.required

    def default_value(self) -> Any:
        """A fresh default (a factory is called every time, like pydantic does)."""
        return self.default_factory() if self.default_factory is not None else self.default


def field_shape(
    name: str,
    annotation: Any,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | None = None,
) -> FieldShape:
    """Decide what the parameter ``name: annotation = default`` is; ``TypeError`` if unclear.

    ``default`` is ``MISSING`` when there is none; ``inspect.Parameter.empty`` and
    ``dataclasses.MISSING`` are turned into it by the callers. ``default_factory`` is a
    dataclass field's.
    """
    infos = _annotated_field_infos(annotation)
    if not infos and not isinstance(default, FieldInfo):
        return FieldShape(
            annotation,
            name,
            required=default is MISSING and default_factory is None,
            default=default,
            default_factory=default_factory,
        )
    if isinstance(default, FieldInfo):
        infos.append(default)
        annotation = typing.Annotated[annotation, default]
        default = MISSING
    value, factory, source = default, default_factory, "the signature's default"
    for info in infos:
        own_value, own_factory = _field_default(info)
        if own_value is MISSING and own_factory is None:
            continue
        if value is not MISSING or factory is not None:
            raise TypeError(
                MESSAGES["two_defaults"].format(first=source, second=f"Field(default=...) {info!r}")
            )
        value, factory, source = own_value, own_factory, "a Field default"
    required = value is MISSING and factory is None
    filled = not required and source == "a Field default"
    return FieldShape(
        annotation,
        _key(name, infos),
        required=required,
        default=value,
        default_factory=factory,
        filled=filled,
    )


def _annotated_field_infos(annotation: Any) -> list[FieldInfo]:
    if typing.get_origin(annotation) is not typing.Annotated:
        return []
    return [item for item in annotation.__metadata__ if isinstance(item, FieldInfo)]


def _field_default(info: FieldInfo) -> tuple[Any, Callable[[], Any] | None]:
    if info.default_factory is not None:
        if getattr(info, "default_factory_takes_validated_data", False):  # pydantic >= 2.10
            raise TypeError(MESSAGES["factory_with_data"])
        return MISSING, info.default_factory  # type: ignore[return-value]
    if info.default is PydanticUndefined or info.default is Ellipsis:
        return MISSING, None
    return info.default, None


def _key(name: str, infos: list[FieldInfo]) -> str:
    key = name
    for info in infos:
        alias = info.validation_alias
        if alias is not None and not isinstance(alias, str):
            raise TypeError(MESSAGES["alias_path"].format(alias=alias))
        key = alias or info.alias or key
    return key


def resolved_hints(target: Any, subject: str, home: str) -> dict[str, Any]:
    """The annotations of ``target`` (a function or a class), resolved with their ``Annotated``
    metadata; a name that cannot be resolved is a ``TypeError`` that says what to do, naming
    ``subject`` (``"f()"``, ``"Point"``) and where the name belongs (``home``: ``"function"``,
    ``"class"``)."""
    try:
        return typing.get_type_hints(target, include_extras=True)
    except NameError as exc:
        raise TypeError(
            f"{subject}: cannot resolve an annotation: {exc}; define or import that name in the "
            f"{home}'s module (names only imported under TYPE_CHECKING are not available)"
        ) from None
    except Exception as exc:  # malformed string annotations raise SyntaxError and friends
        raise TypeError(f"{subject}: cannot resolve its annotations: {exc!r}") from None

"""The options of an Anthropic Messages request, checked as the API checks them.

Anthropic words a 400 as ``field: what is wrong`` with neither ``param`` nor ``code``:

* a parameter it does not have: ``temprature: Extra inputs are not permitted``, found against the
  parameters the installed SDK's request types list (``sdk_params.py``, with the sampling
  parameters the API still takes), reported after every other problem of the body, and for
  ``metadata``'s members too;
* ``temperature`` and ``top_p`` outside 0..1: ``temperature: range: 0..1``; a ``null``
  temperature is not "not sent" here: ``temperature: Input should be a valid number``;
  ``top_k`` must be an integer (any integer: a negative one is accepted, as measured);
* ``max_tokens`` beyond what the model can write:
  ``max_tokens: 200000 > 128000, which is the maximum allowed number of output tokens for ...``;
* ``stop_sequences`` an array of strings; ``service_tier`` ``auto`` or ``standard_only``;
  ``inference_geo`` ``global`` or ``us``; ``container`` refused whatever its value (the local
  model has no code execution tool, and the API allows a container only with one).

Measured wordings (published measurements of the API, 2026) are used where we found them; each
other sentence follows the pydantic-style form the API uses for that class of error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from course_lib.local_model import sdk_params
from course_lib.local_model.openai_options import MODEL_MAX_OUTPUT
from course_lib.local_model.protocol import ProtocolError

MESSAGES = {
    "extra": "{field}: Extra inputs are not permitted",
    "range": "{field}: range: 0..1",
    "number": "{field}: Input should be a valid number",
    "integer": "{field}: Input should be a valid integer",
    "boolean": "{field}: Input should be a valid boolean",
    "string": "{field}: Input should be a valid string",
    "array": "{field}: Input should be a valid array",
    "dict": "{field}: Input should be a valid dictionary",
    "object": "{field}: Input should be an object",
    "service_tier": "service_tier: Input should be 'auto' or 'standard_only'",
    "inference_geo": "inference_geo: must be one of ['global', 'us']",
    "container": (
        "container: Container identifier can only be provided when using the code execution tool"
    ),
    "too_many_tokens": (
        "max_tokens: {value} > {limit}, which is the maximum allowed number of output tokens "
        "for {model}"
    ),
}
SHOWN = 80


def fail(key: str, **fields: Any) -> ProtocolError:
    return ProtocolError(MESSAGES[key].format(**fields))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_max_tokens(max_tokens: int, model: str) -> None:
    if max_tokens > MODEL_MAX_OUTPUT:
        shown = str(max_tokens)[:SHOWN]
        raise fail("too_many_tokens", value=shown, limit=MODEL_MAX_OUTPUT, model=model[:SHOWN])


def check_sampling(body: Mapping[str, Any]) -> None:
    """``temperature`` and ``top_p`` numbers in 0..1 (null refused), ``top_k`` an integer."""
    for field in ("temperature", "top_p"):
        if field in body:
            value = body[field]
            if not _is_number(value):
                raise fail("number", field=field)
            if not 0 <= value <= 1:
                raise fail("range", field=field)
    if "top_k" in body:
        value = body["top_k"]
        if not isinstance(value, int) or isinstance(value, bool):
            raise fail("integer", field="top_k")


def check_stop_sequences(value: Any) -> tuple[str, ...]:
    """The stop sequences (``null``: none): an array of strings."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise fail("array", field="stop_sequences")
    for index, sequence in enumerate(value):
        if not isinstance(sequence, str):
            raise fail("string", field=f"stop_sequences.{index}")
    return tuple(value)


def check_options(body: Mapping[str, Any]) -> tuple[str, ...]:
    """Every option but the conversation, the tools and ``max_tokens``; the stop sequences."""
    check_sampling(body)
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise fail("boolean", field="stream")
    metadata = body.get("metadata")
    if metadata is not None:
        if not isinstance(metadata, dict):
            raise fail("dict", field="metadata")
        for key, value in metadata.items():
            if key not in sdk_params.ANTHROPIC_METADATA:
                raise fail("extra", field=f"metadata.{key[:SHOWN]}")
            if value is not None and not isinstance(value, str):
                raise fail("string", field=f"metadata.{key}")
    tier = body.get("service_tier")
    if tier is not None and tier not in ("auto", "standard_only"):
        raise fail("service_tier")
    geo = body.get("inference_geo")
    if geo is not None and geo not in ("global", "us"):
        raise fail("inference_geo")
    if body.get("container") is not None:
        raise fail("container")
    cache_control = body.get("cache_control")
    if cache_control is not None and not isinstance(cache_control, dict):
        raise fail("object", field="cache_control")
    return check_stop_sequences(body.get("stop_sequences"))


def check_known(body: Mapping[str, Any]) -> None:
    """The first parameter (in the body's order) the API does not have, refused."""
    for key in body:
        if key not in sdk_params.MESSAGES:
            raise fail("extra", field=key[:SHOWN])

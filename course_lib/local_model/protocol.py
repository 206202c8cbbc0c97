"""What every API the local model speaks shares: the error it raises and how a body is read.

A real provider rejects a malformed request with HTTP 400 and a JSON error body; the SDKs turn
that into an exception (``openai.BadRequestError``, ``anthropic.BadRequestError``). The local
model raises :class:`ProtocolError` wherever it finds such a mistake, and the endpoint renders it
in the shape of the API that was called. Messages are worded like the real ones (so a search for
the message finds help), followed by a sentence on what to fix.

:func:`parse_body` is the one door a request body comes through. It refuses, with a 400 and never
a crash, everything a JSON parser or the code behind it could choke on: text that is not JSON,
``NaN``/``Infinity`` (not JSON), nesting deeper than any real request needs, and strings holding
a lone UTF-16 surrogate (they cannot be encoded back into a reply).
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_NESTING = 64  # real requests nest ~10 deep; this bounds every recursive walk behind it
MAX_SHOWN = 80  # characters of a refused value quoted back in an error message
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")  # \ud800 to \udfff, paired or not

MESSAGES = {
    "not_json": (
        "We could not parse the JSON body of your request. The API expects a JSON object (the "
        "SDK builds one for you; if you post by hand, send json.dumps(payload) with "
        "Content-Type: application/json)."
    ),
    "constant": (
        "We could not parse the JSON body of your request: {constant} is not a JSON value. "
        "Send numbers as finite decimals (json.dumps(..., allow_nan=False) finds the culprit)."
    ),
    "too_large": (
        "We could not parse the JSON body of your request: the number {number} is too large to "
        "be represented. Send numbers within the range of a double (about 1.8e308)."
    ),
    "too_deep": (
        "The request body is nested more than {limit} levels deep. No request needs that "
        "much nesting: flatten the structure (a schema can use '$defs' and '$ref')."
    ),
    "surrogate": (
        "Invalid Unicode in the request body: the string at '{where}' holds a lone surrogate "
        "escape ({escape}), half of a UTF-16 pair that is not a character. Send the text as "
        "UTF-8, or drop the broken character."
    ),
    "missing": "Missing required parameter: '{param}'.",
    "wrong_type": "Invalid type for '{param}': expected {expected}, but got {got} instead.",
    "invalid_value": "Invalid value: {value}. Supported values are: {supported}.",
    "below_min": (
        "Invalid '{param}': {kind} below minimum value. Expected a value >= {limit}, but got "
        "{value} instead."
    ),
    "above_max": (
        "Invalid '{param}': {kind} above maximum value. Expected a value <= {limit}, but got "
        "{value} instead."
    ),
    "string_too_long": (
        "Invalid '{param}': string too long. Expected a string with maximum length {limit}, but "
        "got a string with length {length} instead."
    ),
    "array_too_long": (
        "Invalid '{param}': array too long. Expected an array with maximum length {limit}, but "
        "got an array with length {length} instead."
    ),
    "empty_array": (
        "Invalid '{param}': empty array. Expected an array with minimum length 1, but got an "
        "empty array instead."
    ),
    "unknown_parameter": "Unknown parameter: '{param}'.",
}


class ProtocolError(Exception):
    """A request the real API would refuse. ``body()`` is the OpenAI-shaped JSON error body."""

    def __init__(
        self,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        status: int = 400,
        type: str = "invalid_request_error",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code
        self.status = status
        self.type = type

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "param": self.param,
                "code": self.code,
            }
        }


def json_kind(value: Any) -> str:
    """The JSON type name of a value, as the API's messages spell it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


class _NotJSON(ValueError):
    def __init__(self, constant: str) -> None:
        super().__init__(constant)
        self.constant = constant


def _refuse_constant(constant: str) -> Any:
    raise _NotJSON(constant)


class _TooLarge(ValueError):
    def __init__(self, number: str) -> None:
        super().__init__(number)
        self.number = number


def _finite_float(text: str) -> float:
    """A JSON decimal as a float; one beyond float's range (``1e400``) would become infinity,
    which no reply could carry back as JSON, so it is refused."""
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _TooLarge(text)
    return value


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)


def parse_body(raw: bytes) -> dict[str, Any]:
    """Decode the request body, refusing anything that is not a well-formed JSON object."""
    try:
        body = _loads(raw)
    except _NotJSON as error:
        raise ProtocolError(MESSAGES["constant"].format(constant=error.constant)) from None
    except _TooLarge as error:
        number = error.number if len(error.number) <= MAX_SHOWN else error.number[:MAX_SHOWN] + "…"
        raise ProtocolError(MESSAGES["too_large"].format(number=number)) from None
    except RecursionError:
        raise ProtocolError(MESSAGES["too_deep"].format(limit=MAX_NESTING)) from None
    except ValueError:  # includes UnicodeDecodeError: bytes that are not UTF-8/16/32
        body = None
    if not isinstance(body, dict):
        raise ProtocolError(MESSAGES["not_json"])
    if not _plainly_shaped(raw):
        _check_shape(body)
    return body


def _loads(raw: bytes | str) -> Any:
    """``json.loads(raw, parse_constant=_refuse_constant, parse_float=_finite_float)``, with
    the decoder built once: ``json.loads`` builds a new one for every call given a hook. Bytes
    are decoded as ``json.loads`` decodes them (its encoding detection, ``surrogatepass``)."""
    if isinstance(raw, (bytes, bytearray)):
        return _DECODER.decode(raw.decode(json.detect_encoding(raw), "surrogatepass"))
    return json.loads(raw, parse_constant=_refuse_constant, parse_float=_finite_float)


def _plainly_shaped(raw: bytes | str) -> bool:
    """Whether the text alone shows that its JSON passes :func:`_check_shape`, without a walk.

    True only when it must: UTF-8 (no NUL byte, so not UTF-16 or UTF-32, and strictly valid, so
    no encoded surrogate), no escape of a surrogate (a pair is let through by the parser, a lone
    half is not: any ``\\uD8..`` to ``\\uDF..`` sends the body to the walk), and fewer opening
    brackets than :data:`MAX_NESTING` (brackets inside strings are counted too), so nothing can
    nest that deep. What a real client sends passes; the rest is walked as before.
    """
    if not isinstance(raw, bytes) or b"\x00" in raw:
        return False
    if raw.count(b"{") + raw.count(b"[") >= MAX_NESTING or SURROGATE_ESCAPE.search(raw):
        return False
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _check_shape(body: dict[str, Any]) -> None:
    """Bounded depth, and only encodable strings: a quick walk, and the one that names the
    culprit only when the quick one finds something wrong."""
    if not _well_shaped(body):
        _find_shape_error(body)


def _well_shaped(body: dict[str, Any]) -> bool:
    """The walk of :func:`_find_shape_error` without keeping paths: containers only, each
    string checked where it is met."""
    stack: list[tuple[Any, int]] = [(body, 1)]
    while stack:
        value, depth = stack.pop()
        if value and depth >= MAX_NESTING:  # its members would be deeper than the limit
            return False
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(key, str) and not (key.isascii() or _encodable(key)):
                return False
            if isinstance(item, str):
                if not (item.isascii() or _encodable(item)):
                    return False
            elif isinstance(item, (dict, list)):
                stack.append((item, depth + 1))
    return True


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _find_shape_error(body: dict[str, Any]) -> None:
    """Walk the body once, without recursion, and raise the first problem found."""
    stack: list[tuple[Any, int, tuple]] = [(body, 1, ())]
    while stack:
        value, depth, path = stack.pop()
        if depth > MAX_NESTING:
            raise ProtocolError(MESSAGES["too_deep"].format(limit=MAX_NESTING))
        if isinstance(value, dict):
            for key, item in value.items():
                _check_text(key, path)
                stack.append((item, depth + 1, (*path, key)))
        elif isinstance(value, list):
            stack.extend((item, depth + 1, (*path, index)) for index, item in enumerate(value))
        elif isinstance(value, str):
            _check_text(value, path)


def _check_text(text: str, path: tuple) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        bad = text[error.start]
        raise ProtocolError(
            MESSAGES["surrogate"].format(where=dotted(path), escape=f"\\u{ord(bad):04x}"),
            param=dotted(path) or None,
        ) from None


def dotted(path: tuple) -> str:
    """``("messages", 0, "content")`` -> ``messages[0].content``, as the API names params."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


# -- shared wording -------------------------------------------------------------------------------


def missing(param: str) -> ProtocolError:
    return ProtocolError(
        MESSAGES["missing"].format(param=param), param=param, code="missing_required_parameter"
    )


def wrong_type(param: str, expected: str, value: Any) -> ProtocolError:
    return ProtocolError(
        MESSAGES["wrong_type"].format(param=param, expected=expected, got=json_kind(value)),
        param=param,
        code="invalid_type",
    )


def invalid_value(param: str, value: Any, supported: list[str]) -> ProtocolError:
    """``Invalid value: 'x'. Supported values are: 'a', 'b', and 'c'.``"""
    quoted = [repr(option) for option in supported]
    listing = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
    if len(quoted) == 2:
        listing = f"{quoted[0]} and {quoted[1]}"
    shown = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    shown = shown if len(shown) <= MAX_SHOWN else shown[:MAX_SHOWN] + "…"
    return ProtocolError(
        MESSAGES["invalid_value"].format(value=shown, supported=listing),
        param=param,
        code="invalid_value",
    )


def check_function_tool(where: str, tool: Any, note: str = "") -> None:
    """A tool is an object whose ``type`` is ``"function"`` (``note`` added to the last error)."""
    if not isinstance(tool, dict):
        raise wrong_type(where, "an object", tool)
    if "type" not in tool:
        raise missing(f"{where}.type")
    if tool["type"] != "function":
        error = invalid_value(f"{where}.type", tool["type"], ["function"])
        if note:
            error.message += " " + note
        raise error


def shown_number(value: int | float) -> str:
    """A number as the API quotes it back: ``2.5``, ``3``, ``1e+300``, shortened if huge."""
    text = json.dumps(value) if isinstance(value, float) else str(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "…"


def out_of_range(
    param: str, value: int | float, minimum=None, maximum=None, *, integer: bool = False
) -> ProtocolError | None:
    """The API's error for a number outside ``[minimum, maximum]`` (either bound may be None),
    or None when it is inside. ``integer`` says the parameter is an integer one: the API words
    the error by the parameter's type (``decimal above maximum value ... but got 3``)."""
    kind = "integer" if integer else "decimal"
    if minimum is not None and value < minimum:
        key, limit, code = "below_min", minimum, f"{kind}_below_min_value"
    elif maximum is not None and value > maximum:
        key, limit, code = "above_max", maximum, f"{kind}_above_max_value"
    else:
        return None
    message = MESSAGES[key].format(param=param, kind=kind, limit=limit, value=shown_number(value))
    return ProtocolError(message, param=param, code=code)


def string_too_long(param: str, value: str, limit: int) -> ProtocolError:
    message = MESSAGES["string_too_long"].format(param=param, limit=limit, length=len(value))
    return ProtocolError(message, param=param, code="string_above_max_length")


def array_too_long(param: str, length: int, limit: int) -> ProtocolError:
    message = MESSAGES["array_too_long"].format(param=param, limit=limit, length=length)
    return ProtocolError(message, param=param, code="array_above_max_length")


def empty_array(param: str) -> ProtocolError:
    return ProtocolError(
        MESSAGES["empty_array"].format(param=param), param=param, code="empty_array"
    )


def unknown_parameter(param: str) -> ProtocolError:
    """What both OpenAI APIs answer for a parameter they do not have (a typo, or the other
    API's): ``Unknown parameter: 'temprature'.``, naming it in ``param``."""
    shown = param if len(param) <= MAX_SHOWN else param[:MAX_SHOWN] + "…"
    return ProtocolError(
        MESSAGES["unknown_parameter"].format(param=shown), param=param, code="unknown_parameter"
    )

"""The reasoning model on the Responses API: ``reasoning`` items, and how they must come back.

A reply of ``local-toy-reasoning`` starts with a ``reasoning`` item (``rs_...``): its ``summary``
is empty unless ``reasoning.summary`` asks for one, and its ``encrypted_content`` is there only
when ``include: ["reasoning.encrypted_content"]`` asks (sealed, ``seals.py``). The items after
it (``function_call``, ``message``) *require* it, as with the real API:

* a ``function_call`` (or ``message``) item sent back with its id but without the ``reasoning``
  item before it: ``400 Item 'fc_...' of type 'function_call' was provided without its required
  'reasoning' item: 'rs_...'.``;
* a ``reasoning`` item sent without the item that followed it: ``400 ... was provided without
  its required following item.``;
* a ``reasoning`` item of a response made with ``store: false``, sent back without its
  ``encrypted_content``: ``404 Item with id 'rs_...' not found. Items are not persisted ...``;
* ``encrypted_content`` that was altered or made up: ``400 invalid_encrypted_content``.

``previous_response_id`` carries the items itself (the store keeps the output), so nothing has
to be resent. How the model knows which ``reasoning`` item an item requires, without keeping
anything: the ids of one reply share a prefix (real ids do too), followed by a tag only this
process can compute (``seals.tag``). The prefix holds whether the reply was stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, get_args

from openai.types.responses import ResponseIncludable

from course_lib.local_model.protocol import ProtocolError, missing, wrong_type
from course_lib.local_model.reasoning import (
    DEFAULT_EFFORT,
    EFFORTS,
    Thoughts,
    check_choice,
    is_reasoning_model,
    think,
)
from course_lib.local_model.seals import seal, tag, unseal
from course_lib.local_model.turns import ChatRequest, Turn
from course_lib.local_model.wire import text_pieces

SUMMARIES = ["auto", "concise", "detailed"]
INCLUDABLE = list(get_args(ResponseIncludable))
ENCRYPTED = "reasoning.encrypted_content"
PURPOSE = "responses reasoning"
PREFIX_CHARS = 25  # 24 hex characters of the response id, then "1" (stored) or "0"
ID_CHARS = 48  # hex characters after "rs_", "fc_", "msg_", as the other ids have
FOLLOWER_KINDS = {"function_call": "fc", "message": "msg"}

MESSAGES = {
    "required_reasoning": (
        "Item '{id}' of type '{kind}' was provided without its required 'reasoning' item: "
        "'{reasoning}'."
    ),
    "required_following": (
        "Item '{id}' of type 'reasoning' was provided without its required following item."
    ),
    "not_persisted": (
        "Item with id '{id}' not found. Items are not persisted when `store` is set to false. "
        "Try again with `store` set to true, or remove this item from your input."
    ),
    "unverified": (
        "The encrypted content for item {id} could not be verified. Reason: Encrypted content "
        "could not be decrypted or parsed."
    ),
}


@dataclass(frozen=True)
class ReasoningOptions:
    """What a Responses request asks of reasoning; ``effort`` is ``"none"`` for the default
    model (it never reasons, whatever the request says)."""

    effort: str = "none"
    summary: str | None = None
    encrypted: bool = False
    store: bool = True


def read_options(body: dict[str, Any], model: str) -> ReasoningOptions:
    """``reasoning`` (``effort``, ``summary``) and ``include``, checked as the real API does."""
    reasoning = body.get("reasoning")
    if reasoning is None:
        reasoning = {}
    if not isinstance(reasoning, dict):
        raise wrong_type("reasoning", "an object", reasoning)
    effort = check_choice("reasoning.effort", reasoning.get("effort"), EFFORTS)
    summary_key = "summary" if reasoning.get("summary") is not None else "generate_summary"
    summary = check_choice(f"reasoning.{summary_key}", reasoning.get(summary_key), SUMMARIES)
    include = body.get("include")
    if include is None:
        include = []
    if not isinstance(include, list):
        raise wrong_type("include", "an array", include)
    for position, value in enumerate(include):
        check_choice(f"include[{position}]", value, INCLUDABLE)
    if not is_reasoning_model(model):
        return ReasoningOptions()
    store = body.get("store") is not False
    return ReasoningOptions(effort or DEFAULT_EFFORT, summary, ENCRYPTED in include, store)


# -- the reply ------------------------------------------------------------------------------------


def add_reasoning(
    response: dict[str, Any], request: ChatRequest, turn: Turn, options: ReasoningOptions
) -> dict[str, Any]:
    """The response with its reasoning item first, the other items renamed to require it, and
    usage counting the reasoning tokens. The default model's responses come back unchanged."""
    if not is_reasoning_model(request.model):
        return response
    echo = {"effort": options.effort, "summary": options.summary}
    thoughts = think(request, turn, options.effort)
    if not thoughts.sentences:
        return {**response, "reasoning": echo}
    prefix = response["id"].removeprefix("resp_")[:24] + ("1" if options.store else "0")
    item = _reasoning_item(reasoning_id(prefix), thoughts, options)
    renamed = [_renamed(output, prefix, n) for n, output in enumerate(response["output"])]
    usage, tokens = response["usage"], thoughts.tokens
    usage = {
        **usage,
        "output_tokens": usage["output_tokens"] + tokens,
        "output_tokens_details": {**usage["output_tokens_details"], "reasoning_tokens": tokens},
        "total_tokens": usage["total_tokens"] + tokens,
    }
    return {**response, "output": [item, *renamed], "reasoning": echo, "usage": usage}


def _reasoning_item(item_id: str, thoughts: Thoughts, options: ReasoningOptions) -> dict:
    item: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": []}
    if options.summary == "concise":
        item["summary"] = [{"type": "summary_text", "text": thoughts.decision}]
    elif options.summary is not None:
        item["summary"] = [{"type": "summary_text", "text": thoughts.text}]
    if options.encrypted:
        item["encrypted_content"] = seal(PURPOSE, {"id": item_id, "reasoning": thoughts.text})
    return item


def reasoning_id(prefix: str) -> str:
    """The id of the reasoning item of the reply whose ids start with ``prefix``."""
    return "rs_" + prefix + tag("rs", prefix, length=ID_CHARS - PREFIX_CHARS)


def _follower_id(short: str, prefix: str, position: int) -> str:
    index = f"{position:04x}"
    return f"{short}_{prefix}{index}" + tag(short, prefix, index, length=ID_CHARS - 29)


def _renamed(item: dict[str, Any], prefix: str, position: int) -> dict[str, Any]:
    short = FOLLOWER_KINDS.get(item["type"])
    return {**item, "id": _follower_id(short, prefix, position)} if short else item


def _reasoning_prefix(item_id: str) -> str | None:
    """The prefix of a reasoning item id this process made, else None."""
    prefix = item_id[3:][:PREFIX_CHARS]
    if item_id.startswith("rs_") and len(item_id) == 3 + ID_CHARS:
        return prefix if reasoning_id(prefix) == item_id else None
    return None


def _required_by(item_id: str) -> str | None:
    """The reasoning item an item id this process made requires, else None."""
    short, _, rest = item_id.partition("_")
    if short not in FOLLOWER_KINDS.values() or len(rest) != ID_CHARS:
        return None
    prefix, position = rest[:PREFIX_CHARS], rest[PREFIX_CHARS : PREFIX_CHARS + 4]
    try:
        number = int(position, 16)
    except ValueError:
        return None
    return reasoning_id(prefix) if _follower_id(short, prefix, number) == item_id else None


# -- what comes back ------------------------------------------------------------------------------


def check_item(where: str, item: dict[str, Any]) -> dict[str, Any]:
    """One ``reasoning`` input item: ``id`` and ``summary`` (an array of ``summary_text``)."""
    for key in ("id", "summary"):
        if key not in item:
            raise missing(f"{where}.{key}")
    if not isinstance(item["id"], str):
        raise wrong_type(f"{where}.id", "a string", item["id"])
    if not isinstance(item["summary"], list):
        raise wrong_type(f"{where}.summary", "an array", item["summary"])
    for position, part in enumerate(item["summary"]):
        if not isinstance(part, dict) or not isinstance(part.get("text"), str):
            raise wrong_type(f"{where}.summary[{position}].text", "a string", part)
    content = item.get("encrypted_content")
    if content is not None and not isinstance(content, str):
        raise wrong_type(f"{where}.encrypted_content", "a string", content)
    return item


def check_items(items: list[dict[str, Any]]) -> None:
    """The whole conversation (stored items, then the input): every reasoning item genuine and
    followed by what it produced, every item that requires a reasoning item preceded by it."""
    sent: set[str] = set()
    for position, item in enumerate(items):
        if item["type"] == "reasoning":
            _check_reasoning(item)
            following = items[position + 1] if position + 1 < len(items) else {}
            prefix = _reasoning_prefix(item["id"])
            if prefix is None or _required_by(str(following.get("id"))) != item["id"]:
                message = MESSAGES["required_following"].format(id=item["id"][:100])
                raise ProtocolError(message, param="input")
            sent.add(item["id"])
            continue
        required = _required_by(item["id"]) if isinstance(item.get("id"), str) else None
        if required is not None and required not in sent:
            message = MESSAGES["required_reasoning"].format(
                id=item["id"], kind=item["type"], reasoning=required
            )
            raise ProtocolError(message, param="input")


def _check_reasoning(item: dict[str, Any]) -> None:
    item_id = item["id"]
    content = item.get("encrypted_content")
    if content is not None:
        payload = unseal(PURPOSE, content)
        if payload is None or payload.get("id") != item_id:
            message = MESSAGES["unverified"].format(id=item_id[:100])
            raise ProtocolError(message, code="invalid_encrypted_content")
        return
    prefix = _reasoning_prefix(item_id)
    if prefix is None or not prefix.endswith("1"):
        message = MESSAGES["not_persisted"].format(id=item_id[:100])
        raise ProtocolError(message, param="input", status=404)


# -- streaming ------------------------------------------------------------------------------------


def events(index: int, item: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A reasoning item's stream events: added, each summary part's text, done."""
    where = {"item_id": item["id"], "output_index": index}
    opening = {"id": item["id"], "type": "reasoning", "summary": []}
    yield {"type": "response.output_item.added", "output_index": index, "item": opening}
    for number, part in enumerate(item["summary"]):
        at = {**where, "summary_index": number}
        empty = {"type": "summary_text", "text": ""}
        yield {"type": "response.reasoning_summary_part.added", **at, "part": empty}
        for piece in text_pieces(part["text"]):
            yield {"type": "response.reasoning_summary_text.delta", **at, "delta": piece}
        yield {"type": "response.reasoning_summary_text.done", **at, "text": part["text"]}
        yield {"type": "response.reasoning_summary_part.done", **at, "part": part}
    yield {"type": "response.output_item.done", "output_index": index, "item": item}

"""What lesson 01 says about the SDK, checked against the installed ``openai``.

Section 3 appends the assistant message as a plain dict of the request's fields, because
``model_dump(exclude_none=True)`` copies reply fields too: the reply type has ``annotations``
(which the local model fills with ``[]``), the request's assistant message type has not.
"""

from __future__ import annotations

import typing

from openai.types.chat import ChatCompletionAssistantMessageParam, ChatCompletionMessage

from course_lib.local_model import MODEL, make_client


def test_the_request_message_type_has_no_annotations_and_the_reply_type_has():
    request_keys = set(typing.get_type_hints(ChatCompletionAssistantMessageParam))
    assert {"role", "content", "tool_calls"} <= request_keys
    assert "annotations" not in request_keys
    assert "annotations" in ChatCompletionMessage.model_fields


def test_model_dump_without_none_keeps_the_empty_annotations_of_a_reply():
    reply = make_client().chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "Hello!"}]
    )
    dumped = reply.choices[0].message.model_dump(exclude_none=True)
    assert dumped["annotations"] == []

"""The fields each object's specification requires, null or not (imported as ``spec_fields``).

The SDKs' pydantic types give every nullable field a ``None`` default, so they validate an object
whether a required-but-nullable field (Anthropic's ``stop_details``, a Response's
``incomplete_details``) is there as ``null`` or missing altogether. The Go SDKs, generated from
the same specifications, mark each field the specification requires (``api:"required"``); this
table copies those marks for every class of object the local model sends (Python class ->
required fields; the Go struct is named in the comment), read from the commits below. A field
whose type is a constant (``type``, ``object``, ``role``) is required by the pydantic type
itself and not listed. ``spec_check.missing_fields`` reports a class met that is not here.
"""

from __future__ import annotations

REQUIRED: dict[str, tuple[str, ...]] = {
    # anthropics/anthropic-sdk-go b43f0d7a327fe3e30c302d773162669ab3bb4d26 (2026-07-23)
    "anthropic:cache_creation.CacheCreation": (
        "ephemeral_1h_input_tokens",
        "ephemeral_5m_input_tokens",
    ),  # CacheCreation
    "anthropic:direct_caller.DirectCaller": (),  # DirectCaller
    "anthropic:input_json_delta.InputJSONDelta": ("partial_json",),  # InputJSONDelta
    "anthropic:message.Message": (
        "container",
        "content",
        "id",
        "model",
        "stop_details",
        "stop_reason",
        "stop_sequence",
        "usage",
    ),  # Message
    "anthropic:message_delta_usage.MessageDeltaUsage": (
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "input_tokens",
        "output_tokens",
        "output_tokens_details",
        "server_tool_use",
    ),  # MessageDeltaUsage
    "anthropic:model_info.ModelInfo": (
        "capabilities",
        "created_at",
        "display_name",
        "id",
        "max_input_tokens",
        "max_tokens",
    ),  # ModelInfo
    "anthropic:raw_content_block_delta_event.RawContentBlockDeltaEvent": (
        "delta",
        "index",
    ),  # ContentBlockDeltaEvent
    "anthropic:raw_content_block_start_event.RawContentBlockStartEvent": (
        "content_block",
        "index",
    ),  # ContentBlockStartEvent
    "anthropic:raw_content_block_stop_event.RawContentBlockStopEvent": (
        "index",
    ),  # ContentBlockStopEvent
    "anthropic:raw_message_delta_event.Delta": (
        "container",
        "stop_details",
        "stop_reason",
        "stop_sequence",
    ),  # MessageDeltaEventDelta
    "anthropic:raw_message_delta_event.RawMessageDeltaEvent": (
        "delta",
        "usage",
    ),  # MessageDeltaEvent
    "anthropic:raw_message_start_event.RawMessageStartEvent": ("message",),  # MessageStartEvent
    "anthropic:raw_message_stop_event.RawMessageStopEvent": (),  # MessageStopEvent
    "anthropic:api_error_object.APIErrorObject": ("message",),  # APIErrorObject
    "anthropic:error_response.ErrorResponse": ("error", "request_id"),  # ErrorResponse
    "anthropic:invalid_request_error_object.InvalidRequestErrorObject": (
        "message",
    ),  # InvalidRequestError
    "anthropic:not_found_error_object.NotFoundErrorObject": ("message",),  # NotFoundError
    "anthropic:text_block.TextBlock": ("citations", "text"),  # TextBlock
    "anthropic:output_tokens_details.OutputTokensDetails": ("thinking_tokens",),
    "anthropic:redacted_thinking_block.RedactedThinkingBlock": ("data",),  # RedactedThinkingBlock
    "anthropic:signature_delta.SignatureDelta": ("signature",),  # SignatureDelta
    "anthropic:thinking_block.ThinkingBlock": ("signature", "thinking"),  # ThinkingBlock
    "anthropic:thinking_delta.ThinkingDelta": ("thinking",),  # ThinkingDelta
    "anthropic:text_delta.TextDelta": ("text",),  # TextDelta
    "anthropic:tool_use_block.ToolUseBlock": ("caller", "id", "name"),  # ToolUseBlock
    "anthropic:usage.Usage": (
        "cache_creation",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "inference_geo",
        "input_tokens",
        "output_tokens",
        "output_tokens_details",
        "server_tool_use",
        "service_tier",
    ),  # Usage
    # openai/openai-go 4e5a07a6a205761650d73593fe75cd79ea7a25ec (2026-08-21)
    "openai:chat_completion.ChatCompletion": (
        "choices",
        "created",
        "id",
        "model",
    ),  # ChatCompletion
    "openai:chat_completion.Choice": (
        "finish_reason",
        "index",
        "logprobs",
        "message",
    ),  # ChatCompletionChoice
    "openai:chat_completion_chunk.ChatCompletionChunk": (
        "choices",
        "created",
        "id",
        "model",
    ),  # ChatCompletionChunk
    "openai:chat_completion_chunk.Choice": (
        "delta",
        "finish_reason",
        "index",
    ),  # ChatCompletionChunkChoice
    "openai:chat_completion_chunk.ChoiceDelta": (),  # ChatCompletionChunkChoiceDelta
    "openai:chat_completion_chunk.ChoiceDeltaToolCall": (
        "index",
    ),  # ChatCompletionChunkChoiceDeltaToolCall
    # ChatCompletionChunkChoiceDeltaToolCallFunction
    "openai:chat_completion_chunk.ChoiceDeltaToolCallFunction": (),
    "openai:chat_completion_message.ChatCompletionMessage": (
        "content",
        "refusal",
    ),  # ChatCompletionMessage
    "openai:chat_completion_message_function_tool_call.ChatCompletionMessageFunctionToolCall": (
        "function",
        "id",
    ),  # ChatCompletionMessageFunctionToolCall
    "openai:chat_completion_message_function_tool_call.Function": (
        "arguments",
        "name",
    ),  # ChatCompletionMessageFunctionToolCallFunction
    "openai:completion_usage.CompletionTokensDetails": (),  # CompletionUsageCompletionTokensDetails
    "openai:completion_usage.CompletionUsage": (
        "completion_tokens",
        "prompt_tokens",
        "total_tokens",
    ),  # CompletionUsage
    "openai:completion_usage.PromptTokensDetails": (),  # CompletionUsagePromptTokensDetails
    "openai:model.Model": ("created", "id", "owned_by"),  # Model
    "openai:function_tool.FunctionTool": (
        "name",
        "parameters",
        "strict",
    ),  # FunctionTool
    "openai:response.IncompleteDetails": (),  # ResponseIncompleteDetails
    "openai:response.Response": (
        "created_at",
        "error",
        "id",
        "incomplete_details",
        "instructions",
        "metadata",
        "model",
        "output",
        "parallel_tool_calls",
        "temperature",
        "tool_choice",
        "tools",
        "top_p",
    ),  # Response
    "openai:response_completed_event.ResponseCompletedEvent": (
        "response",
        "sequence_number",
    ),  # ResponseCompletedEvent
    "openai:response_content_part_added_event.ResponseContentPartAddedEvent": (
        "content_index",
        "item_id",
        "output_index",
        "part",
        "sequence_number",
    ),  # ResponseContentPartAddedEvent
    "openai:response_content_part_done_event.ResponseContentPartDoneEvent": (
        "content_index",
        "item_id",
        "output_index",
        "part",
        "sequence_number",
    ),  # ResponseContentPartDoneEvent
    "openai:response_created_event.ResponseCreatedEvent": (
        "response",
        "sequence_number",
    ),  # ResponseCreatedEvent
    "openai:response_format_text_json_schema_config.ResponseFormatTextJSONSchemaConfig": (
        "name",
        "schema",
    ),  # ResponseFormatTextJSONSchemaConfig
    "openai:response_function_call_arguments_delta_event.ResponseFunctionCallArgumentsDeltaEvent": (
        "delta",
        "item_id",
        "output_index",
        "sequence_number",
    ),  # ResponseFunctionCallArgumentsDeltaEvent
    "openai:response_function_call_arguments_done_event.ResponseFunctionCallArgumentsDoneEvent": (
        "arguments",
        "item_id",
        "name",
        "output_index",
        "sequence_number",
    ),  # ResponseFunctionCallArgumentsDoneEvent
    "openai:response_function_tool_call.ResponseFunctionToolCall": (
        "arguments",
        "call_id",
        "name",
    ),  # ResponseFunctionToolCall
    "openai:response_in_progress_event.ResponseInProgressEvent": (
        "response",
        "sequence_number",
    ),  # ResponseInProgressEvent
    "openai:response_incomplete_event.ResponseIncompleteEvent": (
        "response",
        "sequence_number",
    ),  # ResponseIncompleteEvent
    "openai:response_output_item_added_event.ResponseOutputItemAddedEvent": (
        "item",
        "output_index",
        "sequence_number",
    ),  # ResponseOutputItemAddedEvent
    "openai:response_output_item_done_event.ResponseOutputItemDoneEvent": (
        "item",
        "output_index",
        "sequence_number",
    ),  # ResponseOutputItemDoneEvent
    "openai:response_output_message.ResponseOutputMessage": (
        "content",
        "id",
        "status",
    ),  # ResponseOutputMessage
    "openai:response_output_text.ResponseOutputText": (
        "annotations",
        "text",
    ),  # ResponseOutputText
    "openai:response_text_config.ResponseTextConfig": (),  # ResponseTextConfig
    "openai:response_text_delta_event.ResponseTextDeltaEvent": (
        "content_index",
        "delta",
        "item_id",
        "logprobs",
        "output_index",
        "sequence_number",
    ),  # ResponseTextDeltaEvent
    "openai:response_text_done_event.ResponseTextDoneEvent": (
        "content_index",
        "item_id",
        "logprobs",
        "output_index",
        "sequence_number",
        "text",
    ),  # ResponseTextDoneEvent
    "openai:response_reasoning_item.ResponseReasoningItem": ("id", "summary"),
    "openai:response_reasoning_item.Summary": ("text",),  # ResponseReasoningItemSummary
    "openai:response_reasoning_summary_part_added_event.Part": ("text",),
    "openai:response_reasoning_summary_part_added_event.ResponseReasoningSummaryPartAddedEvent": (
        "item_id",
        "output_index",
        "part",
        "sequence_number",
        "summary_index",
    ),
    "openai:response_reasoning_summary_part_done_event.Part": ("text",),
    "openai:response_reasoning_summary_part_done_event.ResponseReasoningSummaryPartDoneEvent": (
        "item_id",
        "output_index",
        "part",
        "sequence_number",
        "summary_index",
    ),
    "openai:response_reasoning_summary_text_delta_event.ResponseReasoningSummaryTextDeltaEvent": (
        "delta",
        "item_id",
        "output_index",
        "sequence_number",
        "summary_index",
    ),
    "openai:response_reasoning_summary_text_done_event.ResponseReasoningSummaryTextDoneEvent": (
        "item_id",
        "output_index",
        "sequence_number",
        "summary_index",
        "text",
    ),
    "openai:response_usage.InputTokensDetails": (
        "cache_write_tokens",
        "cached_tokens",
    ),  # ResponseUsageInputTokensDetails
    "openai:response_usage.OutputTokensDetails": (
        "reasoning_tokens",
    ),  # ResponseUsageOutputTokensDetails
    "openai:response_usage.ResponseUsage": (
        "input_tokens",
        "input_tokens_details",
        "output_tokens",
        "output_tokens_details",
        "total_tokens",
    ),  # ResponseUsage
    "openai:tool_choice_allowed.ToolChoiceAllowed": (
        "mode",
        "tools",
    ),  # ToolChoiceAllowed
    "openai:tool_choice_function.ToolChoiceFunction": ("name",),  # ToolChoiceFunction
    "openai:error_object.ErrorObject": ("code", "message", "param", "type"),  # ErrorObject
    "openai:reasoning.Reasoning": (),  # Reasoning
    "openai:response_format_json_object.ResponseFormatJSONObject": (),  # ResponseFormatJSONObject
    "openai:response_format_text.ResponseFormatText": (),  # ResponseFormatText
}

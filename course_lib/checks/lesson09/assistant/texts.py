"""Every sentence exercise 09.6's check says: the hints (``HINTS``, one per mistake a scenario
can show) and the other phrases (``TEXTS``: case labels, what was expected and found, where).

Whole sentences with named placeholders, in one place, so a translation replaces this module
and nothing else."""

from __future__ import annotations

from course_lib.checks.catalog import Catalog

HINTS = Catalog() | {
    "answer": (
        "ask returns the model's final text, a str (None only when the turns ran out); yours "
        "returned a {kind}."
    ),
    "answer_text": (
        "ask must return the model's final text, unchanged: the text of the last reply."
    ),
    "no_answer": ("ask returned None, but the model answered: return the text of its last reply."),
    "system_prompt": (
        'Every request starts with the system prompt, {{"role": "system", "content": '
        "SYSTEM_PROMPT}}: the first message of assistant.messages, never dropped."
    ),
    "responses": (
        "Talk to the model over the Responses API (your converse, 09.4): this request went to "
        "Chat Completions."
    ),
    "memory": (
        "Question {number} was sent without the conversation before it: keep one list, "
        "assistant.messages, append each question to it and send it whole (converse does)."
    ),
    "context_budget": (
        "Question {number} was sent with a history of {size} characters, over CONTEXT_BUDGET "
        "({budget}): fit assistant.messages to the budget before each question (fit_budget)."
    ),
    "history": (
        "Question {number} was not sent with the history fit_budget(assistant.messages + [the "
        "question], CONTEXT_BUDGET) gives: compare the two at Where."
    ),
    "approval": (
        "{name} ran ({evidence}) though the person did not approve it: wrap the registry the "
        "loop calls in your ApprovalRegistry with NEEDS_APPROVAL and approve."
    ),
    "approval_unoffered": (
        "The person was asked about {name}, which this request did not offer: refuse a call "
        "that was not offered before anyone is asked (approve only what the offer holds)."
    ),
    "approval_unasked": (
        "{name} needs approval, yet the person was never asked: wrap the registry the loop "
        "calls in your ApprovalRegistry with NEEDS_APPROVAL and approve."
    ),
    "routing": (
        "Offer only the tools of the categories route(question) picks ({categories}); this "
        "request also offered tools of other categories: {extra}."
    ),
    "strict": (
        "Offer the tools in strict mode (lesson 06): each schema made strict with to_strict and "
        'sent with "strict": true (StrictTools does both); this request sent {loose} without '
        "it."
    ),
    "strict_null": (
        "In strict mode the model sends null for an optional parameter it leaves out, and "
        "{name}'s {parameter} was null; your registry refused it. Drop such a null before the "
        "registry validates the call, so the function's default applies (StrictTools does)."
    ),
    "missing_tools": (
        "Offer every tool of the categories route(question) picks ({categories}) that the role "
        "may use; this request left out: {missing}."
    ),
    "roles": (
        "The {role} was offered {extra}, which may_use(role, tags) refuses: offer only the "
        "tools the role may use."
    ),
    "empty_tools": (
        "When no tool is left to offer, leave tools out of the request: the API refuses an "
        "empty tools list."
    ),
    "unanswered": (
        "The model refused the next request because a call had no answer: every call, refused "
        "or failed ones too, needs one tool message with its tool_call_id, in call order."
    ),
    "rejected": (
        "The model refused a request your assistant sent, for the reason shown: fix that request "
        "(the API would refuse it too)."
    ),
    "guard": (
        "{name} was not offered in this request, yet it ran ({evidence}). A call to a tool "
        "that was not offered (unknown, of another category, or refused to the role) must not "
        "run: answer it with an error result that names the tool."
    ),
    "refusal_not_error": (
        "{name} was not offered in this request and did not run, but its tool message is not "
        'an error result: answer a call you refuse with {{"error": ...}} (error_text does), '
        "naming the tool, so the model and your trace can tell a refusal from a result."
    ),
    "refusal_unnamed": (
        "The error result answering {name} does not say which tool it refuses: name it (for "
        "example '{name}' is not one of the tools offered for this request), so the model can "
        "tell which of its calls failed."
    ),
    "eval": (
        "calculate computed an expression that reaches Python's classes through attributes: it "
        "runs eval, or something as open. Evaluate arithmetic only (an AST whitelist, as "
        "safe_calculate does), and answer anything else with an error."
    ),
    "concurrent": (
        "The calls of one turn ran one after another: the shop waited for both {name} calls "
        "to be running at once. Run the calls of a turn concurrently (run_tool_calls does)."
    ),
    "facts": "The answer should hold {facts}, which the shop's data says: look at the tools "
    "each request offered and the calls the model made.",
    "wrong_shop": (
        "The answer holds {demo}, which is what the demo shop says: your tools read another "
        "shop than the one ShopAssistant was given. Build the tools from shop_tools(shop)."
    ),
    "stopped": "For this conversation ask should return {expected}, not {got}.",
    "budget": (
        "One question must cost at most {limit} requests to the model: stop the loop there "
        "(converse's max_turns=MAX_TURNS) and return None."
    ),
    "trace_missing": (
        "assistant.trace holds {count} record(s), but the model made {expected} call(s) over "
        "the questions asked so far ({calls}): keep one record per call, refused and failed "
        "calls too, in one trace that every question adds to (TracedRegistry's records)."
    ),
    "trace_order": (
        "assistant.trace holds a record for every call, but not turn by turn in the order the "
        "model made them: record each call when it runs (TracedRegistry does)."
    ),
    "trace_record": (
        "Each trace record is lesson 06's (TracedRegistry): tool, arguments (parsed), "
        "duration_ms, ok, error and result_chars, for the call as the loop made it: {problem}."
    ),
    "trace_attribute": (
        "The assistant needs a trace attribute: a list of lesson 06's records, one per call "
        "(the records of a TracedRegistry)."
    ),
    "unknown_role": (
        "{role!r} is not a role: ask must raise ValueError before it sends anything "
        "(may_use raises it for you)."
    ),
    "other_stub": (
        "Your assistant calls an exercise that is not done yet ({stub}): finish it, run its "
        "cell, then this check again."
    ),
    "errors_as_data": (
        "A call the model got wrong (bad JSON, a failing tool) must come back to it as an "
        "error result, not as an exception out of ask: registry.call does that."
    ),
    "raised": "ask raised; run this question yourself to see the full traceback.",
    "no_ask": (
        "ShopAssistant(...) made a {kind}, which has no ask method: give the class an "
        "ask(question, *, role) method."
    ),
    "build_raised": (
        "ShopAssistant(client, model=model, shop=shop, approve=person) raised. Run it yourself "
        "in a new cell "
        "to see the traceback."
    ),
}
hint = HINTS.hint

TEXTS = Catalog() | {
    # what is wrong with a trace record (the trace_record hint's {problem})
    "should_be": "{key} should be {value}",
    "keys_are": "the keys are {keys}, not {expected}",
    "duration_ms": "duration_ms should be a float >= 0 (milliseconds)",
    "case": "assistant.ask({question!r}, role={role!r})",
    "build_case": "ShopAssistant(client, model={model!r}, shop=shop, approve=person)",
    # what the other_stub hint says is not done yet ({stub})
    "exercise": "Exercise {id}",
    "a_stub": "a stub raised NotImplementedError",
    "request": "request {number} of {count} for this question",
    "tool_message": "the tool message answering {name} ({call_id})",
    "the_trace": "assistant.trace",
    "an_answer": "the model's final text (a str)",
    "person_asked": "the person asked about {name} first",
    "person_not_asked": "the person was never asked",
    "an_assistant": "an assistant with an ask method",
    "an_error": "an error result",
    "accepted": "a request the model accepts",
    "strict_tools": 'every tool with "strict": true',
    "null_default": "the result of the call with {parameter} at its default",
    "refused_status": "HTTP {status}: {message}",
    "together": "a result, the calls of the turn running at the same time",
    "requests": "{count} requests",
    "at_most": "at most {count} requests",
    "value_error": "ValueError before any request",
    "raised_after": "{error} after {count} request(s)",
    "returned": "a result, after {count} request(s)",
    "an_error_naming": "an error result naming {name}",
    "it_ran": "its tool message holds a result, not an error",
    "shop_did": "the shop recorded {action} {order_id}",
    "answer_holding": "an answer holding {facts}",
    "not_a_dict": "a record is a {kind}, not a dict",
    "conversation": (
        "The conversation as the model received it (the last request, then its reply):\n"
        "{conversation}"
    ),
    "draw_visible": (
        "To watch this scenario in your notebook: show_scenario({id!r}, ShopAssistant, model=MODEL)"
    ),
    "draw_hidden": (
        "To draw a conversation of your own: assistant.ask(question, role=role), then "
        "ConversationView(assistant.messages)"
    ),
}
text = TEXTS.text

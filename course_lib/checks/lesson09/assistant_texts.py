"""Every sentence exercise 09.1's check says: the hints (``HINTS``, one per mistake a scenario
can show) and the other phrases (``TEXTS``: case labels, what was expected and found, where).

Whole sentences with named placeholders, in one place, so a translation replaces this module
and nothing else."""

from __future__ import annotations

from course_lib.checks.compare import HintText

HINTS = {
    "agent_result": (
        "ask must return the AgentResult of the conversation (answer, messages, steps, "
        "stopped), as run_agent returns it; yours returned a {kind}."
    ),
    "answer_type": "The AgentResult's answer is the model's final text, a str (got a {kind}).",
    "answer_text": (
        "answer must be the model's final text, unchanged: the content of the last reply."
    ),
    "routing": (
        "Offer only the tools of the categories route(question) picks ({categories}); this "
        "request also offered tools of other categories: {extra}."
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
        "shop than the one build_assistant was given. Build the tools from shop_tools(shop)."
    ),
    "stopped": "For this conversation stopped should be {expected}, not {got}.",
    "budget": (
        "One question must cost at most {limit} requests to the model: stop the loop there "
        '(run_agent\'s max_iterations) with stopped="max_iterations".'
    ),
    "trace_missing": (
        "assistant.trace must hold one record per call the model made, across every question "
        "asked, refused and failed calls too: {missing}."
    ),
    "trace_order": (
        "assistant.trace holds a record for every call, but not in the order the model made "
        "them: append each record as the calls come, in the order of the turn's tool calls."
    ),
    "trace_record": (
        'Each trace record is a dict with "call_id", "tool", "arguments" (the JSON text as '
        'the model sent it), "role" and "ok" (False when the result is an error): {problem}.'
    ),
    "trace_attribute": "The assistant needs a trace attribute: a list of dicts, one per call.",
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
        "build_assistant returned a {kind}, which has no ask method: return the Assistant you "
        "built (return Assistant(...))."
    ),
    "build_raised": (
        "build_assistant(client, model=model, shop=shop) raised. Run it yourself in a new cell "
        "to see the traceback."
    ),
}

TEXTS = {
    "case": "assistant.ask({question!r}, role={role!r})",
    "build_case": "build_assistant(client, model={model!r}, shop=shop)",
    "request": "request {number} of {count} for this question",
    "tool_message": "the tool message answering {name} ({call_id})",
    "the_trace": "assistant.trace",
    "an_agent_result": "an AgentResult",
    "an_assistant": "an assistant with an ask method",
    "offered_tools": "offered tools {names}",
    "no_tools": "no tools",
    "an_error": "an error result",
    "accepted": "a request the model accepts",
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
    "record_for": "a record for call {call_id} ({name})",
    "records": "{count} records",
    "not_a_dict": "a record is a {kind}, not a dict",
    "conversation": (
        "The conversation as the model received it (the last request, then its reply):\n"
        "{conversation}"
    ),
    "draw_visible": (
        "To watch this scenario in your notebook: show_scenario({id!r}, build_assistant, "
        "model=MODEL)"
    ),
    "draw_hidden": (
        "To draw a conversation of your own: result = assistant.ask(question, role=role), "
        "then ConversationView(result)"
    ),
    "summary": "{count} scenarios",
}


def hint(key: str, **fields: object) -> HintText:
    return HintText.of(HINTS, key, **fields)


def text(key: str, **fields: object) -> str:
    return TEXTS[key].format(**fields)

"""Exercise 07.4, ``extract(client, text, schema_model, *, model) -> BaseModel``: structured output
into a pydantic model, from OpenAI or Anthropic, and a clear error when the reply does not
validate.

The pydantic models are built beside the learner's code from ``MODELS_SOURCE`` (and here, from the
same text, to validate what the model said). The model is a session on the check's side: the toy
model fills the schema from the text, or a script sends a reply that does not validate. The check
reads the request (one user message; a strict ``json_schema`` ``response_format`` for an OpenAI
client, ``max_tokens`` and ``output_config.format`` for an Anthropic one, whose replies that do
not validate are JSON cut short by ``max_tokens``, since the local model, like the real API,
keeps structured text to its schema) and what came back: an
instance of the schema model holding exactly the validated reply, or an ``ExtractionError`` that
names the model and the fields that failed. Rules, the case that breaks each, and the hint that
names it: see ``RULES``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, expect_equal, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.function_cases import run_source
from course_lib.checks.learner import Learner, Reply, raise_learner_error, raised_with
from course_lib.checks.lesson07._registry import (
    CHECK_MODEL,
    MAX_TOKENS,
    NOTEBOOK,
    text_of_message,
)
from course_lib.checks.lesson07.extract.requests import HINTS as REQUEST_HINTS
from course_lib.checks.lesson07.extract.requests import diagnose_anthropic_request, diagnose_request

MODELS_SOURCE = """\
from pydantic import BaseModel


class Person(BaseModel):
    name: str
    city: str
    age: int | None


class Trip(BaseModel):
    name: str
    cities: list[str]
    nights: int

"""
# Runs beside the learner's code: the call, then what came back, described as JSON.
RUN = """\
got = extract(client, text, Model, model=model_name)
answer = {
    "class": type(got).__name__,
    "is_schema_model": type(got) is Model,
    "fields": got.model_dump(mode="json", warnings=False) if type(got) is Model else None,
}
"""
TEXTS = Catalog() | {
    "case": "extract(client, {text}, {model_class}, model={model})",
    "case_bad": "extract(client, {text}, {model_class}, model={model}) with the reply {reply}",
    "case_anthropic": "extract(anthropic_client, {text}, {model_class}, model={model})",
    "case_cut": (
        "extract(anthropic_client, {text}, {model_class}, model={model}) with a reply longer "
        "than max_tokens"
    ),
    "instance": "an instance of {model_class}",
    "raises": "ExtractionError naming {model_class}{fields}",
    "fields": " and the field(s) {names}",
    "returned": "a returned {kind}",
    "summary": "{count} texts",
    "no_fields": "none: the reply is not JSON",  # the fields HINTS:message names, when none
}
text = TEXTS.text


def case_label(sample: str, model_class: str, reply: str | None = None, api: str = "openai") -> str:
    keys = ("case_anthropic", "case_cut") if api == "anthropic" else ("case", "case_bad")
    fields = {"text": repr(sample), "model_class": model_class, "model": repr(CHECK_MODEL)}
    return text(keys[reply is not None], **fields, reply=repr(reply))


PERSON_TEXT = "张三住在北京，今年30岁。"
PERSON_CASE = case_label(PERSON_TEXT, "Person")
BAD_AGE = '{"name": "张三", "city": "北京", "age": "thirty"}'
BAD_AGE_CASE = case_label(PERSON_TEXT, "Person", BAD_AGE)
CLAUDE_CASE = case_label(PERSON_TEXT, "Person", api="anthropic")
# Longer than max_tokens (one token per Chinese character): the JSON is cut short.
TOO_LONG = '{"name": "' + "张" * (MAX_TOKENS + 100) + '", "city": "北京", "age": 30}'

RULES = (
    Rule("model", "pass `model=model`", case=PERSON_CASE, hint="model"),
    Rule("messages", 'send one user message holding the text: '
         '`messages=[{"role": "user", "content": text}]`', case=PERSON_CASE, hint="messages"),
    Rule("strict_schema", "OpenAI: ask for a strict `json_schema` made from `schema_model`: "
         "`client.chat.completions.parse(..., response_format=schema_model)` does",
         case=PERSON_CASE, hint="strict_refused"),
    Rule("anthropic", "Anthropic (`isinstance(client, anthropic.Anthropic)`): ask with "
         "`client.messages.parse`", case=CLAUDE_CASE, hint="anthropic_client"),
    Rule("max_tokens", "pass it `max_tokens=1024`", case=CLAUDE_CASE, hint="max_tokens"),
    Rule("anthropic_format", "ask for `output_config.format` made from `schema_model`: "
         "`output_format=schema_model` does", case=CLAUDE_CASE, hint="no_format_anthropic"),
    Rule("instance", "the instance is `message.parsed`", case=PERSON_CASE, hint="return_model"),
    Rule("anthropic_instance", "the instance is `reply.parsed_output`", case=CLAUDE_CASE,
         hint="return_parsed_output"),
    Rule("validate", "a reply that does not validate never comes back as an object: raise "
         "`ExtractionError`", case=BAD_AGE_CASE, hint="unvalidated"),
    Rule("wrap", "raise it, not pydantic's `ValidationError` itself", case=BAD_AGE_CASE,
         hint="wrap"),
    Rule("from", "raise it `from` that error (`raise ExtractionError(...) from error`)",
         case=BAD_AGE_CASE, hint="from_error"),
    Rule("message", "its message names `schema_model` (`schema_model.__name__`) and the fields "
         "that failed (`str(error)` holds them), in whatever words you like", case=BAD_AGE_CASE,
         hint="message"),
)  # fmt: skip

HINTS = Catalog(also=(REQUEST_HINTS,)) | {
    "anthropic_client": (
        "This client is an Anthropic one (isinstance(client, anthropic.Anthropic)), which has "
        "no chat.completions: ask it with client.messages.parse(model=model, max_tokens=1024, "
        "messages=[...], output_format=schema_model)."
    ),
    "openai_client": (
        "This client is an OpenAI one, which has no messages.parse: ask it with "
        "client.chat.completions.parse(..., response_format=schema_model). Only an "
        "anthropic.Anthropic client takes messages.parse."
    ),
    "return_parsed_output": (
        "Return the instance itself: reply.parsed_output (what messages.parse validated), not "
        "a {kind}."
    ),
    "return_model": "Return an instance of schema_model (message.parsed), not a {kind}.",
    "return_fields": "Return what the model sent, validated: message.parsed, unchanged.",
    "unvalidated": (
        "The reply does not validate, yet your function returned an object: it trusted the JSON "
        "(model_construct or building the object by hand skips validation). Validate it "
        "(parse does, or schema_model.model_validate_json) and raise ExtractionError when it "
        "fails."
    ),
    "wrap": (
        "Catch pydantic.ValidationError and raise ExtractionError(...) from it, so the caller "
        "gets one error type for a reply that does not fit."
    ),
    "message": (
        "The ExtractionError's message should name the schema model ({model_class}) and the "
        "fields that failed ({names}): include str(error) of the ValidationError."
    ),
    "from_error": (
        "Raise ExtractionError(...) from error inside the except ValidationError as error: "
        "block: that keeps pydantic's error as the cause (__cause__). Without from, Python "
        "reports a second error raised while handling the first; from None hides it."
    ),
    "returned_none": (
        "The reply does not validate, yet your function returned None: raise ExtractionError "
        "instead, so the caller cannot mistake a failure for an empty answer."
    ),
    "raised_other": (
        "A reply that does not validate should raise ExtractionError; your function raised "
        "{raised} instead."
    ),
}
hint = HINTS.hint


EXCEPTION_HINTS = [
    (raised_with("AttributeError", "'Anthropic' object"), hint("anthropic_client")),
    (raised_with("AttributeError", "'OpenAI' object", "'messages'"), hint("openai_client")),
]


@cache
def _models() -> dict[str, Any]:
    return run_source(MODELS_SOURCE, "<07.4 models>")


def validation_problem(model_class: str, content: str) -> list[str] | None:
    """The fields (as dotted paths) whose values fail, ``[]`` for text that is not JSON at all,
    ``None`` when the reply validates."""
    from pydantic import ValidationError

    try:
        _models()[model_class].model_validate_json(content)
    except ValidationError as error:
        return [".".join(map(str, e["loc"])) for e in error.errors() if e["loc"]]
    return None


def validated(model_class: str, content: str) -> dict[str, Any]:
    return _models()[model_class].model_validate_json(content).model_dump(mode="json")


def cases() -> list[tuple[str, str, str | None, str]]:
    """(text, model class, scripted reply or None for the toy model, "openai" or "anthropic"),
    the visible ones first."""
    rng = hidden_rng("07.4")
    table: list[tuple[str, str, str | None, str]] = [
        (PERSON_TEXT, "Person", None, "openai"),
        ("Alice is 30 and lives in Paris.", "Person", None, "openai"),
        ("小明要去北京和上海玩5晚。", "Trip", None, "openai"),
        (PERSON_TEXT, "Person", BAD_AGE, "openai"),
        ("Bob lives in London.", "Person", '{"name": "Bob"}', "openai"),
        (
            "张三 spends 4 nights in 上海 and 北京.",
            "Trip",
            "Sorry, I cannot answer that.",
            "openai",
        ),
        (PERSON_TEXT, "Person", None, "anthropic"),
        ("小明要去北京和上海玩5晚。", "Trip", None, "anthropic"),
        ("张三住在北京。", "Person", TOO_LONG, "anthropic"),
    ]
    people, places = ["张三", "李雷", "Carol", "Dave"], ["北京", "上海", "Paris", "Berlin"]
    for api in ("openai", "anthropic"):
        person, place = rng.choice(people), rng.choice(places)
        sample = f"{person} lives in {place} and is {rng.randint(20, 70)}."
        table.append((sample, "Person", None, api))
    nights = rng.randint(2, 9)
    bad_trip = f'{{"name": "Carol", "cities": "上海", "nights": {nights}}}'
    table.append(("Carol", "Trip", bad_trip, "openai"))
    return table


@exercise("07.4", notebook=NOTEBOOK, title="extract", points=2, rules=RULES, hints=HINTS)
def check_extract(learner: Learner) -> str:
    from course_lib.local_model import HeuristicPolicy, ScriptedPolicy

    table = cases()
    for index, (sample, model_class, scripted, api) in enumerate(table):
        policy = ScriptedPolicy([scripted]) if scripted is not None else HeuristicPolicy()
        session = learner.model(policy, model_name=CHECK_MODEL, seed=740 + index)
        case = case_label(sample, model_class, scripted, api)
        reply = learner.run(
            f"{MODELS_SOURCE}\nModel = {model_class}\n{RUN}",
            result="answer",
            bind={
                "extract": learner.target("extract"),
                "client": learner.client(session, api=api),
                "text": sample,
                "model_name": CHECK_MODEL,
            },
        )
        if reply.raised and not session.exchanges:
            raise_learner_error(case, reply, EXCEPTION_HINTS)
        if api == "anthropic":
            diagnose_anthropic_request(case, sample, session.exchanges, model_class)
            content = text_of_message(session.exchanges[0].reply)
        else:
            diagnose_request(case, sample, session.exchanges, raised=reply.raised)
            content = session.exchanges[0].reply["choices"][0]["message"]["content"]
        problem = validation_problem(model_class, content)
        if problem is None:
            expect_instance(case, model_class, validated(model_class, content), reply, api)
        else:
            expect_extraction_error(case, model_class, problem, reply)
    return text("summary", count=len(table))


def expect_instance(
    case: str, model_class: str, expected: dict, reply: Reply, api: str = "openai"
) -> None:
    __tracebackhide__ = True
    wanted = Plain(text("instance", model_class=model_class))
    if reply.raised:
        raise_learner_error(case, reply, EXCEPTION_HINTS)
    answer = reply.value
    if not answer["is_schema_model"]:
        kind = answer["class"]
        key = "return_parsed_output" if api == "anthropic" else "return_model"
        fail(case, wanted, Plain(text("returned", kind=kind)), hint(key, kind=kind))
    expect_equal(case, expected, answer["fields"], hint=hint("return_fields"))


def first_line(reply: Reply) -> str:
    """The first line of what was raised (pydantic's later lines name its own version)."""
    return reply.raised_text.splitlines()[0][:300] if reply.raised_text else ""


def expect_extraction_error(case: str, model_class: str, fields: list[str], reply: Reply) -> None:
    __tracebackhide__ = True
    names = ", ".join(fields)
    field_text = text("fields", names=names) if fields else ""
    wanted = Plain(text("raises", model_class=model_class, fields=field_text))
    if not reply.raised:
        kind = reply.value["class"] if isinstance(reply.value, dict) else reply.type
        key = "returned_none" if kind == "NoneType" else "unvalidated"
        fail(case, wanted, Plain(text("returned", kind=kind)), hint(key))
    if reply.raised_a("ValidationError") and not reply.raised_a("ExtractionError"):
        fail(case, wanted, Plain(first_line(reply)), hint("wrap"))
    if not reply.raised_a("ExtractionError"):
        fail(case, wanted, Plain(first_line(reply)), hint("raised_other", raised=reply.type))
    missing = [
        f for f in [model_class, *(f.split(".")[0] for f in fields)] if f not in reply.message
    ]
    if missing:
        chosen = hint("message", model_class=model_class, names=names or text("no_fields"))
        fail(case, wanted, Plain(first_line(reply)), chosen)
    if not {"ValidationError", "JSONDecodeError"} & set(reply.cause_types):
        fail(case, wanted, Plain(first_line(reply)), hint("from_error"))

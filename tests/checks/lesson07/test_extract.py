"""Exercise 07.4: the solution passes; a wrong extract fails on the rule it breaks."""

from __future__ import annotations

import json

import anthropic
import pytest
from pydantic import ValidationError
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from course_lib.checks.lesson07.extract import cases, validation_problem
from course_lib.reference import to_strict
from lesson07.notebook import solution


def extract_with(  # noqa: C901 (one wrong answer per rule)
    *,
    model=True,
    system=False,
    schema="parse",
    returns="parsed",
    validate=True,
    wrap=True,
    names_model=True,
    cause="from error",
    api="chat",
    claude="parse",
):
    """An extract with one chosen mistake (the defaults give a correct one)."""
    extraction_error = solution("ExtractionError")

    def from_claude(client, text, schema_model, model):
        """The Anthropic road: ``claude`` names its mistake."""
        messages = [{"role": "user", "content": text}]
        try:
            if claude == "create, no format":
                reply = client.messages.create(model=model, max_tokens=1024, messages=messages)
                return schema_model.model_validate_json(reply.content[0].text)
            tokens = 512 if claude == "max_tokens 512" else 1024
            reply = client.messages.parse(
                model=model, max_tokens=tokens, messages=messages, output_format=schema_model
            )
        except ValidationError as error:
            raise extraction_error(f"{schema_model.__name__}: {error}") from error
        return reply if claude == "the reply" else reply.parsed_output

    def extract(client, text, schema_model, **kwargs):
        if claude != "chat everywhere" and isinstance(client, anthropic.Anthropic):
            return from_claude(client, text, schema_model, kwargs["model"])
        used_model = kwargs["model"] if model else "local-toy"
        messages = [{"role": "user", "content": text}]
        if system:
            messages.insert(0, {"role": "system", "content": "Extract the data."})
        if schema == "parse":
            ask = client.chat.completions.parse
            response_format = schema_model
        else:
            ask = client.chat.completions.create
            raw = schema_model.model_json_schema()
            response_format = {
                "type": "json_schema",
                "json_schema": {
                    "name": schema_model.__name__,
                    "schema": to_strict(raw) if schema == "to_strict" else raw,
                    "strict": True,
                },
            }
        try:
            reply = ask(model=used_model, messages=messages, response_format=response_format)
            message = reply.choices[0].message
            if returns == "dict":
                return json.loads(message.content)
            if not validate:
                return schema_model.model_construct(**json.loads(message.content))
            if schema != "parse":
                return schema_model.model_validate_json(message.content)
            return message.parsed
        except ValidationError as error:
            if not wrap:
                raise
            if not names_model:  # says that it failed, not what failed
                raise extraction_error("The reply does not fit the schema.") from error
            problem = extraction_error(f"The reply does not fit {schema_model.__name__}: {error}")
            if cause == "none":
                raise problem from None
            if cause == "implicit":
                raise problem  # noqa: B904 (the mistake under test)
            raise problem from error

    if api == "responses":

        def extract(client, text, schema_model, **kwargs):  # noqa: F811 (the mistake under test)
            try:
                reply = client.responses.parse(
                    model=kwargs["model"], input=text, text_format=schema_model
                )
            except ValidationError as error:
                raise extraction_error(f"{schema_model.__name__}: {error}") from error
            return reply.output_parsed

    return extract


def test_the_solution_passes_every_text():
    assert evaluate("07.4", solution("extract")) == "Exercise 07.4 passed: extract (12 texts)."


def test_the_helper_without_mistakes_passes():
    assert evaluate("07.4", extract_with()).startswith("Exercise 07.4 passed")


def test_a_strict_schema_made_with_lesson_06s_to_strict_and_validated_by_hand_passes():
    assert evaluate("07.4", extract_with(schema="to_strict")).startswith("Exercise 07.4 passed")


def test_the_cases_hold_replies_that_validate_and_replies_that_do_not():
    scripted = [reply for _, _, reply, api in cases() if reply is not None and api == "openai"]
    assert validation_problem("Person", scripted[0]) == ["age"]
    assert validation_problem("Person", scripted[1]) == ["city", "age"]
    assert validation_problem("Trip", scripted[2]) == []  # not JSON at all: no field to name
    assert validation_problem("Person", '{"name": "张三", "city": "北京", "age": 30}') is None


# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE = {
    "07.4": {
        "model": extract_with(model=False),
        "messages": extract_with(system=True),
        "strict_schema": extract_with(schema="pydantic's own"),
        "instance": extract_with(returns="dict"),
        "anthropic": extract_with(claude="chat everywhere"),
        "max_tokens": extract_with(claude="max_tokens 512"),
        "anthropic_format": extract_with(claude="create, no format"),
        "anthropic_instance": extract_with(claude="the reply"),
        "validate": extract_with(schema="to_strict", validate=False),
        "wrap": extract_with(wrap=False),
        "message": extract_with(names_model=False),
        "from": extract_with(cause="implicit"),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["07.4"]))
def test_a_wrong_extract_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("07.4", rule, WRONG_BY_RULE["07.4"][rule])


def test_trusting_the_json_is_told_it_skipped_validation():
    message = rejected("07.4", WRONG_BY_RULE["07.4"]["validate"])
    assert 'with the reply \'{"name": "张三", "city": "北京", "age": "thirty"}\'' in message
    assert "Expected: ExtractionError naming Person and the field(s) age" in message
    assert "model_construct or building the object by hand skips validation" in message


def test_pydantics_own_schema_sent_as_strict_is_told_why_strict_mode_refused_it():
    message = rejected("07.4", WRONG_BY_RULE["07.4"]["strict_schema"])
    assert "model_json_schema() leaves objects open" in message
    assert "'additionalProperties' is required to be supplied and to be false" in message


def test_letting_pydantics_error_through_is_told_to_wrap_it():
    message = rejected("07.4", WRONG_BY_RULE["07.4"]["wrap"])
    assert "Got:      ValidationError: 1 validation error for Person" in message
    assert "raise ExtractionError(...) from it" in message


def test_an_error_that_does_not_name_the_model_is_told_what_to_name():
    message = rejected("07.4", WRONG_BY_RULE["07.4"]["message"])
    assert "should name the schema model (Person) and the fields that failed (age)" in message


def test_returning_a_dict_is_told_to_return_the_model():
    message = rejected("07.4", WRONG_BY_RULE["07.4"]["instance"])
    assert "Expected: an instance of Person" in message and "Got:      a returned dict" in message


def test_json_object_mode_is_told_it_does_not_follow_the_schema():
    def extract(client, text, schema_model, *, model):
        reply = client.chat.completions.create(
            model=model,
            messages=[{"role": "user", "content": text}],
            response_format={"type": "json_object"},
        )
        return schema_model.model_validate_json(reply.choices[0].message.content)

    assert '"json_object" promises JSON, not your schema' in rejected("07.4", extract)


def test_a_forced_tool_is_told_it_works_but_response_format_is_asked():
    def extract(client, text, schema_model, *, model):
        tool = {
            "type": "function",
            "function": {
                "name": "record",
                "parameters": to_strict(schema_model.model_json_schema()),
            },
        }
        reply = client.chat.completions.create(
            model=model,
            messages=[{"role": "user", "content": text}],
            tools=[tool],
            tool_choice={"type": "function", "function": {"name": "record"}},
        )
        arguments = reply.choices[0].message.tool_calls[0].function.arguments
        return schema_model.model_validate_json(arguments)

    assert "A forced tool gets JSON too" in rejected("07.4", extract)


def test_its_own_stub_is_not_done_yet():
    def extract(client, text, schema_model, *, model):
        raise NotImplementedError("Exercise 07.4: parse with response_format=schema_model ...")

    with pytest.raises(NotDoneYet):
        evaluate("07.4", extract)


@pytest.mark.parametrize("cause", ["implicit", "none"])
def test_an_extraction_error_not_raised_from_the_validation_error_is_told_to_use_from(cause):
    assert "from error inside the except ValidationError" in rejected(
        "07.4", extract_with(cause=cause)
    )


def test_returning_none_for_a_reply_that_does_not_fit_is_told_to_raise():
    def extract(client, text, schema_model, *, model):
        try:
            reply = client.chat.completions.parse(
                model=model,
                messages=[{"role": "user", "content": text}],
                response_format=schema_model,
            )
        except ValidationError:
            return None
        return reply.choices[0].message.parsed

    assert "your function returned None: raise ExtractionError" in rejected("07.4", extract)


def test_the_responses_api_route_is_told_this_exercise_uses_chat_completions():
    message = rejected("07.4", extract_with(api="responses"))
    assert "With an OpenAI client this exercise uses Chat Completions" in message


def test_chat_completions_asked_of_an_anthropic_client_is_told_to_use_messages_parse():
    message = rejected("07.4", WRONG_BY_RULE["07.4"]["anthropic"])
    assert "extract(anthropic_client, '张三住在北京，今年30岁。', Person" in message
    assert "This client is an Anthropic one" in message


def test_messages_parse_asked_of_an_openai_client_is_told_it_is_an_openai_one():
    def extract(client, text, schema_model, *, model):
        reply = client.messages.parse(
            model=model,
            max_tokens=1024,
            messages=[{"role": "user", "content": text}],
            output_format=schema_model,
        )
        return reply.parsed_output

    assert "This client is an OpenAI one, which has no messages.parse" in rejected("07.4", extract)


def test_anthropic_without_output_config_is_told_to_ask_for_the_format():
    message = rejected("07.4", WRONG_BY_RULE["07.4"]["anthropic_format"])
    assert "Where:    the request's output_config" in message
    assert "sends output_config.format" in message


def test_pydantics_own_schema_sent_to_anthropic_is_told_why_it_was_refused():
    def extract(client, text, schema_model, *, model):
        if not isinstance(client, anthropic.Anthropic):
            return solution("extract")(client, text, schema_model, model=model)
        reply = client.messages.create(
            model=model,
            max_tokens=1024,
            messages=[{"role": "user", "content": text}],
            output_config={
                "format": {"type": "json_schema", "schema": schema_model.model_json_schema()}
            },
        )
        return schema_model.model_validate_json(reply.content[0].text)

    message = rejected("07.4", extract)
    assert "Anthropic refused the schema" in message
    assert "'additionalProperties' must be explicitly set to false" in message


def test_returning_anthropics_parsed_message_is_told_to_return_parsed_output():
    message = rejected("07.4", WRONG_BY_RULE["07.4"]["anthropic_instance"])
    assert "reply.parsed_output" in message and "a ParsedMessage" in message


def test_a_cut_short_anthropic_reply_let_through_is_told_to_wrap_it():
    def extract(client, text, schema_model, *, model):
        if isinstance(client, anthropic.Anthropic):
            return client.messages.parse(
                model=model,
                max_tokens=1024,
                messages=[{"role": "user", "content": text}],
                output_format=schema_model,
            ).parsed_output
        return solution("extract")(client, text, schema_model, model=model)

    message = rejected("07.4", extract)
    assert "with a reply longer than max_tokens" in message
    assert "raise ExtractionError(...) from it" in message


def test_an_own_strict_schema_for_each_provider_and_a_chinese_message_pass():
    """A different road: create() with schemas made by lesson 06's to_strict, validated by hand,
    and the error worded in Chinese (it names the model and the fields, which is what counts)."""
    extraction_error = solution("ExtractionError")

    def extract(client, text, schema_model, *, model):
        schema = to_strict(schema_model.model_json_schema())
        messages = [{"role": "user", "content": text}]
        if hasattr(client, "chat"):
            fmt = {"type": "json_schema", "json_schema": {"name": "data", "schema": schema}}
            fmt["json_schema"]["strict"] = True
            reply = client.chat.completions.create(
                model=model, messages=messages, response_format=fmt
            )
            raw = reply.choices[0].message.content
        else:
            reply = client.messages.create(
                model=model,
                max_tokens=1024,
                messages=messages,
                output_config={"format": {"type": "json_schema", "schema": schema}},
            )
            raw = "".join(b.text for b in reply.content if b.type == "text")
        try:
            return schema_model.model_validate_json(raw)
        except ValidationError as error:
            fields = "、".join(str(e["loc"][0]) for e in error.errors() if e["loc"])
            raise extraction_error(
                f"模型的回复不符合 {schema_model.__name__}，出错的字段：{fields or '（不是 JSON）'}"
            ) from error

    assert evaluate("07.4", extract).startswith("Exercise 07.4 passed")
